// Benchmark: releases of millions of cells through the C boundary, as the
// shim makes them: one or two integer keys per cell, each key the 8 bytes
// of its Datum. Prints, per case, the seconds of the whole idp_release and
// of its parts measured alone (dictionary encoding of the keys, the noise),
// with seeded and with production randomness. Run: scripts/bench (or
// build/tests/bench_wide_release [cells]); figures in test/bench/README.md.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "invariants/cell_keys.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// n cells keyed by (g) or (g / 1000, g): int8 Datums, row-major.
struct WideCells {
  std::size_t n_columns;
  std::vector<std::uint64_t> datums;
  std::vector<const void*> data;
  std::vector<std::uint32_t> size;
  std::vector<std::int64_t> counts;

  WideCells(std::size_t n, std::size_t columns) : n_columns(columns), datums(n * columns), counts(n, 3) {
    for (std::size_t g = 0; g < n; ++g) {
      if (columns == 2) datums[g * 2] = g / 1000;
      datums[g * columns + columns - 1] = g;
    }
    for (std::size_t i = 0; i < datums.size(); ++i) {
      data.push_back(&datums[i]);
      size.push_back(8);
    }
  }
};

void run(const char* label, const WideCells& cells, const char* mechanism, const char* margin, bool seeded) {
  const char* names[] = {"state", "g"};
  const char* one_name[] = {"g"};
  idp_request request{};
  request.mechanism = mechanism;
  request.epsilon = 1;
  request.has_delta = std::string(mechanism) == "subspace_gaussian";
  request.delta = 1e-9;
  const char* margins[] = {margin};
  request.n_margins = margin ? 1 : 0;
  request.margins = margins;
  const std::size_t n = cells.counts.size();
  idp_cells in{cells.n_columns, cells.n_columns == 2 ? names : one_name, n,
               {cells.data.data(), cells.size.data()}, cells.counts.data(), false, 0, {}};
  idp_randomness randomness{seeded, 7, 1};
  idp_error error{};
  idp_release_table* table = nullptr;
  const auto start = Clock::now();
  if (idp_release(&request, &in, &randomness, nullptr, &table, &error) != IDP_OK) {
    std::fprintf(stderr, "%s: %s\n", label, error.message);
    std::exit(1);
  }
  const double total = seconds_since(start);
  idp_free_release(table);
  std::printf("  %-34s %-8s %7.3f s  %6.1f ns/cell\n", label, seeded ? "seeded" : "os", total, total * 1e9 / n);
}

void encode_only(const char* label, const WideCells& cells) {
  const invariant_dp::KeyRows rows{cells.counts.size(), cells.n_columns, cells.data.data(), cells.size.data(), 1};
  std::vector<std::string> names = cells.n_columns == 2 ? std::vector<std::string>{"state", "g"}
                                                        : std::vector<std::string>{"g"};
  const auto start = Clock::now();
  const invariant_dp::CellKeys keys(rows, names, invariant_dp::Interrupts());
  const double total = seconds_since(start);
  std::printf("  %-34s %-8s %7.3f s  %6.1f ns/cell (%u levels)\n", label, "-", total,
              total * 1e9 / cells.counts.size(), keys.n_levels(cells.n_columns - 1));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5000000;
  std::printf("bench_wide_release: %zu cells\n", n);
  const WideCells one(n, 1), two(n, 2);
  encode_only("keys: dictionary, 1 column", one);
  encode_only("keys: dictionary, 2 columns", two);
  for (bool seeded : {true, false}) {
    run("discrete_laplace", one, "discrete_laplace", nullptr, seeded);
    run("integer_laplace, margin {state}", two, "integer_laplace", "state", seeded);
    run("subspace_gaussian, margin {state}", two, "subspace_gaussian", "state", seeded);
  }
  return 0;
}

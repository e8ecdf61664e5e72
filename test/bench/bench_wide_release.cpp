// Benchmark: releases of millions of cells through the C boundary, as the
// shim makes them: one or two integer keys per cell, each key the 8 bytes
// of its Datum. Prints, per case, the seconds of the whole idp_release and
// of its parts measured alone (dictionary encoding of the keys, the noise),
// with seeded and with production randomness. Run: scripts/bench (or
// build/tests/bench_wide_release [cells]); figures in test/bench/README.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "capi/capi_convert.hpp"
#include "capi/invariant_dp_core.h"
#include "invariants/cell_keys.hpp"
#include "prepared_release.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// n cells keyed by (g) or (g / 1000, g): int8 Datums, coded as the shim
// codes them while rows arrive (one encoder per column, a batch of rows per
// call), and the seconds that took. Rows arrive in the order of g (a sorted
// source: no lookup while keys ascend) or shuffled (through the index).
// Column g brings a new key on every row: the shim passes it row-numbered
// (no codes), and lets the core write the release over the counts.
struct WideCells {
  std::size_t n_columns;
  std::vector<idp_key_encoder*> encoders;
  std::vector<idp_key_dictionary> dictionaries;
  std::vector<std::vector<std::uint32_t>> codes;  // a column's side by side
  std::vector<const std::uint32_t*> columns;
  std::vector<const std::uint32_t*> shim_columns;  // row-numbered columns NULL, as the shim passes them
  std::vector<std::int64_t> counts;
  double coding_seconds = 0;

  WideCells(std::size_t n, std::size_t n_key_columns, bool shuffled = false)
      : n_columns(n_key_columns), codes(n_key_columns, std::vector<std::uint32_t>(n)), counts(n, 3) {
    constexpr std::size_t kBatch = 64;
    std::uint64_t datums[kBatch];
    const bool nulls[kBatch] = {};
    std::vector<std::uint64_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    if (shuffled) std::shuffle(order.begin(), order.end(), std::mt19937_64(3));
    for (auto& column : codes) columns.push_back(column.data());
    for (std::size_t k = 0; k < n_columns; ++k) encoders.push_back(idp_key_encoder_new_words());
    idp_error error{};
    const auto start = Clock::now();
    for (std::size_t begin = 0; begin < n; begin += kBatch) {
      const std::size_t rows = std::min(kBatch, n - begin);
      for (std::size_t k = 0; k < n_columns; ++k) {
        for (std::size_t r = 0; r < rows; ++r) {
          const std::uint64_t g = order[begin + r];
          datums[r] = n_columns == 2 && k == 0 ? g / 1000 : g;
        }
        if (idp_key_encode_words(encoders[k], rows, datums, nulls, codes[k].data() + begin, nullptr, SIZE_MAX,
                                 &error) != IDP_OK)
          std::exit(1);
      }
    }
    coding_seconds = seconds_since(start);
    for (idp_key_encoder* encoder : encoders) dictionaries.push_back(idp_key_encoder_dictionary(encoder));
    for (std::size_t k = 0; k < n_columns; ++k)
      shim_columns.push_back(dictionaries[k].n_levels == n ? nullptr : columns[k]);
  }
  ~WideCells() {
    for (idp_key_encoder* encoder : encoders) idp_key_encoder_free(encoder);
  }
  std::size_t bytes() const {
    std::size_t total = n_columns * counts.size() * sizeof(std::uint32_t) + counts.size() * sizeof(std::int64_t);
    for (idp_key_encoder* encoder : encoders) total += idp_key_encoder_bytes(encoder);
    return total;
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
  std::vector<std::int64_t> counts = cells.counts;  // noised in place, as the shim allows
  idp_cells in{cells.n_columns, cells.n_columns == 2 ? names : one_name, cells.dictionaries.data(), n,
               {cells.shim_columns.data()}, counts.data(), false, 0, {}, {}, {}, true};
  idp_randomness randomness{seeded, 7, 1};
  idp_error error{};
  idp_release_table* table = nullptr;
  const auto start = Clock::now();
  if (invariant_dp::prepare_and_release(&request, &in, &randomness, nullptr, &table, &error) != IDP_OK) {
    std::fprintf(stderr, "%s: %s\n", label, error.message);
    std::exit(1);
  }
  const double total = seconds_since(start);
  idp_free_release(table);
  std::printf("  %-34s %-8s %7.3f s  %6.1f ns/cell\n", label, seeded ? "seeded" : "os", total, total * 1e9 / n);
}

void encode_only(const char* label, const WideCells& cells) {
  std::vector<invariant_dp::KeyDictionary> dictionaries;
  for (const idp_key_dictionary& d : cells.dictionaries) dictionaries.push_back(invariant_dp::capi::dictionary_of(d));
  const invariant_dp::KeyRows rows{cells.counts.size(), cells.n_columns, cells.columns.data(), dictionaries.data(), 1};
  std::vector<std::string> names = cells.n_columns == 2 ? std::vector<std::string>{"state", "g"}
                                                        : std::vector<std::string>{"g"};
  std::printf("  %-34s %-8s %7.3f s  %6.1f ns/cell (%.1f bytes/cell held: codes, counts, dictionaries)\n",
              (std::string(label) + ": coding").c_str(), "-", cells.coding_seconds,
              cells.coding_seconds * 1e9 / cells.counts.size(), double(cells.bytes()) / cells.counts.size());
  const auto start = Clock::now();
  const invariant_dp::CellKeys keys(rows, names, invariant_dp::Interrupts(), nullptr, invariant_dp::KeyCodes::borrowed);
  const double total = seconds_since(start);
  std::printf("  %-34s %-8s %7.3f s  %6.1f ns/cell (%u levels)\n", (std::string(label) + ": cells").c_str(), "-",
              total, total * 1e9 / cells.counts.size(), keys.n_levels(cells.n_columns - 1));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5000000;
  std::printf("bench_wide_release: %zu cells\n", n);
  const WideCells one(n, 1), two(n, 2);
  encode_only("keys, 1 column", one);
  encode_only("keys, 2 columns", two);
  encode_only("keys, 1 column, shuffled", WideCells(n, 1, true));
  for (bool seeded : {true, false}) {
    run("discrete_laplace", one, "discrete_laplace", nullptr, seeded);
    run("integer_laplace, margin {state}", two, "integer_laplace", "state", seeded);
    run("subspace_gaussian, margin {state}", two, "subspace_gaussian", "state", seeded);
  }
  return 0;
}

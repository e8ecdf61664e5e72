// Benchmark: subspace_gaussian on a 1000 x 1000 table with both margins
// (1M cells), through run_release. Prints wall time per release and the
// peak resident memory, against the targets: under 1 s, memory linear in
// cells. Run: scripts/bench (or build/tests/bench_subspace).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "bench_checks.hpp"
#include "bench_timing.hpp"
#include "mechanisms/release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;

namespace {

using namespace bench_timing;

double current_rss_mb() {
  long pages = 0, resident = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(statm);
  }
  return resident * double(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

ReleaseRequest gaussian_with_margins(std::vector<std::string> margins) {
  RawRequest raw;
  raw.mechanism = margins.size() == 1 ? "subspace_laplace" : "subspace_gaussian";
  raw.epsilon = 1;
  raw.has_delta = margins.size() != 1;
  raw.delta = 1e-9;
  raw.margins = std::move(margins);
  return validate_request(raw);
}

void bench(const char* label, int rows, int columns, const std::vector<std::string>& margins) {
  const auto table = test_tables::grid({"r", "c"}, {rows, columns}, std::vector<std::int64_t>(size_t(rows) * columns, 10));
  const auto keys = table.keys();
  const double rss_before = current_rss_mb();
  const auto request = gaussian_with_margins(margins);
  auto rng = make_seeded_random_source(1);
  double best = 1e9;
  for (int repeat = 0; repeat < 3; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = run_release(keys, table.counts.data(), request, *rng, Interrupts());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, seconds);
    bench_checks::assert_two_way_margins(result.values, table.counts, size_t(rows), size_t(columns), margins.size() == 2);
  }
  // Each bench runs in its own process: the peak above the resident size
  // just before the releases is what a release needs beyond its input.
  const double grown = peak_rss_mb() - rss_before;
  std::printf("%-44s cells=%9d  release=%.3f s  release_memory=%.0f MB (%.0f bytes/cell)\n", label, rows * columns,
              best, grown, grown * 1048576.0 / (double(rows) * columns));
}

}  // namespace

// Runs one bench in a child process so its memory figure is its own.
void in_child(const char* label, int rows, int columns, const std::vector<std::string>& margins) {
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    bench(label, rows, columns, margins);
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
}

int main() {
  in_child("subspace_gaussian 250x250, both margins", 250, 250, {"r", "c"});
  in_child("subspace_gaussian 500x500, both margins", 500, 500, {"r", "c"});
  in_child("subspace_gaussian 1000x1000, both margins", 1000, 1000, {"r", "c"});
  in_child("subspace_gaussian 2000x1000, both margins", 2000, 1000, {"r", "c"});
  in_child("subspace_laplace 2000x1000, partition {r}", 2000, 1000, {"r"});
  return 0;
}

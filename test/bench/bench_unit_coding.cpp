// Memory of the privacy-unit coding (mechanisms/privacy_unit.hpp: the
// rows' units and cells numbered by invariants/key_tuples.hpp, each unit's
// contribution bounded): peak resident memory the call adds above its
// inputs, and its time, for rows of (unit, two keys) with a given number of
// rows, units and distinct cells. The keys' hash table grows with the
// distinct cells, so the memory above the rows' own per-row arrays should
// not follow the rows.
// Usage: bench_unit_coding [rows] [units] [cells] (default 10^7 rows,
// rows / 5 units, 108,000 cells); one workload per process.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "invariants/key_rows.hpp"
#include "mechanisms/privacy_unit.hpp"
#include "random_source.hpp"

using namespace invariant_dp;

namespace {

// Resident memory now and at its peak, in MB (Linux: /proc/self/status).
double status_mb(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  // Ends: the file has a few dozen lines.
  while (std::getline(status, line))
    if (line.compare(0, prefix.size(), prefix) == 0) return std::atof(line.c_str() + prefix.size()) / 1024.0;
  return -1;
}

// The process's user and system CPU seconds (the system's: mostly the
// kernel zeroing pages on their first touch).
struct Times {
  double user, system;
};
Times times() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

// A dictionary of n words 0 .. n - 1 (codes are the words).
struct Words {
  std::vector<std::uint64_t> words;
  KeyDictionary dictionary;
  explicit Words(std::size_t n) : words(n) {
    for (std::size_t i = 0; i < n; ++i) words[i] = i;
    dictionary.n_levels = n;
    dictionary.words = words.data();
  }
};

void run(std::size_t rows, std::size_t units, std::size_t cells) {
  // Cells as (row key, column key) on a near-square grid; a unit's rows
  // fall in a few cells of its own (heavy units, light cells), in no order.
  std::size_t side = 1;
  // Ends: side grows to sqrt(cells), a few thousand at most.
  while (side * side < cells) ++side;
  const std::size_t other = (cells + side - 1) / side;
  auto rng = make_seeded_random_source(5);
  std::vector<std::uint32_t> unit(rows), first(rows), second(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint64_t u = rng->uniform_below(units);
    const std::uint64_t c = (u * 2654435761u + rng->uniform_below(4)) % cells;
    unit[i] = std::uint32_t(u);
    first[i] = std::uint32_t(c / other);
    second[i] = std::uint32_t(c % other);
  }
  const Words unit_words(units), first_words(side), second_words(other);
  const std::uint32_t* unit_column[] = {unit.data()};
  const std::uint32_t* key_columns[] = {first.data(), second.data()};
  const KeyDictionary key_dictionaries[] = {first_words.dictionary, second_words.dictionary};
  KeyRows unit_rows, key_rows;
  unit_rows.n_rows = key_rows.n_rows = rows;
  unit_rows.n_columns = 1;
  unit_rows.columns = unit_column;
  unit_rows.dictionaries = &unit_words.dictionary;
  key_rows.n_columns = 2;
  key_rows.columns = key_columns;
  key_rows.dictionaries = key_dictionaries;
  ContributionBounds bounds;
  bounds.max_groups_per_unit = 2;
  bounds.max_rows_per_group = 1;

  const double resident = status_mb("VmRSS"), peak_before = status_mb("VmHWM");
  const Times before = times();
  const auto start = std::chrono::steady_clock::now();
  const BoundedCells out = bound_contributions(unit_rows, key_rows, nullptr, bounds, *rng, Interrupts{});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Times after = times();
  const double peak = status_mb("VmHWM");
  // The bounded counts' checksum: the same before and after a change of
  // the coding that keeps the release (seeded).
  std::uint64_t checksum = 1469598103934665603ull;
  for (std::size_t c = 0; c < out.counts.size(); ++c)
    checksum = (checksum ^ std::uint64_t(out.counts[c]) ^ (std::uint64_t(out.units[c]) << 32) ^
                (std::uint64_t(out.row[c]) << 16)) * 1099511628211ull;
  std::printf("%9zu rows %8zu units %7zu cells (%zu found, checksum %016llx): %.2f s (user %.2f s, system %.2f s), peak RSS +%.0f MB "
              "above the inputs (%.1f bytes/row; peak %.0f MB, inputs %.0f MB)\n",
              rows, units, cells, out.counts.size(), static_cast<unsigned long long>(checksum), seconds, after.user - before.user, after.system - before.system,
              peak - resident, (peak - resident) * 1048576.0 / double(rows), peak, peak_before);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  // One workload per process: the peak is the process's.
  const std::size_t rows = argc > 1 ? std::size_t(std::atoll(argv[1])) : 10000000;
  const std::size_t units = argc > 2 ? std::size_t(std::atoll(argv[2])) : rows / 5;
  const std::size_t cells = argc > 3 ? std::size_t(std::atoll(argv[3])) : 108000;
  run(rows, units, cells);
  return 0;
}

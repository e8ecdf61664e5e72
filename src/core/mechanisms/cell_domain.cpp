#include "cell_domain.hpp"

#include <cstring>
#include <unordered_map>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

// An unambiguous encoding of a key tuple: per column a NULL flag, then the
// length-prefixed text.
std::string tuple_key(const char* const* keys, std::size_t n_columns) {
  std::string out;
  for (std::size_t c = 0; c < n_columns; ++c) {
    if (keys[c] == nullptr) {
      out += '\0';
      continue;
    }
    const std::size_t length = std::strlen(keys[c]);
    out += '\1';
    out.append(reinterpret_cast<const char*>(&length), sizeof length);
    out.append(keys[c], length);
  }
  return out;
}

std::string describe(const char* const* keys, const std::vector<std::string>& names) {
  std::string columns, values;
  for (std::size_t c = 0; c < names.size(); ++c) {
    columns += (c ? ", " : "") + names[c];
    values += (c ? ", " : "") + std::string(keys[c] ? keys[c] : "NULL");
  }
  return "Key (" + columns + ")=(" + values + ")";
}

}  // namespace

std::vector<std::int64_t> counts_on_domain(std::size_t n_columns, std::size_t n_domain_rows,
                                           const char* const* domain_keys, std::size_t n_source_rows,
                                           const char* const* source_keys, const std::int64_t* source_counts,
                                           const std::vector<std::string>& column_names,
                                           const Interrupts& interrupts) {
  std::unordered_map<std::string, std::size_t> index;
  index.reserve(n_domain_rows);
  for (std::size_t i = 0; i < n_domain_rows; ++i) {
    interrupts.poll_every(i);
    if (!index.emplace(tuple_key(domain_keys + i * n_columns, n_columns), i).second)
      throw InvalidData("duplicate cell in domain",
                        describe(domain_keys + i * n_columns, column_names) + " appears more than once.",
                        "The domain query must list every cell exactly once, e.g. with SELECT DISTINCT.");
  }
  std::vector<std::int64_t> counts(n_domain_rows, 0);
  std::vector<bool> seen(n_domain_rows, false);
  for (std::size_t r = 0; r < n_source_rows; ++r) {
    interrupts.poll_every(r);
    const char* const* keys = source_keys + r * n_columns;
    const auto found = index.find(tuple_key(keys, n_columns));
    if (found == index.end())
      throw InvalidData("source cell is not in the domain", describe(keys, column_names) + " is not a domain row.",
                        "The domain must list every cell the source can return.");
    if (seen[found->second])
      throw InvalidData("duplicate cell in source", describe(keys, column_names) + " appears more than once.",
                        "Make the source return one row per cell, e.g. with GROUP BY over every key column.");
    seen[found->second] = true;
    counts[found->second] = source_counts[r];
  }
  return counts;
}

}  // namespace invariant_dp

// The keys of a table of cells as the shim hands them over: row-major, each
// key a byte string (the value's binary image: equal values are equal
// bytes) or SQL NULL. Nothing is copied: the bytes stay the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace invariant_dp {

struct KeyRows {
  std::size_t n_rows = 0;
  std::size_t n_columns = 0;
  const void* const* data = nullptr;   // n_rows * n_columns; nullptr = SQL NULL
  const std::uint32_t* size = nullptr;  // bytes of each non-NULL key
  // Which rows these are (source, domain), for errors that name a key
  // (KeyRef::table in errors.hpp).
  int table = 0;
  // A view of some of a table's rows: row r is the table's row_ids[r]
  // (nullptr: row r itself), which is how errors name it.
  const std::uint32_t* row_ids = nullptr;

  std::uint64_t table_row(std::size_t row) const { return row_ids ? row_ids[row] : row; }

  bool is_null(std::size_t row, std::size_t column) const { return data[row * n_columns + column] == nullptr; }
  std::string_view key(std::size_t row, std::size_t column) const {
    const std::size_t i = row * n_columns + column;
    return {static_cast<const char*>(data[i]), size[i]};
  }
};

// A 64-bit hash of a key's bytes (not cryptographic: it spreads keys over
// hash tables; collisions are resolved by comparing the bytes).
inline std::uint64_t hash_key_bytes(std::string_view bytes, std::uint64_t seed = 0) {
  std::uint64_t h = seed ^ (0x9e3779b97f4a7c15ull * (bytes.size() + 1));
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t word;
    __builtin_memcpy(&word, bytes.data() + i, 8);
    h = (h ^ word) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  std::uint64_t tail = 0;
  if (i < bytes.size()) __builtin_memcpy(&tail, bytes.data() + i, bytes.size() - i);
  h = (h ^ tail) * 0x94d049bb133111ebull;
  return h ^ (h >> 29);
}

}  // namespace invariant_dp

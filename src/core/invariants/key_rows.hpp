// The keys of a table of cells as the shim hands them over, dictionary
// encoded: each key column has a dictionary of its distinct keys (a key is
// a byte string, the value's binary image, so equal values are equal bytes;
// or SQL NULL), and each row holds its keys' codes in those dictionaries.
// Tables that share dictionaries (a source and its domain) have equal codes
// for equal keys. Nothing is copied: codes and bytes stay the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace invariant_dp {

// One key column's distinct keys, by code: each key's bytes where data
// points, or, for keys of 8 bytes each (KeyEncoder::of_words), side by side
// as words: 8 bytes each, or 4 while every word is a sign-extended 32-bit
// integer (word_array.hpp), read back as the same 8 bytes.
struct KeyDictionary {
  std::size_t n_levels = 0;
  const void* const* data = nullptr;   // n_levels; nullptr = SQL NULL
  const std::uint32_t* size = nullptr;  // bytes of each non-NULL key
  const std::uint64_t* words = nullptr;  // instead of data and size: n_levels words
  std::uint32_t null_code = 0xffffffffu;  // with words: the code of SQL NULL (none: 0xffffffff)
  const std::int32_t* narrow_words = nullptr;  // instead of words: each word's low 32 bits, sign-extended

  bool has_words() const { return words != nullptr || narrow_words != nullptr; }
  bool is_null(std::uint32_t code) const { return has_words() ? code == null_code : data[code] == nullptr; }
  std::uint64_t word(std::uint32_t code) const {
    return words != nullptr ? words[code] : static_cast<std::uint64_t>(static_cast<std::int64_t>(narrow_words[code]));
  }
  // A key's bytes; a word's 8 bytes are written to scratch first (they are
  // kept in 4 bytes or side by side, not as a key of their own).
  std::string_view key(std::uint32_t code, std::uint64_t& scratch) const {
    if (!has_words()) return {static_cast<const char*>(data[code]), size[code]};
    scratch = word(code);
    return {reinterpret_cast<const char*>(&scratch), sizeof scratch};
  }
};

struct KeyRows {
  std::size_t n_rows = 0;
  std::size_t n_columns = 0;
  // n_columns arrays of n_rows codes each. A null array is a row-numbered
  // column: row r's code is r (each row brought a new key; idp_keys), so
  // its keys differ on every row. Read codes through code(), or check
  // row_numbered() before reading an array.
  const std::uint32_t* const* columns = nullptr;
  const KeyDictionary* dictionaries = nullptr;  // n_columns
  // Which rows these are (source, domain), for errors that name a key
  // (KeyRef::table in errors.hpp).
  int table = 0;
  // A view of some of a table's rows: row r is the table's row_ids[r]
  // (nullptr: row r itself), which is how errors name it.
  const std::uint32_t* row_ids = nullptr;

  std::uint64_t table_row(std::size_t row) const { return row_ids ? row_ids[row] : row; }

  bool row_numbered(std::size_t column) const { return columns[column] == nullptr; }
  std::uint32_t code(std::size_t row, std::size_t column) const {
    return columns[column] != nullptr ? columns[column][row] : static_cast<std::uint32_t>(row);
  }
  bool is_null(std::size_t row, std::size_t column) const { return dictionaries[column].is_null(code(row, column)); }
  std::string_view key(std::size_t row, std::size_t column, std::uint64_t& scratch) const {
    return dictionaries[column].key(code(row, column), scratch);
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

// Dictionary encoding of one key column as its rows arrive: each distinct
// key (its bytes, or SQL NULL) gets a code, numbered 0, 1, ... in order of
// first appearance, and its bytes are kept once. The shim codes every key
// of a source as it reads it, so a release holds 4 bytes per key per row
// instead of the row's values, and the core never hashes a key's bytes
// again (KeyRows carries the codes and these dictionaries).
//
// An open-addressing table of codes grown by doubling (the row count is not
// known while rows arrive), at most three quarters full. A slot's position
// comes from the high bits of its key's hash and the slot keeps those 32
// bits beside the code, so the table is ordered by hash: growing it streams
// through the old table and the new one in order, without reading a key
// again. Keys are coded in batches whose slots are prefetched together, so
// that the cache misses of a table of millions of slots overlap, and a
// batch never triggers a growth midway. Every array lives in a
// GrowingArray (huge pages, grown by mremap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../growing_array.hpp"
#include "../interrupts.hpp"
#include "key_rows.hpp"

namespace invariant_dp {

class KeyEncoder {
 public:
  KeyEncoder();

  // codes[i] = the code of key i (data[i] nullptr: SQL NULL; else size[i]
  // bytes at data[i], copied when new). Throws TooLarge past 3 * 2^30 keys,
  // and before any growth that would take bytes() past max_bytes (so the
  // caller's memory limit is never exceeded, not even for a moment: a
  // growing table and the one it replaces count together); polls
  // interrupts between batches and while the table grows.
  void code(std::size_t n, const void* const* data, const std::uint32_t* size, std::uint32_t* codes,
            const Interrupts& interrupts, std::size_t max_bytes = SIZE_MAX);

  std::size_t n_levels() const { return data_.size(); }
  // The distinct keys by code; valid until the next call of code().
  KeyDictionary dictionary() const { return KeyDictionary{data_.size(), data_.data(), size_.data()}; }
  // Memory held, for the caller's accounting.
  std::size_t bytes() const;

 private:
  static constexpr std::uint32_t kNoCode = 0xffffffffu;
  std::uint32_t add(const void* data, std::uint32_t size);
  std::uint32_t add_level(const void* data, std::uint32_t size);
  void reserve(std::size_t levels, const Interrupts& interrupts);
  // TooLarge if growing by `more` bytes would pass max_bytes_.
  void need(std::size_t more) const;
  std::size_t home(std::uint64_t hash) const { return static_cast<std::size_t>(hash >> shift_); }

  GrowingArray<std::uint64_t> slots_;  // 0 empty, else (hash's high 32 bits) << 32 | (code + 1)
  std::size_t capacity_ = 0;           // slots, a power of two
  unsigned shift_ = 64;                // home slot = hash >> shift_
  GrowingArray<const void*> data_;     // per code
  GrowingArray<std::uint32_t> size_;   // per code
  std::uint32_t null_code_ = kNoCode;
  // The keys' bytes, in chunks that never move.
  std::vector<GrowingArray<char>> chunks_;
  std::size_t chunk_bytes_ = 0;
  char* next_ = nullptr;
  std::size_t left_ = 0;
  std::size_t max_bytes_ = SIZE_MAX;  // of the current code() call
};

}  // namespace invariant_dp

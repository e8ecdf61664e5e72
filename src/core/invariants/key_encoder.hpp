// Dictionary encoding of one key column as its rows arrive: each distinct
// key (its bytes, or SQL NULL) gets a code, numbered 0, 1, ... in order of
// first appearance, and its bytes are kept once. The shim codes every key
// of a source as it reads it, so a release holds 4 bytes per key per row
// instead of the row's values, and the core never hashes a key's bytes
// again (KeyRows carries the codes and these dictionaries).
//
// Keys of any length: while they arrive in ascending byte order (a source
// sorted by a key whose order is its bytes' in the collation used: GEOIDs,
// zero-padded codes, any key under the C collation), a key above the
// greatest so far is new by that alone and one equal to it gets its code,
// with no hashing and no table; the first key below the greatest builds
// the table from the keys kept. Then an open-addressing table of codes
// grown by doubling (the row count is not known while rows arrive), at
// most three quarters full. A slot's position comes from the high bits of
// its key's hash and the slot keeps those 32 bits beside the code, so the
// table is ordered by
// hash: growing it streams through the old table and the new one in order,
// without reading a key again. Keys are coded in batches whose slots are
// prefetched together, so that the cache misses of a table of millions of
// slots overlap, and a batch never triggers a growth midway.
//
// Keys of 8 bytes (words: a by-value SQL type's Datum, of_words()) are kept
// side by side in one array, 8 bytes a key instead of a pointer, a size and
// a copy, or 4 while they are sign-extended 32-bit integers (word_array.hpp).
// Words are usually integers of a narrow range (ids, codes, years,
// dates): while the distinct words, read as integers, span at most four
// times their number, the code of word w is found at index w - base of an
// array, without hashing, and keys that arrive in order touch that array in
// order. A wider spread switches to the hash table (and back, when it
// narrows again as the table grows). Before either, while the words do not
// decrease (a sorted source: ids in order, a GROUP BY read through an
// index, generate_series), a word above all before it is new by that alone
// and gets the next code, one equal to the greatest gets its code: no
// lookup and no index. The first word below the greatest builds the index
// or the table from the words kept. Every array lives in a GrowingArray
// (huge pages, grown by mremap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../growing_array.hpp"
#include "../interrupts.hpp"
#include "key_rows.hpp"
#include "word_array.hpp"

namespace invariant_dp {

class KeyEncoder {
 public:
  // Keys of any length.
  KeyEncoder();
  // Keys of exactly 8 bytes each.
  static KeyEncoder of_words();
  // Keys of any length whose bytes the caller keeps: a new key's code
  // points at the caller's bytes, which must stay valid until the caller
  // moves them with keep_bytes(), before its next call of code() (the
  // shim keeps each distinct key once, as the Datum it returns).
  static KeyEncoder of_borrowed_bytes();
  // Key `code`'s bytes (equal to the ones coded) now live at data.
  void keep_bytes(std::uint32_t code, const void* data);

  // codes[i] = the code of key i (data[i] nullptr: SQL NULL; else size[i]
  // bytes at data[i], copied when new; of_words(): size[i] must be 8).
  // Throws TooLarge past 3 * 2^30 keys, and before any growth that would
  // take bytes() past max_bytes (so the caller's memory limit is never
  // exceeded, not even for a moment: a growing table and the one it
  // replaces count together); polls interrupts between batches and while
  // the table grows.
  void code(std::size_t n, const void* const* data, const std::uint32_t* size, std::uint32_t* codes,
            const Interrupts& interrupts, std::size_t max_bytes = SIZE_MAX);

  // The same for an encoder of_words(), its keys given as words (nulls[i]:
  // SQL NULL, words[i] then ignored).
  void code(std::size_t n, const std::uint64_t* words, const bool* nulls, std::uint32_t* codes,
            const Interrupts& interrupts, std::size_t max_bytes = SIZE_MAX);

  std::size_t n_levels() const { return words_mode_ ? words_.size() : data_.size(); }
  // The distinct keys by code; valid until the next call of code().
  KeyDictionary dictionary() const;
  // Memory held, for the caller's accounting.
  std::size_t bytes() const;
  // How words are coded now (tests, benchmarks): through the array indexed
  // by value; or with no lookup, none having decreased yet.
  bool indexes_words() const { return words_mode_ && dense_ && !ascending_; }
  bool words_ascending() const { return words_mode_ && ascending_; }
  bool bytes_ascending() const { return !words_mode_ && ascending_; }

 private:
  static constexpr std::uint32_t kNoCode = 0xffffffffu;
  // Keys of any length.
  std::size_t code_ascending_bytes(std::size_t begin, std::size_t end, const void* const* data,
                                   const std::uint32_t* size, std::uint32_t* codes);
  void leave_ascending_bytes(std::size_t more_levels, const Interrupts& interrupts);
  void code_bytes(std::size_t begin, std::size_t end, const void* const* data, const std::uint32_t* size,
                  std::uint32_t* codes);
  std::uint32_t add(const void* data, std::uint32_t size);
  std::uint32_t add_level(const void* data, std::uint32_t size);
  // Words.
  void code_words(std::size_t n, const std::uint64_t* words, const bool* nulls, std::uint32_t* codes,
                  const Interrupts& interrupts);
  std::uint32_t hashed_word_code(std::uint64_t word, const Interrupts& interrupts);
  std::uint32_t add_word(std::uint64_t word, const Interrupts& interrupts);
  void leave_ascending(std::size_t more_levels, const Interrupts& interrupts);
  bool widen_index(std::uint64_t ordered, const Interrupts& interrupts);
  void index_to_table(std::size_t more_levels, const Interrupts& interrupts);
  void table_to_index(const Interrupts& interrupts);
  bool span_fits_index(std::uint64_t low, std::uint64_t high, std::size_t levels) const;
  // The hash table (both kinds of keys).
  void reserve(std::size_t levels, const Interrupts& interrupts);
  void insert_slot(std::uint64_t hash, std::uint32_t code);
  // TooLarge if growing by `more` bytes would pass max_bytes_.
  void need(std::size_t more) const;
  std::size_t home(std::uint64_t hash) const { return static_cast<std::size_t>(hash >> shift_); }

  GrowingArray<std::uint64_t> slots_;  // 0 empty, else (hash's high 32 bits) << 32 | (code + 1)
  std::size_t capacity_ = 0;           // slots, a power of two
  unsigned shift_ = 64;                // home slot = hash >> shift_
  std::uint32_t null_code_ = kNoCode;
  std::size_t max_bytes_ = SIZE_MAX;  // of the current code() call

  // Keys of any length: pointers and sizes by code, the bytes in chunks
  // that never move.
  GrowingArray<const void*> data_;
  GrowingArray<std::uint32_t> size_;
  bool borrowed_ = false;  // of_borrowed_bytes(): no chunks, the caller's bytes
  std::vector<GrowingArray<char>> chunks_;
  std::size_t chunk_bytes_ = 0;
  char* next_ = nullptr;
  std::size_t left_ = 0;

  // Words: by code (the NULL's code holds 0). Words are compared as
  // integers in "ordered" form, the word with its top bit flipped, so that
  // a negative integer sits just below zero.
  bool words_mode_ = false;
  WordArray words_;
  bool ascending_ = true;              // no key so far below one before it: no index_ nor slots_ yet
  std::uint32_t high_code_ = kNoCode;  // while ascending_: the code of the greatest key (none yet)
  bool dense_ = true;                  // coded through index_, else through slots_
  GrowingArray<std::uint32_t> index_;  // code + 1 of ordered word index_base_ + i; 0: not seen
  std::uint64_t index_base_ = 0;
  std::size_t index_size_ = 0;
  std::uint64_t low_ = UINT64_MAX, high_ = 0;  // the least and greatest ordered word seen (none yet: high_ < low_)
};

}  // namespace invariant_dp

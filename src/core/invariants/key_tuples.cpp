#include "key_tuples.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "../large_buffer.hpp"

namespace invariant_dp {
namespace {

std::uint64_t hash_on(const KeyRows& keys, const std::vector<std::size_t>& columns, std::size_t row) {
  std::uint64_t h = 0x2545f4914f6cdd1dull;
  for (std::size_t c : columns)
    h = (h ^ (keys.is_null(row, c) ? 0x6a09e667f3bcc909ull : hash_key_bytes(keys.key(row, c), c))) *
        0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

bool same_on(const KeyRows& keys, const std::vector<std::size_t>& columns, std::size_t a, std::size_t b) {
  for (std::size_t c : columns) {
    if (keys.is_null(a, c) != keys.is_null(b, c)) return false;
    if (!keys.is_null(a, c) && keys.key(a, c) != keys.key(b, c)) return false;
  }
  return true;
}

// A row's tuple on the columns as one byte string: per column a NULL flag,
// then the key's length and bytes. Equal tuples, equal encodings.
void encode_on(const KeyRows& keys, const std::vector<std::size_t>& columns, std::size_t row, std::string& out) {
  out.clear();
  for (std::size_t c : columns) {
    if (keys.is_null(row, c)) {
      out.push_back('\0');
      continue;
    }
    const std::string_view key = keys.key(row, c);
    const auto size = static_cast<std::uint32_t>(key.size());
    out.push_back('\1');
    out.append(reinterpret_cast<const char*>(&size), sizeof size);
    out.append(key.data(), key.size());
  }
}

}  // namespace

// The table holds one slot per distinct tuple (its id + 1, and the hash's
// high 32 bits as a tag), kept at most half full by doubling: sized by the
// distinct tuples, not the rows, so that 100k cells of 10M rows probe a
// table that stays in cache. Each distinct tuple's encoding is copied once
// into a compact arena, and a probe whose tag matches compares against it
// there rather than reading the first row's keys wherever they lie.
TupleIds dense_tuple_ids(const KeyRows& keys, const std::vector<std::size_t>& columns, const Interrupts& interrupts) {
  TupleIds out;
  out.id = zeroed_large_buffer<std::uint32_t>(keys.n_rows);
  std::size_t capacity = 1024;
  std::vector<std::uint64_t> slots = zeroed_large_buffer<std::uint64_t>(capacity);
  std::vector<std::uint64_t> hash_of_id;        // per id, for doubling
  std::vector<std::uint64_t> encoding_start{0};  // per id + 1, into arena
  std::string arena, encoding;
  constexpr std::uint64_t kTagBits = 0xffffffff00000000ull;
  const auto place = [&](std::uint64_t hash, std::uint32_t id) {
    const std::size_t mask = capacity - 1;
    std::size_t slot = static_cast<std::size_t>(hash) & mask;
    while (slots[slot] != 0) slot = (slot + 1) & mask;
    slots[slot] = (hash & kTagBits) | (std::uint64_t(id) + 1);
  };
  // Rows are hashed a block ahead and their slots prefetched, so that the
  // cache misses of a table of millions of tuples overlap instead of
  // queueing one after another.
  constexpr std::size_t kBlock = 32;
  std::uint64_t block_hash[kBlock];
  for (std::size_t i = 0; i < keys.n_rows; ++i) {
    interrupts.poll_every(i);
    if (i % kBlock == 0) {
      const std::size_t end = std::min(keys.n_rows, i + kBlock);
      for (std::size_t r = i; r < end; ++r) {
        block_hash[r - i] = hash_on(keys, columns, r);
        __builtin_prefetch(&slots[static_cast<std::size_t>(block_hash[r - i]) & (capacity - 1)]);
      }
    }
    // Sources sorted by the keys repeat the previous row's tuple.
    if (i > 0 && same_on(keys, columns, i, i - 1)) {
      out.id[i] = out.id[i - 1];
      continue;
    }
    const std::uint64_t hash = block_hash[i % kBlock];
    encode_on(keys, columns, i, encoding);
    const std::size_t mask = capacity - 1;
    for (std::size_t slot = static_cast<std::size_t>(hash) & mask;; slot = (slot + 1) & mask) {
      const std::uint64_t entry = slots[slot];
      if (entry == 0) {
        const std::uint32_t id = out.n_ids++;
        out.id[i] = id;
        hash_of_id.push_back(hash);
        arena.append(encoding);
        encoding_start.push_back(arena.size());
        slots[slot] = (hash & kTagBits) | (std::uint64_t(id) + 1);
        if (2 * std::size_t(out.n_ids) > capacity) {
          capacity *= 2;
          slots = zeroed_large_buffer<std::uint64_t>(capacity);
          for (std::uint32_t j = 0; j < out.n_ids; ++j) {
            interrupts.poll_every(j);
            place(hash_of_id[j], j);
          }
        }
        break;
      }
      if ((entry & kTagBits) != (hash & kTagBits)) continue;
      const std::uint32_t id = static_cast<std::uint32_t>((entry & ~kTagBits) - 1);
      const std::size_t begin = encoding_start[id], length = encoding_start[id + 1] - begin;
      if (length == encoding.size() && std::memcmp(arena.data() + begin, encoding.data(), length) == 0) {
        out.id[i] = id;
        break;
      }
    }
  }
  return out;
}

std::uint64_t tuple_hash(const KeyRows& keys, std::size_t row) {
  std::uint64_t h = 0x2545f4914f6cdd1dull;
  for (std::size_t c = 0; c < keys.n_columns; ++c)
    h = (h ^ (keys.is_null(row, c) ? 0x6a09e667f3bcc909ull : hash_key_bytes(keys.key(row, c), c))) *
        0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

bool same_tuple(const KeyRows& a, std::size_t row_a, const KeyRows& b, std::size_t row_b) {
  for (std::size_t c = 0; c < a.n_columns; ++c) {
    if (a.is_null(row_a, c) != b.is_null(row_b, c)) return false;
    if (!a.is_null(row_a, c) && a.key(row_a, c) != b.key(row_b, c)) return false;
  }
  return true;
}

TupleIds dense_tuple_ids(const KeyRows& keys, const Interrupts& interrupts) {
  std::vector<std::size_t> all(keys.n_columns);
  std::iota(all.begin(), all.end(), 0);
  return dense_tuple_ids(keys, all, interrupts);
}

}  // namespace invariant_dp

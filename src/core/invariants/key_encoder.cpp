#include "key_encoder.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

constexpr std::uint64_t kKeyTagBits = 0xffffffff00000000ull;
constexpr std::size_t kBatch = 32;
constexpr std::size_t kFirstCapacity = 1024;
constexpr std::size_t kMaxLevels = std::size_t(3) << 30;
constexpr std::size_t kFirstChunk = std::size_t(64) << 10;
constexpr std::size_t kLargestChunk = std::size_t(32) << 20;
// Words: the index may cover this many entries whatever the number of
// keys (256 kB), or four per key (16 bytes a key, what the hash table's
// slots take at two-thirds load, without its growths).
constexpr std::size_t kIndexFloor = std::size_t(1) << 16;
constexpr std::size_t kIndexPerLevel = 4;
constexpr std::size_t kFirstIndex = 1024;
constexpr std::uint64_t kSignBit = std::uint64_t(1) << 63;

std::uint64_t key_hash(const void* data, std::uint32_t size) {
  return hash_key_bytes(std::string_view(static_cast<const char*>(data), size));
}

TooLarge too_many_levels() {
  return TooLarge("too many distinct keys in a column",
                  "A key column has more than " + std::to_string(kMaxLevels) + " distinct values.",
                  "Release fewer cells at a time.");
}

std::uint64_t word_hash(std::uint64_t word) { return key_hash(&word, sizeof word); }

std::uint64_t load_word(const void* data) {
  std::uint64_t word;
  std::memcpy(&word, data, sizeof word);
  return word;
}

}  // namespace

KeyEncoder::KeyEncoder() { reserve(0, Interrupts()); }

KeyEncoder KeyEncoder::of_words() {
  KeyEncoder encoder;
  encoder.words_mode_ = true;
  encoder.slots_ = GrowingArray<std::uint64_t>();
  encoder.capacity_ = 0;
  return encoder;
}

KeyEncoder KeyEncoder::of_borrowed_bytes() {
  KeyEncoder encoder;
  encoder.borrowed_ = true;
  return encoder;
}

void KeyEncoder::keep_bytes(std::uint32_t code, const void* data) {
  if (!borrowed_ || code >= data_.size() || data_[code] == nullptr || data == nullptr)
    throw Error("keep_bytes for a key the encoder does not borrow");
  data_[code] = data;
}

KeyDictionary KeyEncoder::dictionary() const {
  if (words_mode_) return KeyDictionary{words_.size(), nullptr, nullptr, words_.wide(), null_code_, words_.narrow()};
  return KeyDictionary{data_.size(), data_.data(), size_.data()};
}

std::size_t KeyEncoder::bytes() const {
  return slots_.bytes() + data_.bytes() + size_.bytes() + chunk_bytes_ + words_.bytes() + index_.bytes();
}

void KeyEncoder::need(std::size_t more) const {
  if (more > max_bytes_ || bytes() > max_bytes_ - more)
    throw TooLarge("a key dictionary would pass its memory limit",
                   "It holds " + std::to_string(bytes()) + " bytes and would grow by " + std::to_string(more) + ".");
}

// Room in the hash table for `levels` keys at most three quarters full.
// Growing re-inserts the old slots in their order, which is the order of
// their new homes too, so both tables are read and written front to back.
// Words whose spread has narrowed enough go to the index instead.
void KeyEncoder::reserve(std::size_t levels, const Interrupts& interrupts) {
  // A slot keeps 32 bits of hash, enough to place it in 2^32 slots.
  if (levels > kMaxLevels) throw too_many_levels();
  if (capacity_ != 0 && levels * 4 <= capacity_ * 3) return;
  if (words_mode_ && capacity_ != 0 && span_fits_index(low_, high_, levels)) {
    table_to_index(interrupts);
    return;
  }
  std::size_t capacity = std::max(capacity_, kFirstCapacity);
  // Ends: doubles until the table is at most 3/4 full, at most 64 times.
  while (levels * 4 > capacity * 3) capacity *= 2;
  unsigned shift = 64;
  while ((std::size_t(1) << (64 - shift)) < capacity) --shift;
  need(capacity * sizeof(std::uint64_t));  // the old table stays until the new one is filled
  GrowingArray<std::uint64_t> slots;
  slots.reserve(capacity);
  const std::size_t mask = capacity - 1;
  for (std::size_t old = 0; old < capacity_; ++old) {
    interrupts.poll_every(old);
    const std::uint64_t entry = slots_[old];
    if (entry == 0) continue;
    std::size_t slot = static_cast<std::size_t>(entry >> shift);
    // Ends: open addressing at most 3/4 full: an empty slot is met.
    while (slots[slot] != 0) slot = (slot + 1) & mask;
    slots[slot] = entry;
  }
  slots_ = std::move(slots);
  capacity_ = capacity;
  shift_ = shift;
}

// A code into a slot known to be free of it (the table has room).
void KeyEncoder::insert_slot(std::uint64_t hash, std::uint32_t code) {
  const std::size_t mask = capacity_ - 1;
  std::size_t slot = home(hash);
  // Ends: open addressing at most 3/4 full: an empty slot is met.
  while (slots_[slot] != 0) slot = (slot + 1) & mask;
  slots_[slot] = (hash & kKeyTagBits) | (std::uint64_t(code) + 1);
}

// A new key's bytes, copied into the current chunk (or borrowed), then its code.
std::uint32_t KeyEncoder::add(const void* data, std::uint32_t size) {
  if (borrowed_) return add_level(data, size);
  // (An empty key needs a real address too: nullptr means NULL.)
  if (next_ == nullptr || size > left_) {
    const std::size_t chunk =
        std::max<std::size_t>(size, std::min(kLargestChunk, kFirstChunk << std::min<std::size_t>(chunks_.size(), 9)));
    need(chunk);
    chunks_.emplace_back();
    chunks_.back().reserve(chunk);
    chunk_bytes_ += chunks_.back().bytes();
    next_ = chunks_.back().data();
    left_ = chunk;
  }
  const std::uint32_t code = add_level(next_, size);
  std::memcpy(next_, data, size);
  next_ += size;
  left_ -= size;
  return code;
}

// The next code, for a key at data (nullptr: NULL).
std::uint32_t KeyEncoder::add_level(const void* data, std::uint32_t size) {
  need(data_.growth_for(data_.size() + 1) + size_.growth_for(size_.size() + 1));
  data_.push_back(data);
  size_.push_back(size);
  return static_cast<std::uint32_t>(data_.size() - 1);
}

void KeyEncoder::code(std::size_t n, const void* const* data, const std::uint32_t* size, std::uint32_t* codes,
                      const Interrupts& interrupts, std::size_t max_bytes) {
  max_bytes_ = max_bytes;
  for (std::size_t begin = 0; begin < n; begin += kBatch) {
    interrupts.poll_every(begin / kBatch);
    const std::size_t end = std::min(n, begin + kBatch);
    if (words_mode_) {
      std::uint64_t words[kBatch];
      bool nulls[kBatch];
      for (std::size_t i = begin; i < end; ++i) {
        nulls[i - begin] = data[i] == nullptr;
        words[i - begin] = 0;
        if (nulls[i - begin]) continue;
        if (size[i] != sizeof(std::uint64_t))
          throw Error("a key of " + std::to_string(size[i]) + " bytes given to an encoder of 8-byte words");
        words[i - begin] = load_word(data[i]);
      }
      code_words(end - begin, words, nulls, codes + begin, interrupts);
    } else {
      std::size_t from = begin;
      if (ascending_) {
        from = code_ascending_bytes(begin, end, data, size, codes);
        if (from == end) continue;
        leave_ascending_bytes(end - from, interrupts);
      }
      reserve(data_.size() + (end - from), interrupts);
      code_bytes(from, end, data, size, codes);
    }
  }
}

void KeyEncoder::code(std::size_t n, const std::uint64_t* words, const bool* nulls, std::uint32_t* codes,
                      const Interrupts& interrupts, std::size_t max_bytes) {
  if (!words_mode_) throw Error("words given to an encoder of keys of any length");
  max_bytes_ = max_bytes;
  for (std::size_t begin = 0; begin < n; begin += kBatch) {
    interrupts.poll_every(begin / kBatch);
    code_words(std::min(n, begin + kBatch) - begin, words + begin, nulls + begin, codes + begin, interrupts);
  }
}

// Keys while they ascend (no key below the greatest yet); returns the
// first that does not (end: none did).
std::size_t KeyEncoder::code_ascending_bytes(std::size_t begin, std::size_t end, const void* const* data,
                                             const std::uint32_t* size, std::uint32_t* codes) {
  for (std::size_t i = begin; i < end; ++i) {
    if (data[i] == nullptr) {
      if (null_code_ == kNoCode) null_code_ = add_level(nullptr, 0);
      codes[i] = null_code_;
      continue;
    }
    const std::string_view key(static_cast<const char*>(data[i]), size[i]);
    if (high_code_ != kNoCode) {
      const int order = key.compare(std::string_view(static_cast<const char*>(data_[high_code_]), size_[high_code_]));
      if (order < 0) return i;
      if (order == 0) {  // the greatest again (a sorted source's repeats)
        codes[i] = high_code_;
        continue;
      }
    }
    codes[i] = high_code_ = add(data[i], size[i]);
  }
  return end;
}

// The first key below the greatest: the table, built from the keys kept,
// with room for `more_levels` new ones.
void KeyEncoder::leave_ascending_bytes(std::size_t more_levels, const Interrupts& interrupts) {
  ascending_ = false;
  reserve(data_.size() + more_levels, interrupts);
  for (std::size_t code = 0; code < data_.size(); ++code) {
    interrupts.poll_every(code);
    if (data_[code] != nullptr) insert_slot(key_hash(data_[code], size_[code]), static_cast<std::uint32_t>(code));
  }
}

void KeyEncoder::code_bytes(std::size_t begin, std::size_t end, const void* const* data, const std::uint32_t* size,
                            std::uint32_t* codes) {
  std::uint64_t hash[kBatch];
  const std::size_t mask = capacity_ - 1;
  for (std::size_t i = begin; i < end; ++i) {
    if (data[i] == nullptr) continue;
    hash[i - begin] = key_hash(data[i], size[i]);
    __builtin_prefetch(&slots_[home(hash[i - begin])]);
  }
  for (std::size_t i = begin; i < end; ++i) {
    if (data[i] == nullptr) {
      if (null_code_ == kNoCode) null_code_ = add_level(nullptr, 0);
      codes[i] = null_code_;
      continue;
    }
    const std::uint64_t h = hash[i - begin];
    const std::string_view key(static_cast<const char*>(data[i]), size[i]);
    // Ends: open addressing at most 3/4 full: a match or an empty slot is met.
    for (std::size_t slot = home(h);; slot = (slot + 1) & mask) {
      const std::uint64_t entry = slots_[slot];
      if (entry == 0) {
        codes[i] = add(data[i], size[i]);
        slots_[slot] = (h & kKeyTagBits) | (std::uint64_t(codes[i]) + 1);
        break;
      }
      if ((entry & kKeyTagBits) != (h & kKeyTagBits)) continue;
      const std::uint32_t other = static_cast<std::uint32_t>(entry & ~kKeyTagBits) - 1;
      if (std::string_view(static_cast<const char*>(data_[other]), size_[other]) == key) {
        codes[i] = other;
        break;
      }
    }
  }
}

// ---- Words ----

std::uint32_t KeyEncoder::add_word(std::uint64_t word, const Interrupts& interrupts) {
  if (words_.size() >= kMaxLevels) throw too_many_levels();
  const std::size_t growth = words_.growth_for(word);
  if (growth != 0) need(growth);  // (the sum need() takes is not for every key)
  words_.push_back(word, interrupts);
  return static_cast<std::uint32_t>(words_.size() - 1);
}

// Whether ordered words from low to high (low <= high) may be indexed for `levels` keys.
bool KeyEncoder::span_fits_index(std::uint64_t low, std::uint64_t high, std::size_t levels) const {
  return high - low < std::max(kIndexFloor, kIndexPerLevel * levels);
}

// A batch of at most kBatch words.
void KeyEncoder::code_words(std::size_t n, const std::uint64_t* words, const bool* nulls, std::uint32_t* codes,
                            const Interrupts& interrupts) {
  if (!dense_) reserve(words_.size() + n, interrupts);  // (may return to the index)
  if (dense_) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t offset = (words[i] ^ kSignBit) - index_base_;
      if (!nulls[i] && offset < index_size_) __builtin_prefetch(&index_[offset]);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (nulls[i]) {
      if (null_code_ == kNoCode) null_code_ = add_word(0, interrupts);
      codes[i] = null_code_;
      continue;
    }
    const std::uint64_t word = words[i];
    const std::uint64_t ordered = word ^ kSignBit;
    if (ascending_) {
      if (high_ < low_ || ordered > high_) {  // greater than every word seen: a new one
        codes[i] = high_code_ = add_word(word, interrupts);
        low_ = std::min(low_, ordered);
        high_ = ordered;
        continue;
      }
      if (ordered == high_) {  // the greatest again (a sorted source's repeats)
        codes[i] = high_code_;
        continue;
      }
      leave_ascending(n - i, interrupts);
    }
    if (dense_ && ordered - index_base_ >= index_size_ && !widen_index(ordered, interrupts))
      index_to_table(n - i, interrupts);
    if (!dense_) {
      codes[i] = hashed_word_code(word, interrupts);
      continue;
    }
    std::uint32_t& entry = index_[ordered - index_base_];
    if (entry == 0) {
      codes[i] = add_word(word, interrupts);
      entry = codes[i] + 1;
      low_ = std::min(low_, ordered);
      high_ = std::max(high_, ordered);
    } else {
      codes[i] = entry - 1;
    }
  }
}

// A word's code through the hash table, which has room for one more key.
std::uint32_t KeyEncoder::hashed_word_code(std::uint64_t word, const Interrupts& interrupts) {
  const std::uint64_t h = word_hash(word);
  // Ends: open addressing at most 3/4 full: a match or an empty slot is met.
  const std::size_t mask = capacity_ - 1;
  for (std::size_t slot = home(h);; slot = (slot + 1) & mask) {
    const std::uint64_t entry = slots_[slot];
    if (entry == 0) {
      const std::uint32_t code = add_word(word, interrupts);
      slots_[slot] = (h & kKeyTagBits) | (std::uint64_t(code) + 1);
      low_ = std::min(low_, word ^ kSignBit);
      high_ = std::max(high_, word ^ kSignBit);
      return code;
    }
    if ((entry & kKeyTagBits) != (h & kKeyTagBits)) continue;
    const std::uint32_t other = static_cast<std::uint32_t>(entry & ~kKeyTagBits) - 1;
    if (words_[other] == word) return other;
  }
}

// The first word below the greatest seen: from here on words are
// looked up, through the index when the words' spread fits it, else the
// hash table (with room for `more_levels` new keys), either built from the
// words kept so far.
void KeyEncoder::leave_ascending(std::size_t more_levels, const Interrupts& interrupts) {
  ascending_ = false;
  if (span_fits_index(low_, high_, words_.size()))
    table_to_index(interrupts);
  else
    index_to_table(more_levels, interrupts);
}

// Makes the index cover `ordered` (outside it) and every word seen, with
// room to grow on that side, if the spread still fits; else false.
bool KeyEncoder::widen_index(std::uint64_t ordered, const Interrupts& interrupts) {
  const std::uint64_t low = std::min(low_, ordered), high = std::max(high_, ordered);
  const std::size_t levels = words_.size() + 1;
  if (!span_fits_index(low, high, levels)) return false;
  const std::size_t span = static_cast<std::size_t>(high - low) + 1;
  const std::size_t limit = std::max(kIndexFloor, kIndexPerLevel * levels);
  const std::size_t size = std::max(span, std::min(limit, std::max(2 * index_size_, kFirstIndex)));
  const bool above = index_size_ != 0 && ordered >= index_base_;
  if (above && high - index_base_ < size) {
    // The same base: the array grows in place (mremap), new entries zero.
    need(index_.growth_for(size));
    index_.reserve(size);
    index_size_ = size;
    return true;
  }
  // Room on the side the word came from. (Offsets are taken modulo 2^64, so
  // an index may run past either end of the words and wrap around: words
  // still map one to one onto offsets.)
  const std::uint64_t base = above || index_size_ == 0 ? low : high - (size - 1);
  need(size * sizeof(std::uint32_t));
  GrowingArray<std::uint32_t> index;
  index.reserve(size);
  if (low_ <= high_) {
    // Only the entries between the least and greatest word seen are set.
    const std::size_t from = static_cast<std::size_t>(low_ - index_base_);
    const std::size_t to = static_cast<std::size_t>(low_ - base);
    const std::size_t count = static_cast<std::size_t>(high_ - low_) + 1;
    constexpr std::size_t kStep = std::size_t(1) << 20;
    for (std::size_t done = 0; done < count; done += kStep) {
      interrupts.poll();
      std::memcpy(&index[to + done], &index_[from + done], std::min(kStep, count - done) * sizeof(std::uint32_t));
    }
  }
  index_ = std::move(index);
  index_base_ = base;
  index_size_ = size;
  return true;
}

// From the index (or the ascending words) to the hash table, with room for
// `more_levels` new keys.
void KeyEncoder::index_to_table(std::size_t more_levels, const Interrupts& interrupts) {
  capacity_ = 0;
  slots_ = GrowingArray<std::uint64_t>();
  dense_ = false;
  reserve(words_.size() + more_levels, interrupts);  // (a new table: it stays a table)
  for (std::size_t code = 0; code < words_.size(); ++code) {
    interrupts.poll_every(code);
    if (code != null_code_) insert_slot(word_hash(words_[code]), static_cast<std::uint32_t>(code));
  }
  index_ = GrowingArray<std::uint32_t>();
  index_size_ = 0;
}

// From the hash table (or the ascending words) to the index (the words'
// spread fits it).
void KeyEncoder::table_to_index(const Interrupts& interrupts) {
  const std::size_t levels = words_.size();
  const std::size_t span = static_cast<std::size_t>(high_ - low_) + 1;
  const std::size_t size = std::max(span, std::min(std::max(kIndexFloor, kIndexPerLevel * levels), 2 * span));
  const std::uint64_t base = low_;
  need(size * sizeof(std::uint32_t));
  GrowingArray<std::uint32_t> index;
  index.reserve(size);
  for (std::size_t code = 0; code < levels; ++code) {
    interrupts.poll_every(code);
    if (code != null_code_) index[(words_[code] ^ kSignBit) - base] = static_cast<std::uint32_t>(code) + 1;
  }
  index_ = std::move(index);
  index_base_ = base;
  index_size_ = size;
  slots_ = GrowingArray<std::uint64_t>();
  capacity_ = 0;
  dense_ = true;
}

}  // namespace invariant_dp

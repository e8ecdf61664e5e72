#include "key_encoder.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

constexpr std::uint64_t kTagBits = 0xffffffff00000000ull;
constexpr std::size_t kBatch = 32;
constexpr std::size_t kFirstCapacity = 1024;
constexpr std::size_t kMaxLevels = std::size_t(3) << 30;
constexpr std::size_t kFirstChunk = std::size_t(64) << 10;
constexpr std::size_t kLargestChunk = std::size_t(32) << 20;

std::uint64_t key_hash(const void* data, std::uint32_t size) {
  return hash_key_bytes(std::string_view(static_cast<const char*>(data), size));
}

}  // namespace

KeyEncoder::KeyEncoder() { reserve(0, Interrupts()); }

std::size_t KeyEncoder::bytes() const { return slots_.bytes() + data_.bytes() + size_.bytes() + chunk_bytes_; }

void KeyEncoder::need(std::size_t more) const {
  if (more > max_bytes_ || bytes() > max_bytes_ - more)
    throw TooLarge("a key dictionary would pass its memory limit",
                   "It holds " + std::to_string(bytes()) + " bytes and would grow by " + std::to_string(more) + ".");
}

// Room for `levels` keys at most three quarters full. Growing re-inserts
// the old slots in their order, which is the order of their new homes too,
// so both tables are read and written front to back.
void KeyEncoder::reserve(std::size_t levels, const Interrupts& interrupts) {
  // A slot keeps 32 bits of hash, enough to place it in 2^32 slots.
  if (levels > kMaxLevels)
    throw TooLarge("too many distinct keys in a column",
                   "A key column has more than " + std::to_string(kMaxLevels) + " distinct values.",
                   "Release fewer cells at a time.");
  if (capacity_ != 0 && levels * 4 <= capacity_ * 3) return;
  std::size_t capacity = std::max(capacity_, kFirstCapacity);
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
    while (slots[slot] != 0) slot = (slot + 1) & mask;
    slots[slot] = entry;
  }
  slots_ = std::move(slots);
  capacity_ = capacity;
  shift_ = shift;
}

// A new key's bytes, copied into the current chunk, then its code.
std::uint32_t KeyEncoder::add(const void* data, std::uint32_t size) {
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
  std::uint64_t hash[kBatch];
  for (std::size_t begin = 0; begin < n; begin += kBatch) {
    interrupts.poll_every(begin / kBatch);
    const std::size_t end = std::min(n, begin + kBatch);
    reserve(data_.size() + (end - begin), interrupts);
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
      for (std::size_t slot = home(h);; slot = (slot + 1) & mask) {
        const std::uint64_t entry = slots_[slot];
        if (entry == 0) {
          codes[i] = add(data[i], size[i]);
          slots_[slot] = (h & kTagBits) | (std::uint64_t(codes[i]) + 1);
          break;
        }
        if ((entry & kTagBits) != (h & kTagBits)) continue;
        const std::uint32_t other = static_cast<std::uint32_t>(entry & ~kTagBits) - 1;
        if (std::string_view(static_cast<const char*>(data_[other]), size_[other]) == key) {
          codes[i] = other;
          break;
        }
      }
    }
  }
}

}  // namespace invariant_dp

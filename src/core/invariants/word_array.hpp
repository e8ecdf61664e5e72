// The words of a key dictionary by code (KeyEncoder::of_words): 4 bytes a
// word while every word is a sign-extended 32-bit integer, which is what
// the Datums of int2, int4, date, float4 and bool keys are, and int8 keys
// below 2^31 (ids, codes, years: most keys); else 8. Widening copies the
// words once, when the first word that needs 8 bytes arrives. A word reads
// back as the same 8 bytes either way, so whatever hashes or compares a
// key's bytes sees no difference. Half the memory of a wide release's keys.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../growing_array.hpp"
#include "../interrupts.hpp"

namespace invariant_dp {

class WordArray {
 public:
  // Whether word is the sign extension of its low 32 bits.
  static bool fits_narrow(std::uint64_t word) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(word))) == word;
  }
  static std::uint64_t widen(std::int32_t narrow) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(narrow));
  }

  std::size_t size() const { return size_; }
  std::uint64_t operator[](std::size_t code) const { return narrow_mode_ ? widen(narrow_[code]) : wide_[code]; }
  // The words side by side: one of the two is null (none yet: narrow).
  const std::int32_t* narrow() const { return narrow_mode_ ? narrow_.data() : nullptr; }
  const std::uint64_t* wide() const { return narrow_mode_ ? nullptr : wide_.data(); }
  std::size_t bytes() const { return narrow_.bytes() + wide_.bytes(); }

  // The bytes push_back(word) would add to bytes(), widening included (the
  // narrow words stay until the wide ones are filled).
  std::size_t growth_for(std::uint64_t word) const {
    if (narrow_mode_ && !fits_narrow(word)) return wide_.growth_for(size_ + 1);
    return narrow_mode_ ? narrow_.growth_for(size_ + 1) : wide_.growth_for(size_ + 1);
  }

  void push_back(std::uint64_t word, const Interrupts& interrupts) {
    if (narrow_mode_ && !fits_narrow(word)) widen_all(interrupts);
    if (narrow_mode_)
      narrow_.push_back(static_cast<std::int32_t>(word));
    else
      wide_.push_back(word);
    ++size_;
  }

 private:
  void widen_all(const Interrupts& interrupts) {
    GrowingArray<std::uint64_t> wide;
    wide.reserve(size_ + 1);
    for (std::size_t code = 0; code < size_; ++code) {
      interrupts.poll_every(code);
      wide.push_back(widen(narrow_[code]));
    }
    wide_ = std::move(wide);
    narrow_ = GrowingArray<std::int32_t>();
    narrow_mode_ = false;
  }

  std::size_t size_ = 0;
  bool narrow_mode_ = true;
  GrowingArray<std::int32_t> narrow_;
  GrowingArray<std::uint64_t> wide_;
};

}  // namespace invariant_dp

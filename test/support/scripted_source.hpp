// Test helper: a RandomSource that replays fixed words (to steer a sampler
// into a path, e.g. a word inside a table's enclosure), then either throws
// (a script that must suffice) or continues with a seeded stream.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "random_source.hpp"

namespace invariant_dp::test_sources {

class ScriptedSource final : public RandomSource {
 public:
  enum class Then { Throw, Seeded };
  explicit ScriptedSource(std::vector<std::uint64_t> words, Then then = Then::Throw)
      : words_(std::move(words)), rest_(then == Then::Seeded ? make_seeded_random_source(99) : nullptr) {}
  std::uint64_t next_u64() override {
    if (used_ < words_.size()) return words_[used_++];
    if (rest_ == nullptr) throw std::logic_error("script exhausted");
    return rest_->next_u64();
  }
  std::size_t used() const { return used_; }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t used_ = 0;
  std::unique_ptr<RandomSource> rest_;
};

}  // namespace invariant_dp::test_sources

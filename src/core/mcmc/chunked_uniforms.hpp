// Uniforms for inversions that rarely need all their bits: each draw starts
// from 16 random bits (four draws to a 64-bit word) and takes the other 37
// only when those 16 do not settle the outcome.
//
// The law is the one of RandomSource::uniform_open01(): u = k / 2^53 with k
// uniform on [1, 2^53). A draw's first 16 bits t fix k to the range
// [t 2^37, t 2^37 + 2^37 - 1]; a monotone function f of u (every
// inversion of the pair blocks: a quantile, a count of thresholds above u,
// a comparison) takes one value on the whole range when it takes the same
// value at its two ends, and then that value is f(u) for every k of the
// range. Otherwise the
// remaining 37 bits are drawn and f is evaluated at the whole u. So the
// outcome is f(u) of a k with exactly uniform_open01's law, whichever way it
// was reached; only fewer bits are read. (t = 0 is always completed: its
// range holds k = 0, which uniform_open01 rejects by drawing a new u; the
// completion does the same, so k = 0 never occurs and every other k keeps
// probability 1 / (2^53 - 1).) A draw with f over a few outcomes reads its
// 53 bits with probability about (outcomes) 2^-16: the pair blocks read
// about a quarter of a word a draw instead of a word. The same holds of the
// first 8 bits, so a law used often can keep f's value on each of their
// 256 ranges in a table, and on the next 8 bits' ranges where those do not
// settle it (ChunkTable): most draws are one lookup.
//
// Two sources: the chunks, read in a fixed order (one chunk a draw), and
// the completions. Chains coupled through common random numbers
// (table_swap_chain.hpp) give each its own stream, so that a completion
// in one chain and not in the other does not shift the chunks of every
// later draw. A single chain may pass the same source twice.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "../random_source.hpp"

namespace invariant_dp::mcmc {

class ChunkedUniforms {
 public:
  ChunkedUniforms(RandomSource& chunks, RandomSource& completions) : chunks_(&chunks), completions_(&completions) {}

  // The first 16 bits of four draws: the next word of the chunks' source,
  // read from its highest bits down (chunk()).
  std::uint64_t four() { return chunks_->next_u64(); }
  static std::uint64_t chunk(std::uint64_t four, unsigned q) { return (four >> (48 - 16 * q)) & 0xffff; }
  // An exact uniform integer below n (n >= 1) from the chunks' source.
  std::uint64_t below(std::uint64_t n) { return chunks_->uniform_below(n); }

  // A draw known by its first 16 bits.
  struct Draw {
    std::uint64_t chunk;  // t in [0, 2^16)
    double low() const { return chunk == 0 ? kUlp : double(chunk << 37) * kUlp; }  // the range's least u
    double high() const { return double((chunk << 37) | kLowMask) * kUlp; }        // its greatest u
    // Whether f's values at the two ends may settle the draw (t = 0 never:
    // its range holds the rejected k = 0).
    bool settled_by_ends() const { return chunk != 0; }
  };

  // The whole u of a draw whose ends did not settle it.
  double complete(const Draw& draw) {
    const std::uint64_t k = (draw.chunk << 37) | (completions_->next_u64() >> 27);
    if (k == 0) return completions_->uniform_open01();  // uniform_open01's rejection of k = 0
    return double(k) * kUlp;
  }

  // f(u) of a draw, for a monotone f (out of line: the callers' fast paths
  // settle most draws before this).
  template <class F>
  __attribute__((noinline)) auto settle(const Draw& draw, F f) -> decltype(f(0.5)) {
    if (draw.settled_by_ends()) {
      const auto at_low = f(draw.low());
      if (at_low == f(draw.high())) return at_low;
    }
    return f(complete(draw));
  }

  // f's value on the range of each chunk where that range settles it,
  // for draws settled by lookups (f monotone, values in [0, kFiner)): a
  // table of the first 8 bits and, with `finer`, for each of their ranges
  // that does not settle f, a table of the next 8. kUnsettled where
  // neither does, and for chunk 0 (its range holds the rejected k = 0).
  static constexpr std::uint8_t kUnsettled = 255;
  class ChunkTable {
   public:
    ChunkTable() = default;
    template <class F>
    ChunkTable(F f, bool finer);
    std::uint8_t operator()(std::uint64_t chunk) const {
      const std::uint8_t first = first_[chunk >> 8];
      if (first < kFiner) return first;
      return first == kUnsettled ? kUnsettled : finer_[std::size_t(second_[chunk >> 8]) * 256 + (chunk & 255)];
    }
    static constexpr std::uint8_t kFiner = 254;

   private:
    std::array<std::uint8_t, 256> first_{};   // f's value, kFiner (see finer_) or kUnsettled
    std::array<std::uint8_t, 256> second_{};  // where first_ is kFiner: which 256 entries of finer_
    std::vector<std::uint8_t> finer_;
  };

 private:
  static constexpr double kUlp = 1.0 / 9007199254740992.0;  // 2^-53
  static constexpr std::uint64_t kLowMask = (std::uint64_t(1) << 37) - 1;

  RandomSource* chunks_;
  RandomSource* completions_;
};

template <class F>
ChunkedUniforms::ChunkTable::ChunkTable(F f, bool finer) {
  // (f is never asked at u = 0, which no draw takes.)
  auto settled = [&](std::uint64_t low_k, std::uint64_t high_k) -> std::uint8_t {
    if (low_k == 0) return kUnsettled;
    const auto at_low = f(double(low_k) * kUlp);
    const bool one = at_low == f(double(high_k) * kUlp) && at_low >= 0 && at_low < kFiner;
    return one ? static_cast<std::uint8_t>(at_low) : kUnsettled;
  };
  for (std::uint64_t b = 0; b < 256; ++b) {
    first_[b] = settled(b << 45, ((b + 1) << 45) - 1);
    if (first_[b] != kUnsettled || !finer) continue;
    first_[b] = kFiner;
    second_[b] = static_cast<std::uint8_t>(finer_.size() / 256);
    for (std::uint64_t t = b << 8; t < (b + 1) << 8; ++t) finer_.push_back(settled(t << 37, ((t + 1) << 37) - 1));
  }
}

}  // namespace invariant_dp::mcmc

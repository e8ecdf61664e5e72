// Tilted messages at a pinned split of the non-negative cascade
// (NONNEGATIVE.md, section 4, "Exact totals over small counts").
//
// At a pinned node the children's values must sum to 0, and their law given
// that sum is unchanged when every child's message g_j(s) is multiplied by
// exp(theta s): the product gains exp(theta * 0) = 1. Where the children's
// summed mean lies far above 0 (groups of small counts, whose noises are
// one-sided), the suffix functions built from the plain messages are read
// hundreds of nats below their largest values, through tails that overstate
// them, and every coin fails. Built from the tilted messages, with theta
// putting the children's summed mean at 0, they are read near their largest
// values instead.
//
// A tilted message is an ordinary subtree message of rate rho + |theta|
// (theta < 0) whose window h~ holds h(s) exp(2 |theta| |s|) below 0 (written
// out down to the support, where h~ grows) and h(s) from 0 up (so its right
// tail is h's): rate and window together give exp(theta s) g(s), raised
// by a margin that covers the rounding. It dominates exp(theta s) g(s)
// everywhere, which is all the sampler's coin needs (the coin's numerator
// keeps the plain messages; nonnegative_cascade_sampler.hpp).
#pragma once

#include <vector>

#include "../interrupts.hpp"
#include "nonnegative_cascade_kernels.hpp"

namespace invariant_dp::hierarchy {

// By default a pinned split's children are tilted only where their summed
// mean lies at least this many nats (mean^2 / (2 var), a normal's) above 0:
// nearer, the plain messages serve.
constexpr double kPinnedTiltNats = 24;

// The tilt theta <= 0 (a multiple of 2^-40, at least -64) that puts the
// tilted children's summed mean at about 0; 0 where the plain summed mean
// lies less than min_nats above 0, or
// where a child's tilted window, from its support to past 0 and its own
// window, would pass caps[j] values (pinned_tilt_window_cap).
double pinned_split_tilt(const std::vector<ChildMessage>& children, const std::vector<std::size_t>& caps,
                         double min_nats, const Interrupts& interrupts);

// The tilted messages of one pinned split, and the windows they point into.
struct PinnedTilt {
  double theta = 0;                 // 0: the split's messages are not tilted
  std::vector<ChildMessage> plain;  // the children's own messages (the coin's numerator)
  std::vector<WindowFn> windows;    // h~ of each child
};

// Replaces children by their messages tilted by theta < 0 (the plain ones
// kept in tilt.plain), child j's of rate rho_j - theta from tables[j].
// false, leaving children as they were, where a tilted window would pass
// caps[j] values. Values more than 690 nats below a window's largest are
// stored as 2^-995 (an upper bound that stays a normal double).
bool tilt_children(std::vector<ChildMessage>& children, double theta, const std::vector<std::size_t>& caps,
                   const std::vector<const RatePowers*>& tables, PinnedTilt& tilt, const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy

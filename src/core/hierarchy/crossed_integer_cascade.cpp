// The exact crossed integer cascade; the argument is in
// crossed_integer_cascade.hpp (steps 1-3 below refer to it).
#include "crossed_integer_cascade.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "../errors.hpp"
#include "../large_buffer.hpp"
#include "../samplers/conditioned_gaussian.hpp"
#include "../samplers/klein_correction.hpp"
#include "../samplers/wide_int.hpp"
#include "crossed_cascade.hpp"
#include "integer_cascade_accuracy.hpp"
#include "integer_cascade_sampler.hpp"
#include "integer_cascade_splits.hpp"

namespace invariant_dp::hierarchy {
namespace {

constexpr std::int64_t kRoot = -1;  // the coordinate kind of a tree's root
// Bounds over products of coordinate groups use at most this many groups per
// tree (pooled_groups): 65,536 products, milliseconds even in MPFR.
constexpr std::size_t kPooledGroups = 256;

void require_unconditioned_integer(const CascadeLaw& a, const CascadeLaw& b) {
  if (a.conditioned() || b.conditioned())
    throw InvalidArgument("exact totals are not supported with crossed hierarchies",
                          "Crossed integer cascade noise is drawn without conditioning.");
}

std::int64_t checked(Int128 x) { return checked_narrow(x, "crossed integer cascade centre is out of range"); }

Uint128 product(Uint128 a, Uint128 b) {
  Uint128 out;
  if (__builtin_mul_overflow(a, b, &out))
    throw OutOfRange("the crossed variances do not fit the exact sampler's 128-bit fractions",
                     "A product of a row and a column variance needs more than 128 bits.",
                     "Give variance targets with fewer significant digits.");
  return out;
}

// A rational s^2.
struct Scale {
  Uint128 num, den;
};

}  // namespace

class CrossedIntegerCascadeSampler::Impl {
 public:
  Impl(const HierarchyTree& rows, const CascadeLaw& row_law, const HierarchyTree& cols, const CascadeLaw& col_law,
       const Interrupts& interrupts, bool correct)
      : rows_(rows),
        row_law_(row_law),
        cols_(cols),
        col_law_(col_law),
        row_splits_(rows, row_law, interrupts),
        col_splits_(cols, col_law, interrupts),
        correct_(correct),
        col_class_(cols.n_nodes(), 0) {
    for (unsigned d = 0; d < cols.height(); ++d) {
      for (std::uint32_t t = cols.level_begin(d); t < cols.level_end(d); ++t) {
        interrupts.poll_every(t);
        if (cols.n_children(t) >= 2)
          col_class_[t] = col_splits_.class_index(d, cols.n_children(t), col_law.node_variance(t, d));
      }
    }
    // One certified threshold per (row kind, column kind), at the product of
    // their smallest s^2 (root: v_0; split class: tau^2 / 2).
    auto min_of = [](const IntegerSplits& s, std::int64_t kind) {
      if (kind == kRoot) return Scale{s.root_num(), s.root_den()};
      const SplitClass& c = s.classes()[kind];
      return Scale{c.tau2_num, c.tau2_den * 2};
    };
    for (std::int64_t r = kRoot; r < std::int64_t(row_splits_.classes().size()); ++r)
      for (std::int64_t c = kRoot; c < std::int64_t(col_splits_.classes().size()); ++c) {
        interrupts.poll();
        const Scale a = min_of(row_splits_, r), b = min_of(col_splits_, c);
        corrections_.emplace(std::make_pair(r, c), KleinCorrection(product(a.num, b.num), product(a.den, b.den)));
      }
  }

  const IntegerSplits& row_splits() const { return row_splits_; }
  const IntegerSplits& col_splits() const { return col_splits_; }

  // One attempt over the grid; false when a correction coin fails.
  bool attempt(RandomSource& rng, std::int64_t* out, const Interrupts& interrupts) const {
    const std::size_t width = cols_.n_nodes();
    steps_ = 0;
    draw_vector(rng, nullptr, 0, Scale{row_splits_.root_num(), row_splits_.root_den()}, kRoot, out, interrupts);
    if (!ok_) return false;
    std::vector<std::int64_t> next(width), cur(width);
    for (unsigned d = 0; d < rows_.height(); ++d) {
      for (std::uint32_t v = rows_.level_begin(d); v < rows_.level_end(d); ++v) {
        // A row node copies or differences `width` values even without a draw.
        interrupts.poll_scaled(v, width);
        const std::uint32_t m = rows_.n_children(v);
        if (m == 0) continue;
        const std::uint32_t c0 = rows_.first_child(v);
        std::int64_t* parent = out + std::size_t(v) * width;
        if (m == 1) {
          std::copy(parent, parent + width, out + std::size_t(c0) * width);
          continue;
        }
        const std::uint32_t k = row_splits_.class_index(d, m, row_law_.node_variance(v, d));
        const SplitClass& rc = row_splits_.classes()[k];
        std::copy(parent, parent + width, next.begin());  // P_m = X_v
        for (std::uint32_t i = m - 1; i >= 1; --i) {
          // Row coordinate P_i: s_a^2 = tau^2 i/(i+1), centre ratio i/(i+1).
          draw_vector(rng, next.data(), i, Scale{rc.tau2_num * i, rc.tau2_den * (i + 1)}, k, cur.data(), interrupts);
          if (!ok_) return false;
          std::int64_t* child = out + std::size_t(c0 + i) * width;
          for (std::size_t t = 0; t < width; ++t) child[t] = checked(Int128(next[t]) - cur[t]);
          next.swap(cur);
        }
        std::copy(next.begin(), next.end(), out + std::size_t(c0) * width);
      }
    }
    return true;
  }

 private:
  // One exact 1-D draw with centre c_num / Q at s^2 = row * column, and its
  // correction coin (step 3).
  std::int64_t draw(RandomSource& rng, Scale row, Scale col, std::int64_t c_num, std::int64_t Q,
                    std::int64_t row_kind, std::int64_t col_kind) const {
    const Uint128 Sn = product(row.num, col.num), Sd = product(row.den, col.den);
    const std::int64_t x = sample_discrete_gaussian_centred(rng, Sn, Sd, c_num, Q);
    std::int64_t f = c_num % Q;
    if (f < 0) f += Q;
    if (correct_ && f != 0 &&
        !corrections_.at({row_kind, col_kind})
             .coin(rng, Sn, Sd, static_cast<std::uint64_t>(f), static_cast<std::uint64_t>(Q)))
      ok_ = false;
    return x;
  }

  // Column node values W of a row coordinate (step 2): V the column node
  // values of P_{i+1} (nullptr for the row root, i = 0), row scale s_a^2.
  void draw_vector(RandomSource& rng, const std::int64_t* V, std::uint32_t i, Scale row, std::int64_t row_kind,
                   std::int64_t* W, const Interrupts& interrupts) const {
    ok_ = true;
    auto v_at = [V](std::uint32_t t) -> std::int64_t { return V == nullptr ? 0 : V[t]; };
    const Int128 I = i;
    W[0] = draw(rng, row, Scale{col_splits_.root_num(), col_splits_.root_den()}, checked(I * v_at(0)), i + 1, row_kind,
                kRoot);
    if (!ok_) return;
    for (unsigned d = 0; d < cols_.height(); ++d) {
      for (std::uint32_t t = cols_.level_begin(d); t < cols_.level_end(d); ++t) {
        interrupts.poll_every(steps_++);
        const std::uint32_t m = cols_.n_children(t);
        if (m == 0) continue;
        const std::uint32_t c0 = cols_.first_child(t);
        if (m == 1) {
          W[c0] = W[t];
          continue;
        }
        const SplitClass& cc = col_splits_.classes()[col_class_[t]];
        std::int64_t next_w = W[t], next_v = v_at(t);  // P'_{j+1} of W and of V
        for (std::uint32_t j = m - 1; j >= 1; --j) {
          interrupts.poll_every(steps_++);
          const std::int64_t pv = checked(Int128(next_v) - v_at(c0 + j));  // P'_j(V)
          const Int128 J = j;
          const std::int64_t c_num = checked(I * (J + 1) * pv + J * (I + 1) * next_w - I * J * next_v);
          const std::int64_t Q = checked((I + 1) * (J + 1));
          const std::int64_t p =
              draw(rng, row, Scale{cc.tau2_num * j, cc.tau2_den * (j + 1)}, c_num, Q, row_kind, col_class_[t]);
          if (!ok_) return;
          W[c0 + j] = checked(Int128(next_w) - p);
          next_w = p;
          next_v = pv;
        }
        W[c0] = next_w;
      }
    }
  }

  const HierarchyTree& rows_;
  const CascadeLaw& row_law_;
  const HierarchyTree& cols_;
  const CascadeLaw& col_law_;
  IntegerSplits row_splits_, col_splits_;
  bool correct_;
  std::vector<std::uint32_t> col_class_;
  std::map<std::pair<std::int64_t, std::int64_t>, KleinCorrection> corrections_;
  // State of the attempt under way (a sampler is used by one thread).
  mutable bool ok_ = true;
  mutable std::uint64_t steps_ = 0;
};

CrossedIntegerCascadeSampler::CrossedIntegerCascadeSampler(const HierarchyTree& rows, const CascadeLaw& row_law,
                                                           const HierarchyTree& cols, const CascadeLaw& col_law,
                                                           const Interrupts& interrupts,
                                                           CrossedIntegerCascadeOptions options) {
  require_unconditioned_integer(row_law, col_law);
  const double values = double(rows.n_nodes()) * double(cols.n_nodes());
  if (values > double(kMaxIntegerCascadeNodes))
    throw TooLarge("the crossed hierarchies are too large for the integer cascade",
                   "They have " + std::to_string(rows.n_nodes()) + " x " + std::to_string(cols.n_nodes()) +
                       " node pairs; at most " + std::to_string(kMaxIntegerCascadeNodes) + " are allowed.");
  impl_ = std::make_unique<Impl>(rows, row_law, cols, col_law, interrupts, !options.skip_correction_for_power_test);
  acceptance_bound_ = product_acceptance_bound(
      {pooled_groups(coordinate_groups(impl_->row_splits()), kPooledGroups),
       pooled_groups(coordinate_groups(impl_->col_splits()), kPooledGroups)});
  if (acceptance_bound_ < 0.5) {
    throw OutOfRange("the noise is too small for the exact crossed integer cascade on these hierarchies",
                     "An attempt's acceptance bound is below 0.5.",
                     "Lower epsilon (or rho), or raise the variance targets.");
  }
}

CrossedIntegerCascadeSampler::~CrossedIntegerCascadeSampler() = default;

std::uint64_t CrossedIntegerCascadeSampler::sample(RandomSource& rng, std::int64_t* out,
                                                  const Interrupts& interrupts) const {
  for (std::uint64_t attempt = 1;; ++attempt) {
    interrupts.poll();
    if (impl_->attempt(rng, out, interrupts)) return attempt;
  }
}

std::vector<std::int64_t> crossed_integer_cascade_noise(const HierarchyTree& rows, const CascadeLaw& row_law,
                                                        const HierarchyTree& cols, const CascadeLaw& col_law,
                                                        RandomSource& rng, const Interrupts& interrupts,
                                                        CrossedIntegerCascadeOptions options) {
  const CrossedIntegerCascadeSampler sampler(rows, row_law, cols, col_law, interrupts, options);
  auto out = zeroed_large_buffer<std::int64_t>(rows.n_nodes() * cols.n_nodes());
  sampler.sample(rng, out.data(), interrupts);
  return out;
}

VarianceBounds crossed_integer_rectangle_variance(const HierarchyTree& rows, const CascadeLaw& row_law,
                                                  const HierarchyTree& cols, const CascadeLaw& col_law,
                                                  double deficit_bound, std::uint32_t row_lo, std::uint32_t row_hi,
                                                  std::uint32_t col_lo, std::uint32_t col_hi) {
  const double v = crossed_rectangle_variance(rows, row_law, cols, col_law, row_lo, row_hi, col_lo, col_hi);
  return integer_variance_bounds(v, deficit_bound);
}

double crossed_integer_cascade_acceptance_bound(const HierarchyTree& rows, const CascadeLaw& row_law,
                                                const HierarchyTree& cols, const CascadeLaw& col_law,
                                                const Interrupts& interrupts) {
  return product_acceptance_bound(
      {pooled_groups(coordinate_groups(IntegerSplits(rows, row_law, interrupts)), kPooledGroups),
       pooled_groups(coordinate_groups(IntegerSplits(cols, col_law, interrupts)), kPooledGroups)});
}

double crossed_integer_cascade_deficit_bound(const HierarchyTree& rows, const CascadeLaw& row_law,
                                             const HierarchyTree& cols, const CascadeLaw& col_law,
                                             const Interrupts& interrupts) {
  return product_variance_deficit_bound(
      {pooled_groups(coordinate_groups(IntegerSplits(rows, row_law, interrupts)), kPooledGroups),
       pooled_groups(coordinate_groups(IntegerSplits(cols, col_law, interrupts)), kPooledGroups)});
}

}  // namespace invariant_dp::hierarchy

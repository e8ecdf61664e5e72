// Functionals of complete tables under the lattice Gaussian
// (table_functional.hpp; DERIVATIONS.md, section 13).
#include "table_functional.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "../errors.hpp"
#include "../polled_sort.hpp"
#include "kernel_lengths.hpp"

namespace invariant_dp::accuracy {
namespace {

// The table as (outer, n, inner) around axis k of the current dimensions.
struct AxisView {
  std::size_t outer = 1, n = 0, inner = 1;
};
AxisView around(const std::vector<std::size_t>& dims, std::size_t k) {
  AxisView v;
  for (std::size_t j = 0; j < k; ++j) v.outer *= dims[j];
  v.n = dims[k];
  for (std::size_t j = k + 1; j < dims.size(); ++j) v.inner *= dims[j];
  return v;
}

void check_table(Rational sigma2, const std::vector<std::size_t>& shape, const std::vector<std::int64_t>& weights) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("a lattice Gaussian needs a positive variance");
  // 2^K x 2^40 stays inside an int64 for K <= 21.
  if (shape.empty() || shape.size() > 21) throw InvalidArgument("a table functional needs one to 21 axes");
  double cells = 1;
  for (const std::size_t n : shape) {
    if (n < 2) throw InvalidArgument("a table functional needs at least two levels on every axis");
    cells *= double(n);
  }
  if (cells > double(kMaxFunctionalCells))
    throw TooLarge("the table is too large for the law of a sum of its cells",
                   "Its sums keep the tail bound on their variance.");
  if (weights.size() != static_cast<std::size_t>(cells))
    throw InvalidArgument("a table functional needs one weight per cell");
  for (const std::int64_t w : weights)
    if (std::llabs(w) > (std::int64_t(1) << 40)) throw InvalidArgument("a table functional's weights are at most 2^40");
}

// Axes of at most this many levels take their corner from the functional
// itself (corner_candidates: n levels x cells of work).
constexpr std::size_t kCanonicalCornerLevels = 32;

// The corners of axis k read from the functional, not from how it was
// written: w differenced against level 0 along every other axis (whole
// lines along those axes gone; a line along k shifts every slice alike),
// the levels p whose slice differs from the others' in the fewest entries
// (the moves along k with a != 0), in increasing order.
std::vector<std::size_t> corner_candidates(const std::vector<std::size_t>& shape, std::vector<std::int64_t> w,
                                           std::size_t k, const Interrupts& interrupts) {
  w = up_to_lines(shape, std::move(w), interrupts, k);
  const AxisView v = around(shape, k);
  std::vector<std::size_t> best;
  std::size_t best_differing = SIZE_MAX;
  for (std::size_t p = 0; p < v.n; ++p) {
    std::size_t differing = 0;
    for (std::size_t o = 0; o < v.outer; ++o) {
      interrupts.poll_every(o);
      for (std::size_t in = 0; in < v.inner; ++in) {
        const std::int64_t at_p = w[(o * v.n + p) * v.inner + in];
        for (std::size_t l = 0; l < v.n; ++l) differing += w[(o * v.n + l) * v.inner + in] != at_p;
      }
    }
    if (differing < best_differing) {
      best_differing = differing;
      best.clear();
    }
    if (differing == best_differing) best.push_back(p);
  }
  return best;
}

// The corner of a long axis k read from the functional, in O(K x cells):
// w differenced against level 0 along every other axis (as for
// corner_candidates: which slices are equal is then a property of the
// functional), its levels grouped into classes of equal slices, and the
// lowest level of the largest class (of equal ones, the class holding the
// lowest level). The levels of that class need no move along k (a = 0
// there): a set of cells that misses a slice on every axis has a = +-w on
// its own cells.
std::size_t modal_slice_level(const std::vector<std::size_t>& shape, std::vector<std::int64_t> w, std::size_t k,
                              const Interrupts& interrupts) {
  w = up_to_lines(shape, std::move(w), interrupts, k);
  const AxisView v = around(shape, k);
  const auto entry = [&](std::size_t level, std::size_t o, std::size_t in) {
    return w[(o * v.n + level) * v.inner + in];
  };
  // A 64-bit hash of each level's slice, then the levels sorted by it: a
  // class is a run of one hash, its members the slices equal to the run's
  // lowest level (a collision leaves the unequal ones out of the count).
  std::vector<std::pair<std::uint64_t, std::size_t>> hashed(v.n);
  for (std::size_t level = 0; level < v.n; ++level) hashed[level] = {0x243F6A8885A308D3ull, level};
  for (std::size_t o = 0; o < v.outer; ++o)
    for (std::size_t level = 0; level < v.n; ++level) {
      interrupts.poll_every(o * v.n + level);
      std::uint64_t& h = hashed[level].first;
      for (std::size_t in = 0; in < v.inner; ++in) {
        h = (h ^ static_cast<std::uint64_t>(entry(level, o, in))) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
      }
    }
  polled_sort(hashed.begin(), hashed.end(), interrupts);
  const auto equal_slices = [&](std::size_t p, std::size_t q) {
    for (std::size_t o = 0; o < v.outer; ++o) {
      interrupts.poll_every(o);
      for (std::size_t in = 0; in < v.inner; ++in)
        if (entry(p, o, in) != entry(q, o, in)) return false;
    }
    return true;
  };
  std::size_t best_level = 0, best_size = 0;
  for (std::size_t i = 0; i < hashed.size();) {
    std::size_t j = i, size = 0;
    // Ends: j walks one run of equal hashes.
    for (; j < hashed.size() && hashed[j].first == hashed[i].first; ++j)
      size += equal_slices(hashed[i].second, hashed[j].second);
    const std::size_t lowest = hashed[i].second;  // sorted by (hash, level)
    if (size > best_size || (size == best_size && lowest < best_level)) {
      best_size = size;
      best_level = lowest;
    }
    i = j;
  }
  return best_level;
}

// a = (D_1 x ... x D_K) w at these corners, (D_k v)_i = v_corner - v_i over
// the levels i != corner in increasing order (dims: the moves' grid).
std::vector<std::int64_t> differenced_at(const std::vector<std::size_t>& shape, std::vector<std::int64_t> a,
                                         const std::vector<std::size_t>& corner, std::vector<std::size_t>& dims,
                                         const Interrupts& interrupts) {
  std::vector<std::int64_t> next;
  dims = shape;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const AxisView v = around(dims, k);
    next.assign(v.outer * (v.n - 1) * v.inner, 0);
    for (std::size_t o = 0; o < v.outer; ++o) {
      interrupts.poll_every(o);
      const std::int64_t* base = a.data() + o * v.n * v.inner;
      std::int64_t* out = next.data() + o * (v.n - 1) * v.inner;
      for (std::size_t i = 0, r = 0; i < v.n; ++i) {
        if (i == corner[k]) continue;
        for (std::size_t in = 0; in < v.inner; ++in)
          out[r * v.inner + in] = base[corner[k] * v.inner + in] - base[i * v.inner + in];
        ++r;
      }
    }
    a.swap(next);
    dims[k] = v.n - 1;
  }
  return a;
}

// Corners tried among the axes' candidates, at most this many cells'
// differencing in all.
constexpr std::size_t kCornerTrialCells = std::size_t(1) << 18;

}  // namespace

std::vector<std::int64_t> up_to_lines(const std::vector<std::size_t>& shape, std::vector<std::int64_t> d,
                                      const Interrupts& interrupts, std::size_t except_axis) {
  std::size_t stride = d.size();
  for (std::size_t m = 0; m < shape.size(); ++m) {
    stride /= shape[m];  // the axis's stride in row-major order
    if (m == except_axis) continue;
    // From the end: a level-0 entry is read by the levels after it, then
    // set to its own difference, 0.
    for (std::size_t i = d.size(); i-- > 0;) {
      interrupts.poll_every(i);
      const std::size_t level = (i / stride) % shape[m];
      d[i] = level == 0 ? 0 : d[i] - d[i - level * stride];
    }
  }
  return d;
}

TableFunctional table_functional(Rational sigma2, const std::vector<std::size_t>& shape,
                                 const std::vector<std::int64_t>& weights, const Interrupts& interrupts) {
  check_table(sigma2, shape, weights);
  const std::size_t K = shape.size(), cells = weights.size();
  // Every corner of a small table, else for axes of few levels the
  // candidates read from the functional; of their combinations the one
  // with the fewest moves of a != 0 (so one corner however the functional
  // is written, and a sparse a). Longer axes of larger tables take the
  // lowest level of their most common slice.
  std::vector<std::vector<std::size_t>> candidates(K);
  // Small tables try every corner.
  double every_corner = double(cells);
  for (const std::size_t n : shape) every_corner *= double(n);
  std::size_t combinations = 1;
  for (std::size_t k = 0; k < K; ++k) {
    if (every_corner <= double(kCornerTrialCells)) {
      candidates[k].resize(shape[k]);
      std::iota(candidates[k].begin(), candidates[k].end(), std::size_t(0));
    } else if (shape[k] <= kCanonicalCornerLevels) {
      candidates[k] = corner_candidates(shape, weights, k, interrupts);
    } else {
      candidates[k] = {modal_slice_level(shape, weights, k, interrupts)};
    }
    // Past the trials' budget an axis keeps its first candidate.
    if (combinations * candidates[k].size() * cells > kCornerTrialCells) candidates[k].resize(1);
    combinations *= candidates[k].size();
  }
  std::vector<std::size_t> choice(K, 0), dims;
  std::vector<std::int64_t> a;
  std::pair<std::size_t, std::size_t> fewest{SIZE_MAX, SIZE_MAX};
  for (std::size_t trial = 0; trial < combinations; ++trial) {
    interrupts.poll();
    std::vector<std::size_t> tried(K);
    for (std::size_t k = 0; k < K; ++k) tried[k] = candidates[k][choice[k]];
    std::vector<std::size_t> tried_dims;
    std::vector<std::int64_t> tried_a = differenced_at(shape, weights, tried, tried_dims, interrupts);
    if (combinations == 1) {
      a = std::move(tried_a);
      dims = std::move(tried_dims);
      break;
    }
    // The fewest moves of a != 0, then the fewest distinct values (moves
    // of one value pair into short kernel vectors).
    std::vector<std::int64_t> values;
    for (const std::int64_t x : tried_a)
      if (x != 0) values.push_back(x);
    const std::size_t moves = values.size();
    polled_sort(values.begin(), values.end(), interrupts);
    const auto distinct = std::size_t(std::unique(values.begin(), values.end()) - values.begin());
    if (std::pair{moves, distinct} < fewest) {
      fewest = {moves, distinct};
      a = std::move(tried_a);
      dims = std::move(tried_dims);
    }
    for (std::size_t k = K; k-- > 0;) {  // the next combination, the last axis fastest
      if (++choice[k] < candidates[k].size()) break;
      choice[k] = 0;
    }
  }
  // The step (the gcd of the moves' values) and the pivot.
  std::uint64_t step = 0, pivot_size = 0;
  std::size_t pivot = 0;
  for (std::size_t m = 0; m < a.size(); ++m) {
    interrupts.poll_every(m);
    const auto size = static_cast<std::uint64_t>(std::llabs(a[m]));
    if (size == 0) continue;
    step = std::gcd(step, size);
    if (pivot_size == 0 || size < pivot_size) {
      pivot_size = size;
      pivot = m;
    }
  }
  TableFunctional out;
  if (step == 0) return out;  // X is 0 on the lattice: a function of the margins
  out.functional.step = step;
  out.pivot = pivot_size;
  const double s2 = sigma2.to_double(), move2 = std::ldexp(1.0, int(K));
  out.pivot_length2 = move2 / s2;
  // The continuous variance: sigma2 times the squared norm of w / step
  // projected on the lattice's span (centred along every axis).
  std::vector<double> centred(cells);
  // From w up to whole lines: the same doubles however w was written.
  const std::vector<std::int64_t> lined = up_to_lines(shape, weights, interrupts);
  for (std::size_t c = 0; c < cells; ++c) centred[c] = double(lined[c]) / double(step);
  for (std::size_t k = 0; k < K; ++k) {
    const AxisView v = around(shape, k);
    for (std::size_t o = 0; o < v.outer; ++o) {
      interrupts.poll_every(o);
      double* base = centred.data() + o * v.n * v.inner;
      for (std::size_t in = 0; in < v.inner; ++in) {
        double mean = 0;
        for (std::size_t i = 0; i < v.n; ++i) mean += base[i * v.inner + in];
        mean /= double(v.n);
        for (std::size_t i = 0; i < v.n; ++i) base[i * v.inner + in] -= mean;
      }
    }
  }
  double norm2 = 0;
  for (std::size_t c = 0; c < cells; ++c) {
    interrupts.poll_every(c);
    norm2 += centred[c] * centred[c];
  }
  out.functional.unit.variance = s2 * norm2;
  // The kernel: every move with a = 0 (squared length 2^K / sigma2), and
  // for every other move M either (a_P M - a_M P) / gcd with the pivot P
  // or, when shorter, M minus the last earlier move of the same value
  // (squared length 2 (2^K - 2^agree) / sigma2: sums of cells of one weight
  // have many moves of equal values); lengths by the moves' overlap
  // 2^(axes where two moves agree). Each vector is M plus earlier moves
  // and P, so the set is still full rank.
  const std::size_t n_moves = a.size();
  const auto position = [&](std::size_t m) {
    std::vector<std::size_t> r(K);
    for (std::size_t k = K; k-- > 0;) {
      r[k] = m % dims[k];
      m /= dims[k];
    }
    return r;
  };
  const auto agree = [&](const std::vector<std::size_t>& x, const std::vector<std::size_t>& y) {
    int same = 0;
    for (std::size_t k = 0; k < K; ++k) same += x[k] == y[k];
    return std::ldexp(1.0, same) / s2;
  };
  const std::vector<std::size_t> at_pivot = position(pivot);
  std::unordered_map<std::int64_t, std::size_t> last_of_value;  // a -> the last move seen with it
  last_of_value[a[pivot]] = pivot;
  KernelLengths lengths;
  double zero_moves = 0;
  const std::int64_t a_p = a[pivot];
  for (std::size_t m = 0; m < n_moves; ++m) {
    interrupts.poll_every(m);
    if (m == pivot) continue;
    if (a[m] == 0) {
      ++zero_moves;
      continue;
    }
    const std::vector<std::size_t> here = position(m);
    const double with_pivot =
        kernel_vector_length2(a_p, a[m], out.pivot_length2, out.pivot_length2, agree(here, at_pivot));
    const auto seen = last_of_value.find(a[m]);
    if (seen == last_of_value.end()) {
      lengths.add(with_pivot);
      last_of_value.emplace(a[m], m);
    } else {
      const double with_last =
          2 * out.pivot_length2 - 2 * agree(here, position(seen->second)) + 1e-12 * out.pivot_length2;
      lengths.add(std::min(with_pivot, with_last));
      seen->second = m;
    }
  }
  if (zero_moves > 0) lengths.add(out.pivot_length2, zero_moves);
  out.functional.unit.log_excess = lengths.log_excess(interrupts);
  return out;
}

StepFunctional independent_tables(const std::vector<TableFunctional>& parts, const Interrupts& interrupts) {
  StepFunctional out;
  std::size_t first = parts.size();
  double variance = 0;
  for (std::size_t b = 0; b < parts.size(); ++b) {
    interrupts.poll_every(b);
    const TableFunctional& p = parts[b];
    if (p.functional.step == 0) continue;
    if (!(p.functional.unit.variance >= 0) || !(p.functional.unit.log_excess >= 0) || p.pivot == 0 ||
        !(p.pivot_length2 > 0))
      throw InvalidArgument("a table's part needs a pivot, a non-negative variance and log excess");
    out.step = std::gcd(out.step, p.functional.step);
    const double step = double(p.functional.step);
    variance += p.functional.unit.variance * step * step;
    out.unit.log_excess += p.functional.unit.log_excess;
    if (first == parts.size() || p.pivot < parts[first].pivot) first = b;
  }
  if (out.step == 0) return out;
  out.unit.variance = variance / (double(out.step) * double(out.step));
  KernelLengths lengths;
  const auto a_first = static_cast<std::int64_t>(parts[first].pivot);
  for (std::size_t b = 0; b < parts.size(); ++b) {
    interrupts.poll_every(b);
    if (b == first || parts[b].functional.step == 0) continue;
    lengths.add(kernel_vector_length2(a_first, static_cast<std::int64_t>(parts[b].pivot), parts[b].pivot_length2,
                                      parts[first].pivot_length2, 0));
  }
  out.unit.log_excess += lengths.log_excess(interrupts);
  return out;
}

}  // namespace invariant_dp::accuracy

// Basic moves of complete tables and the chains on them; see
// table_swap_chain.hpp.
#include "table_swap_chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "../errors.hpp"
#include "noise_range.hpp"

namespace invariant_dp::mcmc {
TableMoves::TableMoves(const std::vector<LatticeTable>& tables, std::size_t n_cells) : n_cells_(n_cells) {
  std::size_t fewest_axes = kMaxTableAxes + 1;
  for (const LatticeTable& table : tables) {
    const std::size_t axes = table.shape.size();
    if (axes < 2 || axes > kMaxTableAxes)
      throw InvalidArgument("a table chain needs tables of 2 to " + std::to_string(kMaxTableAxes) + " axes");
    std::uint64_t rank = 1;
    std::size_t size = 1;
    for (const std::size_t n : table.shape) {
      rank *= n == 0 ? 0 : n - 1;
      size *= n;
    }
    if (size != table.cells.size()) throw InvalidArgument("a table's cells do not match its shape");
    for (const std::size_t c : table.cells)
      if (c >= n_cells) throw InvalidArgument("a table refers to a cell outside the release");
    if (rank == 0) continue;
    two_way_ = two_way_ && axes == 2;
    std::vector<std::size_t> strides(axes);
    std::size_t stride = 1;
    for (std::size_t k = axes; k-- > 0;) {
      strides[k] = stride;
      stride *= table.shape[k];
    }
    bool contiguous = true;
    for (std::size_t i = 1; i < table.cells.size() && contiguous; ++i)
      contiguous = table.cells[i] == table.cells[0] + i;
    contiguous_from_.push_back(contiguous ? std::int64_t(table.cells[0]) : -1);
    tables_.push_back(table);
    strides_.push_back(std::move(strides));
    total_rank_ += rank;
    cumulative_rank_.push_back(total_rank_);
    fewest_axes = std::min(fewest_axes, axes);
  }
  if (tables_.empty()) throw InvalidArgument("the tables have no free cell");
  shortest_ = std::ldexp(1.0, int(fewest_axes));
}

void TableMoves::draw(RandomSource& rng, SwapMove& move) const {
  std::size_t t = 0;
  if (tables_.size() > 1) {
    const std::uint64_t r = rng.uniform_below(total_rank_);
    t = std::size_t(std::upper_bound(cumulative_rank_.begin(), cumulative_rank_.end(), r) - cumulative_rank_.begin());
  }
  const LatticeTable& table = tables_[t];
  const std::vector<std::size_t>& strides = strides_[t];
  const std::size_t axes = table.shape.size();
  std::array<std::size_t, kMaxTableAxes> a{}, b{};
  for (std::size_t k = 0; k < axes; ++k) {
    const std::uint64_t n = table.shape[k];
    // One draw for the ordered pair (a, b), a != b: n (n - 1) outcomes.
    const std::uint64_t pair = rng.uniform_below(n * (n - 1));
    a[k] = std::size_t(pair / (n - 1));
    b[k] = std::size_t(pair % (n - 1));
    if (b[k] >= a[k]) ++b[k];
  }
  move.size = std::size_t(1) << axes;
  const std::int64_t from = contiguous_from_[t];
  if (axes == 2 && from >= 0) {  // the common case, without the subset loop
    const std::size_t base = std::size_t(from), c = table.shape[1];
    move.cell[0] = std::uint32_t(base + a[0] * c + a[1]);
    move.cell[1] = std::uint32_t(base + b[0] * c + a[1]);
    move.cell[2] = std::uint32_t(base + a[0] * c + b[1]);
    move.cell[3] = std::uint32_t(base + b[0] * c + b[1]);
    move.sign[0] = move.sign[3] = 1;
    move.sign[1] = move.sign[2] = -1;
    return;
  }
  for (std::size_t subset = 0; subset < move.size; ++subset) {
    std::size_t offset = 0;
    int parity = 0;
    for (std::size_t k = 0; k < axes; ++k) {
      const bool in = (subset >> k) & 1u;
      offset += (in ? b[k] : a[k]) * strides[k];
      parity ^= int(in);
    }
    move.cell[subset] = std::uint32_t(from >= 0 ? std::size_t(from) + offset : table.cells[offset]);
    move.sign[subset] = parity ? -1 : 1;
  }
}

namespace {

// The l1 rate of the heat-bath line laws (unused by the Gaussian target),
// after the target's own validation.
double line_rate(const Target& target) {
  validate(target);
  return target.kind == TargetKind::lattice_gaussian ? 1.0 : target.epsilon;
}

}  // namespace

TableSwapChain::TableSwapChain(const TableMoves& moves, SwapChainConfig config, std::vector<std::int64_t> floors)
    : moves_(&moves),
      config_(config),
      step_law_(config.step_a),
      rates_(line_rate(config.target)),
      z_(moves.n_cells(), 0),
      floors_(std::move(floors)),
      keep_l2_(config.target.kind != TargetKind::laplace_l1),
      entry_limit_(keep_l2_ ? kMaxEntry : kMaxL1Entry) {
  if (!floors_.empty()) {
    if (floors_.size() != z_.size()) throw InvalidArgument("a chain needs one floor per cell");
    for (const LatticeTable& table : moves.tables())
      if (table.shape.size() != 2)
        throw InvalidArgument("a table chain restricted to non-negative tables needs two-way tables");
    for (const std::int64_t f : floors_)
      if (f > 0 || f < -entry_limit_) throw OutOfRange("a count is out of the table chain's range");
  }
  if (config_.heat_bath && config_.target.kind != TargetKind::laplace_l1)
    throw InvalidArgument("the heat-bath table chain needs the l1 target");
  if (moves.n_cells() >= (std::size_t(1) << 23)) throw TooLarge("too many cells for the table chain");
  if (config_.pair_blocks) {
    if (!config_.heat_bath || !moves.two_way() || !floors_.empty())
      throw InvalidArgument("pair blocks need the l1 heat-bath chain on two-way tables without floors");
    for (const LatticeTable& table : moves.tables()) {
      row_laws_.emplace_back(table.shape[1], rates_.lambda());
      column_laws_.emplace_back(table.shape[0], rates_.lambda());
      longest_ = std::max({longest_, table.shape[0], table.shape[1]});
    }
  }
}

std::uint64_t TableSwapChain::steps_per_sweep() const {
  return config_.pair_blocks ? moves_->rounds_per_sweep() : moves_->rank();
}

void TableSwapChain::reset_zero() {
  std::fill(z_.begin(), z_.end(), 0);
  l1_ = l2_ = 0;
}

void TableSwapChain::reset_to(const std::vector<std::int64_t>& z) {
  if (z.size() != z_.size()) throw InvalidArgument("a chain state has the wrong number of cells");
  reset_zero();
  for (std::size_t i = 0; i < z.size(); ++i) {
    check_entry(z[i], entry_limit_);
    if (!floors_.empty() && z[i] < floors_[i]) throw InvalidArgument("a chain state lies below its floors");
    z_[i] = z[i];
    l1_ += std::llabs(z[i]);
    if (keep_l2_) l2_ += z[i] * z[i];
  }
}

LaplaceLine TableSwapChain::line(const SwapMove& move) const {
  std::array<std::int64_t, kMaxLinePoints> points;
  for (std::size_t k = 0; k < move.size; ++k) points[k] = -move.sign[k] * z_[move.cell[k]];
  std::int64_t lo = -kUnboundedStep, hi = kUnboundedStep;
  if (!floors_.empty())  // z_k + s_k t >= floor_k
    for (std::size_t k = 0; k < move.size; ++k) {
      const std::int64_t room = z_[move.cell[k]] - floors_[move.cell[k]];  // >= 0
      if (move.sign[k] > 0)
        lo = std::max(lo, -room);
      else
        hi = std::min(hi, room);
    }
  return LaplaceLine(points.data(), move.size, rates_, lo, hi);
}

double TableSwapChain::log_ratio(const SwapMove& move, std::int64_t t) const {
  if (t == 0) return 0;
  std::int64_t l1 = l1_, l2 = l2_;
  for (std::size_t k = 0; k < move.size; ++k) {
    const std::int64_t now = z_[move.cell[k]], next = now + move.sign[k] * t;
    check_entry(next, entry_limit_);
    if (!floors_.empty() && next < floors_[move.cell[k]]) return -INFINITY;  // outside the support
    l1 += std::llabs(next) - std::llabs(now);
    if (keep_l2_) l2 += next * next - now * now;
  }
  return log_density(config_.target, l1, l2) - log_density(config_.target, l1_, l2_);
}

void TableSwapChain::apply(const SwapMove& move, std::int64_t t) {
  ++counts_.proposed;
  if (t == 0) return;
  ++counts_.moved;
  for (std::size_t k = 0; k < move.size; ++k) {
    std::int64_t& cell = z_[move.cell[k]];
    const std::int64_t next = cell + move.sign[k] * t;
    check_entry(next, entry_limit_);
    l1_ += std::llabs(next) - std::llabs(cell);
    if (keep_l2_) l2_ += next * next - cell * cell;
    cell = next;
  }
}

void TableSwapChain::update(const SwapMove& move, RandomSource& rng) {
  if (config_.heat_bath) {
    apply(move, line(move).sample(rng));
    return;
  }
  const std::int64_t t = step_law_.sample(rng);
  const double ratio = log_ratio(move, t);
  apply(move, metropolis_accepts(ratio, rng.uniform_open01()) ? t : 0);
}

void TableSwapChain::step(RandomSource& rng, const Interrupts& interrupts) {
  if (config_.pair_blocks) return run_round(rng, interrupts);
  moves_->draw(rng, scratch_);
  update(scratch_, rng);
}

void TableSwapChain::sweep(RandomSource& rng) { run(1, rng, Interrupts{}); }

// Moves do not depend on the state, so they are drawn kLookahead steps
// before their use and their cells prefetched: at a million cells each
// step's four reads would otherwise wait on memory. The law is unchanged
// (every move is still uniform and independent of the state it meets);
// the moves drawn past the last step are discarded.
void TableSwapChain::run(std::uint64_t sweeps, RandomSource& rng, const Interrupts& interrupts) {
  if (config_.pair_blocks) {
    const std::uint64_t rounds = sweeps * moves_->rounds_per_sweep();
    for (std::uint64_t r = 0; r < rounds; ++r) {
      interrupts.poll();
      run_round(rng, interrupts);
    }
    return;
  }
  constexpr std::size_t kLookahead = 8;
  const std::uint64_t steps = sweeps * moves_->rank();
  std::array<SwapMove, kLookahead> ahead;
  auto draw_and_prefetch = [&](SwapMove& move) {
    moves_->draw(rng, move);
    for (std::size_t k = 0; k < move.size; ++k) {
      __builtin_prefetch(&z_[move.cell[k]], 1);
      if (!floors_.empty()) __builtin_prefetch(&floors_[move.cell[k]], 0);
    }
  };
  for (std::size_t k = 0; k < kLookahead && k < steps; ++k) draw_and_prefetch(ahead[k]);
  for (std::uint64_t s = 0; s < steps; ++s) {
    interrupts.poll_every(s);
    SwapMove& move = ahead[s % kLookahead];
    update(move, rng);
    if (s + kLookahead < steps) draw_and_prefetch(move);
  }
}

CoupledSwapKernel::CoupledSwapKernel(TableSwapChain& x, TableSwapChain& y) : x_(&x), y_(&y) {
  if (&x.moves() != &y.moves() || x.config().pair_blocks != y.config().pair_blocks)
    throw InvalidArgument("coupled table chains need the same moves");
  for (std::size_t i = 0; i < x.z().size(); ++i) differing_ += x.z()[i] != y.z()[i];
}

namespace {

// The value most of the d_k share (ties: the smallest in absolute value).
std::int64_t common_shift(std::array<std::int64_t, kMaxLinePoints> d, std::size_t n) {
  std::sort(d.begin(), d.begin() + std::ptrdiff_t(n));
  std::int64_t best = 0;
  std::size_t best_count = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    // Ends: j grows by one a pass up to n.
    while (j < n && d[j] == d[i]) ++j;
    const std::size_t count = j - i;
    if (count > best_count || (count == best_count && std::llabs(d[i]) < std::llabs(best))) {
      best = d[i];
      best_count = count;
    }
    i = j;
  }
  return best;
}

}  // namespace

void CoupledSwapKernel::step(RandomSource& rng, const Interrupts& interrupts) {
  TableSwapChain& x = *x_;
  TableSwapChain& y = *y_;
  if (x.config_.pair_blocks) return block_round(rng, interrupts);
  x.moves_->draw(rng, move_);
  std::array<std::int64_t, kMaxLinePoints> d;
  std::size_t before = 0;
  for (std::size_t k = 0; k < move_.size; ++k) {
    const std::int64_t xk = x.z_[move_.cell[k]], yk = y.z_[move_.cell[k]];
    d[k] = move_.sign[k] * (yk - xk);
    before += xk != yk;
  }
  const std::int64_t shift = common_shift(d, move_.size);
  std::int64_t tx, ty;
  if (x.config_.heat_bath) {
    const double u = rng.uniform_open01();
    tx = x.line(move_).quantile(u);
    ty = y.line(move_).quantile(u);
  } else {
    const auto [step_x, shifted_y] = x.step_law_.maximal_coupling(0, shift, rng, interrupts);
    tx = step_x;
    ty = shifted_y - shift;
    const double rx = x.log_ratio(move_, tx), ry = y.log_ratio(move_, ty);
    const double u = rng.uniform_open01();
    if (!metropolis_accepts(rx, u)) tx = 0;
    if (!metropolis_accepts(ry, u)) ty = 0;
  }
  x.apply(move_, tx);
  y.apply(move_, ty);
  std::size_t after = 0;
  for (std::size_t k = 0; k < move_.size; ++k) after += x.z_[move_.cell[k]] != y.z_[move_.cell[k]];
  differing_ = differing_ - before + after;
}

void CoupledSwapKernel::sweep(RandomSource& rng, const Interrupts& interrupts) {
  for (std::uint64_t s = 0; s < x_->steps_per_sweep(); ++s) {
    interrupts.poll_every(s);
    step(rng, interrupts);
  }
}

MeetingTime sample_table_meeting_time(const TableMoves& moves, const SwapChainConfig& config, std::int64_t lag,
                                      std::int64_t cap, RandomSource& rng, const Interrupts& interrupts) {
  if (lag < 1) throw InvalidArgument("coupling lag must be at least 1");
  if (cap <= lag) throw InvalidArgument("meeting-time cap must exceed the lag");
  TableSwapChain x(moves, config), y(moves, config);
  x.run(std::uint64_t(lag), rng, interrupts);
  CoupledSwapKernel kernel(x, y);
  const std::uint64_t steps = x.steps_per_sweep();
  for (std::int64_t l = lag + 1; l <= cap; ++l) {
    for (std::uint64_t s = 0; s < steps; ++s) {
      interrupts.poll_every(s);
      kernel.step(rng, interrupts);
    }
    if (kernel.met()) return MeetingTime{l, true};
  }
  return MeetingTime{cap, false};
}

}  // namespace invariant_dp::mcmc

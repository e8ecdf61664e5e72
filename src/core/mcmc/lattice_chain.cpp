// Algorithm 1 (Gibbs-within-Metropolis) with extra symmetric moves; see
// lattice_chain.hpp. Norms are exact integers; entries are kept below 2^20
// in absolute value so ||z||_2^2 cannot overflow (OutOfRange otherwise; at
// the privacy levels of interest entries are in the tens).
#include "lattice_chain.hpp"

#include <cstdlib>

#include "../errors.hpp"
#include "noise_range.hpp"

namespace invariant_dp::mcmc {

AcceptanceCounts& AcceptanceCounts::operator+=(const AcceptanceCounts& o) {
  basis_proposed += o.basis_proposed;
  basis_accepted += o.basis_accepted;
  move_proposed += o.move_proposed;
  move_accepted += o.move_accepted;
  return *this;
}

LatticeChain::LatticeChain(const ChainModel& model)
    : model_(&model),
      target_(model.config().target),
      z_(model.dimension(), 0),
      v_(model.rank(), 0),
      delta_(model.dimension(), 0),
      marked_(model.dimension(), 0),
      draw_(model.rank(), 0) {}

void LatticeChain::reset_zero() {
  std::fill(z_.begin(), z_.end(), 0);
  std::fill(v_.begin(), v_.end(), 0);
  l1_ = l2_ = 0;
  log_q_ = 0;  // log q(0) = 0 for every target
}

void LatticeChain::reset_to(const std::vector<std::int64_t>& v) {
  if (v.size() != v_.size()) throw InvalidArgument("lattice coordinates have the wrong length");
  reset_zero();
  propose_basis(v);
  finish_basis(true);
  --counts_.basis_proposed;  // a reset is not a proposal
  --counts_.basis_accepted;
}

void LatticeChain::reset_from_proposal(RandomSource& rng) {
  for (auto& e : draw_) e = model_->step_law().sample(rng);
  reset_to(draw_);
}

void LatticeChain::reset_overdispersed(RandomSource& rng, const Interrupts& interrupts, double factor,
                                       std::uint64_t iterations) {
  const Target target = target_;
  target_ = widened(target, factor);
  reset_from_proposal(rng);  // sets log_q_ under the widened target
  const AcceptanceCounts saved = counts_;
  run(iterations, rng, interrupts);
  counts_ = saved;
  target_ = target;
  log_q_ = mcmc::log_density(target_, l1_, l2_);
}

// Lines 4-6 of Algorithm 1 build u = B e on the union of the supports of
// the columns with e_j != 0; only those cells enter the norm update.
double LatticeChain::propose_basis(const std::vector<std::int64_t>& e) {
  pending_e_ = e;
  for (std::size_t j = 0; j < e.size(); ++j) {
    if (e[j] == 0) continue;
    const SparseVector& col = model_->column(j);
    for (std::size_t t = 0; t < col.index.size(); ++t) {
      const std::uint32_t i = col.index[t];
      if (!marked_[i]) {
        marked_[i] = 1;
        touched_.push_back(i);
      }
      delta_[i] += e[j] * col.value[t];
    }
  }
  pending_l1_ = l1_;
  pending_l2_ = l2_;
  bool in_range = true;
  for (const std::uint32_t i : touched_) {
    const std::int64_t now = z_[i], next = now + delta_[i];
    in_range = in_range && next <= kMaxEntry && next >= -kMaxEntry;
    pending_l1_ += std::llabs(next) - std::llabs(now);
    pending_l2_ += next * next - now * now;
  }
  if (!in_range) {  // leave the scratch clean before throwing
    finish_basis(false);
    --counts_.basis_proposed;
    check_entry(kMaxEntry + 1);
  }
  pending_log_q_ = mcmc::log_density(target_, pending_l1_, pending_l2_);
  return pending_log_q_ - log_q_;
}

void LatticeChain::finish_basis(bool accept) {
  ++counts_.basis_proposed;
  if (accept) {
    ++counts_.basis_accepted;
    for (const std::uint32_t i : touched_) z_[i] += delta_[i];
    for (std::size_t j = 0; j < v_.size(); ++j) v_[j] += pending_e_[j];
    l1_ = pending_l1_;
    l2_ = pending_l2_;
    log_q_ = pending_log_q_;
  }
  for (const std::uint32_t i : touched_) {
    delta_[i] = 0;
    marked_[i] = 0;
  }
  touched_.clear();
}

double LatticeChain::propose_move(std::size_t k, std::int64_t s) const {
  const SparseVector& mv = model_->move(k);
  std::int64_t l1 = l1_, l2 = l2_;
  for (std::size_t t = 0; t < mv.index.size(); ++t) {
    const std::int64_t now = z_[mv.index[t]], next = now + s * mv.value[t];
    check_entry(next);
    l1 += std::llabs(next) - std::llabs(now);
    l2 += next * next - now * now;
  }
  return mcmc::log_density(target_, l1, l2) - log_density();
}

void LatticeChain::add_cell(std::uint32_t i, std::int64_t amount) {
  const std::int64_t now = z_[i], next = now + amount;
  l1_ += std::llabs(next) - std::llabs(now);
  l2_ += next * next - now * now;
  z_[i] = next;
}

void LatticeChain::finish_move(std::size_t k, std::int64_t s, bool accept) {
  ++counts_.move_proposed;
  if (!accept) return;
  ++counts_.move_accepted;
  const SparseVector& mv = model_->move(k);
  for (std::size_t t = 0; t < mv.index.size(); ++t) add_cell(mv.index[t], s * mv.value[t]);
  log_q_ = mcmc::log_density(target_, l1_, l2_);
  const SparseVector& c = model_->move_coordinates(k);
  for (std::size_t t = 0; t < c.index.size(); ++t) v_[c.index[t]] += s * c.value[t];
}

void LatticeChain::iterate(RandomSource& rng) {
  for (auto& e : draw_) e = model_->step_law().sample(rng);
  const double log_ratio = propose_basis(draw_);
  finish_basis(metropolis_accepts(log_ratio, rng.uniform_open01()));
  const std::size_t moves = model_->config().moves_per_iteration;
  for (std::size_t t = 0; t < moves; ++t) {
    const std::size_t k = rng.uniform_below(model_->move_count());
    const std::int64_t magnitude = model_->move_magnitude(rng);
    const std::int64_t s = rng.fair_bit() ? magnitude : -magnitude;
    const double move_ratio = propose_move(k, s);
    finish_move(k, s, metropolis_accepts(move_ratio, rng.uniform_open01()));
  }
}

void LatticeChain::run(std::uint64_t iterations, RandomSource& rng, const Interrupts& interrupts) {
  for (std::uint64_t it = 0; it < iterations; ++it) {
    model_->poll_at(it, interrupts);
    iterate(rng);
  }
}

bool LatticeChain::same_state(const LatticeChain& other) const {
  return l1_ == other.l1_ && l2_ == other.l2_ && v_ == other.v_;
}

std::vector<std::int64_t> draw_lattice_noise(const ChainModel& model, std::uint64_t burn_in, RandomSource& rng,
                                             const Interrupts& interrupts) {
  LatticeChain chain(model);
  chain.reset_from_proposal(rng);
  chain.run(burn_in, rng, interrupts);
  return chain.z();
}

}  // namespace invariant_dp::mcmc

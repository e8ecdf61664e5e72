// One Markov chain of Algorithm 1 of Dharangutte, Gao, Gong, Yu 2023
// (arXiv:2212.00936; Section 4 and Appendix D.1, the "Gibbs-within-
// Metropolis" sampler) on the noise z in Lambda_A; the chain never sees the
// data, so any error of an unconverged chain is independent of the
// confidential counts (the paper's Section 4). One iteration is one sweep: a jump
// u = B e with e_j i.i.d. double geometric (Eq. 11), built coordinate by
// coordinate, and ONE Metropolis accept/reject; then, optionally, a number
// of extra symmetric moves z -> z + s m, each with its own accept/reject.
// Every proposal is symmetric, so the composed kernel leaves q exactly
// invariant. State: z (data space), v with z = B v (lattice coordinates,
// for the coupling of Algorithm 2), and the exact integers ||z||_1 and
// ||z||_2^2, updated on the support of each proposal only.
//
// Unbiased at every iteration (our argument; the paper shows E z = 0 only
// for the target, Theorem 12). Each proposal has the law of its negative
// (double-geometric steps carry a fair sign bit; extra moves use a
// symmetric s), the target is even (q(-z) = q(z): it depends on ||z||_1 and
// ||z||_2^2 only), and the accept test compares the same uniform with the
// same ratio for z and -z, so the kernel commutes with z -> -z:
// K(-z, -S) = K(z, S). A chain started from a symmetric law (pi0 = g, or an
// over-dispersed chain itself started from g) therefore has a symmetric law
// at every iteration, and E z = 0 exactly, converged or not. The entry-range
// check (noise_range.hpp) is symmetric and throws rather than rejects.
// test/stat/mcmc/stat_mcmc.cpp checks the mean after a short burn-in from g and
// its power against an asymmetric start.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "chain_model.hpp"

namespace invariant_dp::mcmc {

struct AcceptanceCounts {
  std::uint64_t basis_proposed = 0, basis_accepted = 0;
  std::uint64_t move_proposed = 0, move_accepted = 0;
  double basis_rate() const { return basis_proposed ? double(basis_accepted) / double(basis_proposed) : 0; }
  double move_rate() const { return move_proposed ? double(move_accepted) / double(move_proposed) : 0; }
  AcceptanceCounts& operator+=(const AcceptanceCounts& o);
};

// The Metropolis test with a given uniform r in (0,1): r <= exp(log_ratio).
inline bool metropolis_accepts(double log_ratio, double r);

class LatticeChain {
 public:
  // Starts at z = 0. The model must outlive the chain.
  explicit LatticeChain(const ChainModel& model);

  void reset_zero();
  // z = B v for given lattice coordinates v (size rank()).
  void reset_to(const std::vector<std::int64_t>& v);
  // pi0 = g (the paper's default initial law): v_j ~ eta i.i.d., z = B v.
  // Symmetric, small.
  void reset_from_proposal(RandomSource& rng);
  // Over-dispersed start (as in the paper's Appendix E.4): from pi0 = g, `iterations` steps
  // targeting widened(target, factor). Symmetric, so unbiasedness holds.
  void reset_overdispersed(RandomSource& rng, const Interrupts& interrupts, double factor,
                           std::uint64_t iterations);

  // One iteration (sweep + extra moves); run() polls interrupts every 4096.
  void iterate(RandomSource& rng);
  void run(std::uint64_t iterations, RandomSource& rng, const Interrupts& interrupts);

  // Building blocks shared with the coupled kernel (Algorithm 2).
  double propose_basis(const std::vector<std::int64_t>& e);  // log q(z+Be) - log q(z)
  void finish_basis(bool accept);                            // apply or drop the pending jump
  double propose_move(std::size_t k, std::int64_t s) const;  // log q(z+s m_k) - log q(z)
  void finish_move(std::size_t k, std::int64_t s, bool accept);

  const std::vector<std::int64_t>& z() const { return z_; }
  const std::vector<std::int64_t>& v() const { return v_; }
  std::int64_t l1() const { return l1_; }
  std::int64_t l2_squared() const { return l2_; }
  double log_density() const { return log_q_; }
  const AcceptanceCounts& acceptance() const { return counts_; }
  void clear_acceptance() { counts_ = {}; }
  const ChainModel& model() const { return *model_; }
  bool same_state(const LatticeChain& other) const;

 private:
  void add_cell(std::uint32_t i, std::int64_t amount);
  const ChainModel* model_;
  Target target_;
  std::vector<std::int64_t> z_, v_;
  std::int64_t l1_ = 0, l2_ = 0;
  double log_q_ = 0;  // log q(z) + const, cached
  // Pending basis jump: delta_ on the touched_ cells, its new norms and e.
  std::vector<std::int64_t> delta_;
  std::vector<std::uint32_t> touched_;
  std::vector<std::uint8_t> marked_;
  std::vector<std::int64_t> pending_e_;
  std::int64_t pending_l1_ = 0, pending_l2_ = 0;
  double pending_log_q_ = 0;
  std::vector<std::int64_t> draw_;  // scratch for e
  AcceptanceCounts counts_;
};

// One noise draw for a release: a fresh chain from pi0 = g run `burn_in`
// iterations (a fresh chain per release keeps the releases' randomness
// independent, as composition assumes; the symmetric start keeps E z = 0 at
// every iteration, see the header).
std::vector<std::int64_t> draw_lattice_noise(const ChainModel& model, std::uint64_t burn_in, RandomSource& rng,
                                             const Interrupts& interrupts);

inline bool metropolis_accepts(double log_ratio, double r) { return log_ratio >= 0 || r <= std::exp(log_ratio); }

}  // namespace invariant_dp::mcmc

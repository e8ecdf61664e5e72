// Target laws of the MCMC sampler on the invariant lattice Lambda_A
// (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936, Section 3): the
// generalized Laplace q(z) ∝ exp(-eps ||z||_1) or exp(-eps ||z||_2)
// (Definition 9, Eq. 5) and the lattice Gaussian
// q(z) ∝ exp(-||z||_2^2 / (2 sigma^2)) (Eq. 8, Definition 13). The chain
// keeps ||z||_1 and ||z||_2^2 as exact integers, so every log-density here is
// a function of those two numbers: the only rounding is the one exp of a
// Metropolis ratio.
#pragma once

#include <cstddef>
#include <cstdint>

namespace invariant_dp::mcmc {

enum class TargetKind { laplace_l1, laplace_l2, lattice_gaussian };

struct Target {
  TargetKind kind = TargetKind::laplace_l1;
  double epsilon = 0;  // laplace_l1 / laplace_l2: privacy loss per unit norm
  double sigma2 = 0;   // lattice_gaussian: sigma^2 of Eq. 8
};

Target laplace_l1(double epsilon);
Target laplace_l2(double epsilon);
Target lattice_gaussian(double sigma2);

// Throws InvalidArgument unless the parameter is finite and positive.
void validate(const Target& target);

// A flatter law of the same kind, for over-dispersed starts (the paper's
// Appendix E.4 starts its Census chains from chains at eps = 0.1 when the
// target is 0.192):
// epsilon * factor, or sigma2 / factor^2. factor in (0, 1] widens.
Target widened(const Target& target, double factor);

// log q(z) + const, from the exact norms of z.
double log_density(const Target& target, std::int64_t l1, std::int64_t l2_squared);

// Same, from z itself (tests and one-off checks).
double log_density(const Target& target, const std::int64_t* z, std::size_t d);

}  // namespace invariant_dp::mcmc

// Concentrated DP (Bun and Steinke 2016) to (epsilon, delta), with the tight
// conversion of Canonne, Kamath, Steinke (2020), Corollary 13, and the
// calibration of the lattice Gaussian that rests on it.
//
// The lattice Gaussian D_{Lambda, sigma} (P(z) proportional to
// exp(-||z||^2 / (2 sigma^2)) on a lattice Lambda, the integer_gaussian noise
// on Lambda_A = {z in Z^d : A z = 0}) is rho-zCDP with rho = ||v||^2 /
// (2 sigma^2) for a shift by v in Lambda: completing the square, the Renyi
// divergence of order alpha is alpha ||v||^2 / (2 sigma^2) plus
// log(rho_sigma(Lambda + c) / rho_sigma(Lambda)) for a shifted centre c, and
// by Poisson summation rho_sigma(Lambda + c) <= rho_sigma(Lambda) for every
// lattice and every c (CKS prove the case Lambda = Z^d the same way).
#pragma once

#include "../samplers/rational.hpp"

namespace invariant_dp {

// inf over alpha > 1 of exp((alpha - 1)(alpha rho - eps)) / (alpha - 1) *
// (1 - 1/alpha)^alpha (CKS Corollary 13): the delta of a rho-zCDP mechanism.
double zcdp_delta(double epsilon, double rho);

// The rational sigma^2 (rounded up) of the lattice Gaussian that certifies
// (epsilon, delta) for shifts of squared norm squared_shift, through
// zcdp_delta; within 1e-9 relative of the smallest sigma^2 that does.
Rational lattice_gaussian_sigma2(double epsilon, double delta, double squared_shift);

}  // namespace invariant_dp

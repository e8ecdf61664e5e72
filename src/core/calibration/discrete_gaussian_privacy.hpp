// Certified (eps, delta) of independent discrete Gaussian noise per cell
// (Canonne, Kamath, Steinke 2020). A neighbouring dataset moves
// `moved_cells` cells by one each: 1 under add/remove-one neighbours, 2 under
// replace-one (one cell +1, another -1). The delta returned is an upper bound:
// the smaller of the exact privacy-loss sum (exact up to a 1e-9 relative
// margin; evaluated for sigma2 <= 1e8, where it is cheap) and the CKS
// conversion from (moved_cells / (2 sigma2))-zCDP. Invalid arguments throw
// InvalidArgument.
#pragma once

#include "../samplers/rational.hpp"

namespace invariant_dp {

double discrete_gaussian_delta(double epsilon, Rational sigma2, int moved_cells);

// A sigma2 (rational, for the exact sampler) that certifies (epsilon, delta)
// by discrete_gaussian_delta and is within 0.1% of the smallest one that
// does. That bound is not monotone in sigma2 for large epsilon; the search
// accounts for it (see the .cpp). Throws OutOfRange if sigma2 would exceed
// 1e13.
Rational discrete_gaussian_sigma2(double epsilon, double delta, int moved_cells);

}  // namespace invariant_dp

// The family of a published noise law, as its error bars need it: what a
// release publishes as "error_law" beside its mechanism's name, written by
// the mechanism's behaviour (MechanismBehaviour::error_law, one file per
// mechanism) and by the rollups for hierarchies, and read back by
// read_published_law (published_law.hpp). The accuracy code asks the law
// this, never the mechanism's name: a new mechanism whose noise follows one
// of these laws gets error bars by naming it; a new kind of law adds a row
// here and its accuracy (published_release.cpp).
#pragma once

#include <string>

#include "margin_of_error.hpp"

namespace invariant_dp::accuracy {

enum class ErrorLaw {
  laplace_lattice,           // i.i.d. discrete Laplace, conditioned on the margins (discrete_laplace, integer_laplace)
  gaussian_lattice,          // i.i.d. discrete Gaussian, conditioned on the margins (discrete_gaussian, integer_gaussian)
  l2_lattice,                // exp(-|z|_2 / b) on the invariant lattice (integer_laplace_l2)
  projected_gaussian,        // N(0, sigma^2 I) projected onto the null space (subspace_gaussian)
  projected_log_concave,     // continuous Laplace projected onto the null space (subspace_laplace)
  projected_variance,        // known by its unit variance only (project_l2)
  gaussian_cascade,          // Gaussian cascade on a hierarchy (cascade)
  lattice_gaussian_cascade,  // lattice Gaussian with the cascade's covariance (integer_cascade)
  gaussian_stream,           // a governed stream's binary cascade (cascade_stream)
  data_dependent,            // the noise depends on the counts: no law, no error bars (congenial, project_nn_*)
};

// What each family is, for the accuracy code.
enum class LawFamily {
  laplace_lattice,   // laplace_lattice
  gaussian_lattice,  // gaussian_lattice
  l2_lattice,        // l2_lattice
  projected,         // projected_*
  cascade,           // *_cascade
  stream,            // gaussian_stream
  none,              // data_dependent
};

// The name published as "error_law".
const char* error_law_name(ErrorLaw law);
// false for a name no release publishes.
bool error_law_of_name(const std::string& name, ErrorLaw& law);
LawFamily family_of(ErrorLaw law);
// Its tail shape, for choosing a margin of error (margin_of_error.hpp).
LawShape shape_of(ErrorLaw law);

}  // namespace invariant_dp::accuracy

// The published error-law names (error_law.hpp).
#include "error_law.hpp"

namespace invariant_dp::accuracy {
namespace {

struct Row {
  ErrorLaw law;
  const char* name;
  LawFamily family;
  LawShape shape;
};

const Row kRows[] = {
    {ErrorLaw::laplace_lattice, "laplace_lattice", LawFamily::laplace_lattice, LawShape::other},
    {ErrorLaw::gaussian_lattice, "gaussian_lattice", LawFamily::gaussian_lattice, LawShape::lattice_gaussian},
    {ErrorLaw::l2_lattice, "l2_lattice", LawFamily::l2_lattice, LawShape::other},
    {ErrorLaw::projected_gaussian, "projected_gaussian", LawFamily::projected, LawShape::gaussian},
    {ErrorLaw::projected_log_concave, "projected_log_concave", LawFamily::projected, LawShape::log_concave},
    {ErrorLaw::projected_variance, "projected_variance", LawFamily::projected, LawShape::other},
    {ErrorLaw::gaussian_cascade, "gaussian_cascade", LawFamily::cascade, LawShape::gaussian},
    {ErrorLaw::lattice_gaussian_cascade, "lattice_gaussian_cascade", LawFamily::cascade, LawShape::lattice_gaussian},
    {ErrorLaw::gaussian_stream, "gaussian_stream", LawFamily::stream, LawShape::gaussian},
    {ErrorLaw::data_dependent, "data_dependent", LawFamily::none, LawShape::other},
};

const Row& row_of(ErrorLaw law) {
  for (const Row& r : kRows)
    if (r.law == law) return r;
  return kRows[sizeof kRows / sizeof kRows[0] - 1];
}

}  // namespace

const char* error_law_name(ErrorLaw law) { return row_of(law).name; }

LawFamily family_of(ErrorLaw law) { return row_of(law).family; }

LawShape shape_of(ErrorLaw law) { return row_of(law).shape; }

bool error_law_of_name(const std::string& name, ErrorLaw& law) {
  for (const Row& r : kRows)
    if (name == r.name) {
      law = r.law;
      return true;
    }
  return false;
}

}  // namespace invariant_dp::accuracy

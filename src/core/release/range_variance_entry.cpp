#include "range_variance_entry.hpp"

#include <cmath>
#include <string>

#include "../accuracy/error_law.hpp"
#include "../errors.hpp"
#include "../finite_values.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../hierarchy/published_shape.hpp"

namespace invariant_dp {

RangeVarianceBounds cascade_range_variance(const std::string& error_law, const std::uint32_t* children,
                                           std::size_t n_internal, const std::vector<double>& level_variance,
                                           const std::vector<std::uint64_t>& fixed_nodes, double deficit_bound,
                                           std::uint64_t first, std::uint64_t last, const Interrupts& interrupts) {
  accuracy::ErrorLaw law;
  if (!accuracy::error_law_of_name(error_law, law) || accuracy::family_of(law) != accuracy::LawFamily::cascade)
    throw InvalidArgument("range variances are published for cascade laws, not error_law \"" + error_law + "\"",
                          "dp.range_variance reads the law of a cascade or integer_cascade release over one "
                          "hierarchy (error_law gaussian_cascade or lattice_gaussian_cascade).",
                          "Pass the noise law of a cascade release: dp.last_release() after it, or "
                          "dp.draws.noise_law.");
  // A Gaussian cascade's closed form is its variance: no deficit.
  if (accuracy::shape_of(law) == accuracy::LawShape::gaussian) deficit_bound = 0;
  if (n_internal > kMaxPublishedInternalNodes)
    throw TooLarge("the published tree has too many internal nodes",
                   std::to_string(n_internal) + " are listed; a cascade release publishes at most " +
                       std::to_string(kMaxPublishedInternalNodes) + ".",
                   "Pass the noise law of a cascade release, from dp.last_release() or dp.draws.noise_law.");
  interrupts.poll();
  const hierarchy::PublishedShape shape(children, n_internal, interrupts);
  const double closed_form = shape.range_variance(level_variance, fixed_nodes, first, last, interrupts);
  if (!(deficit_bound >= 0) || !std::isfinite(deficit_bound))
    throw InvalidArgument("the noise law has no valid variance_deficit_bound",
                          "An integer_cascade law publishes a finite, non-negative bound.");
  const auto bounds = hierarchy::integer_variance_bounds(closed_form, deficit_bound);
  // The real-valued cascade's closed form is its variance.
  const RangeVarianceBounds out{deficit_bound == 0 ? bounds.upper : bounds.lower, bounds.upper};
  const double both[2] = {out.lower, out.upper};
  refuse_non_finite(both, 2, "range variance");
  return out;
}

}  // namespace invariant_dp

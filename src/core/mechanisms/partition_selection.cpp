// Thresholds of the partition selection (see partition_selection.hpp).
#include "partition_selection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "../calibration/zcdp.hpp"
#include "../errors.hpp"
#include "../json_reader.hpp"
#include "../json_text.hpp"
#include "../samplers/independent_integer_noise.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {
namespace {

constexpr const char* kMethods =
    "\"truncated_geometric\", \"dp_sips\", \"laplace\", \"gaussian\", \"noisy_count\" or \"auto\"";

SelectionMethod method_named(const std::string& name) {
  if (name == "laplace") return SelectionMethod::Laplace;
  if (name == "gaussian") return SelectionMethod::Gaussian;
  if (name == "noisy_count") return SelectionMethod::NoisyCount;
  if (name == "truncated_geometric") return SelectionMethod::TruncatedGeometric;
  if (name == "dp_sips") return SelectionMethod::DpSips;
  if (name == "auto") return SelectionMethod::Auto;
  throw InvalidArgument(std::string("partition selection method must be ") + kMethods, "Got \"" + name + "\".");
}

}  // namespace

SelectionRequest parse_partition_selection(const std::string& value) {
  SelectionRequest request;
  if (value.empty() || value.front() != '{') {
    request.method = method_named(value);
    return request;
  }
  JsonValue object;
  try {
    object = JsonValue::parse(value);
  } catch (const InvalidArgument&) {
    throw InvalidArgument(std::string("option \"partition_selection\" must be ") + kMethods + ", or an object",
                          "Got " + value + ".",
                          "For example {\"partition_selection\": {\"method\": \"truncated_geometric\", "
                          "\"budget_share\": 0.8}}.");
  }
  bool has_share = false, has_rounds = false;
  request.method = SelectionMethod::Auto;  // an object without a method
  for (const auto& [key, setting] : object.members("partition selection")) {
    if (key == "method") {
      if (!setting.is_string())
        throw InvalidArgument(std::string("partition selection method must be ") + kMethods, "Got " + value + ".");
      request.method = method_named(setting.string("method"));
    } else if (key == "budget_share") {
      const double share = setting.is_number() ? setting.number("budget_share") : 0;
      if (!(share > 0 && share < 1))
        throw InvalidArgument("partition selection's \"budget_share\" must be between 0 and 1",
                              "Got " + value + ". It is the share of epsilon (and of delta) spent on choosing "
                              "which cells to show; the rest releases their counts.");
      request.budget_share = share;
      has_share = true;
    } else if (key == "rounds") {
      const double rounds = setting.is_number() ? setting.number("rounds") : 0;
      if (!(rounds >= 1 && rounds <= kDpSipsMaxRounds && rounds == std::floor(rounds)))
        throw InvalidArgument("partition selection's \"rounds\" must be a whole number from 1 to " +
                                  std::to_string(kDpSipsMaxRounds),
                              "Got " + value + ". It is how many rounds \"dp_sips\" selects in.");
      request.rounds = static_cast<int>(rounds);
      has_rounds = true;
    } else {
      throw InvalidArgument("unknown partition selection setting \"" + key + "\"",
                            "Known settings: method, budget_share, rounds.");
    }
  }
  if (has_rounds && request.method != SelectionMethod::DpSips)
    throw InvalidArgument("partition selection's \"rounds\" needs method \"dp_sips\"",
                          "Got " + value + ". Only \"dp_sips\" selects in rounds.",
                          "Add \"method\": \"dp_sips\", or drop \"rounds\".");
  if (has_share && request.method == SelectionMethod::NoisyCount)
    throw InvalidArgument("partition selection \"noisy_count\" takes no \"budget_share\"",
                          "It shows a cell when its released count reaches a threshold: all of epsilon goes to the "
                          "counts and nothing is split.",
                          "Drop \"budget_share\", or use \"truncated_geometric\", \"laplace\" or \"gaussian\" "
                          "selection to split the budget.");
  return request;
}

const char* selection_method_name(SelectionMethod method) {
  switch (method) {
    case SelectionMethod::Laplace: return "laplace";
    case SelectionMethod::Gaussian: return "gaussian";
    case SelectionMethod::NoisyCount: return "noisy_count";
    case SelectionMethod::TruncatedGeometric: return "truncated_geometric";
    case SelectionMethod::DpSips: return "dp_sips";
    case SelectionMethod::Auto: return "auto";
    case SelectionMethod::None: break;
  }
  return "none";
}

namespace {

// A threshold as a count of units: a tiny epsilon or delta makes it larger
// than any bigint (and converting it would be undefined behaviour).
std::int64_t threshold_of(double t, bool split = true) {
  if (!(t < 0x1p62))
    throw OutOfRange("epsilon or delta is too small for partition selection",
                     std::string(split ? "The threshold a cell's count of units would have to reach is "
                                       : "The threshold a cell's released count would have to reach is ") +
                         format_double(t) + ".",
                     split ? "Raise epsilon or delta, or the selection's \"budget_share\"."
                           : "Raise epsilon or delta.");
  return t < 0 ? 0 : static_cast<std::int64_t>(t);
}

}  // namespace

namespace {

// The law's figures; a law that would need more steps than a release may
// take is refused here, before any data is read.
TruncatedGeometricFigures checked_figures(const TruncatedGeometricParameters& parameters) {
  const TruncatedGeometricFigures figures = truncated_geometric_figures(parameters, Interrupts());
  if (figures.units_always_shown < 0)
    throw OutOfRange("epsilon is too small for truncated geometric partition selection",
                     "Per cell it is " + format_double(parameters.epsilon / double(parameters.moved_cells)) +
                         ": a cell would be shown for sure only beyond " +
                         std::to_string(kMaxTruncatedGeometricSteps) + " units.",
                     "Raise epsilon or the selection's \"budget_share\", or use \"gaussian\" selection.");
  return figures;
}

}  // namespace

SelectionLaw calibrate_selection(SelectionMethod method, double epsilon, double delta, std::int64_t groups,
                                 bool replace_one, int rounds) {
  if (!(epsilon > 0) || !(delta > 0 && delta < 1) || groups < 1) throw Error("invalid partition selection budget");
  SelectionLaw law;
  law.method = method;
  law.epsilon = epsilon;
  law.delta = delta;
  law.moved_cells = (replace_one ? 2 : 1) * groups;
  const double k = double(law.moved_cells);
  if (method == SelectionMethod::TruncatedGeometric) {
    law.geometric.epsilon = epsilon;
    law.geometric.delta = delta;
    law.geometric.moved_cells = law.moved_cells;
    law.geometric_figures = checked_figures(law.geometric);
  } else if (method == SelectionMethod::DpSips) {
    law.sips = calibrate_dp_sips(epsilon, delta, groups, replace_one, rounds);
  } else if (method == SelectionMethod::Laplace) {
    law.noise_parameter = rational_at_least(k / epsilon);
    const double b = law.noise_parameter.to_double();
    const double a = std::exp(-1 / b);
    const double per_cell_delta = delta / k;
    law.threshold = 1 + threshold_of(std::ceil(b * std::log(1 / (per_cell_delta * (1 + a)))));
    if (law.threshold < 1) law.threshold = 1;
  } else if (method == SelectionMethod::Gaussian) {
    law.noise_parameter = lattice_gaussian_sigma2(epsilon, delta / 2, k);
    const double sigma = std::sqrt(law.noise_parameter.to_double());
    const double margin = 2 * (1 + std::exp(epsilon)) * double(groups) / delta;
    law.threshold = threshold_of(std::ceil(sigma * std::sqrt(2 * std::log(margin))));
    if (law.threshold < 1) law.threshold = 1;
  } else {
    throw Error("no calibration for this partition selection method");
  }
  return law;
}

SelectionLaw calibrate_geometric_with_counts(double epsilon, double delta, double counts_epsilon,
                                             const Rational& counts_scale, std::int64_t groups,
                                             std::int64_t max_rows, bool replace_one) {
  if (!(epsilon > 0) || !(delta > 0 && delta < 1) || !(counts_epsilon > 0) || groups < 1 || max_rows < 1 ||
      counts_scale.num == 0)
    throw Error("invalid partition selection budget");
  SelectionLaw law;
  law.method = SelectionMethod::TruncatedGeometric;
  law.epsilon = epsilon - counts_epsilon;
  law.delta = delta;
  law.moved_cells = (replace_one ? 2 : 1) * groups;
  // The derivation needs the counts' per-cell loss R / b at most epsilon /
  // k; b >= l1 / counts_epsilon = k R / counts_epsilon gives it unless the
  // selection's share is so small that 1 - share rounds to 1.
  if (!(double(max_rows) / counts_scale.to_double() * double(law.moved_cells) < epsilon))
    throw OutOfRange("partition selection's \"budget_share\" is too small",
                     "The counts would take all of epsilon (" + format_double(counts_epsilon) + ").",
                     "Raise the selection's \"budget_share\".");
  law.geometric = TruncatedGeometricParameters{epsilon, delta, law.moved_cells, counts_scale, max_rows};
  law.geometric_figures = checked_figures(law.geometric);
  return law;
}

std::int64_t units_at_half(const SelectionLaw& law) {
  if (law.method == SelectionMethod::TruncatedGeometric) return law.geometric_figures.units_at_half;
  if (law.method == SelectionMethod::DpSips) return dp_sips_units_at_half(law.sips);
  return law.threshold;
}

SelectionLaw calibrate_noisy_count(bool gaussian, const Rational& counts_parameter, double epsilon, double delta,
                                   std::int64_t groups, std::int64_t max_rows, bool replace_one) {
  if (!(epsilon > 0) || !(delta > 0 && delta < 1) || groups < 1 || max_rows < 1)
    throw Error("invalid partition selection budget");
  SelectionLaw law;
  law.method = SelectionMethod::NoisyCount;
  law.gaussian_counts = gaussian;
  law.delta = gaussian ? delta / 2 : delta;  // the rest of delta is the counts'
  law.moved_cells = (replace_one ? 2 : 1) * groups;
  law.noise_parameter = counts_parameter;
  if (!gaussian) {
    const double b = counts_parameter.to_double();
    const double a = std::exp(-1 / b);
    const double above_rows = std::ceil(b * std::log(double(law.moved_cells) / (delta * (1 + a))));
    law.threshold = checked_add(max_rows, std::max<std::int64_t>(1, threshold_of(above_rows, false)));
  } else {
    const double sigma = std::sqrt(counts_parameter.to_double());
    const double margin = 2 * (1 + std::exp(epsilon)) * double(groups) / delta;
    const double above_zero = std::ceil(sigma * std::sqrt(2 * std::log(margin)));
    law.threshold = std::max<std::int64_t>(1, threshold_of(above_zero, false));
  }
  return law;
}

std::vector<std::size_t> shown_by_count(const std::int64_t* values, std::size_t n, const SelectionLaw& law,
                                        const Interrupts& interrupts) {
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (values[i] >= law.threshold) shown.push_back(i);
  }
  return shown;
}

std::vector<bool> select_partitions(const std::int64_t* units, std::size_t n, const SelectionLaw& law,
                                    RandomSource& rng, const Interrupts& interrupts, const KeptCells* unit_cells) {
  if (law.method == SelectionMethod::DpSips) return dp_sips_select(units, n, unit_cells, law.sips, rng, interrupts);
  std::vector<bool> shown(n, false);
  if (law.method == SelectionMethod::TruncatedGeometric) {
    std::int64_t most = 0;
    for (std::size_t i = 0; i < n; ++i) {
      interrupts.poll_every(i);
      most = std::max(most, units[i]);
    }
    const TruncatedGeometricSelector selector(law.geometric, most, interrupts);
    for (std::size_t i = 0; i < n; ++i) {
      interrupts.poll_every(i);
      shown[i] = selector.shown(units[i], rng);
    }
    return shown;
  }
  const IndependentIntegerNoise noise(law.method == SelectionMethod::Laplace
                                          ? IndependentIntegerNoise::Law::DiscreteLaplace
                                          : IndependentIntegerNoise::Law::DiscreteGaussian,
                                      law.noise_parameter, n, interrupts);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    shown[i] = Int128(units[i]) + noise.draw(rng) >= law.threshold;  // 128 bits: no sum of two bigints overflows
  }
  return shown;
}

namespace {

// noisy_count's law: the counts' own noise, and what selecting on it costs.
std::string noisy_count_json(const SelectionLaw& law) {
  std::ostringstream out;
  const bool laplace = !law.gaussian_counts;
  out << "{\"method\": \"noisy_count\", \"delta\": " << json_number(law.delta)
      << ", \"moved_cells\": " << law.moved_cells
      << ", \"noise\": " << json_quoted(laplace ? "discrete Laplace, the counts' own" : "discrete Gaussian, the counts' own")
      << (laplace ? ", \"scale\": " : ", \"sigma2\": ") << json_number(law.noise_parameter.to_double())
      << ", \"threshold\": " << law.threshold << ", \"rule\": "
      << json_quoted("a cell is shown iff its released count is at least the threshold; the same noise decides "
                     "which cells are shown and their counts, so shown counts are biased upward near the "
                     "threshold (not unbiased) and no per-cell error bar holds given that a cell is shown "
                     "(Wilson et al. 2020, arXiv:1909.01917; src/core/mechanisms/partition_selection.hpp)")
      << "}";
  return out.str();
}

// truncated_geometric's law: its per-cell budget and, when calibrated with
// the counts, their scale; the counts of units at which a cell is shown
// half the time and always (public: from the parameters alone).
std::string truncated_geometric_json(const SelectionLaw& law) {
  const TruncatedGeometricParameters& g = law.geometric;
  const TruncatedGeometricFigures& figures = law.geometric_figures;
  const double k = double(g.moved_cells);
  std::ostringstream out;
  out << "{\"method\": \"truncated_geometric\"" << (law.chosen_automatically ? ", \"chosen_by\": \"auto\"" : "")
      << ", \"budget_share\": " << json_number(law.budget_share) << ", \"epsilon\": " << json_number(law.epsilon)
      << ", \"delta\": " << json_number(law.delta) << ", \"moved_cells\": " << law.moved_cells
      << ", \"calibration\": "
      << json_quoted(g.joint() ? "joint with the counts' discrete Laplace noise: selection and counts together are "
                                 "(epsilon, delta)-DP, per cell (epsilon_per_cell, delta_per_cell)"
                               : "split: the selection is (epsilon, delta)-DP, per cell (epsilon_per_cell, "
                                 "delta_per_cell), the counts have the rest (basic composition)")
      << ", \"epsilon_per_cell\": " << json_number(g.epsilon / k) << ", \"delta_per_cell\": " << json_number(g.delta / k);
  if (g.joint())
    out << ", \"counts_scale\": " << json_number(g.counts_scale.to_double()) << ", \"max_rows\": " << g.max_rows;
  out << ", \"units_at_half\": " << figures.units_at_half << ", \"units_always_shown\": " << figures.units_always_shown
      << ", \"rule\": "
      << json_quoted(std::string("a cell of n distinct units is shown with probability p_n, p_0 = 0, p_n = min(") +
                     (g.joint() ? "e^e a^R p_{n-1} + (1 + a) d, e^e a^(R-1) p_{n-1} + d, "
                                : "e^e p_{n-1} + d, ") +
                     "1 - e^-e (1 - p_{n-1} - d), 1), e = epsilon_per_cell, d = delta_per_cell" +
                     (g.joint() ? ", a = exp(-1 / counts_scale), R = max_rows" : "") +
                     ", drawn exactly; its count is released independently (Desfontaines et al. 2022, "
                     "arXiv:2006.03684; src/core/mechanisms/truncated_geometric.hpp)")
      << "}";
  return out.str();
}

// dp_sips's law: its rounds' noise and thresholds in weight units, and the
// weight a unit of m live cells gives each (public: from the parameters).
std::string dp_sips_json(const SelectionLaw& law) {
  const DpSipsLaw& sips = law.sips;
  std::ostringstream out;
  out << "{\"method\": \"dp_sips\"" << (law.chosen_automatically ? ", \"chosen_by\": \"auto\"" : "")
      << ", \"budget_share\": " << json_number(law.budget_share) << ", \"epsilon\": " << json_number(law.epsilon)
      << ", \"delta\": " << json_number(law.delta) << ", \"moved_cells\": " << law.moved_cells
      << ", \"rounds\": " << sips.rounds.size() << ", \"noise\": \"discrete Gaussian\", \"weight_scale\": "
      << kDpSipsWeightScale << ", \"squared_shift\": " << json_number(sips.squared_shift) << ", \"sigma2\": [";
  for (std::size_t i = 0; i < sips.rounds.size(); ++i)
    out << (i ? ", " : "") << json_number(sips.rounds[i].sigma2.to_double());
  out << "], \"threshold\": [";
  for (std::size_t i = 0; i < sips.rounds.size(); ++i) out << (i ? ", " : "") << sips.rounds[i].threshold;
  out << "], \"units_at_half\": " << dp_sips_units_at_half(sips) << ", \"rule\": "
      << json_quoted("in each round, a unit holding m cells not shown before gives each floor(weight_scale / "
                     "sqrt(m)); a cell not shown before is shown iff the sum of its units' weights plus discrete "
                     "Gaussian noise of that round's sigma2 is at least that round's threshold; its count is "
                     "released independently with the rest of the budget (Swanberg, Desfontaines, Haney 2023, "
                     "arXiv:2301.01998; Gopi et al. 2020, arXiv:2002.09745; src/core/mechanisms/dp_sips.hpp)")
      << "}";
  return out.str();
}

}  // namespace

std::string selection_json(const SelectionLaw& law) {
  if (law.method == SelectionMethod::NoisyCount) return noisy_count_json(law);
  if (law.method == SelectionMethod::DpSips) return dp_sips_json(law);
  if (law.method == SelectionMethod::TruncatedGeometric) return truncated_geometric_json(law);
  std::ostringstream out;
  const bool laplace = law.method == SelectionMethod::Laplace;
  out << "{\"method\": " << json_quoted(selection_method_name(law.method))
      << (law.chosen_automatically ? ", \"chosen_by\": \"auto\"" : "")
      << ", \"budget_share\": " << json_number(law.budget_share) << ", \"epsilon\": " << json_number(law.epsilon) << ", \"delta\": " << json_number(law.delta)
      << ", \"moved_cells\": " << law.moved_cells
      << ", \"noise\": " << json_quoted(laplace ? "discrete Laplace" : "discrete Gaussian")
      << (laplace ? ", \"scale\": " : ", \"sigma2\": ") << json_number(law.noise_parameter.to_double())
      << ", \"threshold\": " << law.threshold << ", \"rule\": "
      << json_quoted("a cell is shown iff its count of distinct units plus the noise is at least the threshold; "
                     "its count is released independently with the rest of the budget" +
                     std::string(laplace ? " (Korolova et al. 2009; Wilson et al. 2020, arXiv:1909.01917)"
                                         : " (Desfontaines et al. 2022, arXiv:2006.03684; src/core/mechanisms/"
                                           "partition_selection.hpp)"))
      << "}";
  return out.str();
}

}  // namespace invariant_dp

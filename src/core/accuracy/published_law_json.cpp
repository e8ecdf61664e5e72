// Writing the published law (published_law_json.hpp). The field order is the
// metadata's since it was first published: users and tests read it as text.
#include "published_law_json.hpp"

#include <sstream>

#include "../errors.hpp"
#include "../json_text.hpp"

namespace invariant_dp::accuracy {
namespace {

std::string numbers_json(const std::vector<double>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + json_number(values[i]);
  return out + "]";
}

std::string strings_json(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + json_quoted(values[i]);
  return out + "]";
}

std::string margins_json(const std::vector<std::vector<std::string>>& margins) {
  std::string out = "[";
  for (std::size_t m = 0; m < margins.size(); ++m) out += (m ? ", " : "") + strings_json(margins[m]);
  return out + "]";
}

std::string covariance_scale_json(const CovarianceScale& c) {
  if (c.one_for_all) return json_number(c.all);
  std::ostringstream out;
  out << "[";
  for (std::size_t t = 0; t < c.by_shape.size(); ++t) {
    out << (t ? ", " : "") << "{\"shape\": [";
    const auto& [shape, scale] = c.by_shape[t];
    for (std::size_t k = 0; k < shape.size(); ++k) out << (k ? ", " : "") << shape[k];
    out << "], \"scale\": " << json_number(scale) << "}";
  }
  out << "]";
  return out.str();
}

std::string tree_json(const PublishedTree& tree) {
  std::ostringstream out;
  out << "{\"levels\": " << strings_json(tree.levels) << ", \"level_names\": " << strings_json(tree.level_names)
      << ", \"nodes\": " << tree.nodes << ", \"leaves\": " << tree.leaves
      << ", \"internal_nodes\": " << tree.nodes - tree.leaves
      << ", \"node_order\": \"level order: the grand total, then each depth in leaf order\""
      << ", \"rollup\": \"every internal node is the sum of its children's released values, in a fixed order\"";
  if (tree.children_published) {
    out << ", \"children\": [";
    for (std::size_t v = 0; v < tree.children.size(); ++v) out << (v ? ", " : "") << tree.children[v];
    out << "]";
  }
  out << "}";
  return out.str();
}

}  // namespace

void MetadataObject::add(std::string_view name, const std::string& json_value) {
  if (!fields_.empty()) fields_ += ", ";
  fields_ += json_quoted(std::string(name)) + ": " + json_value;
}

std::string error_law_json(const PublishedLaw& law) { return json_quoted(error_law_name(law.error_law)); }

std::string noise_json(const PublishedLaw& law) {
  std::ostringstream out;
  out << "{\"law\": " << json_quoted(law.noise_text);
  if (law.family != LawFamily::cascade) {
    out << ", \"scale_parameter\": " << json_quoted(law.scale_parameter) << ", \"scale\": " << json_number(law.scale)
        << ", \"exact_parameter\": "
        << (law.has_exact_parameter ? json_quoted(std::to_string(law.exact_parameter.num) + "/" +
                                                  std::to_string(law.exact_parameter.den))
                                    : std::string("null"))
        << ", \"unit_variance\": " << json_number(law.unit_variance) << ", \"calibration\": " << law.calibration_json;
    if (law.covariance_scale.published) out << ", \"covariance_scale\": " << covariance_scale_json(law.covariance_scale);
    out << "}";
    return out.str();
  }
  if (law.crossed())
    out << ", \"row_level_variance\": " << numbers_json(law.level_variance.at(0))
        << ", \"column_level_variance\": " << numbers_json(law.level_variance.at(1));
  else
    out << ", \"level_variance\": " << numbers_json(law.level_variance.at(0));
  if (!law.level_variance_lower.empty())
    out << ", \"level_variance_lower_bound\": " << numbers_json(law.level_variance_lower);
  if (law.deficit_bound >= 0) out << ", \"variance_deficit_bound\": " << json_number(law.deficit_bound);
  out << ", \"calibration\": " << law.calibration_json << "}";
  return out.str();
}

std::string invariants_json(const PublishedLaw& law) {
  std::ostringstream out;
  out << "{\"margins\": " << margins_json(law.margins);
  if (law.family == LawFamily::cascade) {
    out << ", \"fixed_nodes\": [";
    for (std::size_t i = 0; i < law.fixed_nodes.size(); ++i) out << (i ? ", " : "") << law.fixed_nodes[i];
    out << "]}";
    return out.str();
  }
  out << ", \"structure\": " << json_quoted(law.structure) << ", \"rank\": " << law.rank
      << ", \"null_dimension\": " << law.null_dimension << "}";
  return out.str();
}

std::string sampler_json(const PublishedLaw& law) {
  const PublishedSampler& s = law.sampler;
  std::ostringstream out;
  out << "{\"method\": " << json_quoted(s.method) << ", \"exact\": " << (s.exact ? "true" : "false");
  if (s.iterations) out << ", \"iterations\": " << s.iterations << ", \"caveat\": " << json_quoted(s.caveat);
  if (!s.start.empty()) out << ", \"start\": " << json_quoted(s.start);
  if (s.has_attempts)
    out << ", \"attempts\": " << s.attempts << ", \"acceptance_lower_bound\": " << json_number(s.acceptance_lower_bound);
  if (!s.stddev.empty()) out << ", \"stddev\": " << json_quoted(s.stddev);
  out << "}";
  return out.str();
}

std::string hierarchy_json(const PublishedLaw& law) {
  if (!law.crossed()) return tree_json(law.trees.at(0));
  return "{\"crossed\": true, \"rows\": " + tree_json(law.trees[0]) + ", \"columns\": " + tree_json(law.trees[1]) +
         ", \"node_order\": \"every (row node, column node) pair, row-major: row nodes in level order, then column "
         "nodes in level order\", \"rollup\": \"every value is the sum of released grid cells in a fixed order: "
         "over the column tree within each row leaf, then over the row tree\"}";
}

}  // namespace invariant_dp::accuracy

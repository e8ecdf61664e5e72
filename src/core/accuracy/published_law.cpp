// Reading a published noise law (published_law.hpp).
#include "published_law.hpp"

#include <charconv>
#include <cmath>

#include "../errors.hpp"
#include "../json_reader.hpp"

namespace invariant_dp::accuracy {
namespace {

const char* const kLawHint = "Pass the law the release published: dp.last_release() after it, or its stored noise_law.";

[[noreturn]] void missing(const std::string& field) {
  throw InvalidArgument("the noise law has no " + field, "Its error bars need it.", kLawHint);
}

const JsonValue& required(const JsonValue& law, std::initializer_list<std::string_view> path, const std::string& name) {
  const JsonValue* v = law.find_path(path);
  if (v == nullptr || v->is_null()) missing(name);
  return *v;
}

double positive(const JsonValue& v, const char* name) {
  const double x = v.number(name);
  if (!(x > 0)) throw InvalidArgument(std::string("the noise law's ") + name + " must be positive", "", kLawHint);
  return x;
}

std::int64_t count_or_absent(const JsonValue& law, std::initializer_list<std::string_view> path, const char* name) {
  const JsonValue* v = law.find_path(path);
  if (v == nullptr || v->is_null()) return -1;
  const double x = v->number(name);
  if (!(x >= 0) || x > 9.0e15 || x != std::floor(x))
    throw InvalidArgument(std::string("the noise law's ") + name + " is not a count", "", kLawHint);
  return static_cast<std::int64_t>(x);
}

// "num/den", as release_metadata.cpp writes exact_parameter.
Rational rational_of(const std::string& text) {
  Rational r;
  const std::size_t slash = text.find('/');
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto a = std::from_chars(begin, begin + (slash == std::string::npos ? text.size() : slash), r.num);
  const auto b = slash == std::string::npos ? a : std::from_chars(begin + slash + 1, end, r.den);
  if (slash == std::string::npos || a.ec != std::errc() || a.ptr != begin + slash || b.ec != std::errc() ||
      b.ptr != end || r.num == 0 || r.den == 0)
    throw InvalidArgument("the noise law's noise.exact_parameter is not a positive rational \"num/den\"", "", kLawHint);
  return r;
}

std::vector<std::string> strings(const JsonValue& v, const char* name) {
  std::vector<std::string> out;
  for (const JsonValue& s : v.array(name)) out.push_back(s.string(name));
  return out;
}

std::vector<double> variances(const JsonValue& v, const char* name) {
  std::vector<double> out;
  for (const JsonValue& x : v.array(name)) out.push_back(positive(x, name));
  if (out.empty()) missing(name);
  return out;
}

PublishedTree tree_of(const JsonValue& h) {
  PublishedTree t;
  t.levels = strings(required(h, {"levels"}, "hierarchy.levels"), "hierarchy.levels");
  t.level_names = strings(required(h, {"level_names"}, "hierarchy.level_names"), "hierarchy.level_names");
  const std::size_t names = t.level_names.size();
  if (t.levels.empty() || (names != t.levels.size() + 1 && names != t.levels.size() + 2))
    throw InvalidArgument("the noise law's hierarchy does not match its levels", "", kLawHint);
  t.cells_below = names == t.levels.size() + 2;
  const std::int64_t nodes = count_or_absent(h, {"nodes"}, "hierarchy.nodes");
  const std::int64_t leaves = count_or_absent(h, {"leaves"}, "hierarchy.leaves");
  if (nodes < 1 || leaves < 1) missing("hierarchy.nodes and hierarchy.leaves");
  t.nodes = std::uint64_t(nodes);
  t.leaves = std::uint64_t(leaves);
  return t;
}

CovarianceScale covariance_scale_of(const JsonValue& law) {
  CovarianceScale c;
  const JsonValue* v = law.find_path({"noise", "covariance_scale"});
  if (v == nullptr || v->is_null()) return c;
  c.published = true;
  const auto scalar = [](const JsonValue& x) {
    const double s = x.number("noise.covariance_scale");
    if (!(s >= 0)) throw InvalidArgument("the noise law's noise.covariance_scale must not be negative", "", kLawHint);
    return s;
  };
  if (v->is_number()) {
    c.one_for_all = true;
    c.all = scalar(*v);
    return c;
  }
  for (const JsonValue& entry : v->array("noise.covariance_scale")) {
    std::vector<std::size_t> shape;
    for (const JsonValue& n : required(entry, {"shape"}, "noise.covariance_scale[].shape").array("shape")) {
      const double k = n.number("noise.covariance_scale[].shape");
      if (!(k >= 1) || k != std::floor(k) || k > 4.0e9)
        throw InvalidArgument("a shape of the noise law's noise.covariance_scale is not a list of level counts");
      shape.push_back(std::size_t(k));
    }
    c.by_shape.emplace_back(std::move(shape), scalar(required(entry, {"scale"}, "noise.covariance_scale[].scale")));
  }
  return c;
}

void read_flat(const JsonValue& law, PublishedLaw& out) {
  const JsonValue& invariants = required(law, {"invariants"}, "invariants");
  for (const JsonValue& margin : required(invariants, {"margins"}, "invariants.margins").array("invariants.margins"))
    out.margins.push_back(strings(margin, "invariants.margins"));
  if (const JsonValue* s = invariants.find("structure"); s != nullptr && !s->is_null())
    out.structure = s->string("invariants.structure");
  out.rank = count_or_absent(law, {"invariants", "rank"}, "invariants.rank");
  out.null_dimension = count_or_absent(law, {"invariants", "null_dimension"}, "invariants.null_dimension");
  out.cells = count_or_absent(law, {"cells"}, "cells");
  if (out.family == LawFamily::laplace_lattice || out.family == LawFamily::gaussian_lattice) {
    out.has_exact_parameter = true;
    out.exact_parameter = rational_of(required(law, {"noise", "exact_parameter"}, "noise.exact_parameter")
                                          .string("noise.exact_parameter"));
  }
  if (out.family == LawFamily::projected) {
    out.unit_variance = positive(required(law, {"noise", "unit_variance"}, "noise.unit_variance"), "noise.unit_variance");
    // Projected discrete noise (project_l2) names its cells' parameter: its
    // functionals' laws are computed from it.
    const JsonValue* parameter = required(law, {"noise"}, "noise").find("exact_parameter");
    if (out.error_law == ErrorLaw::projected_variance && parameter != nullptr && !parameter->is_null()) {
      out.has_exact_parameter = true;
      out.exact_parameter = rational_of(parameter->string("noise.exact_parameter"));
    }
  }
  out.covariance_scale = covariance_scale_of(law);
}

void read_hierarchy(const JsonValue& law, PublishedLaw& out) {
  const JsonValue* h = law.find("hierarchy");
  if (h == nullptr || h->is_null()) {
    if (out.family == LawFamily::cascade) missing("hierarchy");
    return;
  }
  const JsonValue* crossed = h->find("crossed");
  if (crossed != nullptr && !crossed->is_null() && crossed->boolean("hierarchy.crossed")) {
    out.trees.push_back(tree_of(required(*h, {"rows"}, "hierarchy.rows")));
    out.trees.push_back(tree_of(required(*h, {"columns"}, "hierarchy.columns")));
  } else {
    out.trees.push_back(tree_of(*h));
  }
  if (out.family != LawFamily::cascade) return;
  if (out.crossed()) {
    out.level_variance.push_back(variances(required(law, {"noise", "row_level_variance"}, "noise.row_level_variance"),
                                           "noise.row_level_variance"));
    out.level_variance.push_back(variances(
        required(law, {"noise", "column_level_variance"}, "noise.column_level_variance"), "noise.column_level_variance"));
  } else {
    out.level_variance.push_back(
        variances(required(law, {"noise", "level_variance"}, "noise.level_variance"), "noise.level_variance"));
  }
  for (const JsonValue& margin : required(law, {"invariants", "margins"}, "invariants.margins").array("invariants.margins"))
    out.margins.push_back(strings(margin, "invariants.margins"));
  if (const JsonValue* fixed = law.find_path({"invariants", "fixed_nodes"}); fixed != nullptr && !fixed->is_null())
    for (const JsonValue& node : fixed->array("invariants.fixed_nodes")) {
      const double v = node.number("invariants.fixed_nodes");
      if (!(v >= 0) || v > 4.0e9 || v != std::floor(v))
        throw InvalidArgument("the noise law's invariants.fixed_nodes is not a list of node numbers", "", kLawHint);
      out.fixed_nodes.push_back(std::uint32_t(v));
    }
}

}  // namespace

double CovarianceScale::of_shape(const std::vector<std::size_t>& shape) const {
  if (one_for_all) return all;
  for (const auto& [s, c] : by_shape)
    if (s == shape) return c;
  std::string text;
  for (const std::size_t n : shape) text += (text.empty() ? "" : " x ") + std::to_string(n);
  text = shape.empty() ? std::string("its one block") : "a block of shape " + text;
  throw InvalidArgument(published ? "the noise law's noise.covariance_scale has no scalar for " + text
                                  : "the release did not publish noise.covariance_scale",
                        "Its law has no closed-form covariance on " + text +
                            ": the error bars need the scalar c of Cov = c Pi there, a Monte Carlo estimate "
                            "the release publishes as noise.covariance_scale.",
                        "Draw the release again with a version of invariant_dp that publishes it.");
}

void PublishedLaw::set_error_law(ErrorLaw law) {
  error_law = law;
  family = family_of(law);
  shape = shape_of(law);
}

void PublishedLaw::set_sampler(PublishedSampler s) {
  sampler = std::move(s);
  chain = sampler.present && !sampler.exact;
  caveat.clear();
  if (chain)
    caveat = "the figure is the law's; the release was drawn by a Markov chain, which only approximates it" +
             (sampler.caveat.empty() ? std::string() : " (" + sampler.caveat + ")");
}

void check_has_error_bars(const PublishedLaw& law) {
  if (law.family == LawFamily::none)
    throw InvalidArgument("a release of mechanism \"" + law.mechanism + "\" has no error bars",
                          "Its noise depends on the counts (non-negativity is imposed on the data), so no noise law "
                          "is published for it and no variance follows from one.",
                          "Release with a mechanism whose law is published (integer_laplace, integer_gaussian, "
                          "subspace_gaussian, integer_cascade, ...): docs/mechanisms.md. nonnegative_cascade gives "
                          "each node's sd and interval at its released counts with the release itself "
                          "({\"stddev\": true}, {\"interval\": x}).");
  if (law.noisy_selection)
    throw InvalidArgument("a release with partition selection \"noisy_count\" has no error bars",
                          "The shown cells were selected on their own noise: a count near the threshold is shown "
                          "more often when its noise is high, so no error bar holds given that a cell is shown.",
                          "Use \"laplace\" or \"gaussian\" partition selection for unbiased counts with error "
                          "bars.");
}

PublishedLaw read_published_law(std::string_view json) {
  const JsonValue law = JsonValue::parse(json);
  if (!law.is_object()) throw InvalidArgument("the noise law is not a JSON object", "", kLawHint);
  PublishedLaw out;
  out.mechanism = required(law, {"mechanism"}, "mechanism").string("mechanism");
  const JsonValue* error_law = law.find("error_law");
  if (error_law == nullptr || error_law->is_null())
    throw InvalidArgument("the noise law has no error_law",
                          "Laws published before invariant_dp 0.7.0 do not say which family their error bars "
                          "follow; ALTER EXTENSION invariant_dp UPDATE adds it to the laws stored in dp.draws.",
                          "Pass the law as dp.last_release() or dp.draws.noise_law gives it now, or draw the "
                          "release again.");
  ErrorLaw named;
  if (!error_law_of_name(error_law->string("error_law"), named))
    throw InvalidArgument(
        "the noise law's error_law \"" + error_law->string("error_law") + "\" is not one invariant_dp publishes", "",
        kLawHint);
  out.set_error_law(named);
  if (const JsonValue* method = law.find_path({"partition_selection", "method"});
      method != nullptr && method->is_string())
    out.noisy_selection = method->string("partition_selection.method") == "noisy_count";
  check_has_error_bars(out);
  if (out.family == LawFamily::stream) {
    out.stream_variance = positive(required(law, {"variance"}, "variance"), "variance");
    return out;
  }
  const JsonValue* output = law.find("output");
  out.integer_output = output != nullptr && !output->is_null() && output->string("output") == "integer";
  PublishedSampler sampler;
  const JsonValue* exact = law.find_path({"sampler", "exact"});
  sampler.present = exact != nullptr && !exact->is_null();
  sampler.exact = !sampler.present || exact->boolean("sampler.exact");
  if (const JsonValue* caveat = law.find_path({"sampler", "caveat"}); caveat != nullptr && caveat->is_string())
    sampler.caveat = caveat->string("sampler.caveat");
  out.set_sampler(std::move(sampler));
  if (out.family == LawFamily::cascade) {
    read_hierarchy(law, out);
    if (out.integer_output) {
      out.deficit_bound = required(law, {"noise", "variance_deficit_bound"}, "noise.variance_deficit_bound")
                              .number("noise.variance_deficit_bound");
      if (!(out.deficit_bound >= 0))
        throw InvalidArgument("the noise law's noise.variance_deficit_bound must not be negative", "", kLawHint);
    }
    return out;
  }
  read_flat(law, out);
  read_hierarchy(law, out);
  if (const JsonValue* b = law.find_path({"noise", "variance_deficit_bound"}); b != nullptr && b->is_number())
    out.deficit_bound = b->number("noise.variance_deficit_bound") >= 0 ? b->number("") : -1;
  return out;
}

}  // namespace invariant_dp::accuracy

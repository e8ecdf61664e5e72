// A release's published noise law, typed: filled once by the release that
// draws it (each mechanism's behaviour names its error_law; release_metadata.cpp
// fills a flat release's law, rollups/ a hierarchy's), written once as the
// metadata's "error_law", "noise", "invariants", "sampler" and "hierarchy"
// (published_law_json.hpp), and read back once (read_published_law) from
// dp.last_release() or dp.draws.noise_law for the error bars of any sum of
// the released rows. Which family a law is comes from its "error_law"
// field (error_law.hpp), never from the mechanism's name. The structure
// itself (margin groups, tables, trees) is not read from the law: it is a
// function of the released rows' keys (release_rows.hpp); the law gives its
// family, its scale and the names of the columns the structure is built on
// (DERIVATIONS.md, section 9).
//
// What each family reads (every other field is ignored):
//   every law           error_law, output, cells (flat) or hierarchy.nodes,
//                       sampler.exact and sampler.caveat (a chain's law);
//   laplace_lattice     noise.exact_parameter (b), invariants.margins,
//                       .structure, .rank, .null_dimension; on tables with no
//                       line of two levels and on general margins,
//                       noise.covariance_scale (below);
//   gaussian_lattice    noise.exact_parameter (sigma^2), the invariants; on
//                       general margins noise.variance_deficit_bound if
//                       published (else only the upper bound is known);
//   l2_lattice          the invariants and noise.covariance_scale;
//   projected_*         noise.unit_variance and the invariants;
//   *_cascade           hierarchy.levels, .level_names, .nodes, .leaves,
//                       invariants.margins and the number of
//                       invariants.fixed_nodes, noise.level_variance,
//                       noise.variance_deficit_bound (integer); crossed:
//                       hierarchy.rows and hierarchy.columns (each levels,
//                       level_names, nodes, leaves), noise.row_level_variance,
//                       noise.column_level_variance;
//   any other law with a hierarchy (its leaves released as a flat
//                       release, then rolled up): the flat fields and
//                       hierarchy's (or rows' and columns') levels,
//                       level_names, nodes, leaves;
//   gaussian_stream     (a governed stream's append in dp.draws.noise_law)
//                       variance.
// noise.covariance_scale, for laws drawn without a closed-form covariance
// (chains, the three-line sampler): the release's Monte Carlo estimate of
// the scalar c of Cov = c Pi on each block, either one number (every block
// that needs it: general margins have one block) or an array of
// {"shape": [n_1, ..., n_K], "scale": c}, one per block shape ([k] for a
// margin group of k cells). By shape, not by block order, because the
// order of blocks follows the order of the rows, which a table does not
// keep, and because symmetry makes c a function of the shape alone
// (DERIVATIONS.md, section 1).
// A data_dependent law (congenial, project_nn_l2, project_nn_integer: their
// noise depends on the counts) is refused by the reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../samplers/rational.hpp"
#include "error_law.hpp"
#include "margin_of_error.hpp"

namespace invariant_dp::accuracy {

// One hierarchy as published (hierarchy, or hierarchy.rows / .columns).
struct PublishedTree {
  std::vector<std::string> levels;       // the level columns, coarsest first
  std::vector<std::string> level_names;  // "total", the levels, and "cell" when leaves lie below the finest level
  bool cells_below = false;              // level_names ends with "cell"
  std::uint64_t nodes = 0, leaves = 0;
  // Each internal node's number of children, in level order; published
  // only for trees of at most kMaxPublishedInternalNodes internal nodes
  // (hierarchy/published_shape.hpp).
  bool children_published = false;
  std::vector<std::uint32_t> children;
};

// noise.covariance_scale: one scalar for every block, or one per block shape.
struct CovarianceScale {
  bool published = false;
  bool one_for_all = false;
  double all = 0;
  std::vector<std::pair<std::vector<std::size_t>, double>> by_shape;
  // The scalar of a block of this shape; InvalidArgument if none was published.
  double of_shape(const std::vector<std::size_t>& shape) const;
};

// How the noise was drawn (the metadata's "sampler"; a real cascade has none).
struct PublishedSampler {
  bool present = false;
  std::string method;
  bool exact = true;
  std::uint64_t iterations = 0;  // a chain's; its caveat then says what it certifies
  std::string caveat;
  std::string start;             // congenial's chain start
  bool has_attempts = false;     // the integer cascades' rejection sampler
  std::uint64_t attempts = 0;
  double acceptance_lower_bound = 0;
  std::string stddev;            // what the per-cell sd is (empty: not published)
};

struct PublishedLaw {
  std::string mechanism;  // for messages only
  ErrorLaw error_law = ErrorLaw::data_dependent;
  // Derived from error_law (set_error_law).
  LawFamily family = LawFamily::none;
  LawShape shape = LawShape::other;
  bool integer_output = false;
  // Partition selection noisy_count: the shown cells were selected on
  // their own noise, so no error bar holds given that a cell is shown.
  bool noisy_selection = false;
  PublishedSampler sampler;
  // Drawn by a Markov chain: every figure is the law's, not a certified
  // property of the chain's output; caveat says so (set_sampler).
  bool chain = false;
  std::string caveat;

  // noise: in words, and its scale.
  std::string noise_text;
  std::string scale_parameter;  // flat laws: "b" or "sigma"
  double scale = 0;
  std::string calibration_json;  // a JSON value: the calibration in words, or a cascade's object

  // Flat releases (and the leaves of rolled-up hierarchies).
  std::vector<std::vector<std::string>> margins;
  std::string structure = "none";
  std::int64_t rank = -1, null_dimension = -1, cells = -1;  // -1: not published
  bool has_exact_parameter = false;
  Rational exact_parameter;
  double unit_variance = 0;
  CovarianceScale covariance_scale;

  // Hierarchies: one tree, or two when crossed (rows, then columns).
  std::vector<PublishedTree> trees;
  std::vector<std::vector<double>> level_variance;  // cascades: per tree, per depth
  std::vector<double> level_variance_lower;         // an integer cascade over one tree: per depth
  double deficit_bound = -1;                        // integer laws that publish one; -1: none
  std::vector<std::uint32_t> fixed_nodes;           // cascades: the margins' nodes, when published

  double stream_variance = 0;  // streams: every node's variance

  void set_error_law(ErrorLaw law);
  void set_sampler(PublishedSampler s);
  bool hierarchical() const { return !trees.empty(); }
  bool crossed() const { return trees.size() == 2; }
  // The leaves of a hierarchy are released by a flat law and rolled up.
  bool rolled_up() const { return hierarchical() && family != LawFamily::cascade; }
};

// InvalidArgument when the law gives no error bars: a data-dependent law,
// cells selected on their own noise.
void check_has_error_bars(const PublishedLaw& law);

// InvalidArgument for text that is not a law, a data-dependent law (no
// error bars), a law without "error_law" (written before 0.7.0: ALTER
// EXTENSION ... UPDATE adds it to the stored laws), or a missing or
// malformed field the family needs, naming it.
PublishedLaw read_published_law(std::string_view json);

}  // namespace invariant_dp::accuracy

// A release's published noise law (dp.last_release(), dp.draws.noise_law),
// read back for its error bars: what each family of release_metadata.cpp and
// rollups/ publishes, and nothing else (DERIVATIONS.md, section 9). The
// structure itself (margin groups, tables, trees) is not read from the law:
// it is a function of the released rows' keys (release_rows.hpp); the law
// gives the mechanism, its scale and the names of the columns the structure
// is built on.
//
// What each family reads (every other field is ignored):
//   every law           mechanism, output, cells (flat) or hierarchy.nodes,
//                       sampler.exact and sampler.caveat (a chain's law);
//   discrete_laplace, integer_laplace
//                       noise.exact_parameter (b), invariants.margins,
//                       .structure, .rank, .null_dimension; on tables with no
//                       line of two levels and on general margins,
//                       noise.covariance_scale (below);
//   discrete_gaussian, integer_gaussian
//                       noise.exact_parameter (sigma^2), the invariants; on
//                       general margins noise.variance_deficit_bound if
//                       published (else only the upper bound is known);
//   integer_laplace_l2  the invariants and noise.covariance_scale;
//   subspace_gaussian, subspace_laplace, project_l2
//                       noise.unit_variance and the invariants;
//   cascade, integer_cascade
//                       hierarchy.levels, .level_names, .nodes, .leaves,
//                       invariants.margins and the number of
//                       invariants.fixed_nodes, noise.level_variance,
//                       noise.variance_deficit_bound (integer); crossed:
//                       hierarchy.rows and hierarchy.columns (each levels,
//                       level_names, nodes, leaves), noise.row_level_variance,
//                       noise.column_level_variance;
//   any other mechanism with a hierarchy (its leaves released as a flat
//                       release, then rolled up): the flat fields and
//                       hierarchy's (or rows' and columns') levels,
//                       level_names, nodes, leaves;
//   a governed stream   (mechanism "cascade_stream", dp.draws.noise_law of
//                       an append) variance.
// noise.covariance_scale, for laws drawn without a closed-form covariance
// (chains, the three-line sampler): the release's Monte Carlo estimate of
// the scalar c of Cov = c Pi on each block, either one number (every block
// that needs it: general margins have one block) or an array of
// {"shape": [n_1, ..., n_K], "scale": c}, one per block shape ([k] for a
// margin group of k cells). By shape, not by block order, because the
// order of blocks follows the order of the rows, which a table does not
// keep, and because symmetry makes c a function of the shape alone
// (DERIVATIONS.md, section 1).
// congenial, project_nn_l2 and project_nn_integer are refused: their noise
// depends on the counts, so no law can be published for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../samplers/rational.hpp"
#include "margin_of_error.hpp"

namespace invariant_dp::accuracy {

enum class LawFamily {
  laplace_lattice,   // discrete_laplace, integer_laplace
  gaussian_lattice,  // discrete_gaussian, integer_gaussian
  l2_lattice,        // integer_laplace_l2
  projected,         // subspace_gaussian, subspace_laplace, project_l2
  cascade,           // cascade, integer_cascade
  stream,            // a governed stream (cascade_stream)
};

// One hierarchy as published (hierarchy, or hierarchy.rows / .columns).
struct PublishedTree {
  std::vector<std::string> levels;       // the level columns, coarsest first
  bool cells_below = false;              // level_names ends with "cell": leaves lie below the finest level
  std::uint64_t nodes = 0, leaves = 0;
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

struct PublishedLaw {
  std::string mechanism;
  LawFamily family = LawFamily::projected;
  LawShape shape = LawShape::other;
  bool integer_output = false;
  // Drawn by a Markov chain: every figure is the law's, not a certified
  // property of the chain's output; caveat says so.
  bool chain = false;
  std::string caveat;

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
  double deficit_bound = -1;                         // integer laws that publish one; -1: none
  std::size_t fixed_nodes = 0;

  double stream_variance = 0;  // streams: every node's variance

  bool hierarchical() const { return !trees.empty(); }
  bool crossed() const { return trees.size() == 2; }
  // The leaves of a hierarchy are released by a flat mechanism and rolled up.
  bool rolled_up() const { return hierarchical() && family != LawFamily::cascade; }
};

// InvalidArgument for text that is not a law, a mechanism whose noise has
// no published law (congenial, the non-negative projections), or a missing
// or malformed field the family needs, naming it.
PublishedLaw read_published_law(std::string_view json);

}  // namespace invariant_dp::accuracy

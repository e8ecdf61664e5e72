// integer_laplace: the l1 generalized Laplace q(z) ~ exp(-|z|_1 / b) on the
// invariant lattice (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936,
// Def. 9 with its epsilon = 1/b): i.i.d. discrete Laplace conditioned on
// A z = 0. Drawn exactly without margins, on one partition
// (conditioned_release.hpp), on complete two-way tables with a line of at
// most three levels (samplers/exact_table_laplace.hpp) and on small
// complete two-way tables by row rejection (samplers/row_rejection_table.hpp).
// Elsewhere (larger tables, general margins) only a Markov chain draws it, whose
// distance from the law is not certified at the sizes users have
// (test/bench/README.md, the coupling measurements): such a release needs
// the caller to name the chain, options {"sampler": "chain"}, and its
// metadata says at the top that its guarantee is not certified
// (release_metadata.cpp). The default mechanism never falls back to an
// uncertified chain unasked.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "../accuracy/table_covariance_scale.hpp"
#include "../errors.hpp"
#include "../mcmc/table_swap_chain.hpp"
#include "../samplers/conditioned_laplace_variance.hpp"
#include "../samplers/exact_table_laplace.hpp"
#include "../samplers/row_rejection_table.hpp"
#include "../samplers/three_line_table.hpp"
#include "../samplers/two_line_table.hpp"
#include "conditioned_release.hpp"
#include "diagnostics.hpp"
#include "mechanism_behaviour.hpp"
#include "release_metadata.hpp"

namespace invariant_dp {
namespace {

// A person's change within one margin group moves two cells by one: l1
// distance 2, loss 2/b = epsilon.
NoiseLaw integer_laplace_law(const ReleaseRequest& r, double l1, double /* l2_squared */) {
  NoiseLaw law = discrete_laplace_law(r, l1);
  law.law = "discrete Laplace, P(z) proportional to exp(-|z|_1/b), conditioned on every declared margin "
            "(z sums to 0 over each margin group)";
  return law;
}

const LatticeNoise kL1Lattice{mcmc::TargetKind::laplace_l1, integer_laplace_law};

// Further exact draws that estimate the per-cell sd of a table shape whose
// variance is not computed (no side of at most four levels, or past the
// computation's work limit), once per shape: at least 1,024 cell draws
// pooled over the table's cells (their noise has one law: the law is
// invariant under permuting rows and columns), at least 4 and at most 32
// draws, so that the estimate costs a small multiple of the release (about
// 10 % relative error on the variance of a 5 x 5 table).
std::size_t sd_draws(std::size_t table_cells) {
  return std::clamp<std::size_t>((1024 + table_cells - 1) / std::max<std::size_t>(table_cells, 1), 4, 32);
}

// Row rejection (samplers/row_rejection_table.hpp) draws any complete
// two-way table exactly; it is chosen where the release and its sd draws
// are estimated to draw at most this many cells in all (about 0.1 s):
// small tables, where the chain's distance could not be certified either.
constexpr double kMaxRowRejectionReleaseCells = 4194304;  // 2^22

bool two_way(const LatticeTable& table) { return table.shape.size() == 2; }

// Whether every table is two-way and row rejection's estimated cost for
// the release and its sd draws stays within the budget above.
bool row_rejection_applies(const std::vector<LatticeTable>& tables, Rational b) {
  double cells = 0;
  for (const LatticeTable& table : tables) {
    if (!two_way(table) || table.cells.size() != table.shape[0] * table.shape[1]) return false;
    if (std::min(table.shape[0], table.shape[1]) < 2) continue;
    cells += double(1 + sd_draws(table.cells.size())) *
             row_rejection_expected_cells(b, table.shape[0], table.shape[1]);
  }
  return cells <= kMaxRowRejectionReleaseCells;
}

// One exact draw of a table's noise into z (row-major, the table's own
// positions): the two- and three-line samplers, else row rejection.
void draw_table(const LatticeTable& table, Rational b, RandomSource& rng, std::int64_t* z,
                const Interrupts& interrupts) {
  const std::size_t cells = table.cells.size();
  if (is_two_line_table(table) || is_three_line_table(table)) {
    const std::vector<LatticeTable> alone{LatticeTable{table.shape, [&] {
      std::vector<std::size_t> positions(cells);
      std::iota(positions.begin(), positions.end(), std::size_t(0));
      return positions;
    }()}};
    sample_exact_table_laplace(rng, b, alone, cells, NoiseOutput(z), interrupts);
  } else {
    sample_table_laplace_by_row_rejection(rng, b, table.shape[0], table.shape[1], z, interrupts);
  }
}

// The quadrature points the sds of one release may spend on the tables'
// covariance scales (about half a second, as the error bars spend).
constexpr double kReleaseScalePoints = accuracy::kErrorBarScalePoints;

// One table shape's per-cell noise variance, the same for every cell of
// every table of that shape (the law is invariant under permuting lines):
// the closed form on a two-line table (its first line is one zero-sum group
// of n cells at b/2: two_line_table.hpp); computed from the law on a table
// with a side of three or four levels (accuracy/table_covariance_scale.hpp,
// within points_left, which it spends; past them, the same quadrature on
// the coarser grid of kCertifiedScaleError, as the error bars compute it);
// else estimated from further exact draws of this table.
struct ShapeVariance {
  double variance = 0;
  bool estimated = false, certified = false;
};

ShapeVariance shape_variance(const ReleaseDraw& draw, const LatticeTable& table, Rational b, double& points_left) {
  const std::size_t rows = table.shape[0], cols = table.shape[1];
  if (is_two_line_table(table)) return {conditioned_laplace_variance(half_of(b), std::max(rows, cols)), false};
  if (std::min(rows, cols) <= 4 && points_left > 0) {
    try {
      const accuracy::TableScale scale = accuracy::release_table_scale({accuracy::IntegerNoise::Kind::laplace, b}, rows,
                                                                       cols, draw.interrupts, points_left);
      points_left -= double(scale.points);
      return {scale.cell_variance, false, scale.quadrature_error + scale.rounding_error > 1e-9};
    } catch (const TooLarge&) {
      // past what is left at either target: the draws below
    } catch (const OutOfRange&) {
      // a scale its bound cannot certify (b below about 1/50): the draws below
    }
  }
  const std::size_t cells = table.cells.size(), draws = sd_draws(cells);
  std::vector<std::int64_t> z(cells, 0);
  double squares = 0;
  for (std::size_t d = 0; d < draws; ++d) {
    draw_table(table, b, draw.rng, z.data(), draw.interrupts);
    for (std::size_t i = 0; i < cells; ++i) {
      draw.interrupts.poll_every(i);
      squares += double(z[i]) * double(z[i]);
    }
  }
  return {squares / double(draws * cells), true};
}

// Complete two-way tables drawn exactly: the law calibrated on the tables'
// shortest move (a 2 x 2 swap, as the chain calibrates), the counts noised
// in place, each cell's sd that of its table's shape (shape_variance).
double release_on_exact_tables(const ReleaseDraw& draw, const std::vector<LatticeTable>& tables, Rational b) {
  const std::size_t n = draw.model.n_cells();
  std::int64_t* noisy = draw.integer_destination();
  if (noisy != draw.counts) std::copy(draw.counts, draw.counts + n, noisy);
  bool by_rows = false;
  if (exact_table_laplace_applies(tables)) {
    sample_exact_table_laplace(draw.rng, b, tables, n, NoiseOutput(noisy, noisy), draw.interrupts);
  } else {
    by_rows = true;
    std::vector<std::int64_t> z;
    for (const LatticeTable& table : tables) {
      if (std::min(table.shape[0], table.shape[1]) < 2) continue;
      z.assign(table.cells.size(), 0);
      draw_table(table, b, draw.rng, z.data(), draw.interrupts);
      for (std::size_t i = 0; i < z.size(); ++i) {
        draw.interrupts.poll_every(i);
        noisy[table.cells[i]] = checked_add(noisy[table.cells[i]], z[i], kNoisyCountOutOfRange);
      }
    }
  }

  std::vector<double>& sd = draw.result.noise_sd;
  sd.assign(n, 0.0);  // cells of pinned tables keep their counts
  std::map<std::vector<std::size_t>, ShapeVariance> by_shape;
  double points_left = kReleaseScalePoints;
  bool estimated = false, certified = false;
  for (const LatticeTable& table : tables) {
    if (std::min(table.shape[0], table.shape[1]) < 2) continue;
    auto found = by_shape.find(table.shape);
    if (found == by_shape.end())
      found = by_shape.emplace(table.shape, shape_variance(draw, table, b, points_left)).first;
    estimated = estimated || found->second.estimated;
    certified = certified || found->second.certified;
    const double cell_sd = std::sqrt(found->second.variance);
    for (std::size_t i = 0; i < table.cells.size(); ++i) {
      draw.interrupts.poll_every(i);
      sd[table.cells[i]] = cell_sd;
    }
  }
  draw.report.sampler =
      by_rows ? "exact: each table drawn by rejection over its lines (i.i.d. zero-sum lines, the last one their "
                "negated sum, accepted with its exact probability), or by the two- and three-line samplers; no chain"
              : "exact: each table's first line is a zero-sum group of i.i.d. discrete Laplace at b/2 "
                "(2 x n tables), or its columns are drawn by the three-line reduction with an exact "
                "rejection step (3 x n tables); no chain";
  // Tables with no closed-form covariance publish its scalar, estimated
  // from their sds (the two-line tables' covariance follows from b alone).
  std::vector<LatticeTable> estimated_tables;
  for (const LatticeTable& table : tables)
    if (!is_two_line_table(table)) estimated_tables.push_back(LatticeTable{table.shape, {table.cells.front()}});
  publish_covariance_scale(estimated_tables, sd, draw.law, draw.interrupts);
  draw.report.iterations = 0;
  draw.report.sd_estimated = estimated;
  const std::string limit = certified ? "within its work limit, past it within a certified relative error below 1e-3"
                                      : "within its work limit";
  draw.report.stddev =
      estimated
          ? "exact on tables with a line of two levels, computed from the law on tables with a side of three "
            "or four levels (" +
                limit +
                "); on the others a Monte Carlo estimate from further exact draws of "
                "one table of each shape, pooled over its cells (every cell of every table of a shape has one law)"
      : certified ? "computed from the law: within a certified relative error below 1e-3 on tables with a side "
                    "of three or four levels past the exact quadrature's work limit, exact on the others"
                  : "exact";
  return kErrorFromCellSds;
}

// The exact tables of this release and the law calibrated on them, or none
// (the chain's case): 2 x n and 3 x n tables at any size, other complete
// two-way tables when row rejection is cheap enough.
std::vector<LatticeTable> laplace_exact_tables(const ReleaseRequest& request, const InvariantModel& model,
                                               NoiseLaw* law) {
  if (request.margins.empty() || model.structure() == "partition") return {};
  std::vector<LatticeTable> tables = model.lattice_tables();
  if (tables.empty()) return {};
  const mcmc::TableMoves moves(tables, model.n_cells());
  const NoiseLaw calibrated = lattice_noise_law(request, kL1Lattice.law, moves.shortest_norm(), moves.shortest_norm());
  if (!exact_table_laplace_applies(tables) && !row_rejection_applies(tables, calibrated.exact_parameter)) return {};
  if (law != nullptr) *law = calibrated;
  return tables;
}

class IntegerLaplaceMechanism final : public MechanismBehaviour {
 public:
  // Discrete Laplace conditioned on the margins.
  accuracy::ErrorLaw error_law() const override { return accuracy::ErrorLaw::laplace_lattice; }

  NoiseLaw calibrate(const ReleaseRequest& request) const override {
    return at_request_sensitivities(integer_laplace_law(request, request.l1_sensitivity(), 0), request);
  }

  void check_options(const ReleaseRequest& request) const override {
    if (request.sampler != "auto" && request.sampler != "chain")
      throw InvalidArgument("integer_laplace takes option \"sampler\" \"auto\" or \"chain\"",
                            "Got \"" + request.sampler + "\".",
                            "Omit it for an exact release where one exists; \"chain\" accepts an uncertified "
                            "Markov chain where none does.");
  }

  double release(const ReleaseDraw& draw) const override {
    if (!draw.request.margins.empty() && draw.model.structure() != "partition") {
      // Named, the chain runs even where an exact sampler exists (to
      // compare the two, or diagnose the chain); else exact or refused.
      if (draw.request.sampler == "chain") return release_on_margins(draw, kL1Lattice);
      const std::vector<LatticeTable> tables = laplace_exact_tables(draw.request, draw.model, &draw.law);
      if (!tables.empty()) return release_on_exact_tables(draw, tables, draw.law.exact_parameter);
      throw InvalidArgument(
          "integer_laplace has no exact sampler for these margins",
          "They cross (structure \"" + draw.model.structure() +
              "\") on tables too large for exact rejection whose every line has more than three levels, or on "
              "an incomplete table: only a Markov chain draws this law, and its distance from it is not "
              "certified at this size, so neither is the epsilon.",
          "Use mechanism => 'integer_gaussian', which draws complete tables of any size exactly, or accept "
          "the uncertified chain with options => '{\"sampler\": \"chain\"}' (its metadata then says so).");
    }
    return release_on_margins(draw, kL1Lattice);
  }

  std::string covariance_with_margins(const ReleaseRequest&, const std::string& structure,
                                      bool) const override {
    if (structure == "partition") return kPartitionCovariance;
    return structure == "two_way" || structure == "k_way" ? kTableCovariance : kLatticeCovariance;
  }

  std::vector<DiagnosticRecord> diagnose(const CellKeys& cells, const ReleaseRequest& request,
                                         const DiagnosticsSettings& settings, RandomSource& rng,
                                         const Interrupts& interrupts) const override {
    const InvariantModel model(cells, margins_by_index(cells, request), interrupts);
    if (request.margins.empty() || model.structure() == "partition") refuse_exact_diagnosis(request);
    if (request.sampler != "chain" && !laplace_exact_tables(request, model, nullptr).empty())
      refuse_exact_diagnosis(request);
    return lattice_diagnostics(request, kL1Lattice, model, settings, rng, interrupts);
  }
};

}  // namespace

const MechanismBehaviour& integer_laplace_behaviour() {
  static const IntegerLaplaceMechanism behaviour;
  return behaviour;
}

}  // namespace invariant_dp

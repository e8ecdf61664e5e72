// The margin of error of a sum of two or more cells of an integer lattice
// release (discrete_laplace, discrete_gaussian, integer_laplace,
// integer_gaussian) from the law of the sum itself, where it is known
// (DERIVATIONS.md, section 14), instead of a tail bound on its variance:
//
// | structure and sum                                    | law of the sum                                   | kind      |
// |------------------------------------------------------|--------------------------------------------------|-----------|
// | no margin (independent cells), integer weights       | weighted sum of i.i.d. cells (independent_sum_quantiles.hpp) | exact |
// | a partition: per group, weights of at most three     | sums over independent zero-sum groups            | exact     |
// |   values c - d, c, c + d, one d for every group       |   (zero_sum_quantiles.hpp)                       |           |
// | 2 x n (n x 2) tables: per table, the differences of  | the same on the tables' first lines at half the  | exact     |
// |   its two lines' weights as a group's                |   parameter (samplers/two_line_table.hpp)        |           |
// | integer_laplace, complete two-way tables with a     | the sum's transform by Fourier integrals over   | exact     |
// |   side of 3 or 4 levels, any integer weights        |   the lines (laplace_table_sum.hpp), within its  |           |
// |   (every table touched)                             |   work limit                                     |           |
// | integer_gaussian, complete tables and groups: per   | the tilted discrete Gaussian at the continuous   | exact or  |
// |   table a box (a product of level sets) of one       |   variance (lattice_gaussian_quantiles.hpp,      | certified |
// |   weight, or any integer weights; parts of one step  |   table_functional.hpp)                          |           |
// |   merged, of different steps joined by their pivots  |                                                  |           |
// | integer_gaussian, general margins: any integer       | the same, the kernel's vectors from a basis of   | exact or  |
// |   weights                                            |   the invariant lattice                          | certified |
// |                                                      |   (general_lattice_functional.hpp)               |           |
//
// "exact" when the certified enclosures decide the smallest covering
// half-width (its coverage is >= level, one count less certainly is
// below); otherwise the half-width found still covers and is "certified".
// Every half-width is an integer (rounded once, outward: the quantile of an
// integer law). Anything else (the l1 law on tables whose lines are all
// longer than four, or past its work limit, or on groups with weights of
// other patterns; the l1 law on general margins; general margins whose
// lattice basis is past its limits; lattice Gaussian sums too coarse for the tilted bound; sums too wide for the
// inversions' work limits) returns nothing, and the caller takes the tail
// bound on the variance (margin_of_error.hpp).
#pragma once

#include <optional>

#include "../interrupts.hpp"
#include "cell_query.hpp"
#include "integer_noise_transforms.hpp"
#include "margin_of_error.hpp"
#include "projector_form.hpp"

namespace invariant_dp::accuracy {

// query: distinct cells of the form with their weights (as
// LinearAccuracy::variance takes them). noise: the cells' unconditioned law.
std::optional<MarginOfError> lattice_sum_margin(const ProjectorForm& form, IntegerNoise noise, const CellQuery& query,
                                                double level, const Interrupts& interrupts);

// General margins of the lattice Gaussian of parameter sigma2, any integer
// weights, one cell or many: the tilted discrete Gaussian through a basis
// of the invariant lattice (general_lattice_functional.hpp); nothing where
// the basis is past its limits, the weights are no integers, or the bound
// says nothing. The per-cell intervals of such releases are this margin of
// each cell alone.
std::optional<MarginOfError> general_lattice_margin(const ProjectorForm& form, Rational sigma2, const CellQuery& query,
                                                    double level, const Interrupts& interrupts);

// The same functional's variance, from below: the tilted discrete
// Gaussian's (tilted_gaussian_variance_lower); 0 where nothing is known.
double general_lattice_variance_lower(const ProjectorForm& form, Rational sigma2, const CellQuery& query,
                                      const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy

// The law of a linear functional of subspace_laplace's noise Pi_N e, e
// i.i.d. continuous Laplace(b): w . Pi_N e = (Pi_N w) . e, a combination of
// independent Laplace variables whose weights are v = Pi_N w
// (laplace_combination.hpp; DERIVATIONS.md, section 18). Here v, as its
// distinct sizes with their numbers of cells:
//   none       v = w;
//   partition  per group, w less its mean (the unlisted cells at -mean);
//   tables     per complete table, w centred along every axis (the
//              Kronecker product of centring matrices), computed exactly
//              as prod n_k times v in integers;
//   general    the form's projection of w over every cell (one solve);
//              sizes below 1e-12 of the largest are the solve's rounding
//              of a 0 and are left out.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "../interrupts.hpp"
#include "cell_query.hpp"
#include "laplace_combination.hpp"
#include "margin_of_error.hpp"
#include "projector_form.hpp"

namespace invariant_dp::accuracy {

// The sizes of Pi_N w over the release's cells; nothing when the weights
// of a table or group are no integers (within 2^40), a table is past
// kMaxFunctionalCells, or its exact integers would pass 2^62.
std::optional<std::vector<LaplaceTerm>> projected_weights(const ProjectorForm& form, const CellQuery& query,
                                                          const Interrupts& interrupts);

// One cell of a block that is a complete table of this shape (a group of
// k cells: {k}): the cell's row of Pi_b, prod_k (delta_k - 1/n_k), by the
// axes on which the other cell shares the cell's level.
std::vector<LaplaceTerm> cell_projected_weights(const std::vector<std::size_t>& shape);

// The margin of error of the sum `query` of a subspace_laplace release of
// scale b: the quantile of its law; nothing where its weights are not
// computed (above) or the law passes its work limit.
std::optional<MarginOfError> projected_laplace_margin(const ProjectorForm& form, double b, const CellQuery& query,
                                                      double level, const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy

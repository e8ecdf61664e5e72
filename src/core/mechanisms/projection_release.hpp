// The projection family (docs/mechanisms.md, "Conditioning or projection"; belief
// update / imaging in Liu, Sun, Zhou, Feng 2023, arXiv:2303.00228, Section 3),
// post-processing baselines in the style of the Census
// TopDown algorithm:
//   project_l2:         y = argmin { |y - (x + e)|_2 : A y = A x }
//                         = x + Pi_N e  (closed form, real output);
//   project_nn_l2:      y = argmin { |y - (x + e)|_2 : A y = A x, y >= 0 }
//                         (a QP, projection/nonneg_projection.hpp, real);
//   project_nn_integer: project_nn_l2, then the l1-nearest integer table
//                         that keeps A y = A x and y >= 0
//                         (projection/controlled_rounding.hpp).
// e: i.i.d. exact discrete Laplace of scale b = l1_sensitivity / epsilon.
//
// Privacy. x + e is epsilon-DP. The projection reads the data only through
// the totals A x, which are released exactly, so the output is epsilon-DP
// for neighbouring databases with equal invariants (same statement as the
// conditioning mechanisms). It is NOT post-processing in the sense of the
// post-processing theorem: the target set depends on the confidential data
// (Gong, Meng 2020, arXiv:2008.10202, Section 4, eqs. 4.3-4.4); nothing is claimed for pairs with
// different totals, and those totals are disclosed.
//
// Bias. project_l2 is unbiased (E y = x). With y >= 0 it is not: the
// projection pushes small cells up and, to keep the totals, the others
// down; the published noise sd is that of the equality-only projection.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../random_source.hpp"
#include "mechanism_behaviour.hpp"
#include "noise_calibration.hpp"
#include "release.hpp"

namespace invariant_dp {

// The set each mechanism projects onto.
enum class ProjectionOnto {
  Invariants,           // project_l2
  NonNegative,          // project_nn_l2
  NonNegativeIntegers,  // project_nn_integer
};

// The behaviour of the three projection mechanisms, which differ only in
// the set they project onto: project_l2.cpp, project_nn_l2.cpp and
// project_nn_integer.cpp each make one. The accounting states the noisy
// table's epsilon, and why the projection keeps it only between databases
// with equal totals.
class ProjectionMechanism final : public MechanismBehaviour {
 public:
  // law: the family of the released noise (projected_variance for
  // project_l2; data_dependent where non-negativity reads the counts).
  ProjectionMechanism(ProjectionOnto onto, accuracy::ErrorLaw law) : onto_(onto), law_(law) {}
  accuracy::ErrorLaw error_law() const override { return law_; }
  NoiseLaw calibrate(const ReleaseRequest& request) const override;
  double release(const ReleaseDraw& draw) const override;
  std::string accounting_json(const ReleaseRequest& request) const override;

 private:
  ProjectionOnto onto_;
  accuracy::ErrorLaw law_;
};

}  // namespace invariant_dp

// dp.diagnose's core: coupled pairs, TV curve, acceptance and R-hat.
#include "diagnostics.hpp"

#include "../errors.hpp"

namespace invariant_dp::mcmc {

DiagnosticsReport diagnose(const ChainModel& model, const DiagnosticsConfig& config, RandomSource& rng,
                           const Interrupts& interrupts) {
  if (config.pairs < 1) throw InvalidArgument("diagnostics need at least one coupled pair");
  DiagnosticsReport report;
  report.lag = config.lag;
  report.pairs = config.pairs;
  AcceptanceCounts acceptance;
  for (int p = 0; p < config.pairs; ++p) {
    report.meeting_times.push_back(
        sample_meeting_time(model, config.lag, config.max_iterations, config.start, rng, interrupts, &acceptance));
    if (!report.meeting_times.back().met) ++report.censored;
  }
  report.tv_curve = tv_upper_bound_curve(report.meeting_times, config.lag, config.curve_points);
  report.iterations_below = first_iteration_below(report.meeting_times, config.lag, config.threshold);
  if (config.rhat.chains > 0) {
    const RhatReport rhat = run_rhat(model, config.rhat, rng, interrupts);
    report.rhat_l1 = rhat.rhat_l1;
    report.rhat_z1 = rhat.rhat_z1;
    acceptance += rhat.acceptance;
  }
  report.basis_acceptance = acceptance.basis_rate();
  report.move_acceptance = acceptance.move_rate();
  return report;
}

}  // namespace invariant_dp::mcmc

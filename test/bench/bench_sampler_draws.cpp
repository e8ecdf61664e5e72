// Draws of our exact integer noise laws, for the cross-implementation check
// of test/bench/peers/laws.py (our discrete Laplace and discrete Gaussian
// against OpenDP's at the same scales), and their speed.
//
//   bench_sampler_draws LAW PATH PARAMETER N SEED OUT
//     LAW        laplace (PARAMETER: the scale b) or gaussian (PARAMETER: the
//                variance sigma^2), rounded up to a rational as releases do
//     PATH       release: IndependentIntegerNoise told it will draw N values,
//                the path every release takes (a certified CDF table when N
//                pays for one); cks: Canonne, Kamath, Steinke's samplers
//                (discrete_laplace.hpp, discrete_gaussian.hpp) one draw at a time
//     OUT        file written with N little-endian int64 draws from the seeded
//                stream SEED (make_seeded_random_source)
//   bench_sampler_draws              without arguments: draws per second of
//                                    both laws on both paths (scripts/bench)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "interrupts.hpp"
#include "random_source.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "samplers/discrete_laplace.hpp"
#include "samplers/independent_integer_noise.hpp"
#include "samplers/rational.hpp"

using namespace invariant_dp;

namespace {

std::vector<std::int64_t> draw(const std::string& law, const std::string& path, double parameter, std::size_t n,
                               std::uint64_t seed) {
  const bool laplace = law == "laplace";
  const Rational exact = rational_at_least(parameter);
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> out(n);
  if (path == "release") {
    const Interrupts none;
    const IndependentIntegerNoise noise(
        laplace ? IndependentIntegerNoise::Law::DiscreteLaplace : IndependentIntegerNoise::Law::DiscreteGaussian,
        exact, n, none);
    for (auto& value : out) value = noise.draw(*rng);
  } else {
    for (auto& value : out)
      value = laplace ? sample_discrete_laplace(*rng, exact) : sample_discrete_gaussian(*rng, exact);
  }
  return out;
}

int usage() {
  std::fprintf(stderr, "usage: bench_sampler_draws {laplace|gaussian} {release|cks} PARAMETER N SEED OUT\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 1) {
    for (const char* law : {"laplace", "gaussian"})
      for (const char* path : {"release", "cks"}) {
        const double parameter = std::strcmp(law, "laplace") == 0 ? 3.0 : 100.0;
        const auto start = std::chrono::steady_clock::now();
        const auto values = draw(law, path, parameter, 1000000, 1);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%-8s %-7s parameter %6.1f: 1e6 draws in %.3f s (%.1f ns a draw), first %lld\n", law, path,
                    parameter, s, 1e3 * s, static_cast<long long>(values[0]));
      }
    return 0;
  }
  if (argc != 7) return usage();
  const std::string law = argv[1], path = argv[2];
  if ((law != "laplace" && law != "gaussian") || (path != "release" && path != "cks")) return usage();
  const auto values = draw(law, path, std::strtod(argv[3], nullptr), std::strtoull(argv[4], nullptr, 10),
                           std::strtoull(argv[5], nullptr, 10));
  std::FILE* out = std::fopen(argv[6], "wb");
  if (out == nullptr || std::fwrite(values.data(), sizeof(std::int64_t), values.size(), out) != values.size() ||
      std::fclose(out) != 0) {
    std::perror(argv[6]);
    return 1;
  }
  return 0;
}

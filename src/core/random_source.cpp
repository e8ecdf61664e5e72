// RandomSource: the exact integer/real helpers shared by every engine, the OS
// CSPRNG engine used in production and the seeded engine used by tests.
#include "random_source.hpp"

#include <pthread.h>
#include <sys/random.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "errors.hpp"

namespace invariant_dp {
namespace {
__extension__ typedef unsigned __int128 u128;
}  // namespace

// Lemire (2019), "Fast Random Integer Generation in an Interval", with the
// rejection step: the high word of x*n is uniform on [0, n) once the low
// words below 2^64 mod n are rejected, so there is no modulo bias.
std::uint64_t RandomSource::uniform_below(std::uint64_t n) {
  if (n == 0) throw InvalidArgument("upper bound of a uniform draw must be positive");
  u128 m = static_cast<u128>(next_u64()) * n;
  std::uint64_t low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (low < threshold) {
      m = static_cast<u128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

// k / 2^53 with k uniform on [1, 2^53): every value is exactly representable,
// so the result is never 0 (rejected) and never 1 (k < 2^53). The rejection
// costs a redraw with probability 2^-53 and keeps the law uniform on the grid.
double RandomSource::uniform_open01() {
  constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;
  for (;;) {
    const std::uint64_t k = next_u64() >> 11;
    if (k != 0) return static_cast<double>(k) * kTwoPowMinus53;
  }
}

namespace {

// Bumped in every child after fork(). A source created before a fork would
// otherwise hand parent and child the same buffered bytes, i.e. the same
// noise twice; the check below costs one relaxed load per draw.
std::atomic<std::uint64_t> fork_generation{0};

void register_fork_hook() {
  static const bool registered = [] {
    if (pthread_atfork(nullptr, nullptr, [] { fork_generation.fetch_add(1, std::memory_order_relaxed); }) != 0)
      throw Error("could not register the fork handler of the random source");
    return true;
  }();
  (void)registered;
}

// Reads the kernel CSPRNG 4 KiB at a time: one syscall per 512 draws. The
// buffer is per object and discarded in a forked child. Consumed words are
// wiped so released noise cannot be recovered from the buffer afterwards.
class OsRandomSource final : public RandomSource {
 public:
  // Filling at construction reports a refusing kernel before any work starts.
  OsRandomSource() {
    register_fork_hook();
    refill();
  }
  ~OsRandomSource() override { explicit_bzero(buffer_, sizeof buffer_); }

  std::uint64_t next_u64() override {
    if (pos_ == kWords || generation_ != fork_generation.load(std::memory_order_relaxed)) refill();
    const std::uint64_t value = buffer_[pos_];
    buffer_[pos_++] = 0;
    return value;
  }

 private:
  static constexpr std::size_t kWords = 4096 / sizeof(std::uint64_t);

  void refill() {
    auto* bytes = reinterpret_cast<unsigned char*>(buffer_);
    std::size_t filled = 0;
    while (filled < sizeof buffer_) {
      // Flags 0: block only until the kernel pool is first initialised, then
      // never; /dev/urandom semantics without needing a file descriptor.
      const ssize_t got = getrandom(bytes + filled, sizeof buffer_ - filled, 0);
      if (got > 0) {
        filled += static_cast<std::size_t>(got);
      } else if (got < 0 && errno != EINTR) {
        const int err = errno;
        throw Error("could not obtain random bytes from the operating system",
                    std::string("getrandom() failed: ") + std::strerror(err) + ".",
                    "Noise is drawn only from the kernel random number generator; "
                    "there is no fallback.");
      }
    }
    pos_ = 0;
    generation_ = fork_generation.load(std::memory_order_relaxed);
  }

  std::uint64_t buffer_[kWords] = {};
  std::size_t pos_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<RandomSource> make_os_random_source() {
  return std::make_unique<OsRandomSource>();
}

std::unique_ptr<RandomSource> make_seeded_random_source(std::uint64_t seed) {
  return std::make_unique<SeededRandomSource>(seed);
}

}  // namespace invariant_dp

// RandomSource: the exact integer/real helpers shared by every engine and
// the OS-keyed CSPRNG engine used in production (the seeded engine of the
// tests lives in the header).
#include "random_source.hpp"

#include <openssl/evp.h>
#include <pthread.h>
#include <sys/random.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "derived_random_source.hpp"
#include "errors.hpp"

namespace invariant_dp {
namespace {
__extension__ typedef unsigned __int128 WideProduct;
}  // namespace

// Lemire (2019), "Fast Random Integer Generation in an Interval", with the
// rejection step: the high word of x*n is uniform on [0, n) once the low
// words below 2^64 mod n are rejected, so there is no modulo bias.
std::uint64_t RandomSource::uniform_below(std::uint64_t n) {
  if (n == 0) throw InvalidArgument("upper bound of a uniform draw must be positive");
  WideProduct m = static_cast<WideProduct>(next_u64()) * n;
  std::uint64_t low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    // Ends: a pass is rejected with probability threshold / 2^64 < n / 2^64 <= 1/2 (Lemire's method).
    while (low < threshold) {
      m = static_cast<WideProduct>(next_u64()) * n;
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
  // Ends: a pass is rejected with probability 2^-53.
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

// Reads `size` bytes from the kernel CSPRNG, or throws: there is no fallback.
void read_kernel_random(unsigned char* bytes, std::size_t size) {
  std::size_t filled = 0;
  // Ends: each pass fills at least one byte or fails (getrandom blocks only until the pool is initialised).
  while (filled < size) {
    // Flags 0: block only until the kernel pool is first initialised, then
    // never; /dev/urandom semantics without needing a file descriptor.
    const ssize_t got = getrandom(bytes + filled, size - filled, 0);
    if (got > 0) {
      filled += static_cast<std::size_t>(got);
    } else if (got < 0 && errno != EINTR) {
      const int err = errno;
      throw Error("could not obtain random bytes from the operating system",
                  std::string("getrandom() failed: ") + std::strerror(err) + ".",
                  "Noise is drawn only from the kernel random number generator and a ChaCha20 keystream keyed "
                  "from it; there is no fallback.");
    }
  }
}

// ChaCha20 (RFC 8439, through OpenSSL's EVP interface) keyed from the
// kernel CSPRNG: getrandom(2) costs ~20 ns per 64 bits, which was a third to
// two thirds of a large chain's time; this source costs ~6 ns (measured:
// test/bench/README.md). "Fast key erasure" (Bernstein 2017, the design of
// OpenBSD's arc4random and Linux's CRNG): each refill draws 32 + 16384
// bytes of keystream (16 KiB amortise the re-keying), the first 32 become
// the next key, the cipher is re-keyed at once and the old key wiped, so a
// later read of this object's memory cannot regenerate words already handed
// out; each key encrypts under the fixed nonce once. Every 2^20 words (8
// MiB) and in every forked child (whose copy would otherwise replay the
// parent's stream) the key is XORed with 32 fresh kernel bytes. Consumed
// words are wiped, so released noise cannot be recovered from the buffer.
class OsRandomSource final : public RandomSource {
 public:
  // Keying at construction reports a refusing kernel before any work starts.
  OsRandomSource() {
    register_fork_hook();
    cipher_ = EVP_CIPHER_CTX_new();
    if (cipher_ == nullptr) throw Error("could not allocate the ChaCha20 state of the random source");
    generation_ = fork_generation.load(std::memory_order_relaxed);
    read_kernel_random(key_, sizeof key_);
    rekey();
    refill();
  }
  // A source keyed with 32 bytes drawn from another (derive_random_source);
  // reseeded from the kernel like any other.
  explicit OsRandomSource(const unsigned char (&key)[32]) {
    register_fork_hook();
    cipher_ = EVP_CIPHER_CTX_new();
    if (cipher_ == nullptr) throw Error("could not allocate the ChaCha20 state of the random source");
    generation_ = fork_generation.load(std::memory_order_relaxed);
    std::memcpy(key_, key, sizeof key_);
    rekey();
    refill();
  }
  ~OsRandomSource() override {
    explicit_bzero(buffer_, sizeof buffer_);
    explicit_bzero(key_, sizeof key_);
    EVP_CIPHER_CTX_free(cipher_);  // cleanses the key schedule
  }
  OsRandomSource(const OsRandomSource&) = delete;
  OsRandomSource& operator=(const OsRandomSource&) = delete;

  // A new keystream keyed with 32 bytes of this one.
  std::unique_ptr<RandomSource> derive() {
    unsigned char key[32];
    for (std::size_t i = 0; i < sizeof key; i += sizeof(std::uint64_t)) {
      std::uint64_t word = next_u64();
      std::memcpy(key + i, &word, sizeof word);
      explicit_bzero(&word, sizeof word);
    }
    auto derived = std::make_unique<OsRandomSource>(key);
    explicit_bzero(key, sizeof key);
    return derived;
  }

  std::uint64_t next_u64() override {
    if (pos_ == kWords || generation_ != fork_generation.load(std::memory_order_relaxed)) refill();
    const std::uint64_t value = buffer_[pos_];
    buffer_[pos_++] = 0;
    return value;
  }

 private:
  static constexpr std::size_t kWords = 16384 / sizeof(std::uint64_t);
  static constexpr std::uint64_t kReseedWords = std::uint64_t(1) << 20;

  // Keys the cipher with key_ (nonce and counter 0) and wipes key_.
  void rekey() {
    static const unsigned char zero_iv[16] = {};
    if (EVP_EncryptInit_ex(cipher_, EVP_chacha20(), nullptr, key_, zero_iv) != 1)
      throw Error("could not key the ChaCha20 keystream of the random source");
    explicit_bzero(key_, sizeof key_);
  }

  // XORs 32 fresh kernel bytes into the next key.
  void mix_kernel_bytes() {
    unsigned char fresh[sizeof key_];
    read_kernel_random(fresh, sizeof fresh);
    for (std::size_t i = 0; i < sizeof key_; ++i) key_[i] ^= fresh[i];
    explicit_bzero(fresh, sizeof fresh);
  }

  // The keystream is the encryption of zeros: key_ and the buffer are zero
  // here (key_ wiped by rekey, every buffer word wiped when consumed, or
  // the whole buffer below). A forked child first takes a wholly fresh key:
  // its inherited cipher state is the parent's, whose next keystream the
  // parent will also draw.
  void refill() {
    const std::uint64_t generation = fork_generation.load(std::memory_order_relaxed);
    explicit_bzero(buffer_, sizeof buffer_);
    if (generation != generation_) {
      read_kernel_random(key_, sizeof key_);
      rekey();
      since_reseed_ = 0;
    }
    int len = 0;
    if (EVP_EncryptUpdate(cipher_, key_, &len, key_, sizeof key_) != 1 ||
        EVP_EncryptUpdate(cipher_, reinterpret_cast<unsigned char*>(buffer_), &len,
                          reinterpret_cast<unsigned char*>(buffer_), sizeof buffer_) != 1)
      throw Error("could not draw the ChaCha20 keystream of the random source");
    since_reseed_ += kWords;
    if (since_reseed_ >= kReseedWords) {
      mix_kernel_bytes();
      since_reseed_ = 0;
    }
    rekey();
    pos_ = 0;
    generation_ = generation;
  }

  EVP_CIPHER_CTX* cipher_ = nullptr;
  unsigned char key_[32] = {};
  std::uint64_t buffer_[kWords] = {};
  std::size_t pos_ = 0;
  std::uint64_t generation_ = 0;
  std::uint64_t since_reseed_ = 0;
};

}  // namespace

std::unique_ptr<RandomSource> make_os_random_source() {
  return std::make_unique<OsRandomSource>();
}

std::unique_ptr<RandomSource> make_seeded_random_source(std::uint64_t seed) {
  return std::make_unique<SeededRandomSource>(seed);
}

std::unique_ptr<RandomSource> derive_random_source(RandomSource& parent) {
  if (auto* os = dynamic_cast<OsRandomSource*>(&parent)) return os->derive();
  return std::make_unique<SeededRandomSource>(parent.next_u64());
}

}  // namespace invariant_dp

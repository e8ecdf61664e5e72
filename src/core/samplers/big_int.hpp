// The core's one integer of any size (GMP's mpz_t, owned), used only where
// exact integer arithmetic outgrows 128 bits (wide_int.hpp): the GMP path of
// the discrete Gaussian's acceptance coin, the exponents of the discrete
// Gaussian table's terms, the exact variance increments of the integer
// cascade's splits. Owning the mpz_t keeps an exception unwinding through a
// sampler from leaking GMP memory. Every operation is exact.
#pragma once

#include <gmp.h>

#include <cstddef>
#include <cstdint>

#include "wide_int.hpp"

namespace invariant_dp {

class BigInt {
 public:
  BigInt() { mpz_init(v_); }
  explicit BigInt(std::uint64_t x) { mpz_init_set_ui(v_, x); }
  explicit BigInt(Int128 x);
  explicit BigInt(Uint128 x);
  BigInt(const BigInt& other) { mpz_init_set(v_, other.v_); }
  BigInt& operator=(const BigInt& other) {
    mpz_set(v_, other.v_);
    return *this;
  }
  ~BigInt() { mpz_clear(v_); }

  mpz_srcptr get() const { return v_; }
  mpz_ptr get() { return v_; }
  int sign() const { return mpz_sgn(v_); }
  // Binary digits of |x| (1 for 0).
  std::size_t bits() const { return mpz_sizeinbase(v_, 2); }
  // x for 0 <= x < 2^128 (InvalidArgument otherwise).
  Uint128 to_u128() const;

 private:
  mpz_t v_;
};

BigInt operator+(const BigInt& a, std::uint64_t b);
BigInt operator-(const BigInt& a, const BigInt& b);
BigInt operator*(const BigInt& a, const BigInt& b);
BigInt operator*(const BigInt& a, std::uint64_t b);
BigInt operator<<(const BigInt& a, std::size_t bits);  // a * 2^bits
BigInt abs(const BigInt& a);
bool operator<(const BigInt& a, const BigInt& b);

// num / den in lowest terms (den > 0), both divided by their gcd.
void reduce_fraction(BigInt& num, BigInt& den);

}  // namespace invariant_dp

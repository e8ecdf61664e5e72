// Integers of any size for the exact samplers (GMP's mpz_t, owned), used
// only where an exact rational exponent outgrows 128 bits (wide_int.hpp):
// the GMP path of the discrete Gaussian's acceptance coin. Owning the mpz_t
// keeps an exception unwinding through a sampler from leaking GMP memory.
#pragma once

#include <gmp.h>

#include "wide_int.hpp"

namespace invariant_dp {

class BigInt {
 public:
  BigInt() { mpz_init(v_); }
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

 private:
  mpz_t v_;
};

BigInt operator-(const BigInt& a, const BigInt& b);
BigInt operator*(const BigInt& a, const BigInt& b);
bool operator<(const BigInt& a, const BigInt& b);

}  // namespace invariant_dp

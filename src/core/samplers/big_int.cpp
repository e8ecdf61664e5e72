// BigInt (big_int.hpp): exact, so nothing here can round or overflow.
#include "big_int.hpp"

namespace invariant_dp {

static_assert(sizeof(unsigned long) == 8, "a 64-bit limb must fit an unsigned long (LP64)");

BigInt::BigInt(Uint128 x) {
  mpz_init_set_ui(v_, static_cast<unsigned long>(x >> 64));
  mpz_mul_2exp(v_, v_, 64);
  mpz_add_ui(v_, v_, static_cast<unsigned long>(x));
}

BigInt::BigInt(Int128 x) : BigInt(x < 0 ? -static_cast<Uint128>(x) : static_cast<Uint128>(x)) {
  if (x < 0) mpz_neg(v_, v_);
}

BigInt operator-(const BigInt& a, const BigInt& b) {
  BigInt out;
  mpz_sub(out.get(), a.get(), b.get());
  return out;
}

BigInt operator*(const BigInt& a, const BigInt& b) {
  BigInt out;
  mpz_mul(out.get(), a.get(), b.get());
  return out;
}

bool operator<(const BigInt& a, const BigInt& b) { return mpz_cmp(a.get(), b.get()) < 0; }

}  // namespace invariant_dp

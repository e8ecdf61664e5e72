// BigInt (big_int.hpp): exact, so nothing here can round or overflow.
#include "big_int.hpp"

#include "../errors.hpp"

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

Uint128 BigInt::to_u128() const {
  if (sign() < 0 || bits() > 128) throw InvalidArgument("an integer out of the range of 128 bits");
  // Limbs beyond the size read as 0.
  return (static_cast<Uint128>(mpz_getlimbn(v_, 1)) << 64) | static_cast<Uint128>(mpz_getlimbn(v_, 0));
}

BigInt operator+(const BigInt& a, std::uint64_t b) {
  BigInt out;
  mpz_add_ui(out.get(), a.get(), b);
  return out;
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

BigInt operator*(const BigInt& a, std::uint64_t b) {
  BigInt out;
  mpz_mul_ui(out.get(), a.get(), b);
  return out;
}

BigInt operator<<(const BigInt& a, std::size_t bits) {
  BigInt out;
  mpz_mul_2exp(out.get(), a.get(), static_cast<mp_bitcnt_t>(bits));
  return out;
}

BigInt abs(const BigInt& a) {
  BigInt out;
  mpz_abs(out.get(), a.get());
  return out;
}

bool operator<(const BigInt& a, const BigInt& b) { return mpz_cmp(a.get(), b.get()) < 0; }

void reduce_fraction(BigInt& num, BigInt& den) {
  BigInt g;
  mpz_gcd(g.get(), num.get(), den.get());
  mpz_divexact(num.get(), num.get(), g.get());
  mpz_divexact(den.get(), den.get(), g.get());
}

}  // namespace invariant_dp

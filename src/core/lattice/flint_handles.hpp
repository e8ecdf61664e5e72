// RAII owners for the FLINT objects the lattice code uses (fmpz_mat_t,
// nmod_mat_t, fmpz_t). FLINT is C: its objects need an explicit *_clear, and
// the lattice construction can unwind with Interrupted, TooLarge or
// OutOfRange between FLINT calls (the exact HNF / LLL of
// lattice_general.cpp). Owning every object here keeps
// those exceptions leak-free. Non-copyable, non-movable: they live on the
// stack or in std::optional.
#pragma once

#include <flint/fmpz.h>
#include <flint/fmpz_mat.h>
#include <flint/nmod_mat.h>

#include <cstddef>

namespace invariant_dp {
namespace lattice_detail {

class FmpzMat {
 public:
  FmpzMat(std::size_t rows, std::size_t cols) {
    fmpz_mat_init(m_, static_cast<slong>(rows), static_cast<slong>(cols));
  }
  ~FmpzMat() { fmpz_mat_clear(m_); }
  FmpzMat(const FmpzMat&) = delete;
  FmpzMat& operator=(const FmpzMat&) = delete;

  fmpz_mat_struct* get() { return m_; }
  const fmpz_mat_struct* get() const { return m_; }
  std::size_t rows() const { return static_cast<std::size_t>(fmpz_mat_nrows(m_)); }
  std::size_t cols() const { return static_cast<std::size_t>(fmpz_mat_ncols(m_)); }
  fmpz* at(std::size_t i, std::size_t j) {
    return fmpz_mat_entry(m_, static_cast<slong>(i), static_cast<slong>(j));
  }
  const fmpz* at(std::size_t i, std::size_t j) const {
    return fmpz_mat_entry(m_, static_cast<slong>(i), static_cast<slong>(j));
  }

 private:
  fmpz_mat_t m_;
};

class NmodMat {
 public:
  NmodMat(std::size_t rows, std::size_t cols, mp_limb_t modulus) {
    nmod_mat_init(m_, static_cast<slong>(rows), static_cast<slong>(cols), modulus);
  }
  ~NmodMat() { nmod_mat_clear(m_); }
  NmodMat(const NmodMat&) = delete;
  NmodMat& operator=(const NmodMat&) = delete;

  nmod_mat_struct* get() { return m_; }

 private:
  nmod_mat_t m_;
};

class Fmpz {
 public:
  Fmpz() { fmpz_init(v_); }
  ~Fmpz() { fmpz_clear(v_); }
  Fmpz(const Fmpz&) = delete;
  Fmpz& operator=(const Fmpz&) = delete;

  fmpz* get() { return v_; }
  const fmpz* get() const { return v_; }

 private:
  fmpz_t v_;
};

}  // namespace lattice_detail
}  // namespace invariant_dp

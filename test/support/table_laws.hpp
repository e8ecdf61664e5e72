// Exact laws and sampling helpers for the statistical tests of the exact
// table samplers: the l1 law of an r x c table with both margins kept,
// enumerated on a box of its free cells (the top-left (r-1) x (c-1)
// block, which determines the table), keyed by those cells packed into one
// integer; and the histograms the two-sample tests compare.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "chi_square.hpp"

namespace invariant_dp::table_laws {

// The table (row-major) whose free block is `free` ((r-1)(c-1) values).
inline std::vector<std::int64_t> complete(const std::vector<std::int64_t>& free, std::size_t r, std::size_t c) {
  std::vector<std::int64_t> z(r * c, 0);
  for (std::size_t i = 0; i + 1 < r; ++i)
    for (std::size_t j = 0; j + 1 < c; ++j) {
      const std::int64_t x = free[i * (c - 1) + j];
      z[i * c + j] = x;
      z[i * c + c - 1] -= x;
      z[(r - 1) * c + j] -= x;
      z[(r - 1) * c + c - 1] += x;
    }
  return z;
}

// The key of a table: its free block, each cell in [-2047, 2048], base 4096.
inline std::int64_t key(const std::int64_t* z, std::size_t r, std::size_t c) {
  std::int64_t k = 0;
  for (std::size_t i = 0; i + 1 < r; ++i)
    for (std::size_t j = 0; j + 1 < c; ++j) k = k * 4096 + (z[i * c + j] + 2048);
  return k;
}

inline std::int64_t l1(const std::int64_t* z, std::size_t n) {
  std::int64_t s = 0;
  for (std::size_t i = 0; i < n; ++i) s += std::llabs(z[i]);
  return s;
}

// P(Z) proportional to weight(Z) on the tables whose free cells lie in
// [-radius, radius]; tables lighter than 1e-15 of the heaviest seen are left
// out (with the rest of the mass outside the box: the goodness-of-fit test
// pools them into one bin).
inline std::map<std::int64_t, double> enumerate(std::size_t r, std::size_t c, int radius,
                                                const std::function<double(const std::vector<std::int64_t>&)>& weight) {
  const std::size_t free = (r - 1) * (c - 1);
  std::vector<std::int64_t> v(free, -radius);
  std::map<std::int64_t, double> law;
  double total = 0, heaviest = 0;
  for (;;) {
    const std::vector<std::int64_t> z = complete(v, r, c);
    const double w = weight(z);
    heaviest = std::max(heaviest, w);
    if (w > 1e-15 * heaviest) {
      law[key(z.data(), r, c)] = w;
      total += w;
    }
    std::size_t k = 0;
    while (k < free && v[k] == radius) v[k++] = -radius;
    if (k == free) break;
    ++v[k];
  }
  for (auto& [k, w] : law) w /= total;
  return law;
}

// The l1 law exp(-||Z||_1 / b).
inline std::map<std::int64_t, double> l1_law(std::size_t r, std::size_t c, double b, int radius) {
  return enumerate(r, c, radius,
                   [b](const std::vector<std::int64_t>& z) { return std::exp(-double(l1(z.data(), z.size())) / b); });
}

// The law of sum_k w_k Z_k (w row-major, nine weights) on a 3 x 3 table
// under the l1 law of scale b, enumerated over its four free cells
// (|Z_ij| <= R): value -> probability. The weights a^|x| are tabled once,
// the masses kept in an array over the sum's range.
inline std::map<std::int64_t, double> l1_sum_law_3x3(double b, const std::vector<std::int64_t>& w, std::int64_t R) {
  std::vector<double> weight(static_cast<std::size_t>(8 * R + 1));  // a^|x| for |x| <= 4R
  for (std::int64_t x = -4 * R; x <= 4 * R; ++x)
    weight[static_cast<std::size_t>(x + 4 * R)] = std::exp(-std::fabs(double(x)) / b);
  const auto W = [&](std::int64_t x) { return weight[static_cast<std::size_t>(x + 4 * R)]; };
  std::int64_t reach = 0;  // |X| <= reach
  for (const std::int64_t v : w) reach += 4 * R * std::llabs(v);
  std::vector<long double> mass(static_cast<std::size_t>(2 * reach + 1), 0);
  long double total = 0;
  // The table (p, q, -p-q; u, v, -u-v; -p-u, -q-v, p+q+u+v): the first
  // row's weight and share of X are taken out of the loops over u and v,
  // and X moves by a constant along v. The products, and each run's sum
  // over v, in double (within 2R + 1 units of 2^-53), the sums over the runs
  // and into each value in long double.
  const std::int64_t along_v = w[4] - w[5] - w[7] + w[8];
  for (std::int64_t p = -R; p <= R; ++p)
    for (std::int64_t q = -R; q <= R; ++q) {
      const double row = W(p) * W(q) * W(-p - q);
      const std::int64_t x_row = w[0] * p + w[1] * q - w[2] * (p + q);
      for (std::int64_t u = -R; u <= R; ++u) {
        const double left = row * W(u) * W(-p - u);
        // X at v = 0, then along v.
        std::int64_t x = x_row + w[3] * u - w[5] * u - w[6] * (p + u) - w[7] * q + w[8] * (p + q + u) - R * along_v;
        double run = 0;  // this run of v's mass, at most 2R + 1 terms
        for (std::int64_t v = -R; v <= R; ++v, x += along_v) {
          const double pr = left * W(v) * W(-u - v) * W(-q - v) * W(p + q + u + v);
          mass[static_cast<std::size_t>(x + reach)] += pr;
          run += pr;
        }
        total += run;
      }
    }
  std::map<std::int64_t, double> out;
  for (std::int64_t x = -reach; x <= reach; ++x)
    if (mass[static_cast<std::size_t>(x + reach)] > 0) out[x] = double(mass[static_cast<std::size_t>(x + reach)] / total);
  return out;
}

// Histograms of a few statistics of r x c tables (r, c >= 2), for
// two-sample tests: |z_00|, z_00 + z_11 (two cells in different rows and
// columns; a row or column pair would be constant on a table with a line
// of two), max |z_ij| and ||z||_1.
struct TableStatistics {
  std::map<std::int64_t, std::int64_t> corner, diagonal, largest, norm;
  double n = 0;
  void add(const std::int64_t* z, std::size_t r, std::size_t c) {
    ++corner[std::llabs(z[0])];
    ++diagonal[z[0] + z[c + 1]];
    std::int64_t top = 0;
    for (std::size_t i = 0; i < r * c; ++i) top = std::max<std::int64_t>(top, std::llabs(z[i]));
    ++largest[top];
    ++norm[l1(z, r * c)];
    ++n;
  }
};

// The statistics of tables stored one after the other (r x c each).
inline TableStatistics table_statistics(const std::vector<std::int64_t>& z, std::size_t r, std::size_t c) {
  TableStatistics s;
  for (std::size_t t = 0; t < z.size() / (r * c); ++t) s.add(z.data() + t * r * c, r, c);
  return s;
}

// The four two-sample tests; reports each, returns whether all pass.
inline bool same_table_law(const TableStatistics& a, const TableStatistics& b, const std::string& what) {
  using chi_square_test::ChiSquare;
  bool all = true;
  for (const auto& [stat, pair] : {std::make_pair("|z00|", std::make_pair(&a.corner, &b.corner)),
                                   std::make_pair("z00+z11", std::make_pair(&a.diagonal, &b.diagonal)),
                                   std::make_pair("max|z|", std::make_pair(&a.largest, &b.largest)),
                                   std::make_pair("|z|_1", std::make_pair(&a.norm, &b.norm))}) {
    const ChiSquare r = chi_square_test::two_sample(*pair.first, a.n, *pair.second, b.n);
    chi_square_test::report(what + ", " + stat, r);
    all = all && r.passes();
  }
  return all;
}

}  // namespace invariant_dp::table_laws

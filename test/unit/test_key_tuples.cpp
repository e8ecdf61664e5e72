// Dense tuple ids (invariants/key_tuples.hpp) through the growth of their
// hash table: the table starts small and doubles with the distinct tuples,
// and the ids stay the ones a map of tuples gives (equal tuples, equal ids;
// numbered in order of first appearance), whatever the number of doublings
// and whether the rows repeat a few tuples or are nearly all distinct; the
// growth polls the Interrupts callback.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "invariants/key_tuples.hpp"
#include "random_source.hpp"

namespace invariant_dp {
namespace {

// Rows of two code columns (the coding reads codes only).
struct TwoColumns {
  std::vector<std::uint32_t> a, b;
  const std::uint32_t* columns[2];
  KeyDictionary dictionaries[2];
  KeyRows rows() {
    columns[0] = a.data();
    columns[1] = b.data();
    dictionaries[0].n_levels = dictionaries[1].n_levels = 1u << 20;
    KeyRows out;
    out.n_rows = a.size();
    out.n_columns = 2;
    out.columns = columns;
    out.dictionaries = dictionaries;
    return out;
  }
};

TwoColumns random_rows(std::size_t n, std::uint64_t distinct, std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  TwoColumns t;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t tuple = rng->uniform_below(distinct);
    t.a.push_back(std::uint32_t(tuple % 1000));
    t.b.push_back(std::uint32_t(tuple / 1000));
  }
  return t;
}

TEST(KeyTuples, IdsFollowFirstAppearanceThroughEveryDoubling) {
  // From a few tuples (no growth) to nearly all rows distinct (ten doublings).
  for (const std::uint64_t distinct : {5ull, 150ull, 40000ull, 10000000ull}) {
    TwoColumns t = random_rows(200000, distinct, distinct);
    const TupleIds ids = dense_tuple_ids(t.rows(), Interrupts());
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> seen;
    ASSERT_EQ(ids.id.size(), t.a.size());
    for (std::size_t i = 0; i < t.a.size(); ++i) {
      const auto [it, inserted] = seen.emplace(std::make_pair(t.a[i], t.b[i]), std::uint32_t(seen.size()));
      ASSERT_EQ(ids.id[i], it->second) << "row " << i << " of " << distinct << " tuples";
    }
    EXPECT_EQ(ids.n_ids, seen.size());
  }
}

TEST(KeyTuples, GrowingPollsForCancellation) {
  // The same rows' count polls the row loop alike; the doublings of a
  // table of 10^5 distinct tuples (256 slots to 2^18) poll besides.
  auto polls_of = [](std::uint64_t distinct) {
    TwoColumns t = random_rows(100000, distinct, 3);
    int polls = 0;
    const Interrupts counting([](void* p) { return ++*static_cast<int*>(p) < 0; }, &polls);
    dense_tuple_ids(t.rows(), counting);
    return polls;
  };
  const int few = polls_of(5), many = polls_of(1u << 30);
  EXPECT_GE(many - few, 10 + (1 << 17) / 4096);  // each doubling once, and every 4096 old slots
  // A cancel that comes after the row loop alone would have ended is honoured.
  TwoColumns t = random_rows(100000, 1u << 30, 3);
  struct Budget {
    int polls, limit;
  } budget{0, few + 2};
  const Interrupts stop_late([](void* p) { auto* b = static_cast<Budget*>(p); return ++b->polls > b->limit; },
                             &budget);
  EXPECT_THROW(dense_tuple_ids(t.rows(), stop_late), Interrupted);
}

}  // namespace
}  // namespace invariant_dp

// Dense ids for the rows of a table of keys, by the tuple of their keys on
// some columns: equal tuples (equal codes, NULL equal to NULL, as GROUP BY
// groups them) get the same id, ids numbered in order of first appearance.
// One column needs no hashing: its codes are renumbered through an array
// indexed by code. Several use an open-addressing table of rows that grows
// with the distinct tuples (not sized from the row count: memory follows
// what is counted), each slot holding a tag of its tuple's hash beside the
// row, slots prefetched a block of rows ahead: no allocation per row and few
// cache misses that wait on each other. Buffers are backed by huge pages
// where the system offers them (large_buffer.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "key_rows.hpp"

namespace invariant_dp {

struct TupleIds {
  std::vector<std::uint32_t> id;  // per row
  std::uint32_t n_ids = 0;
};

// The codes of a row-numbered column (key_rows.hpp) spelled out: 0, 1, ...,
// n - 1, for the rare caller that needs them as an array.
std::vector<std::uint32_t> row_numbers(std::size_t n, const Interrupts& interrupts);

// columns: indices into keys' columns (none: every row gets id 0).
TupleIds dense_tuple_ids(const KeyRows& keys, const std::vector<std::size_t>& columns, const Interrupts& interrupts);

// All of keys' columns.
TupleIds dense_tuple_ids(const KeyRows& keys, const Interrupts& interrupts);

// The hash of a row's whole tuple from its keys' bytes (so it does not
// depend on how codes were numbered), and whether two rows of tables with
// the same columns have equal tuples (for indexes across two tables).
std::uint64_t tuple_hash(const KeyRows& keys, std::size_t row);
bool same_tuple(const KeyRows& a, std::size_t row_a, const KeyRows& b, std::size_t row_b);

}  // namespace invariant_dp

// The cells of a release and their keys, dictionary-encoded. The shim hands
// each key coded in its column's dictionary (KeyRows); cells are identified
// by the tuple of keys, so two cells with the same tuple are a
// duplicate-cell error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "key_rows.hpp"

namespace invariant_dp {

// How CellKeys holds the codes of an encoded column whose codes in the
// rows are already numbered by first appearance (the shim's, as a column's
// encoder numbers them, unless a domain shares the dictionary): a copy, or
// the rows' own array, which then must outlive the CellKeys (a release's
// cells live for the call that hands the rows over). Other columns are
// renumbered into arrays of its own either way.
enum class KeyCodes { copied, borrowed };

class CellKeys {
 public:
  // One cell per row of keys (NULL is a level of its own, as GROUP BY
  // treats it). Throws InvalidData on a duplicate cell, naming its key.
  // encoded: the columns whose codes are wanted (margins, hierarchy levels);
  // none given: every column. The others keep no codes: a release of
  // millions of cells without invariants needs none.
  CellKeys(const KeyRows& keys, std::vector<std::string> column_names, const Interrupts& interrupts,
           const std::vector<bool>* encoded = nullptr, KeyCodes storage = KeyCodes::copied);
  // Moved, never copied (codes point into owned arrays or the rows').
  CellKeys(CellKeys&&) = default;
  CellKeys& operator=(CellKeys&&) = default;
  CellKeys(const CellKeys&) = delete;
  CellKeys& operator=(const CellKeys&) = delete;

  // Cells given by their codes on each column (codes[j][i] < n_levels[j]),
  // checked for duplicates like the rows of a source.
  static CellKeys from_codes(std::vector<std::string> column_names, std::vector<std::vector<std::uint32_t>> codes,
                             std::vector<std::uint32_t> n_levels, const Interrupts& interrupts);

  std::size_t n_cells() const { return n_cells_; }
  std::size_t n_columns() const { return column_names_.size(); }
  const std::vector<std::string>& column_names() const { return column_names_; }
  // The rows the cells came from (KeyRows::table), for errors naming a cell's key.
  int table() const { return table_; }

  // Index of a key column by name; throws InvalidArgument naming the unknown
  // column and listing the known ones.
  std::size_t column_index(const std::string& name) const;

  // Code of cell i on an encoded column j, in [0, n_levels(j)), in order of
  // first appearance.
  std::uint32_t code(std::size_t column, std::size_t cell) const { return codes(column)[cell]; }
  std::uint32_t n_levels(std::size_t column) const;
  // All n_cells() codes of an encoded column, for loops over every cell.
  const std::uint32_t* codes(std::size_t column) const;
  // Whether the codes are known to be numbered by first appearance, every
  // level shown (cells from rows: always; from_codes: as given, unchecked).
  bool codes_by_first_appearance() const { return codes_by_first_appearance_; }

 private:
  CellKeys(std::size_t n_cells, std::vector<std::string> column_names, int table);

  std::size_t n_cells_;
  std::vector<std::string> column_names_;
  int table_;
  std::vector<const std::uint32_t*> codes_;  // [column][cell]: into owned_codes_, or borrowed
  std::vector<std::vector<std::uint32_t>> owned_codes_;
  std::vector<std::uint32_t> n_levels_;

  // Throws InvalidData naming the first key tuple that repeats: from the
  // codes (from_codes), or from the keys' bytes.
  void check_no_duplicate_codes(const Interrupts& interrupts) const;
  void check_no_duplicate_keys(const KeyRows& keys, const Interrupts& interrupts) const;
  void throw_duplicate(std::size_t row) const;
  std::vector<bool> encoded_;
  bool codes_by_first_appearance_ = true;
};

}  // namespace invariant_dp

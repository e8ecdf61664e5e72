// Conversions shared by the C entry points: plain C buffers to core types,
// and core results back to malloc'd buffers the shim frees with idp_free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../invariants/cell_keys.hpp"
#include "../finite_values.hpp"
#include "../request/release_request.hpp"
#include "../release/release_input.hpp"
#include "invariant_dp_core.h"

namespace invariant_dp::capi {

RawRequest raw_request(const idp_request* request);
std::vector<std::string> strings(std::size_t n, const char* const* text);
Interrupts interrupts_of(const idp_interrupts* interrupts);
char* malloc_copy(const std::string& text);
// A key dictionary across the boundary, either way.
KeyDictionary dictionary_of(const idp_key_dictionary& dictionary);
idp_key_dictionary c_dictionary(const KeyDictionary& dictionary);

// A malloc'd copy of a vector, element-converted (at least one element, so
// never NULL): the output arrays the shim frees with the idp_free_* calls.
template <class T, class U>
T* malloc_array(const std::vector<U>& values) {
  T* out = static_cast<T*>(std::malloc(std::max<std::size_t>(values.size(), 1) * sizeof(T)));
  if (out == nullptr) throw std::bad_alloc();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  return out;
}

// The cells' tables of keys as the core reads them (key_rows.hpp): the
// source rows, the domain's and the units, over the dictionaries the shim
// passed.
class CellTables {
 public:
  explicit CellTables(const idp_cells* cells);
  CellTables(const CellTables&) = delete;
  CellTables& operator=(const CellTables&) = delete;
  KeyRows source() const;
  KeyRows domain() const;
  KeyRows units() const;

 private:
  const idp_cells* cells_;
  std::vector<KeyDictionary> dictionaries_;
  KeyDictionary unit_dictionary_;
};

// The cells as the release reads them (release/release_input.hpp), over
// the tables above; tables must outlive it.
ReleaseInput release_input(const idp_cells* cells, const CellTables& tables);

}  // namespace invariant_dp::capi

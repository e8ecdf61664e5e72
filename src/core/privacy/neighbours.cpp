#include "neighbours.hpp"

namespace invariant_dp {

const char* neighbours_name(Neighbours neighbours) {
  return neighbours == Neighbours::ReplaceOne ? "replace_one" : "add_remove";
}

}  // namespace invariant_dp

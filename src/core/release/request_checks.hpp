// How a request is checked once, as dp.privatize checks it before its
// source runs: the hierarchy and its options taken out, the rest validated,
// the rules that join them applied (request/checked_request.hpp holds the
// result). The release (release_entry.hpp) takes only a checked request, so
// nothing below checks it again.
#pragma once

#include <string>
#include <vector>

#include "../request/checked_request.hpp"
#include "../request/release_request.hpp"

namespace invariant_dp {

// raw: the request as given (its options still hold the hierarchy's);
// levels: the hierarchy argument, coarsest first (none: flat); epsilon_given:
// false when epsilon was NULL, which only the cascades accept (they calibrate
// on rho or absolute targets).
CheckedRequest check_request(RawRequest raw, const std::vector<std::string>& levels, bool epsilon_given);

// InvalidArgument naming a margin or hierarchy column the source lacks.
void check_columns(const CheckedRequest& checked, const std::vector<std::string>& key_columns);
// check_columns, then the columns remembered as checked (before the
// source's rows are read, as soon as its columns are known).
void accept_columns(CheckedRequest& checked, const std::vector<std::string>& key_columns);

// Which of the key columns any of the name lists names (margins, levels).
std::vector<bool> columns_named(const std::vector<std::string>& key_columns,
                                const std::vector<std::vector<std::string>>& name_lists);

// The key columns a checked release needs codes of: its margins' and
// levels' (a hierarchy's leaves are the cells, so all of them).
std::vector<bool> encoded_columns(const CheckedRequest& checked, const std::vector<std::string>& key_columns);

}  // namespace invariant_dp

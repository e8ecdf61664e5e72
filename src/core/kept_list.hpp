// The few results of one kind a process keeps between calls (the l1 table
// cells' quantiles, sums' laws and covariance scales): at most Capacity
// entries, the oldest dropped first, behind one mutex (the library may be
// called from several threads). Scoped to one role by
// release/kept_results.hpp, which clears every list when the role changes.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace invariant_dp {

template <class Entry, std::size_t Capacity>
class KeptList {
 public:
  // A copy of the oldest kept entry `same` accepts, if any.
  template <class Same>
  std::optional<Entry> find(const Same& same) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& entry : entries_)
      if (same(entry)) return entry;
    return std::nullopt;
  }

  // Keeps `entry` in place of the one `same` accepts, if any; past Capacity
  // the oldest goes.
  template <class Same>
  void keep(Entry entry, const Same& same) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (same(*it)) {
        entries_.erase(it);
        break;
      }
    if (entries_.size() >= Capacity) entries_.pop_front();
    entries_.push_back(std::move(entry));
  }

  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::deque<Entry> entries_;
};

}  // namespace invariant_dp

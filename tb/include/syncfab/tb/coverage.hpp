// Corner counters for random tests: name the corners a test must reach, count
// them while it runs, print the table at the end, and fail if a required
// corner was never hit (a random test that never reached "full" proved
// nothing about "full").
#pragma once

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "syncfab/tb/check.hpp"

namespace syncfab::tb {

class Corners {
 public:
  explicit Corners(std::string name) : name_(std::move(name)) {}

  using Id = std::size_t;

  // A corner that must be hit at least `min` times.
  Id require(std::string_view corner, std::uint64_t min = 1) {
    const Id id = entry(corner);
    entries_[id].min = min;
    return id;
  }
  // A corner that is only reported.
  Id track(std::string_view corner) { return entry(corner); }
  void hit(Id id, std::uint64_t n = 1) { entries_[id].count += n; }
  void hit(std::string_view corner, std::uint64_t n = 1) { entries_[entry(corner)].count += n; }
  [[nodiscard]] std::uint64_t count(std::string_view corner) const {
    auto it = index_.find(corner);
    return it == index_.end() ? 0 : entries_[it->second].count;
  }

  [[nodiscard]] std::string report() const {
    std::size_t w = 6;
    for (const auto& e : entries_) {
      w = std::max(w, e.name.size());
    }
    std::ostringstream os;
    os << "  corners of " << name_ << ":\n";
    for (const auto& e : entries_) {
      os << "    " << std::left << std::setw(static_cast<int>(w)) << e.name << std::right
         << std::setw(12) << e.count;
      if (e.min > 0 && e.count >= e.min) {
        os << "   ok";
      }
      if (e.count < e.min) {
        os << "   MISSED (need " << e.min << ")";
      }
      os << "\n";
    }
    return os.str();
  }

  // Throws TestFailure naming every required corner below its minimum.
  void check() const {
    std::string missed;
    for (const auto& e : entries_) {
      if (e.count < e.min) {
        missed += (missed.empty() ? "" : ", ") + e.name;
      }
    }
    if (!missed.empty()) {
      throw TestFailure(name_ + ": required corner(s) never reached: " + missed +
                        " (more ops, or a stimulus bias that reaches them)");
    }
  }

 private:
  struct Entry {
    std::string name;
    std::uint64_t count = 0;
    std::uint64_t min = 0;
  };
  Id entry(std::string_view corner) {
    auto it = index_.find(corner);
    if (it != index_.end()) {
      return it->second;
    }
    index_.emplace(std::string(corner), entries_.size());
    entries_.push_back(Entry{std::string(corner), 0, 0});
    return entries_.size() - 1;
  }

  std::string name_;
  std::vector<Entry> entries_;  // in order of first mention
  std::map<std::string, std::size_t, std::less<>> index_;
};

}  // namespace syncfab::tb

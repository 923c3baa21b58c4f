// Scoreboard: an in-order queue of expected items checked against what the
// DUT produces. The first mismatch fails the test with its index, both values
// and the last few matches before it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <sstream>
#include <string>
#include <utility>

#include "syncfab/tb/check.hpp"

namespace syncfab::tb {

template <class T>
class Scoreboard {
 public:
  using Printer = std::function<std::string(const T&)>;
  using Equal = std::function<bool(const T&, const T&)>;

  explicit Scoreboard(std::string name, Printer printer = {}, Equal equal = {})
      : name_(std::move(name)), printer_(std::move(printer)), equal_(std::move(equal)) {
    if (!printer_) {
      printer_ = [](const T& v) { return detail::show(v); };
    }
    if (!equal_) {
      equal_ = [](const T& a, const T& b) { return a == b; };
    }
  }

  void expect(T item) { expected_.push_back(std::move(item)); }

  // Checks `item` against the oldest expected one.
  void observe(const T& item) {
    const std::uint64_t index = matched_;
    if (expected_.empty()) {
      throw TestFailure(report("unexpected item #" + std::to_string(index) + ": " + printer_(item) +
                               " (nothing was expected)"));
    }
    if (!equal_(expected_.front(), item)) {
      throw TestFailure(report("mismatch at item #" + std::to_string(index) + ":\n    expected " +
                               printer_(expected_.front()) + "\n    observed " + printer_(item)));
    }
    history_.push_back(printer_(item));
    if (history_.size() > kHistory) {
      history_.pop_front();
    }
    expected_.pop_front();
    ++matched_;
  }

  // At the end of a test: everything expected was observed.
  void check_drained() const {
    if (!expected_.empty()) {
      throw TestFailure(
          report(std::to_string(expected_.size()) +
                 " expected item(s) never observed; first: " + printer_(expected_.front())));
    }
  }

  [[nodiscard]] std::uint64_t matched() const noexcept { return matched_; }
  [[nodiscard]] std::size_t pending() const noexcept { return expected_.size(); }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 private:
  static constexpr std::size_t kHistory = 4;

  [[nodiscard]] std::string report(const std::string& what) const {
    std::ostringstream os;
    os << "scoreboard '" << name_ << "': " << what;
    if (!history_.empty()) {
      os << "\n    last matches before it:";
      std::uint64_t i = matched_ - history_.size();
      for (const auto& h : history_) {
        os << "\n      #" << i++ << " " << h;
      }
    }
    return os.str();
  }

  std::string name_;
  Printer printer_;
  Equal equal_;
  std::deque<T> expected_;
  std::deque<std::string> history_;
  std::uint64_t matched_ = 0;
};

}  // namespace syncfab::tb

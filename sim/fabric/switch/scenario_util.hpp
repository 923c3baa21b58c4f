// Checks and reports shared by the fabric scenarios: counter conservation,
// switch counters against the link counters, and the Markdown summary.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "switch_fabric.hpp"

namespace syncfab::tb::swfab {

// Every connected port of every switch: configure_scheduler(port, cfg).
void configure_sched_all(Fabric& f, const driver::SchedConfig& cfg);

// The drop kinds (DROP_WRED, _NO_ROUTE, _BAD_PKT, _DISABLED, _WD, _BUF).
const std::vector<fmt::SwCounter>& drop_kinds();
// Sum of every drop kind at `prio` over all switches and ports.
std::uint64_t drops_at(const CounterSnapshot& snap, unsigned prio);

// Unicast only: per switch, RX == TX + every drop (nothing left inside).
// Returns "" or what differs.
std::string unicast_conservation(const CounterSnapshot& snap, const Fabric& f);
// Per switch port: TX (all prios) == data packets the link got from that
// port, and RX == data packets the link delivered to it. Returns "" or the
// first mismatches.
std::string counters_match_links(const CounterSnapshot& snap, const Fabric& f);

// A two-column Markdown table block: "| what | value |".
class Summary {
 public:
  explicit Summary(std::string title) : title_(std::move(title)) {}
  void add(const std::string& what, const std::string& value) { rows_.emplace_back(what, value); }
  void add(const std::string& what, double value, int precision = 3);
  void print(std::ostream& out) const;

 private:
  std::string title_;
  std::vector<std::pair<std::string, std::string>> rows_;
};

std::string fixed(double v, int precision);

}  // namespace syncfab::tb::swfab

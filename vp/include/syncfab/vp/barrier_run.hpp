// Barriers across every node of a Platform, each node's unchanged driver
// (driver::Nic) on its own host thread: one context per fan-out k, all
// ranks, `barriers` barriers on each, every host computing a random time
// before each arrival. Checked afterwards: every wait completed in time, no
// NIC completed a barrier before the last rank began its arrival (the NICs'
// completion cycles against the hosts' arrival times), every NIC counted
// its completions and no completion-queue entry went unclaimed.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include <syncfab/driver/nic.hpp>

#include "syncfab/vp/platform.hpp"

namespace syncfab::vp {

struct BarrierRunConfig {
  std::vector<unsigned> ks{2};  // fan-outs, one context each
  unsigned barriers = 10;       // per fan-out
  // Every post through the HDQ or the SDQ, or alternating between them.
  enum class Submit : std::uint8_t { kHdq, kSdq, kAlternate } submit = Submit::kAlternate;
  driver::WaitMode wait = driver::WaitMode::kPoll;
  std::chrono::nanoseconds poll_interval{8};
  std::chrono::nanoseconds timeout{100'000};      // per barrier, device time
  sc_core::sc_time max_skew{50, sc_core::SC_NS};  // a host computes up to this before arriving
  std::uint64_t seed = 1;
};

// One node's view of its barriers.
struct NodeLog {
  std::vector<sc_core::sc_time> arrivals;  // before each arrive(), fan-out major
  unsigned completed = 0;
  // CNT_COMPLETION before the run: completions of an earlier program on the
  // node, which the checks leave out.
  std::uint32_t completions_before = 0;
  std::uint32_t completions_after = 0;  // CNT_COMPLETION once every barrier completed
  std::string error;                    // what the node's program threw
  driver::NicStats stats;
};

class BarrierRun {
 public:
  BarrierRun(BarrierRunConfig cfg, const PlatformConfig& platform);
  // The program to give Platform for node n.
  void program(unsigned node, Host& host);
  // The checks above, one line per violation (empty: all held).
  [[nodiscard]] std::vector<std::string> check(Platform& p) const;
  [[nodiscard]] const NodeLog& log(unsigned node) const { return logs_.at(node); }
  [[nodiscard]] std::uint64_t completions() const;

 private:
  BarrierRunConfig cfg_;
  unsigned nodes_;
  driver::DmaRegion region_;
  std::vector<NodeLog> logs_;
};

}  // namespace syncfab::vp

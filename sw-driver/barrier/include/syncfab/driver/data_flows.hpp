// The NIC data path as software drives it (docs/nic/dcqcn.md): program and
// start bulk DATA flows, set DCQCN's reaction- and notification-point
// parameters, read flow status and counters. Every access goes through
// hw::Device at the block's base (fmt::kDcqcnCsrBase), so it runs unchanged
// on the golden model and on any other backend.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <syncfab/fmt/formats.hpp>
#include <syncfab/hw/dcqcn_regs.hpp>
#include <syncfab/hw/device.hpp>

namespace syncfab::driver {

// START left the flow in state ERROR; code() says why (the message names the
// flow, the code and the value that caused it).
class FlowError : public std::runtime_error {
 public:
  FlowError(const std::string& what, fmt::FlowErr code) : std::runtime_error(what), code_(code) {}
  [[nodiscard]] fmt::FlowErr code() const noexcept { return code_; }

 private:
  fmt::FlowErr code_;
};

struct FlowSpec {
  std::uint16_t dst_lid = 0;                  // unicast, non-zero, not this NIC's
  std::uint32_t flow_label = 0;               // 20 bits
  unsigned payload_flits = 0;                 // per packet, 1 .. DATA_MAX_PAYLOAD_FLITS
  std::uint32_t packets = 0;                  // >= 1
  unsigned prio = hw::dcqcn::kFlowPrioReset;  // 0 .. NUM_PRIO - 1
  bool ect = true;                            // ECT(0): WRED marks instead of dropping
};

// Parameters left unset keep the device's value. Rates in units of 2^-16
// flits per cycle (RATE_LINE = line rate), times in cycles.
struct DcqcnConfig {
  std::optional<bool> rp_enable;
  std::optional<bool> np_enable;
  std::optional<unsigned> cnp_prio;
  std::optional<std::uint32_t> cnp_interval;
  std::optional<unsigned> g_shift;  // g = 2^-g_shift, 1..16
  std::optional<std::uint32_t> alpha_timer;
  std::optional<std::uint32_t> rate_timer;
  std::optional<std::uint32_t> byte_counter;  // flits
  std::optional<unsigned> stages;             // F
  std::optional<std::uint32_t> rate_ai;
  std::optional<std::uint32_t> rate_hai;
  std::optional<std::uint32_t> rate_min;
};

struct FlowStatus {
  fmt::FlowState state = fmt::FlowState::kIdle;
  fmt::FlowErr err = fmt::FlowErr::kNone;
  std::uint32_t sent = 0;
  std::uint32_t rate = 0;    // RC
  std::uint32_t target = 0;  // RT
  std::uint32_t alpha = 0;
  std::uint32_t cnps = 0;
};

class DataFlows {
 public:
  // DeviceMismatch if the device has no data path of this driver's major
  // version (a bus error or another magic at the block's ID).
  explicit DataFlows(hw::Device& device);

  // std::invalid_argument naming the bad parameter and value (checked here
  // against the register's range before anything is written).
  void configure(const DcqcnConfig& config);

  // Programs entry `index` and starts it. std::invalid_argument for an index
  // >= NUM_FLOWS, a prio or label that does not fit, or a flow the device
  // would refuse (the message names the value); FlowError if the device
  // still refuses it; std::logic_error if the entry is RUNNING.
  void start(unsigned index, const FlowSpec& spec);
  void stop(unsigned index);
  [[nodiscard]] FlowStatus status(unsigned index);
  // Bit f set: entry f is RUNNING.
  [[nodiscard]] std::uint32_t running();
  // Polls until entry `index` leaves RUNNING, letting device time pass in
  // wait_interrupt() slices of `poll` (at most timeout / poll of them; a
  // raised interrupt line ends a slice early). Returns the last status read:
  // still RUNNING when the timeout passed first.
  FlowStatus wait(unsigned index, std::chrono::nanoseconds timeout,
                  std::chrono::nanoseconds poll = std::chrono::nanoseconds(256));
  [[nodiscard]] std::uint32_t counter(hw::dcqcn::Counter c);
  void clear_counters();
  [[nodiscard]] unsigned num_flows() const noexcept { return num_flows_; }

 private:
  [[nodiscard]] std::uint32_t rd(const hw::Reg& r);
  void wr(const hw::Reg& r, std::uint32_t v);
  void check_index(unsigned index, const char* what) const;

  hw::Device* dev_;
  unsigned num_flows_ = 0;
  std::uint16_t node_lid_ = 0;
};

}  // namespace syncfab::driver

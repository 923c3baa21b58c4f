// Golden model of the NIC's data path (docs/nic/dcqcn.md): the flow table
// and bulk sender, each flow's DCQCN reaction point and token bucket, the
// notification point, and the register block of rtl/nic/nic_dcqcn.rdl. The
// barrier engine owns it (EngineConfig::data_path) and gives it the link:
// its network arbiter asks for CNPs and DATA packets (section 6), its rx
// demux hands over DATA and CNP packets, and every cycle ends with
// end_cycle().
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>

#include <syncfab/fmt/formats.hpp>
#include <syncfab/regs/nic_dcqcn_counters.hpp>

#include "syncfab/model/dcqcn_rp.hpp"
#include "syncfab/model/nic_link.hpp"

namespace syncfab::model {

class DataPath {
 public:
  using Counter = hw::dcqcn::Counter;

  // One flow-table entry as FLOW_SEL shows it.
  struct FlowView {
    fmt::FlowState state = fmt::FlowState::kIdle;
    fmt::FlowErr err = fmt::FlowErr::kNone;
    std::uint32_t sent = 0;
    std::uint32_t rc = 0;
    std::uint32_t rt = 0;
    std::uint32_t alpha = 0;
    std::uint32_t cnps = 0;
  };

  // CSR port: byte offsets within the block. hw::BusError (PSLVERR) for an
  // unaligned or unmapped offset, a write to a read-only register, a value
  // out of its field's range, a refused FLOW_CTRL command.
  [[nodiscard]] std::uint32_t csr_read(std::uint32_t offset) const;
  void csr_write(std::uint32_t offset, std::uint32_t value, std::uint16_t node_lid);

  // Transmit (the arbiter's sources 1 and 3). paused: bit p set while
  // priority p is paused by PFC.
  [[nodiscard]] std::optional<fmt::PktHdr> cnp_head(std::uint8_t paused) const;
  fmt::PktHdr grant_cnp();
  void cnp_left() { count(Counter::kCnpTx); }
  [[nodiscard]] std::optional<fmt::PktHdr> data_head(std::uint8_t paused,
                                                     std::uint16_t node_lid) const;
  fmt::PktHdr grant_data(std::uint8_t paused, std::uint16_t node_lid);
  // The granted DATA header left: its payload follows.
  void data_header_left();
  [[nodiscard]] bool payload_active() const noexcept {
    return payload_.has_value() && payload_->header_left;
  }
  [[nodiscard]] LinkFlit payload_flit() const;
  void payload_flit_left();

  // Receive: a DATA packet at its last flit (flits taken), a one-flit CNP.
  void rx_data(const fmt::PktHdr& hdr, unsigned flits, std::uint16_t node_lid, std::uint64_t cycle);
  void rx_cnp(const fmt::PktHdr& hdr, std::uint16_t node_lid);

  // The clock edge closing the cycle: rate law and token buckets.
  void end_cycle();

  // No flow running, no CNP queued, no packet leaving.
  [[nodiscard]] bool idle() const;
  [[nodiscard]] FlowView flow(unsigned index) const;
  [[nodiscard]] std::uint32_t counter(Counter c) const noexcept {
    return counters_[static_cast<unsigned>(c)];
  }
  [[nodiscard]] const DcqcnParams& params() const noexcept { return params_; }

 private:
  struct Flow {
    fmt::FlowState state = fmt::FlowState::kIdle;
    fmt::FlowErr err = fmt::FlowErr::kNone;
    std::uint16_t dst = 0;
    std::uint32_t label = 0;
    std::uint32_t payload_flits = 0;
    std::uint32_t prio = 0;
    bool ect = true;
    std::uint32_t count = 0;
    std::uint32_t sent = 0;
    std::uint32_t cnps = 0;
    std::uint64_t credit = 0;
    bool cnp_now = false;  // a CNP matched in this cycle
    DcqcnRp rp;
  };
  struct NpSlot {
    bool valid = false;
    std::uint16_t src = 0;
    std::uint32_t label = 0;
    std::uint64_t t0 = 0;
  };
  struct Payload {
    unsigned flow = 0;
    std::uint32_t label = 0;
    std::uint32_t psn = 0;
    unsigned next = 1;  // payload flit shown next (1 .. flits)
    unsigned flits = 0;
    bool header_left = false;
  };

  [[nodiscard]] std::optional<unsigned> pick(std::uint8_t paused) const;
  [[nodiscard]] fmt::PktHdr data_header(unsigned f, std::uint16_t node_lid) const;
  void start(unsigned index, std::uint16_t node_lid);
  [[nodiscard]] std::uint32_t summary() const;
  void count(Counter c, std::uint32_t n = 1) noexcept;

  // Registers.
  bool rp_enable_ = true;
  bool np_enable_ = true;
  std::uint32_t cnp_prio_ = hw::dcqcn::kCnpPrioReset;
  std::uint32_t cnp_interval_ = hw::dcqcn::kCnpIntervalReset;
  DcqcnParams params_;
  std::uint32_t stage_dst_ = 0;
  std::uint32_t stage_cfg_ = (hw::dcqcn::kFlowPrioReset << hw::dcqcn::FLOW_CFG_PRIO.shift) |
                             (hw::dcqcn::kFlowEctReset << hw::dcqcn::FLOW_CFG_ECT.shift);
  std::uint32_t stage_label_ = 0;
  std::uint32_t stage_count_ = 0;
  std::uint32_t flow_ctrl_index_ = 0;
  std::uint32_t flow_sel_ = 0;
  std::array<std::uint32_t, hw::dcqcn::kNumCounters> counters_{};

  std::array<Flow, fmt::kNumFlows> flows_{};
  unsigned rr_next_ = 0;  // entry the round-robin looks at first
  std::array<NpSlot, fmt::kNpSlots> np_{};
  std::deque<fmt::PktHdr> cnp_q_;
  std::optional<Payload> payload_;
};

}  // namespace syncfab::model

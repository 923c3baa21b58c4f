// The data path's driver: register accesses of docs/nic/dcqcn.md sections
// 2 and 5, with the device's range checks repeated here so that a bad value
// is reported by name before anything is written.
#include "syncfab/driver/data_flows.hpp"

#include <string>
#include <utility>

#include <syncfab/hw/errors.hpp>
#include <syncfab/hw/hex.hpp>
#include <syncfab/hw/nic_regs.hpp>

#include "syncfab/driver/errors.hpp"

namespace syncfab::driver {

namespace dq = hw::dcqcn;

namespace {

void check_range(const char* name, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  if (v < lo || v > hi) {
    throw std::invalid_argument("DataFlows: " + std::string(name) + " " + std::to_string(v) +
                                " is out of range " + std::to_string(lo) + ".." +
                                std::to_string(hi));
  }
}

}  // namespace

DataFlows::DataFlows(hw::Device& device) : dev_(&device) {
  std::uint32_t magic = 0;
  std::uint32_t version = 0;
  try {
    magic = rd(dq::ID);
    version = rd(dq::VERSION);
  } catch (const hw::BusError& e) {
    throw DeviceMismatch(std::string("device mismatch: no data-path block at offset ") +
                         hw::hex(dq::kBase) + " (" + e.what() + ")");
  }
  if (magic != dq::kMagic || dq::VERSION_MAJOR.get(version) != dq::kVersionMajor) {
    throw DeviceMismatch("device mismatch: data-path block ID " + hw::hex(magic) +
                         " VERSION.MAJOR " + std::to_string(dq::VERSION_MAJOR.get(version)) +
                         ": this driver was built for " + hw::hex(dq::kMagic) + " major " +
                         std::to_string(dq::kVersionMajor));
  }
  num_flows_ = dq::HW_CFG_NUM_FLOWS.get(rd(dq::HW_CFG));
  node_lid_ =
      static_cast<std::uint16_t>(hw::nic::NODE_LID_LID.get(dev_->read32(hw::nic::NODE_LID.offset)));
}

std::uint32_t DataFlows::rd(const hw::Reg& r) { return dev_->read32(dq::kBase + r.offset); }
void DataFlows::wr(const hw::Reg& r, std::uint32_t v) { dev_->write32(dq::kBase + r.offset, v); }

void DataFlows::check_index(unsigned index, const char* what) const {
  if (index >= num_flows_) {
    throw std::invalid_argument("DataFlows::" + std::string(what) + ": flow index " +
                                std::to_string(index) + " >= the device's " +
                                std::to_string(num_flows_) + " flows");
  }
}

void DataFlows::configure(const DcqcnConfig& c) {
  // Check everything first: a refused value leaves the device unchanged.
  if (c.cnp_prio) {
    check_range("cnp_prio", *c.cnp_prio, 0, fmt::kNumPrio - 1);
  }
  if (c.g_shift) {
    check_range("g_shift", *c.g_shift, 1, 16);
  }
  for (const auto& [name, v] : {std::pair{"alpha_timer", c.alpha_timer},
                                {"rate_timer", c.rate_timer},
                                {"byte_counter", c.byte_counter}}) {
    if (v) {
      check_range(name, *v, 1, 0xFFFFFFFFU);
    }
  }
  if (c.stages) {
    check_range("stages", *c.stages, 0, 255);
  }
  for (const auto& [name, v] :
       {std::pair{"rate_ai", c.rate_ai}, {"rate_hai", c.rate_hai}, {"rate_min", c.rate_min}}) {
    if (v) {
      check_range(name, *v, 1, fmt::kRateLine);
    }
  }
  if (c.rp_enable || c.np_enable) {
    const std::uint32_t ctrl = rd(dq::CTRL);
    const bool rp = c.rp_enable.value_or(dq::CTRL_RP_ENABLE.get(ctrl) != 0);
    const bool np = c.np_enable.value_or(dq::CTRL_NP_ENABLE.get(ctrl) != 0);
    wr(dq::CTRL, dq::CTRL_RP_ENABLE.put(rp ? 1 : 0) | dq::CTRL_NP_ENABLE.put(np ? 1 : 0));
  }
  if (c.cnp_prio) {
    wr(dq::NP_CFG, dq::NP_CFG_CNP_PRIO.put(*c.cnp_prio));
  }
  if (c.cnp_interval) {
    wr(dq::CNP_INTERVAL, *c.cnp_interval);
  }
  if (c.g_shift) {
    wr(dq::ALPHA_CFG, dq::ALPHA_CFG_G_SHIFT.put(*c.g_shift));
  }
  if (c.alpha_timer) {
    wr(dq::ALPHA_TIMER, *c.alpha_timer);
  }
  if (c.rate_timer) {
    wr(dq::RATE_TIMER, *c.rate_timer);
  }
  if (c.byte_counter) {
    wr(dq::BYTE_COUNTER, *c.byte_counter);
  }
  if (c.stages) {
    wr(dq::RATE_STAGES, dq::RATE_STAGES_F.put(*c.stages));
  }
  if (c.rate_ai) {
    wr(dq::RATE_AI, dq::RATE_AI_RATE.put(*c.rate_ai));
  }
  if (c.rate_hai) {
    wr(dq::RATE_HAI, dq::RATE_HAI_RATE.put(*c.rate_hai));
  }
  if (c.rate_min) {
    wr(dq::RATE_MIN, dq::RATE_MIN_RATE.put(*c.rate_min));
  }
}

void DataFlows::start(unsigned index, const FlowSpec& s) {
  check_index(index, "start");
  check_range("payload_flits", s.payload_flits, 1, fmt::kDataMaxPayloadFlits);
  check_range("packets", s.packets, 1, 0xFFFFFFFFU);
  check_range("prio", s.prio, 0, fmt::kNumPrio - 1);
  check_range("flow_label", s.flow_label, 0, dq::FLOW_LABEL_LABEL.mask);
  if (s.dst_lid == fmt::kLidNone || s.dst_lid >= fmt::kMlidBase || s.dst_lid == node_lid_) {
    throw std::invalid_argument("DataFlows::start: flow " + std::to_string(index) + " dst_lid " +
                                hw::hex16(s.dst_lid) + " is not another node's unicast LID");
  }
  if (((running() >> index) & 1U) != 0) {
    throw std::logic_error("DataFlows::start: flow " + std::to_string(index) + " is running");
  }
  wr(dq::FLOW_DST, dq::FLOW_DST_LID.put(s.dst_lid));
  wr(dq::FLOW_CFG, dq::FLOW_CFG_PAYLOAD_FLITS.put(s.payload_flits) | dq::FLOW_CFG_PRIO.put(s.prio) |
                       dq::FLOW_CFG_ECT.put(s.ect ? 1 : 0));
  wr(dq::FLOW_LABEL, dq::FLOW_LABEL_LABEL.put(s.flow_label));
  wr(dq::FLOW_COUNT, s.packets);
  wr(dq::FLOW_CTRL, dq::FLOW_CTRL_INDEX.put(index) | dq::FLOW_CTRL_START.put(1));
  const FlowStatus st = status(index);
  if (st.state == fmt::FlowState::kError) {
    throw FlowError("DataFlows::start: the device refused flow " + std::to_string(index) +
                        " (dst_lid " + hw::hex16(s.dst_lid) + ", flow_label " +
                        std::to_string(s.flow_label) + "): " + std::string(fmt::to_string(st.err)),
                    st.err);
  }
}

void DataFlows::stop(unsigned index) {
  check_index(index, "stop");
  wr(dq::FLOW_CTRL, dq::FLOW_CTRL_INDEX.put(index) | dq::FLOW_CTRL_STOP.put(1));
}

FlowStatus DataFlows::status(unsigned index) {
  check_index(index, "status");
  wr(dq::FLOW_SEL, dq::FLOW_SEL_INDEX.put(index));
  const std::uint32_t st = rd(dq::FLOW_STATUS);
  FlowStatus out;
  out.state = static_cast<fmt::FlowState>(dq::FLOW_STATUS_STATE.get(st));
  out.err = static_cast<fmt::FlowErr>(dq::FLOW_STATUS_ERR.get(st));
  out.sent = rd(dq::FLOW_SENT);
  out.rate = dq::FLOW_RATE_RC.get(rd(dq::FLOW_RATE));
  out.target = dq::FLOW_TARGET_RT.get(rd(dq::FLOW_TARGET));
  out.alpha = dq::FLOW_ALPHA_ALPHA.get(rd(dq::FLOW_ALPHA));
  out.cnps = rd(dq::FLOW_CNP);
  return out;
}

std::uint32_t DataFlows::running() { return dq::FLOW_SUMMARY_RUNNING.get(rd(dq::FLOW_SUMMARY)); }

FlowStatus DataFlows::wait(unsigned index, std::chrono::nanoseconds timeout,
                           std::chrono::nanoseconds poll) {
  FlowStatus st = status(index);
  for (auto left = timeout; st.state == fmt::FlowState::kRunning && left > left.zero();
       left -= poll) {
    (void)dev_->wait_interrupt(poll);
    st = status(index);
  }
  return st;
}

std::uint32_t DataFlows::counter(hw::dcqcn::Counter c) {
  return dev_->read32(dq::kBase + dq::kCounterOffsets[static_cast<unsigned>(c)]);
}

void DataFlows::clear_counters() {
  const std::uint32_t ctrl = rd(dq::CTRL);
  wr(dq::CTRL,
     (ctrl & (dq::CTRL_RP_ENABLE.mask | dq::CTRL_NP_ENABLE.mask)) | dq::CTRL_CNT_CLEAR.put(1));
}

}  // namespace syncfab::driver

// The parts of the fabric that only its own .cpp files see: the node
// records and the engine's per-link state (switch_fabric.hpp).
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "switch_fabric.hpp"
#include "switch_probe.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/model/switch_csr_model.hpp"

namespace syncfab::tb::swfab {

struct WireFlit {
  std::uint64_t arrive = 0;  // fabric cycle it is offered at the far end
  Flit data{};
  bool last = false;
  bool is_data = false;  // part of a data packet (not a PFC frame)
};

// One direction of a link as the engine runs it.
struct LinkDir {
  std::deque<WireFlit> wire;
  bool in_packet = false;  // a packet or frame is entering
  bool dropping = false;   // ... and is discarded (it started while the link was down)
  std::vector<Flit> cur;   // its flits so far (headers and PFC frames are decoded at last)
};

struct SwitchRx {
  Flit data{};
  bool last = false;
  bool is_data = false;
};

// The switch's register block as the golden model's CSR block, kept in
// step with every write the RTL gets (TeeDevice), so that a driver can be
// run against it in zero simulated time; `record` collects the writes of a
// staged programming pass, replayed later on the RTL's APB.
class ShadowCsr final : public hw::Device {
 public:
  ShadowCsr() : csr_(model::SwitchCsrParams{kPorts, kBufCells, kLftEntries, kMftEntries}) {}
  std::uint32_t read32(std::uint32_t offset) override { return csr_.read32(offset); }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    csr_.write32(offset, value);
    if (recording_) {
      writes_.emplace_back(offset, value);
    }
  }
  hw::DmaMemory& dma() override { return csr_.dma(); }
  bool wait_interrupt(std::chrono::nanoseconds timeout) override {
    return csr_.wait_interrupt(timeout);
  }
  // A write the RTL got outside a staged pass.
  void mirror(std::uint32_t offset, std::uint32_t value) { csr_.write32(offset, value); }
  void start_recording() {
    recording_ = true;
    writes_.clear();
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stop_recording() {
    recording_ = false;
    return std::exchange(writes_, {});
  }

 private:
  model::SwitchCsrModel csr_;
  bool recording_ = false;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> writes_;
};

// What the RTL-side driver talks to: the RtlDevice, every write also
// mirrored into the shadow.
class TeeDevice final : public hw::Device {
 public:
  TeeDevice(driver::RtlDevice& rtl, ShadowCsr& shadow) : rtl_(rtl), shadow_(shadow) {}
  std::uint32_t read32(std::uint32_t offset) override { return rtl_.read32(offset); }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    rtl_.write32(offset, value);
    shadow_.mirror(offset, value);
  }
  hw::DmaMemory& dma() override { return rtl_.dma(); }
  bool wait_interrupt(std::chrono::nanoseconds timeout) override {
    return rtl_.wait_interrupt(timeout);
  }

 private:
  driver::RtlDevice& rtl_;
  ShadowCsr& shadow_;
};

struct Fabric::SwitchNode {
  SwitchNode(TestContext& ctx, const std::string& n);
  std::string name;
  Vswitch_top& dut;
  Clock& clk;
  ApbMaster apb;
  hw::HostMemory memory;
  driver::RtlDevice dev;
  ShadowCsr shadow;
  TeeDevice tee;
  std::unique_ptr<driver::Switch> drv;         // on the RTL (tee)
  std::unique_ptr<driver::Switch> shadow_drv;  // on the shadow
  std::array<PortProbe, kPorts> probe{};
  std::array<std::optional<unsigned>, kPorts> link{};
  std::array<std::deque<SwitchRx>, kPorts> rx_fifo{};
  std::array<std::array<PortPrioTrace, fmt::kNumPrio>, kPorts> trace{};
  std::array<std::uint8_t, kPorts> last_xoff{};
  std::array<std::uint8_t, kPorts> last_stop{};
  std::array<std::uint16_t, kPorts> wd{};
  std::array<std::uint16_t, kPorts> free{};
};

struct Fabric::HostNode {
  std::string name;
  std::uint16_t lid = 0;
  std::optional<unsigned> link;
  std::vector<unsigned> flows;
  std::vector<unsigned> storms;  // PFC storms (PfcStormSpec) this host sends
  std::size_t rr = 0;            // round robin over flows
  // The packet or PFC frame being sent.
  std::vector<Flit> cur;
  std::size_t pos = 0;
  std::optional<unsigned> cur_flow;
  std::optional<unsigned> cur_storm;
  std::array<std::uint64_t, fmt::kNumPrio> paused_until{};
  std::array<std::vector<Interval>, fmt::kNumPrio> paused;
  std::vector<Flit> rx_cur;
  std::uint64_t rx_first = 0;
  std::vector<RxPacket> received;
};

struct FlowRun {
  std::uint64_t issued = 0;  // packets started
};

struct Fabric::Impl {
  explicit Impl(Fabric& f) : fab(f) {}
  Task<> run();
  void cycle_inputs(std::uint64_t now);
  void cycle_outputs(std::uint64_t now);
  void enter(unsigned link, bool from_a, const Flit& f, bool last, std::uint64_t now);
  void deliver(std::uint64_t now);
  void host_send(HostNode& h, unsigned index, std::uint64_t now);
  void host_receive(HostNode& h, unsigned index, const Flit& f, bool last, std::uint64_t now);
  void sample(SwitchNode& s, std::uint64_t now);
  [[nodiscard]] bool flow_done(unsigned id, std::uint64_t now) const;
  [[nodiscard]] bool storm_done(unsigned id, std::uint64_t now) const;
  // Starts a due PFC frame of one of h's storms; false if none is due.
  bool start_storm_frame(HostNode& h, std::uint64_t now);
  [[nodiscard]] bool idle(std::uint64_t now) const;
  [[nodiscard]] std::vector<Flit> make_packet(unsigned flow_id, std::uint64_t seq) const;

  Fabric& fab;
  std::vector<LinkDir> ab;  // per link
  std::vector<LinkDir> ba;
  std::vector<FlowRun> flow_run;
  std::vector<std::function<void(std::uint64_t)>> hooks;
  unsigned cpq = 8;
  bool started = false;
  std::uint64_t start_cycle = 0;
  std::uint64_t last_data_move = 0;
  std::uint64_t sampled = 0;  // last cycle the engine ran
  std::chrono::steady_clock::time_point wall0;
  TaskHandle engine;
};

}  // namespace syncfab::tb::swfab

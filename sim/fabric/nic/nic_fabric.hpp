// N verilated nic_top instances joined by a 3D torus (dimension-order
// routing, a fixed per-hop latency in cycles, one header per cycle on each
// directed link) — the fabric of docs/nic/verification.md "Verilated fabric". Every
// node has its own clock, memory BFM, RtlDevice and unchanged driver (Nic).
// The links carry the NICs' one-flit packets; on request they also send PFC
// frames toward the NICs (PauseSpec), otherwise none.
#pragma once

#include <Vnic_top.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nic_top_bench.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/model/torus.hpp"

namespace syncfab::tb::fabric {

// The node's LID (never kLidNone = 0), as in the golden model's fabric.
inline std::uint16_t lid_of(unsigned node) { return static_cast<std::uint16_t>(node + 1); }

// PFC frames the links send toward the NICs while a scenario runs
// (Scenario::pauses), drawn per node from their own generator: a node that
// is not paused, and has been free of pauses for at least the longest pause,
// gets with probability `rate` per cycle a frame that pauses NET_CFG.TC (with
// other priorities now and then) for 1 .. max_quanta quanta, or with
// probability `other_prio` one that names only other priorities; a node
// that is paused gets, with probability `rate` per cycle and `resume`, a
// resume that ends the pause at once. So a packet waits for at most one
// pause, and no node is paused more than half the time. The NICs' PFC_CFG
// is at its reset (every priority honoured, kCpqReset cycles per quantum).
struct PauseSpec {
  double rate = 1.0 / 200;
  unsigned max_quanta = 16;
  double resume = 0.25;
  double other_prio = 0.25;
  std::uint64_t seed = 1;
  [[nodiscard]] std::uint64_t max_pause() const {
    return std::uint64_t{max_quanta} * nic_top::kCpqReset;
  }
};

// What the links did to one NIC's transmit: the CSR counters it must match.
struct PfcCounts {
  std::uint64_t frames = 0;         // PFC frames it took (CNT_PFC_RX: all are well formed)
  std::uint64_t pauses = 0;         // of which pauses of NET_CFG.TC (CNT_PAUSE_RX)
  std::uint64_t paused_cycles = 0;  // cycles its transmit was paused
};

struct NetStats {
  std::uint64_t notifies = 0;
  std::uint64_t acks = 0;
  std::uint64_t nacks = 0;
  std::uint64_t max_rx_queue = 0;     // deepest inbound queue seen at a NIC
  std::uint64_t rx_stall_cycles = 0;  // a due header waited for rx_ready
};

// The torus between the NICs' tx and rx pins.
class Network {
 public:
  Network(const model::Torus3D& torus, unsigned hop_latency, std::vector<Vnic_top*> duts,
          Clock& clk)
      : torus_(torus),
        hop_(hop_latency),
        duts_(std::move(duts)),
        clk_(clk),
        inbound_(duts_.size()),
        busy_(duts_.size(), false),
        rx_pfc_(duts_.size(), false),
        nodes_pfc_(duts_.size()),
        pfc_counts_(duts_.size()) {}
  Task<> run();
  [[nodiscard]] const NetStats& stats() const { return stats_; }
  // PFC frames toward the NICs from the next cycle on, until stop_pauses().
  void start_pauses(const PauseSpec& spec);
  // No new frame from now on; a pause in force runs out within max_pause().
  void stop_pauses() { pauses_on_ = false; }
  // The longest pause of the frames sent so far (0: none were).
  [[nodiscard]] std::uint64_t max_pause() const { return pauses_used_ ? spec_.max_pause() : 0; }
  [[nodiscard]] const std::vector<PfcCounts>& pfc_counts() const { return pfc_counts_; }
  // Starts a new measurement of the deepest inbound queue.
  void reset_peak() { stats_.max_rx_queue = 0; }
  [[nodiscard]] bool idle() const;
  // Largest one-way latency of an uncontended packet.
  [[nodiscard]] std::uint64_t max_latency() const {
    return std::uint64_t{torus_.diameter()} * hop_;
  }

 private:
  // Departure from `a` at `cycle`: reserves every link of the route and
  // returns the arrival cycle at `b`.
  std::uint64_t route(unsigned a, unsigned b, std::uint64_t cycle);
  // The link's PFC state toward one NIC.
  struct NodePfc {
    nic_top::Packet frame;          // the frame being sent (empty: none)
    std::size_t next = 0;           // its flit shown now / next
    fmt::PfcFrame fields;           // its fields
    std::uint64_t paused_from = 1;  // the NIC's transmit is paused in cycles
    std::uint64_t paused_to = 0;    // paused_from .. paused_to
    std::uint64_t quiet_until = 0;  // no new pause before this cycle
  };
  // A frame for node i, if one is due this cycle.
  void draw_pause(unsigned i, std::uint64_t now);
  // Node i took the frame's last flit at `now`.
  void pause_taken(unsigned i, std::uint64_t now);

  const model::Torus3D& torus_;
  unsigned hop_;
  std::vector<Vnic_top*> duts_;
  Clock& clk_;
  std::vector<std::multimap<std::uint64_t, fmt::PktHdr>> inbound_;  // per node, by due cycle
  std::vector<bool> busy_;                                          // rx_valid shown
  std::vector<bool> rx_pfc_;                                        // ... a PFC frame's flit
  std::vector<NodePfc> nodes_pfc_;
  std::vector<PfcCounts> pfc_counts_;
  bool pauses_on_ = false;
  bool pauses_used_ = false;
  PauseSpec spec_;
  std::mt19937_64 pause_rng_;
  // Per directed link, the cycles a header departs on it (a calendar, not a
  // "free from" time: a header routed later may still use a cycle before
  // one reserved further ahead by an earlier header).
  std::map<std::pair<unsigned, unsigned>, std::set<std::uint64_t>> link_busy_;
  NetStats stats_;
};

// The device a node's driver talks to: its RtlDevice, except that while
// held, the doorbell writes that end a submission (HDQ_POST, SDQ_PROD) are
// kept instead of sent. The drivers are synchronous and share one simulated
// timeline, so without this the posts of p nodes land one after another;
// Fabric::release_doorbells() sends every node's kept doorbells from the same
// clock edge, so that all posts of a barrier land in one cycle.
class DoorbellGate final : public hw::Device {
 public:
  DoorbellGate(driver::RtlDevice& dev, ApbMaster& apb) : dev_(dev), apb_(apb) {}
  std::uint32_t read32(std::uint32_t offset) override;
  void write32(std::uint32_t offset, std::uint32_t value) override;
  hw::DmaMemory& dma() override { return dev_.dma(); }
  // Waiting while doorbells are held could only time out (the NIC has not
  // seen the posts): a test error, e.g. a full queue during a common start.
  bool wait_interrupt(std::chrono::nanoseconds timeout) override;
  void hold() { holding_ = true; }
  [[nodiscard]] bool holding() const { return holding_; }
  [[nodiscard]] std::size_t held() const { return held_.size(); }
  // Sends the kept writes in order on this node's APB, then stops holding.
  Task<> release();

 private:
  driver::RtlDevice& dev_;
  ApbMaster& apb_;
  bool holding_ = false;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> held_;  // offset, value
};

struct Node {
  // The DUT and its clock are named "nic<index>" / "clk<index>" in the FST.
  Node(TestContext& ctx, unsigned index, const nic_top::Knobs& knobs);
  // The DUT named `name`, its clock "clk_<name>".
  Node(TestContext& ctx, const std::string& name, const nic_top::Knobs& knobs);
  // Reset asserted, APB idle, every other input at its idle value.
  void hold_in_reset();
  // After reset, the memory BFM running: NODE_LID = lid (the system software
  // assigns LIDs), the driver on `gate`, the CQ watched for completion writes.
  void open(std::uint16_t lid, const driver::NicOptions& opts);
  Vnic_top& dut;
  Clock& clk;
  ApbMaster apb;
  hw::HostMemory memory;
  nic_top::MemoryBfm mem;
  driver::RtlDevice dev;
  DoorbellGate gate;  // the driver's device (dev, doorbells held on request)
  std::unique_ptr<driver::Nic> nic;

 private:
  Node(TestContext& ctx, const std::string& name, const std::string& clock,
       const nic_top::Knobs& knobs);
};

// Clock, reset, every node's driver.
class Fabric {
 public:
  Fabric(TestContext& ctx, unsigned x, unsigned y, unsigned z, unsigned hop_latency);
  // Closes every Nic while every BFM still lives (closing runs the
  // simulation), then stops the BFMs that refer to the nodes.
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;
  Fabric(Fabric&&) = delete;
  Fabric& operator=(Fabric&&) = delete;
  Task<> reset();
  // After reset: BFMs and network up, NODE_LID set, a Nic on every node.
  void bring_up(const driver::NicOptions& opts);
  void idle_cycles(std::uint64_t n);
  // Every node's driver keeps its doorbell writes from now on (DoorbellGate).
  void hold_doorbells();
  // Sends every node's kept doorbells, all starting at the same clock edge;
  // returns that edge's cycle (the common post cycle).
  std::uint64_t release_doorbells();
  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(nodes_.size()); }
  [[nodiscard]] Node& node(unsigned i) { return *nodes_.at(i); }
  [[nodiscard]] Clock& clk() { return nodes_.front()->clk; }
  [[nodiscard]] Network& net() { return *net_; }
  [[nodiscard]] const model::Torus3D& torus() const { return torus_; }

 private:
  TestContext& ctx_;
  model::Torus3D torus_;
  nic_top::Knobs knobs_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unique_ptr<Network> net_;
  std::vector<TaskHandle> bfms_;
};

}  // namespace syncfab::tb::fabric

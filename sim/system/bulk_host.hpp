// A bulk-traffic host of the system fabric: an HCA that runs no barrier
// engine but sends and sinks DATA packets, the load barriers share the
// fabric with. It sends the switch fabric's flows (swfab::FlowSpec: a
// destination, a priority, a length, a count, a share of the link; flit 1
// names the packet, swfab::PacketId; the flow label is the spec's, or the
// host's index x 256 + the flow's) and honours the PFC frames it receives:
// a frame whose last flit it takes in cycle t pausing priority q for n
// quanta stops packets of q from starting in cycles t + 1 .. t + n x cycles
// per quantum (a packet already started completes; quanta 0 resumes at
// once), the NICs' rule (pause_check.hpp). It takes every flit offered, and
// counts what it receives by kind. It can also send one malformed packet: a
// DATA header whose len_flits differs from the flits that follow, which a
// switch must drop and count (DROP_BAD_PKT) at the port it arrives on.
//
// It also carries management datagrams (MGMT packets, docs/group-protocol.md)
// for software on the host -- the subnet-manager agent runs on one: queued
// ones go before any flow's next packet, received ones wait in an inbox.
//
// Like a golden-model node it has no verilated model: it owns a clock of the
// system's period and computes each cycle's outputs in settle().
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model_clock.hpp"
#include "node.hpp"
#include "switch_fabric.hpp"

namespace syncfab::tb::system {

class BulkHostPort final : public Port {
 public:
  void offer(const LinkFlit* flit) override;
  [[nodiscard]] bool taken() const override { return offered_.has_value(); }
  [[nodiscard]] std::optional<LinkFlit> sent() const override { return sending_; }

  [[nodiscard]] const std::optional<LinkFlit>& offered() const { return offered_; }
  void set_sending(std::optional<LinkFlit> f) { sending_ = f; }

 private:
  std::optional<LinkFlit> offered_;
  std::optional<LinkFlit> sending_;
};

// A malformed packet: a header (DATA unless `type` says otherwise) that says
// len_flits, followed by `flits` flits in all (header included); sent once
// the link is between packets at or after `at_cycle`.
struct MalformedSpec {
  std::uint16_t dst_lid = 0;
  unsigned prio = 0;
  unsigned len_flits = 0;  // the header's field
  unsigned flits = 1;      // what is sent, >= 1, != len_flits
  std::uint64_t at_cycle = 0;
  fmt::PktType type = fmt::PktType::kData;  // the header's type
};

struct BulkFlowState {
  swfab::FlowSpec spec;
  std::uint64_t issued = 0;  // packets started
  std::uint64_t sent = 0;    // packets whose last flit left
  bool stopped = false;      // stop_flows(): no packet starts any more
};

// What a host took from its link, by kind (link.hpp's PktKind).
struct BulkRxStats {
  std::uint64_t data = 0;        // DATA packets
  std::uint64_t data_flits = 0;  // their flits
  std::uint64_t pfc = 0;         // PFC frames
  std::uint64_t pauses = 0;      // of which paused some priority
  std::uint64_t mgmt = 0;        // MGMT packets of MGMT_FLITS flits (into the inbox)
  std::uint64_t other = 0;       // anything else (a barrier packet here is misrouted)
  std::uint64_t bad_len = 0;     // DATA packets whose flits differ from their len_flits
};

// The DATA packets received from one flow (flit 1's PacketId: the sending
// host's index and its flow); a flow's packets carry seq 0, 1, 2, ...
struct BulkRxFlow {
  std::uint64_t packets = 0;
  std::uint64_t flits = 0;     // header included
  std::uint64_t next_seq = 0;  // one past the highest seq received
  // Packets whose seq was not next_seq: one overtaken (a lower seq arriving
  // late) or one overtaking (a gap). Zero: the flow arrived in order, whole.
  std::uint64_t out_of_order = 0;
};
using BulkFlowKey = std::pair<std::uint32_t, std::uint32_t>;  // sending host, its flow

class BulkHost final : public Node {
 public:
  // `index` names the host in its packets' payload; `lid` is its src_lid.
  BulkHost(TestContext& ctx, const std::string& name, unsigned index, std::uint16_t lid);

  [[nodiscard]] unsigned port_count() const override { return 1; }
  [[nodiscard]] Port& port(unsigned p) override;
  [[nodiscard]] Clock& clk() override { return clock_.clk(); }
  void assert_reset() override {}
  void release_reset() override {}
  void settle(std::uint64_t cycle) override;

  [[nodiscard]] std::uint16_t lid() const { return lid_; }
  // The PFC quantum the host honours frames with (the switches' PfcTiming).
  void set_cycles_per_quantum(unsigned cpq);
  [[nodiscard]] unsigned cycles_per_quantum() const { return cpq_; }

  // A flow from the next cycle on (start_cycle and stop_cycle are fabric
  // cycles, SystemFabric::cycle()); throws std::invalid_argument naming the
  // host and the bad field. Returns the flow's index on this host.
  unsigned add_flow(const swfab::FlowSpec& spec);
  // No packet of any flow added so far starts from now on (one in progress
  // completes).
  void stop_flows();
  void inject_malformed(const MalformedSpec& spec);
  // A management datagram to `dst` on priority `prio`, sent before any
  // flow's next packet (FIFO among datagrams).
  void send_datagram(std::uint16_t dst, const fmt::MgmtMsg& msg, unsigned prio);
  // The oldest management datagram received (its src_lid and payload).
  std::optional<std::pair<std::uint16_t, fmt::MgmtMsg>> take_datagram();
  [[nodiscard]] std::uint64_t datagrams_sent() const { return mgmt_sent_; }

  [[nodiscard]] const std::vector<BulkFlowState>& flows() const { return flows_; }
  // Every flow done (count reached, stopped or past stop_cycle), nothing
  // being sent and no malformed packet waiting.
  [[nodiscard]] bool quiet(std::uint64_t cycle) const;
  [[nodiscard]] std::uint64_t data_sent() const;  // DATA packets sent, malformed included
  [[nodiscard]] std::uint64_t malformed_sent() const { return malformed_done_.size(); }
  // The cycle each malformed packet's last flit left, in order.
  [[nodiscard]] const std::vector<std::uint64_t>& malformed_cycles() const {
    return malformed_done_;
  }
  [[nodiscard]] const BulkRxStats& received() const { return rx_; }
  // Per sending flow, what arrived (DATA packets of at least 2 flits).
  [[nodiscard]] const std::map<BulkFlowKey, BulkRxFlow>& rx_flows() const { return rx_flows_; }
  // Per cycle, the priorities paused, summed (cycles x priorities).
  [[nodiscard]] std::uint64_t paused_cycles() const { return paused_cycles_; }

 private:
  [[nodiscard]] bool flow_done(const BulkFlowState& f, std::uint64_t now) const;
  void receive(const LinkFlit& f, std::uint64_t now);
  void start_packet(std::uint64_t now);

  ModelClock clock_;
  BulkHostPort port_;
  unsigned index_;
  std::uint16_t lid_;
  unsigned cpq_;
  std::vector<BulkFlowState> flows_;
  std::size_t rr_ = 0;
  std::vector<MalformedSpec> malformed_;  // waiting, in order
  std::vector<std::uint64_t> malformed_done_;
  std::vector<Flit> cur_;  // the packet being sent
  std::size_t pos_ = 0;
  std::optional<unsigned> cur_flow_;
  // Last cycle each priority is paused in (paused while now <= it).
  std::array<std::optional<std::uint64_t>, fmt::kNumPrio> paused_to_{};
  std::uint64_t paused_cycles_ = 0;
  std::vector<Flit> rx_cur_;
  BulkRxStats rx_;
  std::map<BulkFlowKey, BulkRxFlow> rx_flows_;
  struct Outgoing {
    std::uint16_t dst = 0;
    fmt::MgmtMsg msg;
    unsigned prio = 0;
  };
  std::deque<Outgoing> mgmt_out_;
  std::deque<std::pair<std::uint16_t, fmt::MgmtMsg>> mgmt_in_;
  std::uint64_t mgmt_sent_ = 0;
  bool cur_mgmt_ = false;
};

}  // namespace syncfab::tb::system

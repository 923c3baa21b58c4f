// A fabric of verilated 8-port switches (vl_switch_top8: switch_top at
// NumPorts 8, BufCells 256, LftEntries 1024, MftEntries 256) joined by
// full-duplex links of a fixed delay, with hosts that send flows and sink
// everything: the harness of the switch scenarios (docs/switch-scenarios.md).
//
// Every switch is its own Vswitch_top (made with ctx.make_dut, so the FST
// names it), clock (same period and phase for all), ApbMaster, RtlDevice and
// unchanged driver::Switch. One coroutine per fabric moves the flits every
// cycle: switch tx -> link -> FIFO at the far end -> switch rx (a flit is never
// lost at a receiving switch: when its rx_ready is low the flit waits in the
// FIFO and the peak depth is reported) or host. Hosts honour the PFC frames
// they receive; PFC frames between switches are real frames on the links.
//
// Usage (inside a SYNCFAB_TEST body; every call below is synchronous and
// advances simulated time where it says so):
//   Fabric f(ctx);
//   const unsigned s0 = f.add_switch("leaf0");
//   const unsigned h0 = f.add_host("h0", /*lid=*/1);
//   f.connect(host_end(h0), switch_end(s0, 0), /*delay=*/8);
//   f.start();                                    // reset, drivers, engine
//   f.program_all([](unsigned, driver::Switch& d) { d.set_lft(1, 0); d.enable(true); });
//   f.add_flow(h0, FlowSpec{.dst_lid = 2, .prio = 3, .len_flits = 8, .count = 100});
//   f.run_until_idle(100'000);
//   const auto snap = f.dump_counters(std::cout);
//   std::cout << f.write_counters_file(snap) << "\n";
#pragma once

#include <Vswitch_top.h>

#include <array>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "syncfab/driver/switch.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::swfab {

// The verilated shape (rtl/switch/CMakeLists.txt, vl_switch_top8).
inline constexpr unsigned kPorts = 8;
inline constexpr unsigned kBufCells = 256;
inline constexpr unsigned kLftEntries = 1024;
inline constexpr unsigned kMftEntries = 256;
inline constexpr SimTime kPeriod = 10'000;  // 10 ns: one fabric cycle
inline constexpr std::uint32_t kCsrWindow = 4096;

// One flit of the packet stream (FLIT_BITS); the verilated ports carry it as
// kFlitWords 32-bit words, byte i in bits 8*(i%4) of word i/4.
inline constexpr std::size_t kFlitBytes = fmt::kFlitBits / 8;
inline constexpr std::size_t kFlitWords = kFlitBytes / 4;
using Flit = std::array<std::uint8_t, kFlitBytes>;
static_assert(fmt::PktHdr::kSizeBytes == kFlitBytes, "the header is one flit");
inline constexpr std::uint8_t kPfcFrameFlits = fmt::PfcFrame::kSizeBytes / kFlitBytes;

// Reset asserted, rx idle, tx_ready high on every port (a link never
// refuses a flit); the APB master idles separately.
void hold_in_reset(Vswitch_top& dut);

// ------------------------------------------------------------- endpoints

enum class NodeKind : std::uint8_t { kSwitch, kHost };

// One end of a link: a switch port (0..kPorts-1) or a host (port 0).
struct End {
  NodeKind kind = NodeKind::kHost;
  unsigned node = 0;
  unsigned port = 0;
  friend bool operator==(const End&, const End&) = default;
};
inline End switch_end(unsigned sw, unsigned port) { return End{NodeKind::kSwitch, sw, port}; }
inline End host_end(unsigned host) { return End{NodeKind::kHost, host, 0}; }

// ------------------------------------------------------------- packets

// What a host puts in the first payload flit (flit 1), so that every copy
// that arrives anywhere names its packet: the sending host, the flow (ids
// are fabric-wide, in add_flow order) and the packet's number in its flow.
struct PacketId {
  std::uint32_t src_host = 0;
  std::uint32_t flow = 0;
  std::uint64_t seq = 0;
  friend bool operator==(const PacketId&, const PacketId&) = default;
  friend auto operator<=>(const PacketId&, const PacketId&) = default;
};
Flit encode_payload(const PacketId& id);
PacketId decode_payload(const Flit& flit);

// A stream of packets one host sends. Packets of a flow leave in seq order;
// a host takes, whenever its link is free, the flow that is due (its next
// packet's start cycle reached) and whose priority is not paused, round robin
// over such flows.
struct FlowSpec {
  std::uint16_t dst_lid = 0;  // unicast LID or MLID (>= 0xC000)
  unsigned prio = 0;
  unsigned len_flits = 8;   // header included; 2..255 (flit 1 carries the PacketId)
  std::uint64_t count = 0;  // packets; 0 = no limit (until stop_cycle or stop_flow)
  // Share of the host's link, (0, 1]: packet k may start at
  // start_cycle + k * len_flits / rate (1 = back to back).
  double rate = 1.0;
  std::uint64_t start_cycle = 0;                                         // fabric cycle (cycle())
  std::uint64_t stop_cycle = std::numeric_limits<std::uint64_t>::max();  // none starts at/after
  fmt::Ecn ecn = fmt::Ecn::kEct0;
  std::uint8_t dscp = 0;
  // The packets' flow label (20 bits, what a switch's ECMP hash reads); none:
  // the sender numbers its flows itself.
  std::optional<std::uint32_t> flow_label;
};

struct FlowState {
  FlowSpec spec;
  unsigned src_host = 0;
  std::uint64_t sent = 0;                    // packets whose last flit left the host
  std::optional<std::uint64_t> first_start;  // cycle of the first header
  std::optional<std::uint64_t> last_end;     // cycle of the last flit of the last packet
  bool stopped = false;
};

// PFC frames a host sends by itself (a faulty NIC that pauses its switch
// forever: the white paper's figure 12). Frame k is due at start_cycle +
// k * period_cycles; it goes out as soon as the host's link is between
// packets (a data packet in progress completes first, as the switch's
// pfc_tx does), and a frame missed entirely while the link was busy is not
// replayed. The frame is a real 2-flit fmt::PfcFrame with `quanta` on every
// class of `class_mask` (0 = resume), taken by the switch port's pfc_rx.
struct PfcStormSpec {
  std::uint8_t class_mask = 0;
  std::uint16_t quanta = 0;
  std::uint64_t period_cycles = 1;
  std::uint64_t start_cycle = 0;
  std::uint64_t stop_cycle = std::numeric_limits<std::uint64_t>::max();  // none starts at/after
  std::uint64_t count = 0;  // frames; 0 = no limit (until stop_cycle or stop_pfc_storm)
};

struct PfcStormState {
  PfcStormSpec spec;
  unsigned host = 0;
  std::uint64_t issued = 0;                // frames started
  std::uint64_t sent = 0;                  // frames whose last flit left the host
  std::optional<std::uint64_t> first_end;  // cycle of the first frame's last flit
  std::optional<std::uint64_t> last_end;   // ... of the last one
  bool stopped = false;
};

// A data packet as a host received it.
struct RxPacket {
  unsigned host = 0;  // receiving host
  PacketId id;
  std::uint16_t src_lid = 0;
  std::uint16_t dst_lid = 0;
  unsigned prio = 0;  // header prio on arrival (after any remap)
  fmt::Ecn ecn = fmt::Ecn::kNotEct;
  unsigned dscp = 0;
  unsigned len_flits = 0;         // header field
  unsigned flits = 0;             // flits received (== len_flits for a well-formed packet)
  std::uint64_t first_cycle = 0;  // header arrived
  std::uint64_t last_cycle = 0;   // last flit arrived
};

// ------------------------------------------------------------- links

// Traffic of one direction of a link (a -> b or b -> a), counted where it
// enters the link; `dropped_*` = sent while the link was down.
struct DirStats {
  std::uint64_t flits = 0;    // data and PFC flits that entered (including dropped)
  std::uint64_t packets = 0;  // data packets delivered (last flit entered, link up)
  std::array<std::uint64_t, fmt::kNumPrio> packets_by_prio{};  // by header prio
  std::map<std::uint16_t, std::uint64_t> packets_by_dst;       // by header dst_lid (LID or MLID)
  std::uint64_t data_flits = 0;                                // flits of delivered data packets
  std::uint64_t pause_frames = 0;   // PFC frames with a nonzero quanta for an enabled class
  std::uint64_t resume_frames = 0;  // PFC frames with only zero quanta
  std::uint64_t dropped_flits = 0;
  std::uint64_t dropped_packets = 0;  // data packets and frames discarded (link down)
  std::size_t peak_rx_fifo = 0;       // deepest FIFO at the receiving switch port (flits)
  std::uint64_t rx_stall_cycles = 0;  // a flit waited for the receiving switch's rx_ready
};

struct LinkInfo {
  End a;
  End b;
  unsigned delay = 1;  // cycles, flit entering at a to flit offered at b (and back)
  bool up = true;
  DirStats ab;  // a -> b
  DirStats ba;  // b -> a
};

// ------------------------------------------------------------- observations

// A switch's counters, [port][prio][kind] (kind = fmt::SwCounter).
using SwitchCounters =
    std::array<std::array<std::array<std::uint32_t, fmt::kSwCounterCount>, fmt::kNumPrio>, kPorts>;
struct CounterSnapshot {
  std::uint64_t cycle = 0;  // fabric cycle when the read started
  std::vector<SwitchCounters> sw;
  [[nodiscard]] std::uint32_t at(unsigned s, unsigned port, unsigned prio,
                                 fmt::SwCounter kind) const {
    return sw.at(s).at(port).at(prio).at(static_cast<unsigned>(kind));
  }
  // Sum over ports and/or priorities (nullopt = all).
  [[nodiscard]] std::uint64_t sum(unsigned s, fmt::SwCounter kind,
                                  std::optional<unsigned> port = std::nullopt,
                                  std::optional<unsigned> prio = std::nullopt) const;
  // Sum over every switch.
  [[nodiscard]] std::uint64_t total(fmt::SwCounter kind,
                                    std::optional<unsigned> prio = std::nullopt) const;
};

// [from, to) fabric cycles. An interval still running has `to` = the cycle
// the state was last sampled + 1 and `open` = true.
struct Interval {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  bool open = false;
};

// Per (switch, port, prio), sampled from the RTL every cycle (the verilated
// model's internal signals: pfc_rx's xoff_o and stop_o of the port's egress,
// the ingress occupancy occ_q and free count, the watchdog state_q).
struct PortPrioTrace {
  std::vector<Interval> xoff;  // the peer holds this egress queue paused (pfc_rx xoff_o)
  std::vector<Interval> stop;  // the queue is stopped (xoff and not ignored by the watchdog)
  std::uint32_t peak_occ = 0;  // most ingress cells of this arrival prio at this port
  std::uint64_t peak_occ_cycle = 0;
};

struct SpeedStats {
  std::uint64_t cycles = 0;  // fabric cycles simulated since start()
  double wall_s = 0.0;
  unsigned switches = 0;
  [[nodiscard]] double cycles_per_s() const {
    return wall_s > 0 ? static_cast<double>(cycles) / wall_s : 0.0;
  }
  [[nodiscard]] double switch_cycles_per_s() const { return cycles_per_s() * switches; }
};

// ------------------------------------------------------------- the fabric

class Fabric {
 public:
  explicit Fabric(TestContext& ctx);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;
  Fabric(Fabric&&) = delete;
  Fabric& operator=(Fabric&&) = delete;

  // --- topology (before start()) ---
  unsigned add_switch(const std::string& name);
  // `lid` is what the host writes as src_lid and what LFTs route to it.
  unsigned add_host(const std::string& name, std::uint16_t lid);
  // Joins two ends (each used once) with a full-duplex link; returns its id.
  // delay >= 1.
  unsigned connect(End a, End b, unsigned delay_cycles);

  // --- bring-up: reset every switch, a driver::Switch on each, the engine ---
  void start();

  // --- configuration (after start(); runs APB cycles while traffic flows) ---
  // The switch's driver on its RtlDevice (every call simulates its APB
  // transfers while the rest of the fabric runs).
  driver::Switch& driver(unsigned sw);
  void program(unsigned sw, const std::function<void(driver::Switch&)>& fn);
  // Staged programming of every switch at once: fn(sw, d) runs, switch by
  // switch, a driver on a register model of that switch (the golden model's
  // CSR block, SwitchCsrModel, kept in step with every write the switch ever
  // got, so the driver's reads and checks see what the RTL holds) in zero
  // simulated time; the writes it made are then sent to all switches' APB
  // buses in parallel. Same driver calls, same write sequence per switch,
  // N times fewer cycles than program() one switch after the other.
  // Configuration only: reads in fn return the model's view (no counters,
  // no hardware status). A refusal (std::invalid_argument) propagates and
  // nothing of that pass reaches the RTL.
  void program_all(const std::function<void(unsigned sw, driver::Switch&)>& fn);
  // Every switch (program_all): set_pfc_timing(timing), then on every
  // connected port configure_pfc(port, cfg, link_params(sw, port,
  // max_pkt_flits)). The
  // timing is also what hosts and pause bookkeeping use (cycles per quantum).
  void configure_pfc_all(const driver::PfcTiming& timing, const driver::PfcPortConfig& cfg,
                         unsigned max_pkt_flits);
  // The driver's view of the link on a switch port (its delay).
  [[nodiscard]] driver::LinkParams link_params(unsigned sw, unsigned port,
                                               unsigned max_pkt_flits) const;
  // Cycles per quantum hosts use to honour pauses (set by configure_pfc_all;
  // set it here when programming PFC timing by hand). Default 8.
  void set_cycles_per_quantum(unsigned cpq);
  void enable_all();

  // --- traffic ---
  unsigned add_flow(unsigned host, const FlowSpec& spec);  // returns the flow id
  void stop_flow(unsigned flow);  // no new packet starts (one in progress completes)
  [[nodiscard]] const FlowState& flow(unsigned id) const { return flows_.at(id); }
  [[nodiscard]] std::size_t flow_count() const { return flows_.size(); }
  [[nodiscard]] const std::vector<RxPacket>& received(unsigned host) const;
  // A host that emits PFC frames (PfcStormSpec); returns the storm's id.
  // While a storm has frames to send, run_until_idle does not return true.
  unsigned add_pfc_storm(unsigned host, const PfcStormSpec& spec);
  // One frame from `host` at (or, if its link is busy, right after) `at_cycle`.
  unsigned send_pfc(unsigned host, std::uint8_t class_mask, std::uint16_t quanta,
                    std::uint64_t at_cycle);
  void stop_pfc_storm(unsigned id);  // no new frame starts (one in progress completes)
  [[nodiscard]] const PfcStormState& pfc_storm(unsigned id) const { return storms_.at(id); }
  // Called once per cycle after the flits moved (sampling, events).
  void on_cycle(std::function<void(std::uint64_t cycle)> fn);

  // A broken link: while down, every packet or PFC frame whose first flit
  // enters it (either way) is discarded and counted (dropped_*), and flits
  // still on the wire are delivered. A packet that started while up is sent
  // whole, so the far end never sees a cut packet.
  void set_link_up(unsigned link, bool up);

  // --- time ---
  [[nodiscard]] std::uint64_t cycle() const;  // fabric cycles since start()
  void run_cycles(std::uint64_t n);
  // Runs until nothing is in flight: every flow done (count reached, stopped
  // or past stop_cycle), no flit on a link or in a receive FIFO, every
  // switch's ingress buffer empty (free cells == BufCells, sampled) and no
  // data flit moved for `quiet` cycles. False if `limit` cycles passed first.
  bool run_until_idle(std::uint64_t limit, std::uint64_t quiet = 200);

  // --- observation ---
  [[nodiscard]] unsigned switch_count() const { return static_cast<unsigned>(switches_.size()); }
  [[nodiscard]] unsigned host_count() const { return static_cast<unsigned>(hosts_.size()); }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }
  [[nodiscard]] const std::string& switch_name(unsigned sw) const;
  [[nodiscard]] const std::string& host_name(unsigned h) const;
  [[nodiscard]] std::uint16_t host_lid(unsigned h) const;
  [[nodiscard]] const LinkInfo& link(unsigned id) const { return links_.at(id); }
  [[nodiscard]] std::optional<unsigned> link_at(End e) const;
  // What `e` sent into its link / what came to `e` over it.
  [[nodiscard]] const DirStats& sent_by(End e) const;
  [[nodiscard]] const DirStats& sent_to(End e) const;
  [[nodiscard]] Vswitch_top& dut(unsigned sw);

  // RTL state per (switch, port, prio), sampled every cycle since start().
  [[nodiscard]] const PortPrioTrace& trace(unsigned sw, unsigned port, unsigned prio) const;
  // Start of the continuous pause (xoff) of that egress queue in force at the
  // last sampled cycle; nullopt when it is not paused.
  [[nodiscard]] std::optional<std::uint64_t> paused_since(unsigned sw, unsigned port,
                                                          unsigned prio) const;
  // Watchdog state of (switch, port, prio) at the last sampled cycle.
  [[nodiscard]] fmt::WdState wd_state(unsigned sw, unsigned port, unsigned prio) const;
  // Pause intervals a host honoured per priority (from the frames it got).
  [[nodiscard]] const std::vector<Interval>& host_paused(unsigned host, unsigned prio) const;

  // Every counter of every switch, read from the RTL's counter array (what
  // CNT_SEL/CNT_VALUE show) without simulating a cycle: 1024 counters per
  // switch over APB would cost ~5000 cycles of the whole fabric.
  CounterSnapshot read_counters();
  // Reads `per_switch` random nonzero counters and one random counter of
  // every switch through driver::Switch::counter (APB) and checks them
  // against `snap` (taken at the same, idle, moment).
  void check_counters_over_apb(const CounterSnapshot& snap, unsigned per_switch);
  // Every nonzero counter as a table: switch, port, prio, kind, value. The
  // overload without a snapshot reads one, checks it over APB
  // (check_counters_over_apb, 2 per switch), prints it and returns it.
  static void dump_counters(std::ostream& out, const CounterSnapshot& snap,
                            const std::vector<std::string>& switch_names);
  CounterSnapshot dump_counters(std::ostream& out);
  // <build>/scenarios/<suite.name>-seed<N>-counters.txt with dump_counters'
  // table; returns the path.
  [[nodiscard]] std::filesystem::path write_counters_file(const CounterSnapshot& snap) const;

  [[nodiscard]] SpeedStats speed() const;
  [[nodiscard]] TestContext& ctx() { return ctx_; }

  struct Impl;  // the per-cycle engine (switch_fabric_engine.cpp)

 private:
  TestContext& ctx_;
  std::unique_ptr<Impl> impl_;
  std::vector<FlowState> flows_;
  std::vector<PfcStormState> storms_;
  std::vector<LinkInfo> links_;
  struct SwitchNode;
  struct HostNode;
  std::vector<std::unique_ptr<SwitchNode>> switches_;
  std::vector<std::unique_ptr<HostNode>> hosts_;
  friend struct Impl;
};

}  // namespace syncfab::tb::swfab

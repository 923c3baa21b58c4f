// Transaction-level golden model of the whole switch (docs/switch-datapath.md):
// ingress header checks, LFT/MFT lookup, admission (LOSSY_LIMIT, free
// cells), a shared cell buffer per input with per-arrival-priority
// occupancy, VOQs per (input, output, queue), multicast stored once with a
// reference count, per-copy hook-flow remap and WRED/ECN, SP+WDRR per output
// with a round robin over inputs per (output, queue), one read port per
// input, the PFC blocks (pfc_tx, pfc_rx, pfc_watchdog) per port, and the
// combine unit of the switch-combined barrier (docs/group-barrier.md §5, ring mode §9) at
// the enqueue step.
//
// Cycle-stepped at packet granularity: receive() hands over a whole packet
// with the cycle (or cycles) its flits arrive; tick() runs one clock cycle.
// The leaf blocks are the cycle-exact leaf models (wred_ecn, sp_wdrr_sched,
// pfc_*); the datapath around them is not cycle-exact with the RTL, and the
// latencies the spec leaves open are parameters (SwitchModelParams), chosen
// as written in docs/switch-datapath.md "Golden model decisions".
//
// Configured only through its CSR block (csr(), an hw::Device), so the
// unchanged driver::Switch programs it as it programs the RTL; counters,
// interrupt causes and watchdog state go into that block.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/model/ecn_controller.hpp"
#include "syncfab/model/flit.hpp"
#include "syncfab/model/pfc_rx.hpp"
#include "syncfab/model/pfc_tx.hpp"
#include "syncfab/model/pfc_watchdog.hpp"
#include "syncfab/model/sp_wdrr_scheduler.hpp"
#include "syncfab/model/switch_csr_model.hpp"
#include "syncfab/model/switch_model_config.hpp"
#include "syncfab/model/wred_ecn.hpp"

namespace syncfab::model {

// Which rule of docs/group-barrier.md §9.3/§9.4 made a ring-mode emission:
// the checks of §9.6 differ per rule, and a query and an own share are the
// same packet.
enum class RingEmit : std::uint8_t {
  kForward,        // the received share's copy along its ring
  kResentRelease,  // COMB_RELEASE(E - 1) to a member that missed it
  kOwn,            // an own share for E
  kQuery,          // a query for E
  kAnswer,         // an own share for E - 1 answering a switch still there
  kRelease,        // the completion's COMB_RELEASE(E)
};

struct SwitchModelParams {
  SwitchCsrParams csr{};  // ports (<= hw::switch_regs::kMaxPorts), BUF_CELLS, table sizes
  // Cycles from the cycle a copy is enqueued (its packet's last flit's
  // cycle when the enqueue is free) to the first cycle the copy may be
  // chosen by its output (>= 1).
  unsigned fwd_latency = 1;
  // Cycles from the cycle a PFC frame's last flit arrives to the cycle
  // pfc_rx takes it (0: that same cycle).
  unsigned pfc_rx_latency = 0;
  // Idle cycles an output leaves after every packet or PFC frame it sent.
  unsigned egress_gap = 0;
  // Reset state of the wred_ecn LFSR(s) (non-zero).
  std::uint16_t wred_seed = 0xACE1;
  // false: one wred_ecn per output (its LFSR steps on that output's
  // enqueues); true: one for the whole switch, stepping once per copy in
  // the model's enqueue order (enqueue_per_cycle below).
  bool shared_wred = false;
  // Outputs that may start a copy in one cycle (0: every free output).
  unsigned starts_per_cycle = 0;
  // Copies the switch enqueues per cycle, all inputs together
  // (docs/switch-datapath.md "Enqueue", rate): inputs with a complete packet
  // served round robin, one packet's copies back to back in increasing
  // output order. 0: every packet's copies in the cycle its last flit
  // arrives, inputs ascending.
  unsigned enqueue_per_cycle = 0;
  // true: enqueue_per_cycle counts packets, each enqueued with all its
  // copies in one cycle (decided in increasing output order, as back to
  // back); false: it counts copies.
  bool enqueue_by_packet = false;
  // true: the copies of a one-flit packet may leave from its input in the
  // same cycle, one read of its cell serving every output that starts a
  // copy of it then (docs/switch-datapath.md "Egress", shared read); false:
  // the input's one read port serves one copy per cycle.
  bool shared_read = false;
};

// One copy as it left an output.
struct TxPacket {
  std::uint64_t pkt_id = 0;  // receive()'s id of the packet it is a copy of
  unsigned in_port = 0;
  unsigned queue = 0;       // egress priority q (= the header's prio)
  std::vector<Flit> flits;  // header as sent (prio, DSCP, ECN), then the payload
  std::uint64_t first_cycle = 0;
  std::uint64_t last_cycle = 0;

  [[nodiscard]] fmt::PktHdr header() const { return fmt::PktHdr(flits.at(0)); }
};

// One PFC frame as it left a port (pfc_tx of that port's ingress).
struct TxPfcFrame {
  std::uint64_t first_cycle = 0;
  std::uint8_t class_enable = 0;
  std::array<std::uint16_t, fmt::kNumPrio> quanta{};
  std::array<Flit, kPfcFrameFlits> flits{};
};

// A packet (ingress drop: port = input, prio = arrival priority) or a copy
// (DROP_WRED / DROP_WD: port = output, prio = egress queue) that was counted
// as dropped.
struct DropRecord {
  std::uint64_t pkt_id = 0;
  unsigned port = 0;
  unsigned prio = 0;
  fmt::SwCounter reason = fmt::SwCounter::kDropBadPkt;
  std::uint64_t cycle = 0;
};

class SwitchModel {
 public:
  explicit SwitchModel(const SwitchModelParams& params = {});

  SwitchModel(const SwitchModel&) = delete;
  SwitchModel& operator=(const SwitchModel&) = delete;

  // The CSR block: give it to driver::Switch.
  [[nodiscard]] SwitchCsrModel& csr() noexcept { return csr_; }
  [[nodiscard]] const SwitchModelParams& params() const noexcept { return params_; }
  [[nodiscard]] unsigned ports() const noexcept { return params_.csr.ports; }

  // A packet arriving at `port`, its flits back to back from `first_cycle`
  // (flit 0 = header; the last one carries `last`). Any flit count and any
  // header, malformed ones included. Returns the packet's id (arrival order
  // over all ports, from 0). std::invalid_argument if the packet is empty,
  // starts before the current cycle or overlaps the previous packet of that
  // port.
  std::uint64_t receive(unsigned port, std::span<const Flit> flits, std::uint64_t first_cycle);
  // The same with one arrival cycle per flit (strictly increasing: rx gaps).
  std::uint64_t receive_timed(unsigned port, std::span<const Flit> flits,
                              std::span<const std::uint64_t> cycles);

  // One clock cycle; run(n) is n of them.
  void tick();
  void run(std::uint64_t n);
  // Ticks until idle() or max_cycles have passed; returns idle().
  bool run_until_idle(std::uint64_t max_cycles);
  // No packet pending, arriving, buffered or leaving and no PFC frame pending.
  [[nodiscard]] bool idle() const;
  // The cycle the next tick() runs.
  [[nodiscard]] std::uint64_t cycle() const noexcept { return now_; }

  // Transmit backpressure: an output sends a flit in a cycle only when its
  // port is not stalled and the callback (if any) returns true.
  void set_tx_stalled(unsigned port, bool stalled);
  void set_tx_ready(std::function<bool(unsigned port, std::uint64_t cycle)> ready);

  [[nodiscard]] const std::vector<TxPacket>& transmitted(unsigned port) const {
    return tx_log_.at(port);
  }
  [[nodiscard]] const std::vector<TxPfcFrame>& pfc_sent(unsigned port) const {
    return pfc_log_.at(port);
  }
  [[nodiscard]] const std::vector<DropRecord>& drops() const noexcept { return drops_; }
  // Breaches of rules the spec makes test failures (a PFC frame taken with
  // CYC_PER_QUANTUM 0), one message each. Empty in a correct run. (A lossless
  // packet that does not fit is not one: it is DROP_BUF, the symptom of a
  // peer that did not honour our pauses.)
  [[nodiscard]] const std::vector<std::string>& violations() const noexcept { return violations_; }

  // State for tests and scoreboards.
  [[nodiscard]] std::uint32_t occupancy(unsigned port, unsigned prio) const {
    return in_.at(port).occ.at(prio);
  }
  [[nodiscard]] std::uint32_t buffer_used(unsigned port) const { return in_.at(port).used; }
  [[nodiscard]] std::uint32_t lossy_cells(unsigned port) const { return in_.at(port).lossy; }
  [[nodiscard]] std::uint32_t queue_cells(unsigned out, unsigned q) const {
    return out_.at(out).qlen.at(q);
  }
  [[nodiscard]] std::size_t voq_depth(unsigned in, unsigned out, unsigned q) const;
  [[nodiscard]] std::size_t stored_packets() const noexcept { return stored_.size(); }
  [[nodiscard]] const PfcTx& pfc_tx(unsigned port) const { return out_.at(port).pfc_tx; }
  [[nodiscard]] const PfcRx& pfc_rx(unsigned port) const { return out_.at(port).pfc_rx; }
  [[nodiscard]] const PfcWatchdog& watchdog(unsigned port) const { return out_.at(port).wd; }
  [[nodiscard]] const SpWdrrScheduler& scheduler(unsigned port) const {
    return out_.at(port).sched;
  }

  // Dynamic ECN thresholds (docs/switch-ecn-dynamic.md): the global
  // registers as a config (std::invalid_argument for a value the register
  // block refuses, nothing changed), taking effect from the next tick.
  // Writes the three registers through the CSR block, which the model reads
  // every cycle like the other registers.
  void set_ecn_dyn(const EcnDynConfig& cfg);
  [[nodiscard]] const EcnDynConfig& ecn_dyn() const noexcept { return ecn_dyn_; }
  [[nodiscard]] const EcnController& ecn_controller(unsigned port, unsigned q) const {
    return out_.at(port).ecn.at(q);
  }

  // Event trace ("cyc=120 DROP_NO_ROUTE port=1 prio=3 pkt=7 dst=0x0040"), in
  // the RDL's counter names plus ENQ / TX_START / PFC_FRAME_RX / VIOLATION /
  // COMBINE.
  void set_trace(std::function<void(std::string_view)> sink) { trace_ = std::move(sink); }

 private:
  struct Arrival {
    std::uint64_t id = 0;
    std::vector<Flit> flits;
    std::vector<std::uint64_t> cycles;
  };
  enum class RxMode : std::uint8_t { kStore, kDiscard, kPfc };
  // The packet an input is receiving.
  struct RxPacket {
    std::uint64_t id = 0;
    RxMode mode = RxMode::kDiscard;
    fmt::PktHdr hdr;
    unsigned prio = 0;
    bool lossy = false;
    std::uint32_t outputs = 0;  // output set (bit o)
    std::uint32_t count = 0;    // flits counted (stops at len_flits + 1)
    std::vector<Flit> flits;    // stored flits
    bool combine = false;       // COMB_ARRIVE/COMB_RELEASE/COMB_SHARE: the combine unit routes it
    bool held = false;  // ring mode: taken, more emissions pending (docs/group-barrier.md §9.4)
  };
  // A packet in an input buffer, shared by its copies.
  struct Stored {
    unsigned in = 0;
    unsigned prio = 0;
    bool lossy = false;
    unsigned refs = 0;
    std::vector<Flit> flits;
  };
  struct Copy {
    std::uint64_t id = 0;
    fmt::PktHdr hdr;  // as it will be sent
    unsigned len = 0;
    std::uint64_t ready_cycle = 0;
  };
  struct InPort {
    std::deque<Arrival> pending;
    std::uint64_t busy_until = 0;  // first cycle after the last accepted arrival
    bool active = false;
    std::size_t next_flit = 0;
    RxPacket rx;
    std::uint32_t used = 0;   // cells in use
    std::uint32_t lossy = 0;  // cells held by lossy packets
    std::array<std::uint32_t, fmt::kNumPrio> occ{};
    std::deque<RxPacket> complete;   // stored whole, waiting for the enqueue
    int streaming_to = -1;           // output reading this input's buffer, -1: none
    std::uint64_t read_free_at = 0;  // first cycle the read port may start a copy
    // The one-flit packet the read port read in cycle shared_at: other
    // outputs may take copies of it in that cycle (shared_read).
    std::uint64_t shared_id = 0;
    std::uint64_t shared_at = ~std::uint64_t{0};
  };
  struct PendingFrame {
    std::uint64_t cycle = 0;
    std::uint8_t class_enable = 0;
    std::array<std::uint16_t, fmt::kNumPrio> quanta{};
  };
  struct OutPort {
    explicit OutPort(const SwitchModelParams& p);
    WredEcn wred;
    SpWdrrScheduler sched;
    PfcTx pfc_tx;
    PfcRx pfc_rx;
    PfcWatchdog wd;
    std::array<EcnController, fmt::kNumPrio> ecn{};
    std::array<std::uint64_t, fmt::kNumPrio> ecn_enq{};  // this cycle's inputs per queue
    std::uint8_t ecn_pause = 0;                          // this cycle's PAUSE_RX per priority
    std::array<std::uint32_t, fmt::kNumPrio> qlen{};     // cells of copies waiting per queue
    std::array<unsigned, fmt::kNumPrio> rr{};            // last input served per queue
    std::deque<PendingFrame> rx_frames;                  // received PFC frames for pfc_rx
    // What the output is sending.
    enum class Busy : std::uint8_t { kIdle, kData, kPfc } busy = Busy::kIdle;
    bool discard = false;  // watchdog drop mode: read out and discarded
    Copy copy;
    unsigned queue = 0;
    unsigned in = 0;
    unsigned sent = 0;
    TxPacket log;
    TxPfcFrame frame;
    std::uint64_t free_at = 0;
  };

  void check_port(unsigned port, const char* what) const;
  void ingress(unsigned i);
  void rx_header(unsigned i, std::uint64_t id, const Flit& flit);
  void rx_flit(unsigned i, const Flit& flit);
  void rx_last(unsigned i, std::size_t arrived_flits);
  void enqueue_cycle();
  void enqueue_copy(unsigned o);
  // What the combine unit made of one engine take of a COMB packet.
  enum class CombineTake : std::uint8_t {
    kNone,    // no copy (absorbed, refused, or a retake with nothing pending): pop it
    kEmit,    // rx's header is the packet emitted, rx.outputs its ports; pop it
    kHold,    // the same, into a fresh cell of the input; the packet stays held
    kNoCell,  // the take would hold the packet and the input has no free cell:
              // nothing happened, the engine serves another input
  };
  // The combine unit (switch_combine.cpp) on a complete COMB_ARRIVE,
  // COMB_RELEASE or COMB_SHARE at the head of input i.
  CombineTake combine(unsigned i, RxPacket& rx);
  CombineTake combine_ring(unsigned i, RxPacket& rx, CombineEntry& ent);
  // The safety rules of docs/group-barrier.md §7/§9.6 on one ring-mode
  // emission, from the entry's state before it; `in` is the packet's header
  // on its first take (nullptr on a retake), `kind` which rule made `out`.
  // Throws std::logic_error.
  static void check_ring_emission(const CombineEntry& s, const fmt::PktHdr& out,
                                  std::uint32_t ports, const fmt::PktHdr* in, unsigned i,
                                  RingEmit kind, const std::string& what);
  void drop_combine(unsigned i, const RxPacket& rx, const std::string& why);
  void drop_ingress(unsigned i, fmt::SwCounter why, const std::string& detail);
  // The output mask of a unicast packet whose LFT entry names port group
  // `group` (docs/switch-ecmp.md section 2), 0 on a miss; counts GROUP_SKIPS.
  std::uint32_t group_output(unsigned i, const fmt::PktHdr& hdr, unsigned group);
  void free_cells(std::uint64_t id);
  void release_cells(unsigned i, unsigned prio, bool lossy, std::uint32_t cells);
  void pfc_cycle();
  // The dynamic-ECN controllers' clock edge (switch_model_ecn.cpp); `qlen`
  // holds every queue's length at the start of the cycle.
  void ecn_cycle(std::span<const std::array<std::uint32_t, fmt::kNumPrio>> qlen);
  static bool pfc_tx_quiet(const PfcTx& tx, const SwitchPortConfig& pc,
                           const std::array<std::uint32_t, fmt::kNumPrio>& occ);
  static bool wd_at_rest(const PfcWatchdog& wd);
  void egress(unsigned o, bool tx_ready);
  bool start(unsigned o);
  void finish_copy(unsigned o);
  void count(unsigned port, unsigned prio, fmt::SwCounter kind, std::uint32_t n = 1);
  void violation(const std::string& what);
  void trace(const std::string& what);
  [[nodiscard]] bool tx_ready(unsigned port) const;
  std::deque<Copy>& voq(unsigned i, unsigned o, unsigned q) {
    return voq_[(std::size_t{i} * ports() + o) * fmt::kNumPrio + q];
  }
  [[nodiscard]] const std::deque<Copy>& voq(unsigned i, unsigned o, unsigned q) const {
    return voq_[(std::size_t{i} * ports() + o) * fmt::kNumPrio + q];
  }

  SwitchModelParams params_;
  // ECN_DYN_K / ECN_DYN_STATE of one queue (the CSR block's read hook).
  [[nodiscard]] std::uint32_t ecn_status(unsigned port, unsigned q, bool state) const;
  SwitchCsrModel csr_;
  SwitchConfig cfg_;  // this cycle's CSR snapshot
  EcnDynConfig ecn_dyn_;
  std::uint32_t ecn_win_cnt_ = 0;  // win_cnt (docs/switch-ecn-dynamic.md §2)
  std::uint64_t now_ = 0;
  std::uint64_t next_id_ = 0;
  std::vector<InPort> in_;
  std::vector<OutPort> out_;
  std::vector<std::deque<Copy>> voq_;
  std::unordered_map<std::uint64_t, Stored> stored_;
  // The packet whose copies are being enqueued (the head of its input's
  // `complete`, or what a held combine packet emitted into a cell of its
  // own), the next output to look at, the input served last.
  struct Enqueuing {
    bool busy = false;
    unsigned in = 0;
    unsigned next_out = 0;
    std::uint64_t key = 0;      // its entry in stored_
    fmt::PktHdr hdr;            // its header
    std::uint32_t outputs = 0;  // its ports
    bool pop = true;            // the copies are the head's own: pop it when done
  } enq_;
  // Keys in stored_ of the cells a held combine packet's emissions take
  // (bit 63 set: never a receive() id); they are the TxPacket ids of those
  // emissions' copies.
  static constexpr std::uint64_t kEmissionKey = std::uint64_t{1} << 63;
  std::uint64_t next_emission_ = kEmissionKey;
  // Per-cycle PFC state the egress uses (registered / comb outputs).
  std::vector<std::uint64_t> stop_;
  std::vector<std::uint64_t> wd_drop_;
  std::vector<bool> stalled_;
  std::function<bool(unsigned, std::uint64_t)> ready_cb_;
  std::vector<std::vector<TxPacket>> tx_log_;
  std::vector<std::vector<TxPfcFrame>> pfc_log_;
  std::vector<DropRecord> drops_;
  std::vector<std::string> violations_;
  std::function<void(std::string_view)> trace_;
};

}  // namespace syncfab::model

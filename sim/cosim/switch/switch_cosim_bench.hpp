// Bench of the switch co-simulation (docs/switch-datapath.md, "What the
// co-simulation checks"): one configuration programmed through the unchanged
// driver::Switch on the verilated switch_top (RtlDevice over APB) and on the
// golden model (SwitchModel::csr()), one stimulus run through both.
//
// The RTL run is closed loop: per input a source with one queue per priority
// that honours the pause frames the switch sends it (stops starting packets
// of that priority after the link delay the driver was told, both ways), and
// random tx backpressure. Everything that crossed a port is logged with its
// cycle. The model run is open loop: it replays what the RTL took, each flit
// in the cycle the RTL took it (receive_timed), and the RTL's tx_ready
// pattern, so both see the same arrivals; only the timing inside the switch
// differs (the model's alignment parameters make it close).
//
// Parameters of the verilated model (rtl/switch/CMakeLists.txt): NumPorts 4,
// BufCells 128, LftEntries 64, MftEntries 16.
#pragma once

#include <Vswitch_top.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "syncfab/driver/switch.hpp"
#include "syncfab/model/switch_model.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::switch_cosim {

inline constexpr unsigned kPorts = 4;
inline constexpr unsigned kBufCells = 128;
inline constexpr unsigned kLftEntries = 64;
inline constexpr unsigned kMftEntries = 16;
inline constexpr SimTime kPeriod = 10'000;  // 10 ns
inline constexpr std::uint32_t kCsrWindow = 4096;

using Flit = model::Flit;

// The configuration both devices get, through driver::Switch.
struct Setup {
  std::vector<driver::LftEntry> lft;
  std::vector<std::pair<std::uint16_t, std::uint32_t>> mft;  // MLID, port mask
  // Port groups (docs/switch-ecmp.md), programmed before the LFT entries
  // that name them, and PORT_UP as traffic starts.
  std::vector<driver::PortGroupEntry> groups;
  std::uint32_t port_up = 0xFFFF'FFFFU;
  driver::PfcTiming timing{8, 64};
  driver::LinkParams link{4, 8};
  std::array<driver::PfcPortConfig, kPorts> pfc{};
  std::array<std::array<driver::WredQueue, fmt::kNumPrio>, kPorts> wred{};
  std::array<driver::SchedConfig, kPorts> sched{};
  driver::RemapConfig remap{};
  std::optional<driver::WatchdogConfig> wd;  // programmed only when set
  std::array<driver::WatchdogPort, kPorts> wd_port{};

  [[nodiscard]] bool lossless(unsigned port, unsigned prio) const {
    return pfc.at(port).at(prio).lossless;
  }
  [[nodiscard]] bool wred_on(unsigned port, unsigned q) const { return wred.at(port).at(q).enable; }
  // The watchdog can act on queue q of port o only where pfc_rx honours
  // pauses (PFC_EN): drop mode may discard its copies (DROP_WD); a limit
  // may DISABLE it, and then it is not lossless for WRED.
  [[nodiscard]] bool wd_on(unsigned o, unsigned q) const {
    return wd && (wd_port.at(o).enable_mask >> q & 1U) != 0 && lossless(o, q);
  }
  [[nodiscard]] bool wd_drops(unsigned o, unsigned q) const {
    return wd_on(o, q) && wd_port.at(o).drop_mode;
  }
  [[nodiscard]] bool wd_may_disable(unsigned o, unsigned q) const {
    return wd_on(o, q) && wd->limit != 0;
  }
};

// Programs `s` and sets CTRL.ENABLE.
void program(driver::Switch& sw, const Setup& s);

// One register access while traffic runs: on the RTL one APB access that
// starts at or after traffic cycle `cycle`, after the previous one; on the
// model the same access in the cycle the RTL's took effect (CsrDone::at),
// so both see the same register values in every cycle. Sources do not
// pause for it: what an access changes (the dynamic-ECN registers, WRED
// thresholds, CNT_SEL) is replayed at the same cycle on the model.
struct CsrOp {
  std::uint64_t cycle = 0;
  std::uint32_t offset = 0;
  std::uint32_t value = 0;  // written (a write)
  bool read = false;
};

// One packet or PFC frame a source sends. Data packets of one input leave
// in the order of the stimulus per priority; across priorities the source
// takes the oldest one whose priority is not paused. A frame (pfc = true)
// goes before any data packet once the cycle is reached.
struct StimPacket {
  unsigned in = 0;
  unsigned prio = 0;
  bool pfc = false;
  std::uint64_t not_before = 0;  // cycle (from the start of traffic) it may start
  std::vector<Flit> flits;
};

struct Stimulus {
  std::vector<StimPacket> pkts;
  double rx_gap = 0.0;    // probability of an idle rx cycle inside a packet
  double tx_stall = 0.0;  // probability of tx_ready low on a port in a cycle
  // CTRL.ENABLE = 0 from `first` to `second` (traffic cycles). No packet or
  // frame starts within kEnableQuiet cycles of either edge, so which side of
  // the write a header falls on does not depend on the APB timing.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> disabled;
  // PORT_UP written at a traffic cycle, with the same quiet time around it.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> port_up;
  // Register accesses while traffic runs (CsrOp), in this order.
  std::vector<CsrOp> csr;
  // Log the dynamic-ECN law's inputs and state every cycle of both runs
  // (RunLog::ecn).
  bool probe_ecn = false;
};
inline constexpr std::uint64_t kEnableQuiet = 24;

// One access as a run made it. `at`: a write's first cycle with the new
// value (the cycle after the APB access completed), a read's value is the
// register in cycle `at`. `error`: PSLVERR (RTL), hw::BusError (model).
struct CsrDone {
  std::size_t op = 0;  // index into Stimulus::csr
  std::uint64_t at = 0;
  std::uint32_t data = 0;
  bool error = false;
};

// The dynamic-ECN law of every (output, queue) in one cycle
// (docs/switch-ecn-dynamic.md): its inputs (qlen at the start of the cycle,
// the inputs whose copy reached WRED for the queue, a pause) and its state
// as WRED and the status registers use it (effective Kmin/Kmax/Pmax,
// shift, active inputs of the last window). The RTL's is read in ReadOnly,
// `paused` there being the window's pause so far including this cycle's
// (ecn_dyn's `paused`), with the window counter; the model's is taken
// before its tick, `paused` being the cycle's PAUSE_RX events, win_cnt 0.
struct EcnSample {
  std::array<std::array<std::uint16_t, fmt::kNumPrio>, kPorts> qlen{};
  std::array<std::array<std::uint16_t, fmt::kNumPrio>, kPorts> ke_min{};
  std::array<std::array<std::uint16_t, fmt::kNumPrio>, kPorts> ke_max{};
  std::array<std::array<std::uint8_t, fmt::kNumPrio>, kPorts> enq{};
  std::array<std::array<std::uint8_t, fmt::kNumPrio>, kPorts> pe{};
  std::array<std::array<std::uint8_t, fmt::kNumPrio>, kPorts> sh{};
  std::array<std::array<std::uint8_t, fmt::kNumPrio>, kPorts> act{};
  std::array<std::uint8_t, kPorts> paused{};  // bit q
  std::uint32_t win_cnt = 0;
};

// Reads one EcnSample from the verilated switch_top's flattened signals
// (the top's ke_min/ke_max/pe/ecn_sh/ecn_active/qlen_all, the engine's
// eng_* as probe_enqueue, ecn_dyn's per-queue `paused` and win_cnt_q); a
// rename in the RTL breaks the build here.
EcnSample probe_ecn(const Vswitch_top& dut);

// A packet as an input took it: the stimulus index and the cycle of each flit.
struct RxEntry {
  std::size_t pkt = 0;
  std::vector<std::uint64_t> cycles;
};

// One decision of the RTL's enqueue engine (switch_top: one packet per
// cycle with all its copies, one decision per copy; one LFSR for the
// switch), or of the model's enqueue. `qlen` is the (out, q) queue length the
// WRED decision used.
struct EnqEvent {
  std::uint64_t cycle = 0;
  unsigned in = 0;
  unsigned out = 0;
  unsigned q = 0;
  std::uint32_t qlen = 0;
  // The Kmin WRED used (the dynamic ECN law's effective one); marks and
  // drops only (the model's trace names it there).
  std::uint32_t kmin = 0;
  bool mark = false;
  bool drop = false;
};

// The engine's decisions in the current cycle (read in ReadOnly: the
// combinational values that the next edge acts on), one per copy of the
// packet it takes, in increasing output order (the order WRED decides them
// in), appended to `out`. The verilated model has no public ports for these:
// they are the flattened internal signals of switch_top (eng_active, eng_in,
// eng_mask, and per output eng_q, qlen, wred_mark, wred_drop); a rename in
// the RTL breaks the build here rather than the check.
void probe_enqueue(const Vswitch_top& dut, std::uint64_t cycle, std::vector<EnqEvent>& out);

// The model's enqueue decisions from its trace (ECN_MARK / DROP_WRED / ENQ
// lines; qlen before the copy), and its PAUSE_RX events.
class ModelEnqLog {
 public:
  void line(std::string_view l);
  std::vector<EnqEvent> events;
  struct Pause {
    std::uint64_t cycle = 0;
    unsigned port = 0;
    unsigned prio = 0;
  };
  std::vector<Pause> pauses;

 private:
  std::optional<EnqEvent> pending_;  // an ECN_MARK waiting for its ENQ
};

// A packet or frame as it left a port.
struct TxEntry {
  std::vector<Flit> flits;
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};

using Counters =
    std::array<std::array<std::array<std::uint32_t, fmt::kSwCounterCount>, fmt::kNumPrio>, kPorts>;

// What one run leaves for the scoreboard; cycles count from the start of
// traffic (the model's cycle 0).
struct RunLog {
  std::array<std::vector<RxEntry>, kPorts> rx;      // RTL: order taken per input
  std::array<std::vector<TxEntry>, kPorts> data;    // data copies per output
  std::array<std::vector<TxEntry>, kPorts> frames;  // PFC frames per port
  std::vector<std::uint8_t> ready;                  // RTL tx_ready per cycle (bit = port)
  std::vector<model::DropRecord> drops;             // model only (ids = stimulus indices)
  std::vector<std::string> violations;              // model only
  std::vector<EnqEvent> enq;                        // every enqueue decision
  // RTL: CTRL.ENABLE writes as applied (cycle after the APB write, value).
  std::vector<std::pair<std::uint64_t, bool>> enable_writes;
  // RTL: PORT_UP writes as applied (cycle after the APB write, value).
  std::vector<std::pair<std::uint64_t, std::uint32_t>> port_up_writes;
  std::vector<CsrDone> csr;    // Stimulus::csr as made (the model: at the RTL's cycles)
  std::vector<EcnSample> ecn;  // per traffic cycle, with Stimulus::probe_ecn
  Counters counters{};
  std::uint32_t group_skips = 0;
  std::uint64_t cycles = 0;  // traffic cycles until drained
  double wall_s = 0.0;
};

// The RTL run: reset, program, traffic until drained, every counter.
// Reset with every input idle and every output ready, the APB idle; returns
// after the first edge out of reset.
Task<> reset_switch(Vswitch_top& dut, ApbMaster& apb, Clock& clk);

Task<RunLog> run_rtl(TestContext& ctx, const Setup& setup, const Stimulus& stim);

// The model's timing knobs (SwitchModelParams) in the co-simulation, set to
// the RTL's where the model can follow it without ever being slower than
// the RTL: the model replays the RTL's arrivals open loop (the sources
// honoured the RTL's pauses), so a model slower anywhere overflows its own
// lossless headroom. docs/switch-datapath.md, "RTL and model timing in the
// co-simulation"; the test's --param fwd_latency / egress_gap / starts
// override them.
struct ModelTiming {
  // Last rx flit in cycle t -> first tx flit in t + 3 (pending FIFO, engine,
  // VOQ + match): the RTL's least latency over every co-sim copy.
  unsigned fwd_latency = 3;
  // The RTL sends copies and pause frames back to back (it matches in the
  // last flit's cycle), as the model does with 0. (egress_gap = 1 models an
  // output that idles one cycle before every copy.)
  unsigned egress_gap = 0;
  // The RTL accepts any number of outputs per cycle (one per input).
  unsigned starts_per_cycle = 0;
  // One packet enqueued per cycle for the switch, with all its copies
  // (docs/switch-datapath.md "Enqueue", rate; run_model sets the model's
  // enqueue_by_packet).
  unsigned enqueue_per_cycle = 1;
};

// The model run, replaying the RTL's rx cycles and tx_ready pattern;
// `trace_enq` keeps its enqueue decisions (RunLog::enq) from its trace.
RunLog run_model(const Setup& setup, const Stimulus& stim, const RunLog& rtl,
                 const ModelTiming& timing = {}, bool trace_enq = true);

// Bytes <-> the verilated 128-bit port (little-endian words).
Flit flit_of_words(const std::uint32_t* w);
void words_of_flit(const Flit& f, std::uint32_t* w);

}  // namespace syncfab::tb::switch_cosim

// Bench of nic_top (NumCtx=4, ReqDamqSlots=4, RespDamqSlots=2, HdqDepth=2):
// the unchanged driver on RtlDevice, a host memory served on the memory port
// with random latency, and a network BFM on the link's flit streams that
// plays every peer of the barriers this NIC takes part in and injects any
// other packet a test asks for (PFC frames, multi-flit packets). The peers
// (PeerWorld) deal in one-flit headers, the golden model's packets; the BFM
// converts at the pins. Expectations come from docs/barrier-protocol.md; the
// safety checks (§6 round gate, §7 completion rule) are evaluated over the
// recorded event cycles by verify().
#pragma once

#include <Vnic_top.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cq_write.hpp"
#include "syncfab/driver/barrier_schedule.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::nic_top {

inline constexpr SimTime kPeriod = 10'000;  // 10 ns
inline constexpr unsigned kNumCtx = 4;
// The NIC's CSR window: the barrier engine's block, then the data path's at
// DCQCN_CSR_BASE (docs/nic/dcqcn.md §1).
inline constexpr std::uint32_t kCsrWindow = 2 * fmt::kDcqcnCsrBase;
inline constexpr std::uint16_t kOwnLid = 0x0101;
inline constexpr hw::BusAddr kMemBase = 0x8000'0000;
inline constexpr std::size_t kMemBytes = std::size_t{64} * 1024;
// NET_CFG.TC and PFC_CFG.CYC_PER_QUANTUM at reset (rtl/nic/nic_csr.rdl).
inline constexpr unsigned kTcReset = 3;
inline constexpr unsigned kCpqReset = 8;

// One flit of the link (FLIT_BITS) as bytes, byte 0 first; the verilated
// ports carry it as 32-bit words, byte i in bits 8*(i%4) of word i/4. A
// packet is its flits; every packet the engine sends or takes is one flit,
// its header.
inline constexpr std::size_t kFlitBytes = fmt::kFlitBits / 8;
using Flit = std::array<std::uint8_t, kFlitBytes>;
using Packet = std::vector<Flit>;
static_assert(fmt::PktHdr::kSizeBytes == kFlitBytes, "the header is one flit");
static_assert(fmt::PfcFrame::kSizeBytes == 2 * kFlitBytes, "a PFC frame is two flits");

Flit flit_of(const fmt::PktHdr& h);
fmt::PktHdr hdr_of(const Flit& f);
// The two flits of a PFC frame.
Packet pfc_packet(const fmt::PfcFrame& f);
// A frame for the priorities in `classes`, each paused for `quanta` (0: resume).
fmt::PfcFrame pfc_frame(std::uint8_t classes, std::uint16_t quanta);
Flit read_flit(const VlWide<4>& w);
void drive_flit(VlWide<4>& w, const Flit& f);

struct Knobs {
  double tx_stall = 0.0;        // probability tx_ready is low in a cycle
  double mem_stall = 0.0;       // probability mem_req_ready is low in a cycle
  unsigned mem_latency = 1;     // memory response latency: 1 .. mem_latency cycles
  double nack = 0.0;            // probability a peer NACKs one of our NOTIFYs
  unsigned max_nacks = 3;       // NACKs per send at most
  unsigned resp_delay = 8;      // peer ACK/NACK after 1 .. resp_delay cycles
  unsigned peer_retry_min = 1;  // peer re-sends a NACKed NOTIFY after
  unsigned peer_retry = 30;     // peer_retry_min .. peer_retry cycles
  double rx_gap = 0.0;          // probability rx_valid is low inside a multi-flit packet
  double dup = 0.0;             // probability a peer sends an ACKed NOTIFY once more
                                // (its ACK lost): the NIC answers DUP or DROP, with an ACK
};

class MemoryBfm {
 public:
  MemoryBfm(Vnic_top& dut, Clock& clk, std::mt19937_64& rng, hw::HostMemory& mem,
            const Knobs& knobs)
      : dut_(dut), clk_(clk), rng_(rng), mem_(mem), knobs_(knobs) {}

  void watch_cq(hw::BusAddr base, unsigned entries) {
    cq_base_ = base;
    cq_entries_ = entries;
  }
  [[nodiscard]] const std::vector<CqWrite>& cq_writes() const { return cq_; }
  [[nodiscard]] std::uint64_t reads() const { return reads_; }
  [[nodiscard]] std::uint64_t writes() const { return writes_; }
  Task<> run();

 private:
  struct Pending {
    std::uint64_t due = 0;
    std::uint64_t data = 0;
    bool err = false;
  };
  Vnic_top& dut_;
  Clock& clk_;
  std::mt19937_64& rng_;
  hw::HostMemory& mem_;
  const Knobs& knobs_;
  std::deque<Pending> pend_;
  hw::BusAddr cq_base_ = 0;
  unsigned cq_entries_ = 0;
  std::vector<CqWrite> cq_;
  std::uint64_t reads_ = 0;
  std::uint64_t writes_ = 0;
};

// Expected traffic of one barrier (ctx, epoch) at this NIC.
struct BarrierExp {
  unsigned ctx = 0;
  std::uint16_t epoch = 0;
  std::vector<std::vector<std::uint16_t>> expect;  // per round: LIDs the NIC must hear
  std::vector<std::vector<std::uint16_t>> sends;   // per round: LIDs the NIC notifies
};

// Event tallies the CSR counters must equal at the end.
struct NetCounts {
  std::uint64_t notif_sent = 0;  // NOTIFYs the NIC sent
  std::uint64_t resends = 0;     // of which re-sends (after a NACK)
  std::uint64_t nacks_to_nic = 0;
  std::uint64_t acks_from_nic = 0;
  std::uint64_t nacks_from_nic = 0;
  std::uint64_t garbage = 0;   // headers that must be dropped without a response
  std::uint64_t dup_acks = 0;  // ACKs of NOTIFYs sent again after their ACK (Knobs::dup)
};

// Every peer of the barriers this NIC takes part in, independent of how
// packets reach the engine (pins of nic_top, or the golden model's
// receive()/transmit()). Every random decision (skew, ACK or NACK, delays) is
// a hash of the event's identity and a salt, so two worlds with the same salt
// make the same decisions whatever the engines' timing: the co-simulation
// feeds the RTL and the model the same transactions.
class PeerWorld {
 public:
  PeerWorld(std::function<std::uint64_t()> now, std::uint64_t salt, const Knobs& knobs)
      : now_(std::move(now)), salt_(salt), knobs_(knobs) {}

  // A barrier this NIC (rank `rank`) runs: the peers' NOTIFYs of round s are
  // injected from now + base + s * round_gap + [0, skew] cycles on.
  void expect(unsigned ctx, std::uint16_t epoch, const driver::BarrierSchedule& sched,
              const std::vector<std::uint16_t>& lids, unsigned skew, unsigned round_gap,
              unsigned base = 0);
  // Forgets a barrier that will never complete (soft reset): its exp and
  // every record of its packets (all answered by then, checked).
  void abandon(unsigned ctx, std::uint16_t epoch);
  // A header that must be dropped and counted CNT_DROP, never answered.
  void inject_garbage(const fmt::PktHdr& h, std::uint64_t delay);
  // Peer `lid` sends its NOTIFY of (ctx, epoch, round) once more, now +
  // delay, as if the NIC's ACK were lost (the same copy as Knobs::dup's, at a
  // time the test chooses); it is owed a second ACK.
  void send_again(unsigned ctx, std::uint16_t epoch, unsigned round, std::uint16_t lid,
                  std::uint64_t delay);
  // Flits from the link that are not a peer's header (a PFC frame, a
  // malformed one): shown from now + delay on, before a peer header due in
  // the same cycle, and never answered. The peers of both engines of a
  // co-simulation inject the same packets in the same order.
  void inject_packet(Packet p, std::uint64_t delay);
  // Peers never answer this many of our NOTIFYs with ACK: next `n` NOTIFYs
  // of (ctx) get a NACK (directed retry tests).
  void force_nacks(unsigned n) { forced_nacks_ = n; }

  // The next header due for the engine's rx at `now`, if any (it stays the
  // caller's until taken()).
  [[nodiscard]] bool has_due(std::uint64_t now) const {
    return !inject_.empty() && inject_.begin()->first <= now;
  }
  fmt::PktHdr pop_due();
  // The same for inject_packet()'s packets (checked before the headers).
  [[nodiscard]] bool has_due_packet(std::uint64_t now) const {
    return !packets_.empty() && packets_.begin()->first <= now;
  }
  Packet pop_due_packet();
  // The engine took `h` from rx / sent `h` on tx in cycle `cycle`.
  void taken(const fmt::PktHdr& h, std::uint64_t cycle);
  void transmitted(const fmt::PktHdr& h, std::uint64_t cycle);

  // Safety and bookkeeping over everything recorded, against the CQ writes.
  void verify(const std::vector<CqWrite>& cq) const;
  [[nodiscard]] const NetCounts& counts() const { return counts_; }
  [[nodiscard]] bool empty() const { return inject_.empty() && packets_.empty(); }
  [[nodiscard]] std::uint64_t last_accept_cycle(unsigned ctx, std::uint16_t epoch) const;

  using Key = std::tuple<unsigned, std::uint16_t, unsigned, std::uint16_t>;  // ctx epoch round lid
  // What the engine sent, for the co-simulation scoreboard: NOTIFY sends per
  // (ctx, epoch, round, dst), and the engine's responses per (key, NACK?).
  [[nodiscard]] const std::map<Key, unsigned>& notify_counts() const { return notify_counts_; }
  [[nodiscard]] const std::map<std::pair<Key, bool>, unsigned>& response_counts() const {
    return response_counts_;
  }

 private:
  struct SendRec {
    unsigned sent = 0;
    unsigned nacked = 0;
    bool outstanding = false;  // shown by the NIC, response not yet taken back
    bool acked = false;
    std::uint64_t ack_take = 0;
    std::vector<std::uint64_t> fired;
  };
  void push(const fmt::PktHdr& h, std::uint64_t due) { inject_.emplace(due, h); }
  [[nodiscard]] const BarrierExp* find(unsigned ctx, std::uint16_t epoch) const;
  // Deterministic draw in [lo, hi] / with probability p for an event.
  [[nodiscard]] std::uint64_t draw(std::uint64_t lo, std::uint64_t hi, std::uint64_t what,
                                   const Key& k, unsigned n) const;
  [[nodiscard]] bool draw_chance(double p, std::uint64_t what, const Key& k, unsigned n) const;

  std::function<std::uint64_t()> now_;
  std::uint64_t salt_;
  const Knobs& knobs_;
  std::multimap<std::uint64_t, fmt::PktHdr> inject_;
  std::multimap<std::uint64_t, Packet> packets_;
  std::map<Key, unsigned> notify_counts_;
  std::map<std::pair<Key, bool>, unsigned> response_counts_;
  std::map<Key, unsigned> peer_sends_;  // copies of each peer NOTIFY injected
  std::vector<BarrierExp> exps_;
  std::map<Key, std::deque<std::uint64_t>> taken_;  // peer NOTIFY copies awaiting a response
  std::deque<Key> resp_order_;                      // responses the NIC owes, in take order
  std::map<Key, std::uint64_t> accepted_;           // take cycle of the ACKed copy
  std::map<Key, SendRec> sends_;
  NetCounts counts_;
  std::map<Key, unsigned> dups_owed_;  // repeated NOTIFYs awaiting their (second) ACK
  unsigned forced_nacks_ = 0;
};

// The world on nic_top's link pins: the peers' headers (one flit each, last
// set) and the packets a test injects, in due order, one flit per cycle; what
// the engine sends, checked at the pins (one flit, last, prio = NET_CFG.TC,
// held unchanged until taken) and handed to the peers as headers.
class NetworkBfm {
 public:
  NetworkBfm(Vnic_top& dut, Clock& clk, std::mt19937_64& rng, PeerWorld& world, const Knobs& knobs)
      : dut_(dut), clk_(clk), rng_(rng), world_(world), knobs_(knobs) {}
  Task<> run();
  [[nodiscard]] bool idle() const { return world_.empty() && raw_.empty() && !rx_busy_; }

  // A packet of any flits (the last with rx_last_i) shown from `delay`
  // cycles on, before a peer header due in the same cycle; the peers never
  // see it. Returns its index into injected().
  std::size_t inject(Packet p, std::uint64_t delay);
  // Per injected packet: the cycle each flit was first shown, and the cycle
  // it was taken (0 until then).
  struct Injected {
    Packet flits;
    std::vector<std::uint64_t> shown;
    std::vector<std::uint64_t> taken;
    [[nodiscard]] bool done() const { return !taken.empty() && taken.size() == flits.size(); }
    [[nodiscard]] std::uint64_t last_taken() const { return taken.back(); }
  };
  [[nodiscard]] const Injected& injected(std::size_t i) const { return injected_.at(i); }

  // Every packet the engine sent: the cycle it was first shown on tx, the
  // cycle it was taken, its header.
  struct Sent {
    std::uint64_t shown = 0;
    std::uint64_t taken = 0;
    fmt::PktHdr hdr;
  };
  [[nodiscard]] const std::vector<Sent>& sent() const { return sent_; }
  // Every MGMT packet the engine sent (its header is also in sent()): the
  // cycle its header was first shown, the cycle its last flit was taken, and
  // its flits. The peers never see these.
  struct MgmtSent {
    std::uint64_t shown = 0;
    std::uint64_t last_taken = 0;
    Packet flits;
  };
  [[nodiscard]] const std::vector<MgmtSent>& mgmt_sent() const { return mgmt_sent_; }
  // The header shown on tx now and not taken yet, if any: (first shown, header).
  [[nodiscard]] const std::optional<Sent>& waiting() const { return tx_wait_; }
  // The priority every packet must carry (NET_CFG.TC as the test set it).
  void expect_tc(unsigned tc) { tc_ = tc; }
  // While set, tx_ready_i stays low (a header shown waits).
  void hold_tx(bool hold) { hold_tx_ = hold; }
  // A header shown is taken before it goes, except that a soft reset may
  // withdraw it (tests that soft-reset under tx backpressure allow that).
  void allow_withdraw(bool allow) { allow_withdraw_ = allow; }

 private:
  struct Cur {
    Packet flits;
    std::size_t next = 0;        // flit shown now / next
    std::size_t raw = SIZE_MAX;  // index into injected_, or SIZE_MAX: from the world
    bool peer = true;            // from the world: a peer header (else inject_packet())
    fmt::PktHdr hdr;             // the peer header
  };
  Vnic_top& dut_;
  Clock& clk_;
  std::mt19937_64& rng_;
  PeerWorld& world_;
  const Knobs& knobs_;
  std::multimap<std::uint64_t, std::size_t> raw_;  // due cycle -> injected_ index
  std::vector<Injected> injected_;
  bool rx_busy_ = false;
  bool rx_shown_ = false;  // rx_valid_i this cycle
  Cur rx_cur_;
  std::vector<Sent> sent_;
  std::optional<Sent> tx_wait_;  // the header shown and not taken
  bool flit_waiting_ = false;    // a flit (header or payload) shown and not taken
  std::uint64_t flit_shown_ = 0;
  Flit tx_wait_flit_{};
  Packet tx_pkt_;  // the MGMT packet leaving: the flits taken so far
  std::uint64_t tx_pkt_shown_ = 0;
  std::vector<MgmtSent> mgmt_sent_;
  unsigned tc_ = kTcReset;
  bool hold_tx_ = false;
  bool allow_withdraw_ = false;
};

fmt::PktHdr decode_hdr(const VlWide<4>& w);
void drive_hdr(VlWide<4>& w, const fmt::PktHdr& h);

// rst_ni low, every input of nic_top at its idle value, the APB bus idle.
void hold_in_reset(Vnic_top& dut, ApbMaster& apb);

// Clock, reset, APB, memory, network and the RtlDevice over them.
class Bench {
 public:
  // salt: seeds every decision of the peers (see PeerWorld).
  Bench(TestContext& ctx, Knobs knobs, std::uint64_t salt);
  Task<> reset();
  // Starts the BFMs (after reset).
  void start();
  // Sets NODE_LID (the driver does not know the register; the test is the
  // "system software" that assigns LIDs).
  void set_node_lid(std::uint16_t lid);
  // Sets NET_CFG.TC (engine disabled and idle) and tells the network BFM.
  void set_tc(unsigned tc);
  // After the Nic has programmed the rings: watch the CQ for completion writes.
  void watch_cq();
  [[nodiscard]] std::uint32_t csr(std::uint32_t offset) { return dev.read32(offset); }
  // Runs the simulation for n cycles from synchronous code.
  void idle_cycles(std::uint64_t n);

  TestContext& ctx;
  Knobs knobs;
  Vnic_top& dut;
  Clock& clk;
  ApbMaster apb;
  hw::HostMemory memory;
  MemoryBfm mem;
  PeerWorld world;
  NetworkBfm net;
  driver::RtlDevice dev;
};

// LIDs of p ranks (0x0200 + i), this NIC being rank `rank` with kOwnLid.
std::vector<std::uint16_t> rank_lids(std::uint32_t p, std::uint32_t rank);

// Driver options of a verilated NIC: small rings, the given NACK retry
// delay, no retry limit, the simulation's clock. The Bench form is the
// simulation's of that bench.
driver::NicOptions nic_options(Sim& sim, std::uint32_t retry_delay);
driver::NicOptions nic_options(Bench& b, std::uint32_t retry_delay = 16);

}  // namespace syncfab::tb::nic_top

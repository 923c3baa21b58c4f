// Golden model of one NIC's barrier engine: descriptor queues (HDQ by PIO,
// SDQ ring by DMA), the OF dispatcher, TE, SE, the request DAMQ with ACK/NACK,
// response matching with NACK retry, the completion unit (completion write,
// completion-queue entry, interrupt), and the link: the rx demux, PFC
// reception (the switch's pfc_rx, model::PfcRx) and the network arbiter
// (docs/nic/top.md). Transaction level and cycle-counted, not cycle-exact
// inside the engine: step() is one clock; per clock the engine takes at most
// one flit from the link and sends at most one header on it. The link rules
// hold to the cycle: a header is first shown on tx only in a cycle where
// priority NET_CFG.TC is not paused and stays shown until taken; a PFC frame
// whose last flit is taken in cycle t pauses its classes in cycles
// t+1 .. t+quanta*CYC_PER_QUANTUM (pfc_rx); a packet the demux drops counts
// at its last flit. How many cycles the engine spends between a header's
// arrival and its answer is the model's own (see docs/nic/verification.md).
//
// The protocol rules it implements are in docs/barrier-protocol.md (DESIGN
// §5a plus the decisions the spec left open) and, for the group barriers
// (MCAST_BARRIER, COMB_BARRIER), docs/group-barrier.md, and the management
// mailbox (MGMT packets of MGMT_FLITS flits, the only multi-flit packets the
// NIC sends) in docs/group-protocol.md §1; the RTL follows the same text.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <syncfab/fmt/formats.hpp>
#include <syncfab/hw/device.hpp>
#include <syncfab/regs/nic_csr_counters.hpp>

#include "syncfab/model/data_path.hpp"
#include "syncfab/model/nic_link.hpp"
#include "syncfab/model/pfc_rx.hpp"
#include "syncfab/model/request_damq.hpp"

namespace syncfab::model {

struct EngineConfig {
  std::uint16_t lid = 1;             // this NIC's LID (unicast, non-zero)
  unsigned num_ctx = 8;              // barrier contexts, 1..255 (HW_CFG.NUM_CTX)
  unsigned hdq_depth = 4;            // descriptors the HDQ holds, 1..255
  unsigned req_damq_entries = 16;    // shared request-DAMQ capacity
  unsigned hdq_dispatch_cycles = 2;  // OF: copy + validate an HDQ descriptor
  // OF: an SDQ slot is one memory read per 64-bit word, at most one per
  // cycle; the last answered a cycle later, then judged
  // (docs/barrier-protocol.md §2).
  unsigned sdq_fetch_cycles = fmt::BarrierDesc::kSizeBytes / 8 + 2;
  unsigned completion_cycles = 8;  // completion unit: DMA writes of one record
  // SE's response queue (nic_se RespDepth): ACK/NACKs not yet sent, the one
  // shown on tx included. While it is full a NOTIFY is not taken from the
  // link (rx_ready low), so a long pause back-pressures the receive link.
  unsigned resp_queue_depth = 2;
  // HW_CFG2.MAX_MEMBERS: the largest multicast-release group this NIC can
  // be the root of (one arrival bit per member and context), 1..4096.
  unsigned max_members = 256;
  // HW_CFG2.MBOX_DEPTH: management datagrams the mailbox's receive FIFO
  // holds (docs/group-protocol.md §1), 1..255.
  unsigned mbox_depth = 4;
  // The data path (docs/nic/dcqcn.md): the bulk sender, DCQCN's reaction
  // and notification points and their register block at DCQCN_CSR_BASE.
  // Without it (today's RTL) that window answers PSLVERR and DATA and CNP
  // packets are dropped into CNT_DROP.
  bool data_path = false;
};

// Event counters: the counter registers of the NIC's register map, generated
// from its RDL (Counter::kNotifSent is CNT_NOTIF_SENT; hw::nic::to_string
// names one).
using hw::nic::Counter;
using hw::nic::kNumCounters;

// One completion as the engine produced it (also visible in memory/CQ).
struct CompletionRecord {
  std::uint8_t ctx = 0;
  std::uint16_t epoch = 0;
  fmt::CqStatus status = fmt::CqStatus::kOk;
  fmt::ErrCode err = fmt::ErrCode::kNone;
  std::uint64_t cycle = 0;  // when the completion unit finished it
};

class BarrierEngine {
 public:
  // std::invalid_argument naming the bad configuration value.
  BarrierEngine(const EngineConfig& config, hw::DmaMemory& memory);

  BarrierEngine(const BarrierEngine&) = delete;
  BarrierEngine& operator=(const BarrierEngine&) = delete;

  // CSR port, byte offsets of the RDL (rtl/nic/nic_csr.rdl). hw::BusError
  // (the APB PSLVERR) for an unaligned or unmapped offset, a write to a
  // register without writable fields.
  std::uint32_t csr_read(std::uint32_t offset);
  void csr_write(std::uint32_t offset, std::uint32_t value);

  // Network side, at the pins (docs/nic/top.md "Interface"). Before a
  // cycle, rx_ready(f) is what rx_ready_o shows if flit f is offered in it,
  // tx_flit() what tx_valid_o/tx_data_o/tx_last_o show, and tx_header() the
  // header when that flit is a packet's first (prio = NET_CFG.TC and a
  // response's or MGMT packet's src_lid = NODE_LID, stamped as it leaves).
  // Every packet is one flit but a mailbox MGMT packet (MGMT_FLITS): once
  // its header has left, its payload flits are shown in the following
  // cycles, nothing else in between (a pause stops only a first flit).
  // step(in) is that cycle with the link's inputs; the flit shown leaves
  // when in.tx_ready. A header once shown stays shown until taken (only a
  // soft reset withdraws it); none is first shown while tx_paused().
  // std::logic_error if in.rx is given while flits wait on the queued link
  // below (one link, one feeder).
  [[nodiscard]] bool rx_ready(const LinkFlit& flit) const;
  [[nodiscard]] std::optional<fmt::PktHdr> tx_header() const;
  [[nodiscard]] std::optional<LinkFlit> tx_flit() const;
  NetOut step(const NetIn& in);

  // Network side, queued: the incoming link as a FIFO of flits (the wire:
  // nothing on it is lost; its head is offered every cycle and waits while
  // rx_ready is low). receive() appends a one-flit packet (a header with
  // `last`) or any flits (a multi-flit packet, a PFC frame: pfc_flits());
  // step() runs a cycle with the head flit and tx_ready as set_tx_ready()
  // last said (1 from construction); transmit() hands out the packets whose
  // last flit left in those cycles, oldest first: transmit() their headers
  // (a MGMT packet's payload is lost there), transmit_flits() every flit.
  void receive(const fmt::PktHdr& pkt);
  void receive(std::span<const LinkFlit> flits);
  void set_tx_ready(bool ready) noexcept { tx_ready_ = ready; }
  std::optional<fmt::PktHdr> transmit();
  std::optional<std::vector<LinkFlit>> transmit_flits();
  [[nodiscard]] std::size_t link_backlog() const noexcept { return link_in_.size(); }

  // One clock cycle on the queued link.
  void step();
  // Runs n cycles.
  void run(std::uint64_t n);
  // Lets n cycles pass on a quiescent engine in one go (what n step() calls
  // would do: nothing). std::logic_error if the engine is not quiescent.
  void skip(std::uint64_t n);

  [[nodiscard]] std::uint64_t cycle() const noexcept { return cycle_; }
  [[nodiscard]] bool irq() const noexcept { return (intr_status_ & intr_enable_) != 0; }
  // Nothing queued, running, parked for transmission or waiting on the
  // queued link: the engine would do nothing on step() until a packet or CSR
  // write arrives (a pause timer may still run: skip() advances it).
  [[nodiscard]] bool quiescent() const;
  // STATUS.TX_PAUSED: pfc_rx stops priority NET_CFG.TC in the coming cycle.
  [[nodiscard]] bool tx_paused() const;
  // PFC reception (timers per priority); reset only with the engine.
  [[nodiscard]] const PfcRx& pfc_rx() const noexcept { return pfc_; }
  [[nodiscard]] std::uint32_t counter(Counter c) const noexcept {
    return counters_[static_cast<unsigned>(c)];
  }
  [[nodiscard]] const EngineConfig& config() const noexcept { return cfg_; }
  [[nodiscard]] const RequestDamq& request_damq() const noexcept { return damq_; }
  // The data path, or nullptr when EngineConfig::data_path is false.
  [[nodiscard]] const DataPath* data_path() const noexcept { return dp_ ? &*dp_ : nullptr; }
  // The management mailbox (docs/group-protocol.md §1): MBOX_STATUS.TX_BUSY
  // and .RX_LEVEL.
  [[nodiscard]] bool mbox_tx_busy() const noexcept { return mbox_tx_.state != MboxTxState::kIdle; }
  [[nodiscard]] std::size_t mbox_rx_level() const noexcept { return mbox_rx_.size(); }
  [[nodiscard]] bool ctx_active(unsigned ctx) const { return ctxs_.at(ctx).active; }
  // A root NIC's group state of one context (docs/group-barrier.md §4): the
  // early-arrival set (or the live one while a root descriptor runs) and
  // the released epoch.
  struct ArrivalSetView {
    unsigned count = 0;                // bits set
    unsigned largest = 0;              // largest index set (0: none)
    std::uint16_t epoch = 0;           // the epoch the set is for (valid when count != 0)
    bool released_valid = false;       // released_epoch is valid
    std::uint16_t released_epoch = 0;  // the last epoch released on this ctx
  };
  [[nodiscard]] ArrivalSetView arrival_set(unsigned ctx) const;
  // Every completion so far (tests and the network model's checks).
  [[nodiscard]] const std::vector<CompletionRecord>& completions() const noexcept {
    return completions_;
  }

  // Text trace of engine events ("cyc=120 te.send ctx=0 ep=3 r=1 dst=0x0005"),
  // in the vocabulary of the RTL's blocks (of, te, se, damq, cq, net; ge for
  // the group barriers).
  void set_trace(std::function<void(std::string_view)> sink) { trace_ = std::move(sink); }

 private:
  enum class SendState : std::uint8_t { kLocked, kQueued, kInFlight, kRetryWait, kAcked };
  // What a context's active descriptor is, for the group barriers.
  enum class GroupRole : std::uint8_t { kNone, kMcastMember, kCombMember, kRoot };
  // A group send (a member's arrival, a root's RELEASE) on its way out.
  enum class GroupSendState : std::uint8_t { kIdle, kQueued, kInFlight, kLeft };
  struct Send {
    std::uint16_t dst = 0;
    std::uint8_t round = 0;
    SendState state = SendState::kLocked;
    std::uint32_t retries = 0;
    std::uint64_t retry_at = 0;
  };
  struct Context {
    bool active = false;
    bool has_last = false;         // last_epoch is valid
    std::uint16_t last_epoch = 0;  // epoch of the last descriptor that finished here
    fmt::BarrierDesc desc;
    std::uint16_t epoch = 0;
    unsigned num_rounds = 0;
    std::vector<std::vector<std::uint16_t>> expect;  // per round, used non-NONE src LIDs
    std::vector<std::vector<bool>> got;
    unsigned heard = 0;     // leading rounds fully received (SE -> TE)
    unsigned released = 0;  // rounds whose sends TE has released
    std::vector<Send> sends;
    unsigned unacked = 0;
    // Group barriers (docs/group-barrier.md).
    GroupRole role = GroupRole::kNone;               // what the active descriptor is
    GroupSendState arrival = GroupSendState::kIdle;  // a member's arrival
    std::uint32_t resends = 0;                       // a member's re-sends of its arrival
    bool timer_armed = false;                        // GROUP_TIMEOUT runs (a member waiting)
    std::uint64_t deadline = 0;                      // cycle the timeout expires
    bool release_matched = false;                    // a member: its release arrived
    GroupSendState release = GroupSendState::kIdle;  // a root's multicast RELEASE
    // A root's arrival set and released epoch: kept across descriptors,
    // cleared by a soft reset.
    std::vector<bool> set_bits;  // index m = member m (bit 0 unused)
    unsigned set_count = 0;
    unsigned set_largest = 0;
    std::uint16_t set_epoch = 0;
    bool released_valid = false;
    std::uint16_t released_epoch = 0;
  };
  struct PendingCompletion {
    CompletionRecord rec;
    bool write = false;
    std::uint64_t addr = 0;
    std::uint64_t value = 0;
    bool cq_entry = false;
    bool irq = false;
  };
  struct RetryTimer {
    std::uint64_t at;
    unsigned ctx;
    std::uint16_t epoch;
    std::size_t index;
    friend bool operator>(const RetryTimer& a, const RetryTimer& b) noexcept { return a.at > b.at; }
  };
  // The mailbox's send: SEND accepted, its header granted (held on tx),
  // header left (payload flits follow).
  enum class MboxTxState : std::uint8_t { kIdle, kPending, kShown, kPayload };
  static constexpr std::size_t kMboxBytes = fmt::MgmtMsg::kSizeBytes;
  static constexpr std::size_t kMboxWords = kMboxBytes / 4;
  struct MboxTx {
    MboxTxState state = MboxTxState::kIdle;
    fmt::PktHdr hdr;
    std::array<std::uint8_t, kMboxBytes> payload{};
    unsigned next = 0;  // kPayload: the flit shown (1 .. MGMT_FLITS - 1)
  };
  struct MboxDatagram {
    std::uint16_t src = 0;
    std::array<std::uint8_t, kMboxBytes> payload{};
  };
  // TE's ready sends: a NOTIFY (ctx.sends[index]) or a group send, in one
  // order (docs/barrier-protocol.md §6, §12).
  enum class ReadyKind : std::uint8_t { kNotify, kArrival, kRelease, kReleaseResend };
  struct ReadySend {
    unsigned ctx;
    std::uint16_t epoch;
    std::size_t index;
    ReadyKind kind = ReadyKind::kNotify;
    std::uint16_t dst = 0;  // kReleaseResend: the member that re-sent its ARRIVE
  };
  enum class Source : std::uint8_t { kHdq, kSdq };
  // The header the network arbiter shows on tx until the link takes it.
  struct TxHold {
    fmt::PktHdr hdr;
    bool resp = false;   // an ACK/NACK from SE's response queue (else a NOTIFY)
    bool retry = false;  // a NOTIFY re-sent after a NACK
    bool mgmt = false;   // the mailbox's MGMT header
    bool cnp = false;    // the data path's CNP
    bool data = false;   // the data path's DATA header (payload follows)
  };
  // The network arbiter's sources, in the order of its rotation.
  enum class ArbSrc : std::uint8_t { kResp, kSend, kMgmt };
  static constexpr unsigned kArbSrcs = 3;
  // What the arbiter would grant now: SE's head response, the ready send at
  // ready_[index], or the mailbox's packet.
  struct Grant {
    ArbSrc src = ArbSrc::kResp;
    std::size_t index = 0;
  };
  // The rx demux's state between a packet's first and last flit.
  enum class RxState : std::uint8_t { kIdle, kDrop, kPfc, kMgmt, kData };
  // A well-formed PFC frame whose last flit was taken this cycle.
  struct PfcIn {
    bool valid = false;
    std::uint8_t class_enable = 0;
    std::array<std::uint16_t, fmt::kNumPrio> quanta{};
  };

  NetOut step_link(const NetIn& in);
  void rx_flit(const LinkFlit& flit, PfcIn& frame);
  void net_drop(const std::string& why);
  [[nodiscard]] bool se_ready() const;
  [[nodiscard]] std::optional<Grant> arbitrate() const;
  [[nodiscard]] fmt::PktHdr stamp(fmt::PktHdr hdr, bool resp) const;
  void grant();
  void tx_taken(const TxHold& h);
  void step_pfc(const PfcIn& frame);
  [[nodiscard]] std::uint8_t paused_mask() const;
  void grant_all();
  [[nodiscard]] std::optional<fmt::PktHdr> peek_all() const;
  [[nodiscard]] bool ready_valid(const ReadySend& r) const;
  void process_rx(const fmt::PktHdr& pkt);
  void on_notify(const fmt::PktHdr& pkt);
  void on_response(const fmt::PktHdr& pkt, bool ack);
  void respond(const fmt::PktHdr& notify, fmt::PktType type);
  bool mark_received(Context& c, std::uint16_t src, unsigned round);  // false: not expected
  void advance(unsigned ctx);  // SE -> TE: release rounds, check completion
  void step_dispatch();
  void dispatch(const fmt::BarrierDesc& d);
  [[nodiscard]] fmt::ErrCode validate(const fmt::BarrierDesc& d) const;
  void activate(const fmt::BarrierDesc& d);
  void finish(unsigned ctx, fmt::CqStatus status, fmt::ErrCode err);
  void complete_error(std::uint8_t ctx, std::uint16_t epoch, fmt::ErrCode err);
  void step_completion();
  void perform(PendingCompletion& pc);
  void step_retry_timers();
  void soft_reset();
  void count(Counter c);
  void trace(const std::string& what);
  [[nodiscard]] bool sdq_pending() const;
  [[nodiscard]] bool cq_full() const;
  [[nodiscard]] std::uint32_t status_reg() const;
  [[nodiscard]] std::uint32_t hdq_post_reg() const;
  [[nodiscard]] static bool serial_newer(std::uint16_t a, std::uint16_t b) noexcept;
  // Group barriers (group_engine.cpp).
  [[nodiscard]] fmt::ErrCode validate_group(const fmt::BarrierDesc& d) const;
  void activate_group(const fmt::BarrierDesc& d);
  void on_arrive(const fmt::PktHdr& pkt);
  void on_release(const fmt::PktHdr& pkt);
  void root_take(unsigned ctx, unsigned member, const std::string& what);
  void root_release(unsigned ctx);
  void set_empty(Context& c, std::uint16_t epoch) const;
  void step_group_timers();
  [[nodiscard]] fmt::PktHdr ready_packet(const ReadySend& r) const;
  void group_granted(const ReadySend& r);
  void group_left(const fmt::PktHdr& hdr, bool retry);
  void check_ok_completion(unsigned ctx) const;
  // The management mailbox (mailbox.cpp).
  [[nodiscard]] bool mbox_csr_read(std::uint32_t offset, std::uint32_t& value) const;
  [[nodiscard]] bool mbox_csr_write(std::uint32_t offset, std::uint32_t value);
  void mbox_send();
  [[nodiscard]] LinkFlit mbox_payload_flit() const;
  void mbox_flit_left();
  void mbox_rx_flit(const LinkFlit& flit);
  void mbox_rx_end();
  void mbox_soft_reset();

  EngineConfig cfg_;
  hw::DmaMemory* mem_;
  std::uint64_t cycle_ = 0;

  // CSR state (register values the engine keeps).
  std::uint32_t scratch_ = 0;
  bool enable_ = false;
  std::uint32_t intr_status_ = 0;
  std::uint32_t intr_enable_ = 0;
  std::uint32_t retry_delay_;
  std::uint32_t retry_limit_;
  std::uint32_t net_tc_;             // NET_CFG.TC
  std::uint32_t pfc_enable_;         // PFC_CFG.ENABLE
  std::uint32_t pfc_cyc_per_q_;      // PFC_CFG.CYC_PER_QUANTUM (0 acts as 1)
  std::uint32_t group_timeout_;      // GROUP_TIMEOUT.CYCLES
  std::uint32_t group_retry_limit_;  // GROUP_RETRY_LIMIT.LIMIT
  std::uint64_t sdq_base_ = 0;
  std::uint32_t sdq_size_ = 0;
  std::uint32_t sdq_prod_ = 0;
  std::uint32_t sdq_cons_ = 0;
  std::uint64_t cq_base_ = 0;
  std::uint32_t cq_size_ = 0;
  std::uint32_t cq_head_ = 0;
  std::uint32_t cq_tail_ = 0;
  bool cq_phase_ = true;
  std::vector<std::uint32_t> hdq_window_;
  std::array<std::uint32_t, kNumCounters> counters_{};

  // Engine state.
  std::deque<fmt::BarrierDesc> hdq_;
  Source next_source_ = Source::kHdq;
  unsigned of_busy_ = 0;  // cycles left of the descriptor in flight in OF
  std::optional<fmt::BarrierDesc> of_desc_;
  bool of_dma_error_ = false;
  std::vector<Context> ctxs_;
  RequestDamq damq_;
  std::deque<fmt::PktHdr> resp_q_;  // ACK/NACK waiting for the network arbiter
  std::deque<ReadySend> ready_;     // notifications waiting for the network arbiter
  std::priority_queue<RetryTimer, std::vector<RetryTimer>, std::greater<>> retries_;
  unsigned arb_next_ = 0;          // the source the arbiter looks at first (ArbSrc)
  std::optional<TxHold> tx_hold_;  // shown on tx, not yet taken
  unsigned timers_armed_ = 0;      // contexts whose GROUP_TIMEOUT runs

  // The management mailbox.
  std::array<std::uint32_t, kMboxWords> mbox_tx_data_{};  // MBOX_TX_DATA0..7
  std::uint16_t mbox_tx_dst_ = 0;                         // MBOX_TX_CTRL.DST_LID
  MboxTx mbox_tx_;
  std::deque<MboxDatagram> mbox_rx_;

  // The link (not touched by a soft reset or CTRL.ENABLE).
  std::deque<LinkFlit> link_in_;              // the queued link's incoming flits
  bool tx_ready_ = true;                      // the queued link's tx_ready
  std::deque<std::vector<LinkFlit>> tx_out_;  // packets whose last flit left
  std::vector<LinkFlit> tx_partial_;          // the flits of one still leaving
  RxState rx_state_ = RxState::kIdle;
  unsigned rx_flits_ = 0;                           // flits of the PFC frame taken so far
  fmt::PfcFrame rx_pfc_;                            // the PFC frame being taken
  unsigned rx_mgmt_flits_ = 0;                      // flits of the MGMT packet taken so far
  fmt::PktHdr rx_mgmt_hdr_;                         // its header
  std::array<std::uint8_t, kMboxBytes> rx_mgmt_{};  // its payload
  PfcRx pfc_;
  unsigned rx_data_flits_ = 0;  // flits of the DATA packet taken so far
  fmt::PktHdr rx_data_hdr_;     // its header
  std::optional<DataPath> dp_;
  std::deque<PendingCompletion> cmpl_q_;
  unsigned cmpl_busy_ = 0;
  std::vector<CompletionRecord> completions_;
  std::function<void(std::string_view)> trace_;
};

}  // namespace syncfab::model

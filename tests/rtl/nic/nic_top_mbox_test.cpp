// nic_top's management mailbox (docs/group-protocol.md §1, docs/nic/mbox.md):
// sends (header and payload bytes exact, TX_BUSY, a SEND while busy
// ignored, CNT_MGMT_SENT), receives (FIFO order, RX_LEVEL, MBOX_RX_SRC,
// INTR_STATUS.MGMT_RX, CNT_MGMT_RECV), the drops (FIFO full, bad lengths,
// foreign and multicast dst_lid: CNT_DROP), soft reset, datagrams beside a
// barrier, and a seeded random test against a small reference FIFO. The
// bench is nic_top_bench.hpp; expected values are worked out from the spec.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "nic_top_bench.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/nic_regs.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::nic_top;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace nic = syncfab::hw::nic;
namespace fmt = syncfab::fmt;

namespace {

#define NIC_OFF(R) static_cast<std::uint32_t>(offsetof(nic_csr_t, R))

constexpr unsigned kDepth = 4;  // MboxDepth of vl_nic_top (nic_top's default)
constexpr std::uint32_t kSend = 1U << 31U;
constexpr std::uint32_t kMgmtRxBit = 1U << 4U;
constexpr auto kTimeout = std::chrono::microseconds(400);

using Words = std::array<std::uint32_t, 8>;

struct Datagram {
  std::uint16_t src = 0;
  Words words{};
};

Task<> start(Bench& b) {
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
}

void run_until(Bench& b, const std::function<bool()>& done, std::uint64_t max, const char* what) {
  for (std::uint64_t i = 0; !done(); ++i) {
    TB_CHECK(i < max) << what << ": not within " << max << " cycles";
    b.idle_cycles(1);
  }
}

Words random_words(std::mt19937_64& rng) {
  Words w{};
  for (auto& x : w) {
    x = static_cast<std::uint32_t>(rng());
  }
  return w;
}

// Payload byte i of the mgmt_msg (word i / 4, little-endian).
std::uint8_t msg_byte(const Words& w, std::size_t i) {
  return static_cast<std::uint8_t>(w.at(i / 4) >> (8U * (i % 4)));
}

// A MGMT packet of `flits` flits whose header says `len_flits`: the header,
// then the payload (byte b at byte b mod 16 of flit 1 + b div 16), then
// zero flits if longer.
Packet mgmt_packet(std::uint16_t src, std::uint16_t dst, unsigned len_flits, unsigned flits,
                   const Words& w) {
  fmt::PktHdr h;
  h.set_pkt_type(fmt::PktType::kMgmt).set_len_flits(len_flits).set_dst_lid(dst).set_src_lid(src);
  Packet p{flit_of(h)};
  for (unsigned f = 1; f < flits; ++f) {
    Flit x{};
    for (std::size_t i = 0; i < kFlitBytes; ++i) {
      const std::size_t b = (f - 1) * kFlitBytes + i;
      x.at(i) = b < 32 ? msg_byte(w, b) : 0;
    }
    p.push_back(x);
  }
  return p;
}

std::uint64_t deliver(Bench& b, Packet p, const char* what) {
  const std::size_t id = b.net.inject(std::move(p), 0);
  run_until(
      b, [&] { return b.net.injected(id).done(); }, 2000, what);
  return b.net.injected(id).last_taken();
}

void write_tx(Bench& b, const Words& w) {
  for (unsigned i = 0; i < 8; ++i) {
    b.dev.write32(NIC_OFF(MBOX_TX_DATA0) + 4 * i, w.at(i));
  }
}
void send(Bench& b, std::uint16_t dst) { b.dev.write32(NIC_OFF(MBOX_TX_CTRL), kSend | dst); }
bool tx_busy(Bench& b) { return (b.dev.read32(NIC_OFF(MBOX_STATUS)) & 1U) != 0; }
unsigned rx_level(Bench& b) { return (b.dev.read32(NIC_OFF(MBOX_STATUS)) >> 8U) & 0xFFU; }
void pop(Bench& b) { b.dev.write32(NIC_OFF(MBOX_RX_POP), 1); }

Datagram head(Bench& b) {
  Datagram d;
  for (unsigned i = 0; i < 8; ++i) {
    d.words.at(i) = b.dev.read32(NIC_OFF(MBOX_RX_DATA0) + 4 * i);
  }
  d.src = static_cast<std::uint16_t>(b.dev.read32(NIC_OFF(MBOX_RX_SRC)));
  return d;
}

void check_head(Bench& b, const Datagram& want, const std::string& what) {
  const Datagram got = head(b);
  TB_CHECK_EQ(got.src, want.src) << what << ": MBOX_RX_SRC";
  for (unsigned i = 0; i < 8; ++i) {
    TB_CHECK_EQ(got.words.at(i), want.words.at(i)) << what << ": MBOX_RX_DATA" << i;
  }
}

void check_empty(Bench& b, const std::string& what) {
  TB_CHECK_EQ(rx_level(b), 0U) << what << ": RX_LEVEL";
  check_head(b, Datagram{}, what + " (empty: zeros)");
}

// The MGMT packet sent: header fields and every payload byte.
void check_sent(const NetworkBfm::MgmtSent& s, std::uint16_t dst, unsigned tc, const Words& w,
                const std::string& what) {
  TB_CHECK_EQ(s.flits.size(), fmt::kMgmtFlits) << what << ": flits";
  const fmt::PktHdr h = hdr_of(s.flits.at(0));
  TB_CHECK(h.pkt_type() == fmt::PktType::kMgmt) << what << ": pkt_type";
  TB_CHECK_EQ(h.len_flits(), fmt::kMgmtFlits) << what << ": len_flits";
  TB_CHECK_EQ(h.dst_lid(), dst) << what << ": dst_lid";
  TB_CHECK_EQ(h.src_lid(), kOwnLid) << what << ": src_lid";
  TB_CHECK_EQ(h.prio(), tc) << what << ": prio";
  // Every other header field is 0: compare with a header of these fields only.
  fmt::PktHdr e;
  e.set_pkt_type(fmt::PktType::kMgmt)
      .set_len_flits(fmt::kMgmtFlits)
      .set_dst_lid(dst)
      .set_src_lid(kOwnLid)
      .set_prio(tc);
  TB_CHECK(s.flits.at(0) == flit_of(e)) << what << ": a header field other than type/len/LIDs/prio";
  for (std::size_t b = 0; b < 32; ++b) {
    TB_CHECK_EQ(static_cast<unsigned>(s.flits.at(1 + b / kFlitBytes).at(b % kFlitBytes)),
                static_cast<unsigned>(msg_byte(w, b)))
        << what << ": payload byte " << b;
  }
}

struct Counts {
  std::uint32_t sent, recv, drop;
};
Counts counts(Bench& b) {
  return {b.dev.read32(NIC_OFF(CNT_MGMT_SENT)), b.dev.read32(NIC_OFF(CNT_MGMT_RECV)),
          b.dev.read32(NIC_OFF(CNT_DROP))};
}
void check_counts(Bench& b, const Counts& want, const std::string& what) {
  const Counts c = counts(b);
  TB_CHECK_EQ(c.sent, want.sent) << what << ": CNT_MGMT_SENT";
  TB_CHECK_EQ(c.recv, want.recv) << what << ": CNT_MGMT_RECV";
  TB_CHECK_EQ(c.drop, want.drop) << what << ": CNT_DROP";
}

void wait_tx_idle(Bench& b, const char* what) {
  run_until(
      b, [&] { return !tx_busy(b); }, 4000, what);
}

}  // namespace

// One datagram sent: the header and all 32 payload bytes exact, TX_BUSY from
// the write until the last flit left, a SEND while busy ignored (nothing
// sent or counted), the payload copied at the write (rewriting MBOX_TX_DATA
// afterwards changes nothing), CNT_MGMT_SENT. Also the latency from the
// SEND write to the header on tx, printed.
SYNCFAB_TEST(nic_top_mbox, send) {
  auto& rng = ctx.rng();
  Bench b(ctx, Knobs{}, rng());
  co_await start(b);
  TB_CHECK_EQ((b.dev.read32(NIC_OFF(HW_CFG2)) >> 16U) & 0xFFU, kDepth) << "HW_CFG2.MBOX_DEPTH";
  TB_CHECK(!tx_busy(b)) << "TX_BUSY after reset";
  // CTRL.ENABLE is 0: the mailbox sends anyway.
  const Words w = random_words(rng);
  write_tx(b, w);
  b.net.hold_tx(true);
  const std::uint64_t before = b.clk.cycles();
  send(b, 0x0345);
  const std::uint64_t after = b.clk.cycles();
  TB_CHECK(tx_busy(b)) << "TX_BUSY after SEND";
  // A second SEND while busy, with other words and another dst: ignored.
  write_tx(b, random_words(rng));
  send(b, 0x0777);
  b.idle_cycles(20);
  TB_CHECK(tx_busy(b)) << "TX_BUSY while tx is held";
  TB_CHECK(b.net.waiting().has_value()) << "the MGMT header waits on tx";
  const std::uint64_t shown = b.net.waiting()->shown;
  std::cout << "nic_top_mbox.send: SEND write in cycles " << before << " .. " << after
            << ", header first on tx in cycle " << shown << "\n";
  TB_CHECK(shown <= after + 2) << "header on tx within 2 cycles of the SEND write";
  b.net.hold_tx(false);
  wait_tx_idle(b, "TX_BUSY falls");
  b.idle_cycles(20);
  TB_CHECK_EQ(b.net.mgmt_sent().size(), 1U) << "one MGMT packet (the second SEND ignored)";
  check_sent(b.net.mgmt_sent().at(0), 0x0345, kTcReset, w, "first send");
  check_counts(b, {1, 0, 0}, "after one send");
  // A SEND after TX_BUSY fell is taken, with the words now in MBOX_TX_DATA.
  const Words w2 = random_words(rng);
  write_tx(b, w2);
  send(b, 0x0010);
  wait_tx_idle(b, "second send");
  b.idle_cycles(10);
  TB_CHECK_EQ(b.net.mgmt_sent().size(), 2U) << "second MGMT packet";
  check_sent(b.net.mgmt_sent().at(1), 0x0010, kTcReset, w2, "second send");
  const auto& s = b.net.mgmt_sent().at(1);
  TB_CHECK_EQ(s.last_taken, s.shown + 2) << "three flits back to back without backpressure";
  check_counts(b, {2, 0, 0}, "after two sends");
}

// Datagrams received: one, then several in order (POP removes the head),
// RX_LEVEL, MBOX_RX_SRC, zeros when empty, INTR_STATUS.MGMT_RX (and intr_o
// when enabled), CNT_MGMT_RECV; a POP when empty is ignored; RX_LEVEL is
// visible right after the last flit.
SYNCFAB_TEST(nic_top_mbox, receive) {
  auto& rng = ctx.rng();
  Knobs k;
  k.rx_gap = 0.3;  // bubbles inside packets
  Bench b(ctx, k, rng());
  co_await start(b);
  check_empty(b, "after reset");
  pop(b);  // ignored
  check_empty(b, "POP when empty");
  b.dev.write32(NIC_OFF(INTR_ENABLE), kMgmtRxBit);
  TB_CHECK(b.dut.intr_o == 0) << "no interrupt yet";
  const Datagram d0{0x0222, random_words(rng)};
  deliver(b, mgmt_packet(d0.src, kOwnLid, fmt::kMgmtFlits, fmt::kMgmtFlits, d0.words), "one");
  TB_CHECK_EQ(rx_level(b), 1U) << "RX_LEVEL after one";
  TB_CHECK((b.dev.read32(NIC_OFF(INTR_STATUS)) & kMgmtRxBit) != 0) << "INTR_STATUS.MGMT_RX";
  TB_CHECK(b.dut.intr_o != 0) << "intr_o with MGMT_RX enabled";
  b.dev.write32(NIC_OFF(INTR_STATUS), kMgmtRxBit);  // write 1 to clear
  TB_CHECK(b.dut.intr_o == 0) << "intr_o after clearing MGMT_RX";
  check_head(b, d0, "one datagram");
  pop(b);
  check_empty(b, "after POP");
  std::vector<Datagram> ds;
  for (unsigned i = 0; i < 3; ++i) {
    ds.push_back(Datagram{static_cast<std::uint16_t>(0x0300 + i), random_words(rng)});
    deliver(b,
            mgmt_packet(ds.back().src, kOwnLid, fmt::kMgmtFlits, fmt::kMgmtFlits, ds.back().words),
            "several");
    TB_CHECK_EQ(rx_level(b), i + 1) << "RX_LEVEL while filling";
  }
  for (unsigned i = 0; i < 3; ++i) {
    check_head(b, ds.at(i), "datagram " + std::to_string(i) + " of 3");
    pop(b);
    TB_CHECK_EQ(rx_level(b), 2 - i) << "RX_LEVEL after POP";
  }
  check_empty(b, "after popping all");
  check_counts(b, {0, 4, 0}, "receive");
}

// The FIFO holds kDepth datagrams: one more is dropped (CNT_DROP) and
// changes nothing; after a POP there is room again.
SYNCFAB_TEST(nic_top_mbox, fifo_full) {
  auto& rng = ctx.rng();
  Bench b(ctx, Knobs{}, rng());
  co_await start(b);
  std::deque<Datagram> want;
  for (unsigned i = 0; i < kDepth; ++i) {
    want.push_back(Datagram{static_cast<std::uint16_t>(0x0400 + i), random_words(rng)});
    deliver(b, mgmt_packet(want.back().src, kOwnLid, 3, 3, want.back().words), "fill");
  }
  TB_CHECK_EQ(rx_level(b), kDepth) << "RX_LEVEL full";
  deliver(b, mgmt_packet(0x0499, kOwnLid, 3, 3, random_words(rng)), "one too many");
  TB_CHECK_EQ(rx_level(b), kDepth) << "RX_LEVEL after the drop";
  check_counts(b, {0, kDepth, 1}, "full");
  check_head(b, want.front(), "head after the drop");
  pop(b);
  want.pop_front();
  want.push_back(Datagram{0x04AA, random_words(rng)});
  deliver(b, mgmt_packet(want.back().src, kOwnLid, 3, 3, want.back().words), "after a POP");
  TB_CHECK_EQ(rx_level(b), kDepth) << "RX_LEVEL full again";
  for (unsigned i = 0; i < kDepth; ++i) {
    check_head(b, want.at(i), "drain " + std::to_string(i));
    pop(b);
  }
  check_empty(b, "drained");
  check_counts(b, {0, kDepth + 1, 1}, "end");
}

// Packets that cannot enter: bad lengths either way (len_flits 2 in 2
// flits, len_flits 3 in 4 flits, len_flits 3 in 2 flits, one flit), a
// foreign dst_lid, a multicast dst_lid: each dropped once (CNT_DROP), no
// interrupt; a good one after them enters.
SYNCFAB_TEST(nic_top_mbox, drops) {
  auto& rng = ctx.rng();
  Knobs k;
  k.rx_gap = 0.2;
  Bench b(ctx, k, rng());
  co_await start(b);
  const Words w = random_words(rng);
  struct Bad {
    std::uint16_t dst;
    unsigned len, flits;
    const char* what;
  };
  const std::vector<Bad> bad = {
      {kOwnLid, 2, 2, "len_flits 2, 2 flits"}, {kOwnLid, 3, 4, "len_flits 3, 4 flits"},
      {kOwnLid, 3, 2, "len_flits 3, 2 flits"}, {kOwnLid, 1, 1, "one flit"},
      {kOwnLid, 4, 4, "len_flits 4, 4 flits"}, {0x0102, 3, 3, "foreign dst_lid"},
      {0xC001, 3, 3, "multicast dst_lid"},     {fmt::kMlidBase, 3, 3, "dst_lid MLID_BASE"},
  };
  std::uint32_t drops = 0;
  for (const Bad& x : bad) {
    deliver(b, mgmt_packet(0x0500, x.dst, x.len, x.flits, w), x.what);
    ++drops;
    TB_CHECK_EQ(rx_level(b), 0U) << x.what << ": RX_LEVEL";
    check_counts(b, {0, 0, drops}, x.what);
  }
  TB_CHECK_EQ(b.dev.read32(NIC_OFF(INTR_STATUS)) & kMgmtRxBit, 0U) << "no MGMT_RX for drops";
  deliver(b, mgmt_packet(0x0501, kOwnLid, 3, 3, w), "good");
  check_head(b, Datagram{0x0501, w}, "good after the drops");
  check_counts(b, {0, 1, drops}, "end");
}

// CTRL.SOFT_RESET empties the FIFO and abandons a send whose header has not
// left (tx held); the counters stay; the mailbox works on afterwards.
SYNCFAB_TEST(nic_top_mbox, soft_reset) {
  auto& rng = ctx.rng();
  Bench b(ctx, Knobs{}, rng());
  co_await start(b);
  hw::Csr csr(b.dev);
  for (unsigned i = 0; i < 2; ++i) {
    deliver(b, mgmt_packet(0x0600, kOwnLid, 3, 3, random_words(rng)), "fill");
  }
  TB_CHECK_EQ(rx_level(b), 2U) << "RX_LEVEL before the reset";
  b.net.hold_tx(true);
  b.net.allow_withdraw(true);
  write_tx(b, random_words(rng));
  send(b, 0x0345);
  b.idle_cycles(5);
  TB_CHECK(b.net.waiting().has_value()) << "the MGMT header waits on tx";
  csr.write(nic::CTRL, {{nic::CTRL_SOFT_RESET, 1}});
  b.idle_cycles(5);
  TB_CHECK(!tx_busy(b)) << "TX_BUSY after the soft reset";
  check_empty(b, "after the soft reset");
  b.net.hold_tx(false);
  b.idle_cycles(50);
  TB_CHECK(b.net.mgmt_sent().empty()) << "the abandoned send never left";
  b.net.allow_withdraw(false);
  check_counts(b, {0, 2, 0}, "counters kept");
  const Words w = random_words(rng);
  write_tx(b, w);
  send(b, 0x0346);
  wait_tx_idle(b, "send after reset");
  b.idle_cycles(10);
  TB_CHECK_EQ(b.net.mgmt_sent().size(), 1U) << "a send after the reset";
  check_sent(b.net.mgmt_sent().at(0), 0x0346, kTcReset, w, "after reset");
  deliver(b, mgmt_packet(0x0601, kOwnLid, 3, 3, w), "receive after reset");
  check_head(b, Datagram{0x0601, w}, "after reset");

  // A send whose header has left finishes whole across a soft reset: the
  // header is taken, the first payload flit held, then the reset.
  const Words w2 = random_words(rng);
  write_tx(b, w2);
  b.net.hold_tx(true);
  send(b, 0x0347);
  run_until(
      b, [&] { return b.net.waiting().has_value(); }, 50, "MGMT header shown");
  b.net.hold_tx(false);
  run_until(
      b, [&] { return !b.net.waiting().has_value(); }, 50, "MGMT header taken");
  b.net.hold_tx(true);
  csr.write(nic::CTRL, {{nic::CTRL_SOFT_RESET, 1}});
  TB_CHECK(tx_busy(b)) << "TX_BUSY: a send under way survives the soft reset";
  b.net.hold_tx(false);
  wait_tx_idle(b, "the send under way finishes");
  b.idle_cycles(10);
  TB_CHECK_EQ(b.net.mgmt_sent().size(), 2U) << "the packet under the reset left whole";
  check_sent(b.net.mgmt_sent().at(1), 0x0347, kTcReset, w2, "across the reset");
  check_counts(b, {2, 3, 0}, "end");
}

// Datagrams flow both ways while a dissemination barrier runs (tx
// backpressure, rx bubbles): the barrier completes, every datagram sent is
// exact and whole (the bench checks no flit of another packet comes
// between), every one received is in the FIFO in order.
SYNCFAB_TEST(nic_top_mbox, with_barrier) {
  auto& rng = ctx.rng();
  Knobs k;
  k.tx_stall = 0.3;
  k.rx_gap = 0.2;
  Bench b(ctx, k, rng());
  co_await start(b);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(8, 3);
  auto bc = n.open_context(drv::ContextConfig(1, 3, 8, 1, lids));
  std::vector<Datagram> in;
  for (unsigned i = 0; i < kDepth; ++i) {
    in.push_back(Datagram{static_cast<std::uint16_t>(0x0700 + i), random_words(rng)});
    b.net.inject(mgmt_packet(in.back().src, kOwnLid, 3, 3, in.back().words), 20 + 60 * i);
  }
  const std::uint16_t epoch = bc.next_descriptor(drv::WaitMode::kPoll).epoch();
  b.world.expect(bc.id(), epoch, bc.schedule(), lids, 0, 0, 0);
  bc.arrive(drv::SubmitPath::kHdq);
  std::vector<Words> out;
  for (unsigned i = 0; i < 6; ++i) {
    out.push_back(random_words(rng));
    write_tx(b, out.back());
    send(b, static_cast<std::uint16_t>(0x0800 + i));
    wait_tx_idle(b, "send beside the barrier");
  }
  TB_CHECK(bc.wait(kTimeout)) << "barrier on ctx " << bc.id() << " did not complete";
  b.idle_cycles(300);
  TB_CHECK(b.net.idle()) << "network BFM still has packets to inject";
  b.world.verify(b.mem.cq_writes());
  TB_CHECK_EQ(b.net.mgmt_sent().size(), out.size()) << "MGMT packets sent";
  for (std::size_t i = 0; i < out.size(); ++i) {
    check_sent(b.net.mgmt_sent().at(i), static_cast<std::uint16_t>(0x0800 + i), kTcReset, out.at(i),
               "send " + std::to_string(i));
  }
  TB_CHECK_EQ(rx_level(b), kDepth) << "RX_LEVEL";
  for (const Datagram& d : in) {
    check_head(b, d, "received beside the barrier");
    pop(b);
  }
  check_empty(b, "drained");
  const Counts c = counts(b);
  TB_CHECK_EQ(c.sent, out.size()) << "CNT_MGMT_SENT";
  TB_CHECK_EQ(c.recv, kDepth) << "CNT_MGMT_RECV";
  TB_CHECK_EQ(c.drop, b.world.counts().garbage) << "CNT_DROP";
  TB_CHECK_EQ(b.dev.read32(NIC_OFF(CNT_NOTIF_SENT)), b.world.counts().notif_sent)
      << "CNT_NOTIF_SENT";
}

// Random: packets good and bad (length, dst) delivered, POPs, sends under
// random tx backpressure overlapping receives, SENDs while busy, soft
// resets, against a reference FIFO; counters at every check.
// --param steps=N. Replay: the runner's --seed (+trace writes an FST).
SYNCFAB_TEST(nic_top_mbox, random) {
  auto& rng = ctx.rng();
  std::cout << "nic_top_mbox.random: seed " << ctx.seed()
            << "; replay: " << std::filesystem::read_symlink("/proc/self/exe").string()
            << " --test " << ctx.full_name() << " --seed " << ctx.seed()
            << " (add +trace for an FST)\n";
  Knobs k;
  k.tx_stall = 0.25;
  k.rx_gap = 0.25;
  Bench b(ctx, k, rng());
  co_await start(b);
  const auto steps = static_cast<unsigned>(ctx.param("steps", 150));
  std::uniform_int_distribution<unsigned> pct(0, 99);
  std::deque<Datagram> ref;
  Counts want{0, 0, 0};
  std::vector<std::pair<std::uint16_t, Words>> sent_ref;
  hw::Csr csr(b.dev);
  // Pauses of the engine's priority land at random, some inside a MGMT
  // packet on tx (which must finish: a pause acts between packets).
  csr.write(nic::PFC_CFG, {{nic::PFC_CFG_ENABLE, 0xFF}, {nic::PFC_CFG_CYC_PER_QUANTUM, 1}});
  unsigned pauses = 0;
  for (unsigned s = 0; s < steps; ++s) {
    const std::string what = "step " + std::to_string(s);
    const unsigned r = pct(rng);
    if (r < 45) {
      // A packet, good (70 %) or bad; a send may be under way meanwhile.
      bool sending = false;
      Words tw{};
      std::uint16_t tdst = 0;
      if (pct(rng) < 30) {
        tw = random_words(rng);
        tdst = static_cast<std::uint16_t>(1 + rng() % 0xBFFF);
        write_tx(b, tw);
        send(b, tdst);
        sending = true;
      }
      const Datagram d{static_cast<std::uint16_t>(rng() % 0x10000), random_words(rng)};
      std::uint16_t dst = kOwnLid;
      unsigned len = 3;
      unsigned flits = 3;
      const unsigned kind = pct(rng);
      if (kind >= 70) {
        switch (kind % 5) {
          case 0:
            dst = static_cast<std::uint16_t>(kOwnLid + 1 + rng() % 100);
            break;
          case 1:
            dst = static_cast<std::uint16_t>(fmt::kMlidBase + rng() % 0x3FFF);
            break;
          case 2:
            len = 1 + static_cast<unsigned>(rng() % 6);
            flits = len == 3 ? 4 : len;
            break;
          case 3:
            flits = 1 + static_cast<unsigned>(rng() % 6);
            flits = flits == 3 ? 2 : flits;
            break;
          default:
            len = 2;
            flits = 2;
            break;
        }
      }
      deliver(b, mgmt_packet(d.src, dst, len, flits, d.words), what.c_str());
      const bool good = dst == kOwnLid && len == 3 && flits == 3;
      if (good && ref.size() < kDepth) {
        ref.push_back(d);
        ++want.recv;
      } else {
        ++want.drop;
      }
      if (sending) {
        wait_tx_idle(b, "send beside a receive");
        sent_ref.emplace_back(tdst, tw);
        ++want.sent;
      }
    } else if (r < 70) {
      pop(b);
      if (!ref.empty()) {
        ref.pop_front();
      }
    } else if (r < 85) {
      // A send; with tx held, a second SEND is ignored.
      const Words tw = random_words(rng);
      const auto tdst = static_cast<std::uint16_t>(1 + rng() % 0xBFFF);
      const bool hold = pct(rng) < 40;
      b.net.hold_tx(hold);
      write_tx(b, tw);
      if (pct(rng) < 30) {
        const auto q = static_cast<std::uint16_t>(1 + rng() % 40);
        b.net.inject(pfc_packet(pfc_frame(static_cast<std::uint8_t>(1U << kTcReset), q)),
                     rng() % 8);
        ++pauses;
      }
      send(b, tdst);
      if (hold) {
        write_tx(b, random_words(rng));
        send(b, 0x0999);
        TB_CHECK(tx_busy(b)) << what << ": TX_BUSY while held";
        b.net.hold_tx(false);
      }
      wait_tx_idle(b, "random send");
      sent_ref.emplace_back(tdst, tw);
      ++want.sent;
    } else if (r < 88) {
      // A soft reset, sometimes with a send just written: abandoned if its
      // header had not left, else it leaves whole (the bench checks that).
      const bool with_send = pct(rng) < 50;
      const std::size_t before = b.net.mgmt_sent().size();
      const Words tw = random_words(rng);
      const auto tdst = static_cast<std::uint16_t>(1 + rng() % 0xBFFF);
      if (with_send) {
        b.net.allow_withdraw(true);
        b.net.hold_tx(pct(rng) < 50);
        write_tx(b, tw);
        send(b, tdst);
        b.idle_cycles(rng() % 4);
      }
      csr.write(nic::CTRL, {{nic::CTRL_SOFT_RESET, 1}});
      ref.clear();
      if (with_send) {
        b.net.hold_tx(false);
        wait_tx_idle(b, "send beside a soft reset");
        b.idle_cycles(4);
        b.net.allow_withdraw(false);
        TB_CHECK(b.net.mgmt_sent().size() <= before + 1) << what << ": one send at most";
        if (b.net.mgmt_sent().size() == before + 1) {
          sent_ref.emplace_back(tdst, tw);
          ++want.sent;
        }
      }
    } else {
      b.idle_cycles(1 + rng() % 20);
    }
    b.idle_cycles(8);
    TB_CHECK_EQ(rx_level(b), ref.size()) << what << ": RX_LEVEL";
    check_head(b, ref.empty() ? Datagram{} : ref.front(), what);
    check_counts(b, want, what);
  }
  TB_CHECK_EQ(b.net.mgmt_sent().size(), sent_ref.size()) << "MGMT packets sent";
  for (std::size_t i = 0; i < sent_ref.size(); ++i) {
    check_sent(b.net.mgmt_sent().at(i), sent_ref.at(i).first, kTcReset, sent_ref.at(i).second,
               "random send " + std::to_string(i));
  }
  TB_CHECK_EQ(b.dev.read32(NIC_OFF(CNT_PFC_RX)), pauses) << "CNT_PFC_RX";
  std::cout << "nic_top_mbox.random: " << steps << " steps, " << want.sent << " sent, " << want.recv
            << " received, " << want.drop << " dropped, " << pauses << " pauses\n";
}

// nic_top on its link: PFC reception, the rx demux's drop rules and the
// traffic class of what it sends (docs/nic/top.md "rx demux", "Network
// arbiter", "PFC reception"; docs/nic/programming.md "The link"). The bench
// is nic_top_bench.hpp: the unchanged driver on RtlDevice, the peers of the
// barriers, and packets the tests inject on rx (PFC frames, multi-flit and
// malformed packets). Timing follows docs/switch-pfc.md: a pause of q quanta
// whose last flit is taken in cycle t holds the engine's priority paused in
// cycles t+1 .. t+q*cpq; a resume taken in cycle t ends it at the edge that
// ends t. "A packet starts" = a header is first shown on tx.
#include <algorithm>
#include <chrono>
#include <cstdint>
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

constexpr auto kTimeout = std::chrono::microseconds(400);
// A pause that outlasts the driver's HDQ post of a descriptor (the PIO
// writes and the activation, ~300 cycles): the engine then has packets
// waiting when it ends, so its end is seen to the cycle.
constexpr std::uint64_t kLongPause = 800;

// The bench after reset with its BFMs running and NODE_LID set; the driver
// is made by the test (some tests act before its bring-up).
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

// Injects `p` now and runs until its last flit is taken; returns that cycle.
std::uint64_t deliver(Bench& b, Packet p, const char* what) {
  const std::size_t id = b.net.inject(std::move(p), 0);
  run_until(
      b, [&] { return b.net.injected(id).done(); }, 2000, what);
  return b.net.injected(id).last_taken();
}

std::uint8_t bit(unsigned p) { return static_cast<std::uint8_t>(1U << p); }

// PFC_CFG, written while the engine is disabled (programming.md "The link").
void set_pfc_cfg(Bench& b, std::uint32_t enable, std::uint32_t cpq) {
  hw::Csr csr(b.dev);
  const std::uint32_t on = csr.read(nic::CTRL_ENABLE);
  csr.write(nic::CTRL, {{nic::CTRL_ENABLE, 0}});
  csr.write(nic::PFC_CFG, {{nic::PFC_CFG_ENABLE, enable}, {nic::PFC_CFG_CYC_PER_QUANTUM, cpq}});
  csr.write(nic::CTRL, {{nic::CTRL_ENABLE, on}});
}

bool tx_paused(Bench& b) { return hw::Csr(b.dev).read(nic::STATUS_TX_PAUSED) != 0; }

// Packets that started (first shown on tx) in cycles from .. to.
std::vector<NetworkBfm::Sent> starts(const Bench& b, std::uint64_t from, std::uint64_t to) {
  std::vector<NetworkBfm::Sent> v;
  for (const auto& s : b.net.sent()) {
    if (s.shown >= from && s.shown <= to) {
      v.push_back(s);
    }
  }
  if (b.net.waiting() && b.net.waiting()->shown >= from && b.net.waiting()->shown <= to) {
    v.push_back(*b.net.waiting());
  }
  return v;
}

// The first packet that started after cycle `after` (run until one has).
std::uint64_t first_start_after(Bench& b, std::uint64_t after, std::uint64_t max) {
  std::uint64_t first = 0;
  run_until(
      b,
      [&] {
        const auto v = starts(b, after + 1, UINT64_MAX);
        first = v.empty() ? 0 : v.front().shown;
        return !v.empty();
      },
      max, "a packet after the pause");
  return first;
}

// No packet started while paused (cycles paused_from .. paused_to), and the
// first one after starts in the first cycle the pause is over: the engine
// had packets waiting (the test makes sure of that).
void check_pause_window(Bench& b, std::uint64_t paused_from, std::uint64_t paused_to,
                        const std::string& what) {
  const auto during = starts(b, paused_from, paused_to);
  TB_CHECK(during.empty()) << what << ": a packet started in cycle " << during.front().shown
                           << ", paused in cycles " << paused_from << " .. " << paused_to;
  const std::uint64_t first = first_start_after(b, paused_to, 4 * kLongPause);
  TB_CHECK_EQ(first, paused_to + 1) << what << ": the first packet after the pause (paused "
                                    << paused_from << " .. " << paused_to << ")";
}

struct Counters {
  std::uint32_t sent, recv, nack_sent, nack_recv, retry, drop, dup, pfc_rx, pause_rx;
};
Counters read_counters(hw::Device& d) {
  hw::Csr c(d);
  return {c.read(nic::CNT_NOTIF_SENT), c.read(nic::CNT_NOTIF_RECV), c.read(nic::CNT_NACK_SENT),
          c.read(nic::CNT_NACK_RECV),  c.read(nic::CNT_RETRY),      c.read(nic::CNT_DROP),
          c.read(nic::CNT_DUP),        c.read(nic::CNT_PFC_RX),     c.read(nic::CNT_PAUSE_RX)};
}

// The end of every test: the peers' safety checks, and the counters of this
// one-NIC world (as nic_top_test.cpp) with the drops and PFC frames the test
// injected.
void finish(Bench& b, std::uint32_t drops, std::uint32_t pfc_frames, std::uint32_t pauses) {
  b.idle_cycles(200);
  TB_CHECK(b.net.idle()) << "network BFM still has packets to inject";
  b.world.verify(b.mem.cq_writes());
  const Counters c = read_counters(b.dev);
  const NetCounts& n = b.world.counts();
  TB_CHECK_EQ(c.sent, n.notif_sent) << "CNT_NOTIF_SENT";
  TB_CHECK_EQ(c.retry, n.resends) << "CNT_RETRY";
  TB_CHECK_EQ(c.nack_recv, n.nacks_to_nic) << "CNT_NACK_RECV";
  TB_CHECK_EQ(c.recv, n.acks_from_nic) << "CNT_NOTIF_RECV";
  TB_CHECK_EQ(c.nack_sent, n.nacks_from_nic) << "CNT_NACK_SENT";
  TB_CHECK_EQ(c.drop, drops + n.garbage) << "CNT_DROP";
  TB_CHECK_EQ(c.dup, 0U) << "CNT_DUP";
  TB_CHECK_EQ(c.pfc_rx, pfc_frames) << "CNT_PFC_RX";
  TB_CHECK_EQ(c.pause_rx, pauses) << "CNT_PAUSE_RX";
}

// Posts one barrier on `bc` whose peers' NOTIFYs come `base` cycles on.
void post(Bench& b, drv::BarrierContext& bc, const std::vector<std::uint16_t>& lids,
          unsigned base = 0, unsigned skew = 0) {
  const std::uint16_t epoch = bc.next_descriptor(drv::WaitMode::kPoll).epoch();
  b.world.expect(bc.id(), epoch, bc.schedule(), lids, skew, 0, base);
  bc.arrive(drv::SubmitPath::kHdq);
}

void collect(drv::BarrierContext& bc, const std::string& what) {
  TB_CHECK(bc.wait(kTimeout)) << what << ": barrier on ctx " << bc.id() << " did not complete";
}

}  // namespace

// A pause of q quanta stops new packets for exactly q x CYC_PER_QUANTUM
// cycles from the edge pfc_rx takes it at, for a random CYC_PER_QUANTUM and
// for 0 (taken as 1). A barrier is posted during the pause: its NOTIFYs and
// the peers' ACKs wait, and the first leaves in the first free cycle.
SYNCFAB_TEST(nic_top_pfc, pause_exact) {
  auto& rng = ctx.rng();
  Bench b(ctx, Knobs{}, rng());
  co_await start(b);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(8, 3);
  auto bc = n.open_context(drv::ContextConfig(1, 3, 8, 1, lids));
  const std::uint32_t cpq_reg = 1 + static_cast<std::uint32_t>(rng() % 12);
  std::uint32_t pauses = 0;
  for (const std::uint32_t reg : {cpq_reg, 0U}) {
    const std::uint32_t cpq = reg == 0 ? 1 : reg;
    set_pfc_cfg(b, 0xFF, reg);
    const std::uint64_t q = (kLongPause + cpq - 1) / cpq + rng() % 40;
    const std::uint64_t t = deliver(b, pfc_packet(pfc_frame(bit(kTcReset), q)), "pause");
    ++pauses;
    TB_CHECK(tx_paused(b)) << "STATUS.TX_PAUSED during the pause";
    post(b, bc, lids);
    const std::string what = "CYC_PER_QUANTUM " + std::to_string(reg) + ", " + std::to_string(q) +
                             " quanta taken in cycle " + std::to_string(t);
    check_pause_window(b, t + 1, t + q * cpq, what);
    std::cout << "nic_top_pfc.pause_exact: " << what << ": no packet in cycles " << t + 1 << " .. "
              << t + q * cpq << ", the first in cycle " << t + q * cpq + 1 << "\n";
    TB_CHECK(!tx_paused(b)) << "STATUS.TX_PAUSED after the pause";
    collect(bc, what);
  }
  finish(b, 0, pauses, pauses);
}

// A resume (quanta 0) ends a pause at once: the first waiting packet starts
// in the cycle after the resume's last flit is taken. A later pause replaces
// the time left (a shorter one shortens it). The peers' NOTIFYs come after
// the second frame: SE holds two responses, and a third NOTIFY it cannot
// take would hold the link and the frame behind it (programming.md "The
// link": a long pause back-pressures the receive link), so what waits at
// the end of each pause is TE's round-0 NOTIFY.
SYNCFAB_TEST(nic_top_pfc, resume) {
  auto& rng = ctx.rng();
  Bench b(ctx, Knobs{}, rng());
  co_await start(b);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(8, 5);
  auto bc = n.open_context(drv::ContextConfig(2, 5, 8, 2, lids));
  // Resume.
  const std::uint64_t t0 = deliver(b, pfc_packet(pfc_frame(bit(kTcReset), 0xFFFF)), "pause");
  post(b, bc, lids, 2 * kLongPause);
  b.idle_cycles(kLongPause + rng() % 200);
  TB_CHECK(starts(b, t0 + 1, UINT64_MAX).empty()) << "a packet started during the pause";
  const std::uint64_t tr = deliver(b, pfc_packet(pfc_frame(bit(kTcReset), 0)), "resume");
  const std::uint64_t first = first_start_after(b, t0, 100);
  TB_CHECK_EQ(first, tr + 1) << "first packet after the resume taken in cycle " << tr;
  std::cout << "nic_top_pfc.resume: paused from cycle " << t0 + 1 << ", resume taken in cycle "
            << tr << ", first packet in cycle " << first << "\n";
  collect(bc, "resume");
  // A pause of 0xFFFF quanta replaced by one of q: it ends q x cpq after the second.
  const std::uint64_t t1 = deliver(b, pfc_packet(pfc_frame(bit(kTcReset), 0xFFFF)), "long pause");
  post(b, bc, lids, 3 * kLongPause);
  b.idle_cycles(kLongPause / 2);
  const std::uint64_t q = kLongPause / kCpqReset + rng() % 20;
  const std::uint64_t t2 = deliver(b, pfc_packet(pfc_frame(bit(kTcReset), q)), "shorter pause");
  check_pause_window(
      b, t1 + 1, t2 + q * kCpqReset,
      "a pause replaced in cycle " + std::to_string(t2) + " by " + std::to_string(q) + " quanta");
  collect(bc, "replaced pause");
  finish(b, 0, 4, 3);
}

// A pause that arrives while a header is shown and not taken (tx_ready low):
// the header stays, unchanged (the BFM checks it), and leaves when the link
// takes it during the pause; nothing else starts until the pause is over
// (TE's other round-0 NOTIFYs wait). The peers' NOTIFYs come later, so that
// none holds the link in front of the frame (see resume).
SYNCFAB_TEST(nic_top_pfc, pause_while_presented) {
  auto& rng = ctx.rng();
  Bench b(ctx, Knobs{}, rng());
  co_await start(b);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(64, 10);  // k = 3: three NOTIFYs in round 0
  auto bc = n.open_context(drv::ContextConfig(0, 10, 64, 3, lids));
  b.net.hold_tx(true);
  post(b, bc, lids, 2 * kLongPause);
  run_until(
      b, [&] { return b.net.waiting().has_value(); }, 2000, "a NOTIFY shown");
  const NetworkBfm::Sent shown = *b.net.waiting();
  b.idle_cycles(rng() % 20);
  const std::uint64_t q = 20 + rng() % 20;
  const std::uint64_t t = deliver(b, pfc_packet(pfc_frame(bit(kTcReset), q)), "pause");
  const std::uint64_t paused_to = t + q * kCpqReset;
  b.idle_cycles(1 + rng() % (q * kCpqReset / 2));
  TB_CHECK(b.net.waiting() && b.net.waiting()->shown == shown.shown)
      << "the header shown in cycle " << shown.shown << " is no longer waiting";
  b.net.hold_tx(false);
  run_until(
      b, [&] { return !b.net.waiting(); }, 10, "the held header taken");
  const NetworkBfm::Sent last = b.net.sent().back();
  TB_CHECK_EQ(last.shown, shown.shown) << "the held header was the one taken";
  TB_CHECK(last.taken > t && last.taken <= paused_to)
      << "the held header was taken in cycle " << last.taken << ", inside the pause " << t + 1
      << " .. " << paused_to;
  check_pause_window(b, t + 1, paused_to, "a pause over a held header");
  std::cout << "nic_top_pfc.pause_while_presented: header shown in cycle " << shown.shown
            << ", pause taken in cycle " << t << ", header taken in cycle " << last.taken
            << ", next packet in cycle " << paused_to + 1 << "\n";
  collect(bc, "held header");
  finish(b, 0, 1, 1);
}

// Frames that must stop nothing: a pause of every other priority (with
// NET_CFG.TC's quanta set but its class bit clear), and a pause of
// NET_CFG.TC with its PFC_CFG.ENABLE bit clear. The barriers run through the
// would-be pause; CNT_PFC_RX counts the frames, CNT_PAUSE_RX none. The other
// priorities' pauses run on: NET_CFG.TC moved onto one shows it paused.
SYNCFAB_TEST(nic_top_pfc, pause_ignored) {
  auto& rng = ctx.rng();
  Bench b(ctx, Knobs{}, rng());
  co_await start(b);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  hw::Csr csr(b.dev);
  const auto lids = rank_lids(16, 7);
  auto bc = n.open_context(drv::ContextConfig(3, 7, 16, 2, lids));
  const std::uint16_t q = 4000;  // 32 000 cycles at 8 per quantum
  const auto others = static_cast<std::uint8_t>(0xFF & ~bit(kTcReset));
  {
    fmt::PfcFrame f = pfc_frame(others, q);
    f.set_quanta(kTcReset, q);  // quanta for the TC, its class bit clear
    const std::uint64_t t = deliver(b, pfc_packet(f), "pause of the other priorities");
    TB_CHECK(!tx_paused(b)) << "STATUS.TX_PAUSED after a pause of other priorities";
    post(b, bc, lids);
    collect(bc, "other priorities paused");
    TB_CHECK(!starts(b, t + 1, t + std::uint64_t{q} * kCpqReset).empty())
        << "no packet was sent during the other priorities' pause";
  }
  {
    set_pfc_cfg(b, others, kCpqReset);
    const std::uint64_t t =
        deliver(b, pfc_packet(pfc_frame(bit(kTcReset), q)), "pause of a disabled priority");
    TB_CHECK(!tx_paused(b)) << "STATUS.TX_PAUSED after a pause of a disabled priority";
    post(b, bc, lids);
    collect(bc, "disabled priority paused");
    TB_CHECK(!starts(b, t + 1, t + std::uint64_t{q} * kCpqReset).empty())
        << "no packet was sent during the disabled priority's pause";
    set_pfc_cfg(b, 0xFF, kCpqReset);
  }
  {
    // The other priorities are still paused: NET_CFG.TC on one of them shows it.
    const auto p = static_cast<unsigned>((kTcReset + 1 + rng() % 7) % 8);
    csr.write(nic::CTRL, {{nic::CTRL_ENABLE, 0}});
    b.set_tc(p);
    TB_CHECK(tx_paused(b)) << "NET_CFG.TC = " << p << ": its pause is kept";
    b.set_tc(kTcReset);
    TB_CHECK(!tx_paused(b)) << "NET_CFG.TC back to " << kTcReset;
    csr.write(nic::CTRL, {{nic::CTRL_ENABLE, 1}});
  }
  finish(b, 0, 2, 0);
}

// Malformed PFC frames (one flit, three or more, two with len_flits != 2),
// each naming NET_CFG.TC with a long pause: consumed a flit per cycle,
// counted CNT_DROP once each, never honoured. A well-formed frame after
// them is honoured, and a barrier runs: the demux is back at a packet's
// start. Bubbles inside the frames now and then.
SYNCFAB_TEST(nic_top_pfc, malformed_pfc) {
  auto& rng = ctx.rng();
  Knobs k;
  k.rx_gap = 0.3;
  Bench b(ctx, k, rng());
  co_await start(b);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  std::vector<std::size_t> ids;
  const unsigned count = 12 + static_cast<unsigned>(rng() % 8);
  for (unsigned i = 0; i < count; ++i) {
    fmt::PfcFrame f = pfc_frame(bit(kTcReset), 0x1000);
    Packet p = pfc_packet(f);
    switch ((i + rng()) % 3) {
      case 0:  // one flit (len_flits 2 or not)
        p.resize(1);
        break;
      case 1: {  // three or more flits
        const std::size_t extra = 1 + rng() % 4;
        for (std::size_t e = 0; e < extra; ++e) {
          p.push_back(p.back());
        }
        if (rng() % 2 == 0) {
          f.set_len_flits(static_cast<std::uint8_t>(p.size()));
          std::copy_n(f.bytes().begin(), kFlitBytes, p[0].begin());
        }
        break;
      }
      default: {  // two flits, len_flits != 2
        auto len = static_cast<std::uint8_t>(rng());
        len = len == 2 ? 3 : len;
        f.set_len_flits(len);
        std::copy_n(f.bytes().begin(), kFlitBytes, p[0].begin());
        break;
      }
    }
    ids.push_back(b.net.inject(std::move(p), rng() % 3 == 0 ? 0 : rng() % 40));
  }
  run_until(
      b,
      [&] {
        return std::all_of(ids.begin(), ids.end(),
                           [&](auto i) { return b.net.injected(i).done(); });
      },
      4000, "the malformed frames consumed");
  for (const auto i : ids) {
    const auto& in = b.net.injected(i);
    TB_CHECK(in.shown == in.taken) << "frame " << i << ": a flit waited for rx_ready";
  }
  TB_CHECK(!tx_paused(b)) << "STATUS.TX_PAUSED after malformed frames";
  Counters c = read_counters(b.dev);
  TB_CHECK_EQ(c.drop, count) << "CNT_DROP: one per malformed frame";
  TB_CHECK_EQ(c.pfc_rx, 0U) << "CNT_PFC_RX: malformed frames are not PFC frames received";
  TB_CHECK_EQ(c.pause_rx, 0U) << "CNT_PAUSE_RX";
  // A well-formed one after them is honoured; a resume ends it.
  deliver(b, pfc_packet(pfc_frame(bit(kTcReset), 0x1000)), "well-formed pause");
  TB_CHECK(tx_paused(b)) << "a well-formed frame after malformed ones is honoured";
  deliver(b, pfc_packet(pfc_frame(bit(kTcReset), 0)), "resume");
  TB_CHECK(!tx_paused(b)) << "resumed";
  const auto lids = rank_lids(9, 4);
  auto bc = n.open_context(drv::ContextConfig(0, 4, 9, 2, lids));
  post(b, bc, lids, 0, 50);
  collect(bc, "after malformed frames");
  std::cout << "nic_top_pfc.malformed_pfc: " << count
            << " malformed frames, each dropped once; then a pause and a resume honoured\n";
  finish(b, count, 2, 1);
}

// Packets the engine does not consume: NOTIFY, ACK and NACK of more than one
// flit (addressed to this node, fields of a barrier it runs), COMB_ARRIVE of
// 1 .. 8 flits, CNP of two or three, an unknown type (DATA and one-flit CNPs
// are the data path's: tests/rtl/nic/nic_top_dcqcn_test.cpp). Every flit is taken in the cycle it
// is shown and each packet is counted CNT_DROP once, at its last flit; nothing reaches SE or TE (no
// response, no NOTIF_RECV), and a barrier whose NOTIFYs come in between them completes.
SYNCFAB_TEST(nic_top_pfc, multi_flit_drop) {
  auto& rng = ctx.rng();
  Knobs k;
  k.rx_gap = 0.25;
  Bench b(ctx, k, rng());
  co_await start(b);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  const auto lids = rank_lids(27, 13);
  auto bc = n.open_context(drv::ContextConfig(1, 13, 27, 2, lids));
  const std::uint16_t epoch = bc.next_descriptor(drv::WaitMode::kPoll).epoch();
  std::vector<std::size_t> ids;
  const unsigned count = 20 + static_cast<unsigned>(rng() % 10);
  for (unsigned i = 0; i < count; ++i) {
    fmt::PktHdr h;
    h.set_dst_lid(kOwnLid).set_src_lid(lids[12]).set_ctx(1).set_epoch(epoch).set_round(0);
    std::size_t flits = 1;
    switch (rng() % 6) {
      case 0:
        h.set_pkt_type(fmt::PktType::kNotify);
        flits = 2 + rng() % 3;
        break;
      case 1:
        h.set_pkt_type(rng() % 2 == 0 ? fmt::PktType::kAck : fmt::PktType::kNack);
        flits = 2 + rng() % 2;
        break;
      case 2:
      case 3:
        // COMB_ARRIVE is for switches: the NIC drops it whatever its length.
        h.set_pkt_type(fmt::PktType::kCombArrive);
        flits = 1 + rng() % 8;
        break;
      case 4:
        // A CNP of more than one flit (one flit: the data path's).
        h.set_pkt_type(fmt::PktType::kCnp);
        flits = 2 + rng() % 2;
        break;
      default:
        h.set_pkt_type(static_cast<fmt::PktType>(0x70 + rng() % 16));
        flits = 1 + rng() % 3;
        break;
    }
    // len_flits as the packet says or not: the demux goes by `last`.
    h.set_len_flits(static_cast<std::uint8_t>(rng() % 2 == 0 ? flits : 1));
    Packet p(flits, flit_of(h));
    for (std::size_t f = 1; f < flits; ++f) {
      p[f].fill(static_cast<std::uint8_t>(rng()));
    }
    ids.push_back(b.net.inject(std::move(p), rng() % 2 == 0 ? 0 : rng() % 300));
  }
  post(b, bc, lids, 0, 300);
  run_until(
      b,
      [&] {
        return std::all_of(ids.begin(), ids.end(),
                           [&](auto i) { return b.net.injected(i).done(); });
      },
      8000, "the packets consumed");
  for (const auto i : ids) {
    const auto& in = b.net.injected(i);
    TB_CHECK(in.shown == in.taken) << "packet " << i << ": a flit waited for rx_ready";
  }
  collect(bc, "between dropped packets");
  std::cout << "nic_top_pfc.multi_flit_drop: " << count
            << " packets dropped, one count each, every flit taken when shown\n";
  finish(b, count, 0, 0);
}

// Every packet carries prio = NET_CFG.TC (a random one): NOTIFYs, re-sends,
// ACKs and NACKs (the peers NACK some NOTIFYs and flood the request DAMQ
// before the descriptor is active). A pause of the new priority stops the
// engine, one of the reset priority does not.
SYNCFAB_TEST(nic_top_pfc, prio_is_tc) {
  auto& rng = ctx.rng();
  Knobs k;
  k.peer_retry = 60;
  Bench b(ctx, k, rng());
  co_await start(b);
  const auto tc = static_cast<unsigned>(rng() % fmt::kNumPrio);
  b.set_tc(tc);  // engine disabled after reset
  auto opts = nic_options(b);
  opts.traffic_class = tc;  // the driver writes NET_CFG at bring-up
  drv::Nic n(b.dev, b.memory, opts);
  b.watch_cq();
  const auto lids = rank_lids(64, 10);
  auto bc = n.open_context(drv::ContextConfig(0, 10, 64, 3, lids));
  b.world.force_nacks(3);
  post(b, bc, lids);
  collect(bc, "NET_CFG.TC " + std::to_string(tc));
  unsigned notify = 0;
  unsigned ack = 0;
  unsigned nack = 0;
  for (const auto& s : b.net.sent()) {
    notify += s.hdr.pkt_type() == fmt::PktType::kNotify ? 1 : 0;
    ack += s.hdr.pkt_type() == fmt::PktType::kAck ? 1 : 0;
    nack += s.hdr.pkt_type() == fmt::PktType::kNack ? 1 : 0;
  }
  TB_CHECK(notify > 0 && ack > 0 && nack > 0)
      << "NOTIFY " << notify << ", ACK " << ack << ", NACK " << nack << ": a type never sent";
  std::cout << "nic_top_pfc.prio_is_tc: NET_CFG.TC " << tc << ": NOTIFY " << notify << ", ACK "
            << ack << ", NACK " << nack << ", all on priority " << tc << "\n";
  std::uint32_t frames = 0;
  std::uint32_t pauses = 0;
  if (tc != kTcReset) {
    deliver(b, pfc_packet(pfc_frame(bit(kTcReset), 0x1000)), "pause of the reset priority");
    ++frames;
    TB_CHECK(!tx_paused(b)) << "a pause of priority " << kTcReset << " with NET_CFG.TC " << tc;
  }
  deliver(b, pfc_packet(pfc_frame(bit(tc), 0x1000)), "pause of NET_CFG.TC");
  TB_CHECK(tx_paused(b)) << "a pause of NET_CFG.TC = " << tc;
  deliver(b, pfc_packet(pfc_frame(0xFF, 0)), "resume");
  frames += 2;
  ++pauses;
  TB_CHECK(!tx_paused(b)) << "resumed";
  finish(b, 0, frames, pauses);
}

// The pause belongs to the link: frames are honoured while CTRL.ENABLE is 0,
// and neither the driver's bring-up (CTRL = 0, CTRL.SOFT_RESET) nor an
// explicit soft reset clears a pause in force or the demux's place inside a
// long packet; the pause still ends exactly q x cpq after it was taken.
SYNCFAB_TEST(nic_top_pfc, soft_reset_keeps_pause) {
  auto& rng = ctx.rng();
  Bench b(ctx, Knobs{}, rng());
  co_await start(b);
  hw::Csr csr(b.dev);
  const std::uint64_t q = 3 * kLongPause / kCpqReset + rng() % 100;
  const std::uint64_t t = deliver(b, pfc_packet(pfc_frame(bit(kTcReset), q)), "pause");
  TB_CHECK_EQ(csr.read(nic::CTRL_ENABLE), 0U) << "the engine is disabled after reset";
  TB_CHECK(tx_paused(b)) << "a frame is honoured while CTRL.ENABLE is 0";
  // A long packet the NIC drops (COMB_ARRIVE is for switches) under way
  // while the driver soft-resets the engine.
  fmt::PktHdr h;
  h.set_pkt_type(fmt::PktType::kCombArrive).set_len_flits(255).set_dst_lid(kOwnLid);
  const std::size_t data = b.net.inject(Packet(255, flit_of(h)), 0);
  b.idle_cycles(5);
  drv::Nic n(b.dev, b.memory, nic_options(b));
  b.watch_cq();
  TB_CHECK(!b.net.injected(data).done()) << "the long packet ended before the soft reset";
  TB_CHECK(tx_paused(b)) << "STATUS.TX_PAUSED after the driver's soft reset";
  csr.write(nic::CTRL, {{nic::CTRL_ENABLE, 1}, {nic::CTRL_SOFT_RESET, 1}});
  run_until(
      b, [&] { return csr.read(nic::STATUS_RESETTING) == 0; }, 500, "soft reset");
  TB_CHECK(tx_paused(b)) << "STATUS.TX_PAUSED after CTRL.SOFT_RESET";
  run_until(
      b, [&] { return b.net.injected(data).done(); }, 1000, "the long packet");
  TB_CHECK_EQ(read_counters(b.dev).drop, 1U) << "the long packet dropped once, at its last flit";
  const auto lids = rank_lids(4, 2);
  auto bc = n.open_context(drv::ContextConfig(2, 2, 4, 1, lids));
  post(b, bc, lids);
  check_pause_window(b, t + 1, t + q * kCpqReset, "a pause across soft resets");
  std::cout << "nic_top_pfc.soft_reset_keeps_pause: pause taken in cycle " << t
            << " (engine disabled), kept across the bring-up and a soft reset, over in cycle "
            << t + q * kCpqReset << "\n";
  collect(bc, "after the pause");
  finish(b, 1, 1, 1);
}

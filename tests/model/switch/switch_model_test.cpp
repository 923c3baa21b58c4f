// The whole-switch golden model against docs/switch-datapath.md, rule by
// rule, every expectation worked out by hand (cycles included, with the
// latencies of "Golden model decisions": a copy may leave the cycle after
// its last flit arrived; pfc_tx sees the occupancy of the previous edge).
// Everything is programmed through driver::Switch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "switch_model_fixture.hpp"
#include "syncfab/hw/switch_regs.hpp"

namespace syncfab::model::test {
namespace {

namespace r = hw::switch_regs;

std::vector<unsigned> queues_of(const std::vector<TxPacket>& log) {
  std::vector<unsigned> q;
  q.reserve(log.size());
  for (const TxPacket& t : log) {
    q.push_back(t.queue);
  }
  return q;
}

TEST_F(SwitchModelTest, UnicastLeavesTheCycleAfterItsLastFlitWithTheSameBytes) {
  sw.set_lft(5, 2);
  const PktSpec s{.len = 4, .dst = 5, .prio = 2, .flow = 7};
  const std::uint64_t id = send(0, s, 0);
  run_to(4);  // flits in cycles 0..3
  EXPECT_EQ(m.buffer_used(0), 4U);
  EXPECT_EQ(m.occupancy(0, 2), 4U);
  EXPECT_EQ(m.queue_cells(2, 2), 4U);
  EXPECT_TRUE(m.transmitted(2).empty());
  run_to(8);
  ASSERT_EQ(m.transmitted(2).size(), 1U);
  const TxPacket& t = m.transmitted(2)[0];
  EXPECT_EQ(t.pkt_id, id);
  EXPECT_EQ(t.in_port, 0U);
  EXPECT_EQ(t.queue, 2U);
  EXPECT_EQ(t.first_cycle, 4U);
  EXPECT_EQ(t.last_cycle, 7U);
  EXPECT_EQ(t.flits, make_packet(s));
  EXPECT_EQ(m.buffer_used(0), 0U);
  EXPECT_EQ(m.occupancy(0, 2), 0U);
  EXPECT_EQ(cnt(0, 2, fmt::SwCounter::kRx), 1U);
  EXPECT_EQ(cnt(2, 2, fmt::SwCounter::kTx), 1U);
  for (unsigned o : {0U, 1U, 3U}) {
    EXPECT_TRUE(m.transmitted(o).empty()) << o;
  }
  EXPECT_TRUE(m.idle());
  EXPECT_TRUE(m.violations().empty());
}

TEST_F(SwitchModelTest, UnicastMayLeaveThroughItsOwnInput) {
  sw.set_lft(5, 0);  // "the port as programmed, even i"
  send(0, {.len = 2, .dst = 5, .prio = 1}, 0);
  run_to(5);
  ASSERT_EQ(m.transmitted(0).size(), 1U);
  EXPECT_EQ(m.transmitted(0)[0].first_cycle, 2U);
}

// Flits with rx gaps (cycles 0, 3, 4, 9): occupancy counts each flit at the
// edge ending its cycle; the copy may leave the cycle after the last one.
TEST_F(SwitchModelTest, RxGapsAreCountedFlitByFlit) {
  sw.set_lft(5, 1);
  const PktSpec s{.len = 4, .dst = 5, .prio = 6, .flow = 2};
  const std::vector<Flit> f = make_packet(s);
  const std::vector<std::uint64_t> at{0, 3, 4, 9};
  m.receive_timed(0, f, at);
  run_to(3);
  EXPECT_EQ(m.occupancy(0, 6), 1U);
  run_to(9);
  EXPECT_EQ(m.occupancy(0, 6), 3U);
  EXPECT_TRUE(m.transmitted(1).empty());
  run_to(20);
  ASSERT_EQ(m.transmitted(1).size(), 1U);
  EXPECT_EQ(m.transmitted(1)[0].first_cycle, 10U);
  EXPECT_EQ(m.transmitted(1)[0].flits, f);
  EXPECT_THROW(m.receive_timed(0, f, std::vector<std::uint64_t>{30, 31, 31, 32}),
               std::invalid_argument);
}

// Output 2 stalled in cycles 5 and 6 while it sends a 4-flit packet (first
// flit in 4): flits in 4, 7, 8, 9; the input's read port is held meanwhile,
// so input 0's next packet for output 3 waits until 10.
TEST_F(SwitchModelTest, TxBackpressureStretchesAPacketAndHoldsTheReadPort) {
  sw.set_lft(5, 2);
  sw.set_lft(6, 3);
  m.set_tx_ready([](unsigned port, std::uint64_t cycle) {
    return !(port == 2 && (cycle == 5 || cycle == 6));
  });
  send(0, {.len = 4, .dst = 5, .prio = 0}, 0);  // may leave from 4
  send(0, {.len = 1, .dst = 6, .prio = 0}, 4);  // may leave from 5
  run_to(20);
  ASSERT_EQ(m.transmitted(2).size(), 1U);
  EXPECT_EQ(m.transmitted(2)[0].first_cycle, 4U);
  EXPECT_EQ(m.transmitted(2)[0].last_cycle, 9U);
  ASSERT_EQ(m.transmitted(3).size(), 1U);
  EXPECT_EQ(m.transmitted(3)[0].first_cycle, 10U);
}

// The latencies the spec leaves open are parameters: fwd_latency 3,
// egress_gap 2, pfc_rx_latency 4.
TEST(SwitchModelParams, LatenciesShiftTheTimeline) {
  SwitchModelParams p = small_switch();
  p.fwd_latency = 3;
  p.egress_gap = 2;
  p.pfc_rx_latency = 4;
  SwitchModel m(p);
  driver::Switch sw(m.csr());
  sw.enable(true);
  driver::SchedConfig sc;
  sc.weight.fill(32);
  sw.configure_scheduler(1, sc);
  driver::PfcPortConfig c{};
  c[0] = {true, 32, 16, 1000};
  sw.configure_pfc(2, c, driver::LinkParams{2, 16});
  sw.set_lft(5, 1);
  m.receive(0, make_packet({.len = 2, .dst = 5, .flow = 1}), 0);  // last flit 1 -> 4..5
  m.receive(0, make_packet({.len = 2, .dst = 5, .flow = 2}), 2);  // last flit 3 -> 6, gap -> 8..9
  m.receive(2, make_pfc(0x01, 1000), 0);                          // last flit 1 -> taken in 5
  while (m.cycle() < 5) {
    m.tick();
  }
  EXPECT_EQ(sw.counter(2, 0, fmt::SwCounter::kPauseRx), 0U);
  m.tick();
  EXPECT_EQ(sw.counter(2, 0, fmt::SwCounter::kPauseRx), 1U);
  while (m.cycle() < 20) {
    m.tick();
  }
  ASSERT_EQ(m.transmitted(1).size(), 2U);
  EXPECT_EQ(m.transmitted(1)[0].first_cycle, 4U);
  EXPECT_EQ(m.transmitted(1)[1].first_cycle, 8U);
  EXPECT_THROW(SwitchModel(SwitchModelParams{.fwd_latency = 0}), std::invalid_argument);
}

// starts_per_cycle 1 (one output matched per cycle switch-wide): two copies
// ready in cycle 2 for outputs 1 and 2 start in 2 and 3, in the round-robin
// order that starts at output 2 % 4 = 2.
TEST(SwitchModelParams, OneStartPerCycle) {
  SwitchModelParams p = small_switch();
  p.starts_per_cycle = 1;
  SwitchModel m(p);
  driver::Switch sw(m.csr());
  sw.enable(true);
  sw.set_lft(5, 1);
  sw.set_lft(6, 2);
  m.receive(0, make_packet({.dst = 5}), 1);
  m.receive(3, make_packet({.dst = 6}), 1);
  while (m.cycle() < 10) {
    m.tick();
  }
  ASSERT_EQ(m.transmitted(1).size(), 1U);
  ASSERT_EQ(m.transmitted(2).size(), 1U);
  EXPECT_EQ(m.transmitted(2)[0].first_cycle, 2U);
  EXPECT_EQ(m.transmitted(1)[0].first_cycle, 3U);
}

// enqueue_per_cycle (docs/switch-datapath.md "Enqueue", rate) with the
// switch's fwd_latency 3: four one-flit packets complete in cycle 0 on
// inputs 0..3 for four different outputs; a limited engine takes one a
// cycle, inputs round robin from input 0, so they leave in 3, 4, 5, 6 (all
// in 3 without the limit). Then a multicast packet on input 0 and a unicast
// one on input 1 complete in cycle 10: the round robin goes on after input
// 3, so input 0's packet comes first. By copy, its copies are enqueued back
// to back in output order (10, 11, 12) and input 1's in 13: it leaves in 16
// instead of 13. By packet (the RTL's engine), input 0's copies are all
// enqueued in 10 and input 1's packet in 11: it leaves in 14. Input 0's
// copies leave one after the other in every mode (one read port; no shared
// read here).
TEST(SwitchModelParams, EnqueueRateByCopyAndByPacket) {
  struct Mode {
    unsigned rate;
    bool by_packet;
    std::uint64_t input1_leaves;
  };
  for (const Mode& mode : {Mode{0, false, 13}, Mode{1, false, 16}, Mode{1, true, 14}}) {
    SCOPED_TRACE("rate " + std::to_string(mode.rate) + (mode.by_packet ? " by packet" : ""));
    SwitchModelParams p = small_switch();
    p.fwd_latency = 3;
    p.enqueue_per_cycle = mode.rate;
    p.enqueue_by_packet = mode.by_packet;
    SwitchModel m(p);
    driver::Switch sw(m.csr());
    sw.enable(true);
    for (unsigned d = 0; d < 4; ++d) {
      sw.set_lft(static_cast<std::uint16_t>(5 + d), (d + 1) % 4);
    }
    sw.set_mft(0xC001, 0b1110);
    for (unsigned in = 0; in < 4; ++in) {
      m.receive(in, make_packet({.dst = static_cast<std::uint16_t>(5 + in)}), 0);
    }
    m.receive(0, make_packet({.dst = 0xC001, .flow = 9}), 10);
    m.receive(1, make_packet({.dst = 8, .flow = 4}), 10);
    ASSERT_TRUE(m.run_until_idle(100));
    std::vector<std::uint64_t> first;
    for (unsigned in = 0; in < 4; ++in) {
      const auto& log = m.transmitted((in + 1) % 4);
      ASSERT_EQ(log.size(), 2U);
      first.push_back(log[0].first_cycle);
    }
    const std::vector<std::uint64_t> want0 = mode.rate == 0
                                                 ? std::vector<std::uint64_t>{3, 3, 3, 3}
                                                 : std::vector<std::uint64_t>{3, 4, 5, 6};
    EXPECT_EQ(first, want0);
    EXPECT_EQ(m.transmitted(1)[1].first_cycle, 13U);
    EXPECT_EQ(m.transmitted(2)[1].first_cycle, 14U);
    EXPECT_EQ(m.transmitted(3)[1].first_cycle, 15U);
    EXPECT_EQ(m.transmitted(0)[1].first_cycle, mode.input1_leaves);
    EXPECT_TRUE(m.violations().empty());
  }
}

// By packet or by copy, the WRED decisions are the same: the shared LFSR
// steps once per copy in increasing output order either way, and with every
// output stalled a copy's queue length is the cells enqueued before it.
// Multicast packets from two inputs to three outputs, WRED on every queue
// they use: the marked copies (packet, output) must be the same set.
TEST(SwitchModelParams, EnqueueByPacketDecidesAsByCopy) {
  std::array<std::vector<std::pair<std::uint64_t, unsigned>>, 2> marked;
  for (const bool by_packet : {false, true}) {
    SwitchModelParams p = small_switch();
    p.enqueue_per_cycle = 1;
    p.enqueue_by_packet = by_packet;
    p.shared_wred = true;
    SwitchModel m(p);
    driver::Switch sw(m.csr());
    sw.enable(true);
    sw.set_mft(0xC001, 0b1110);
    sw.set_mft(0xC002, 0b1101);
    for (unsigned o = 0; o < 4; ++o) {
      sw.configure_wred(o, 0, driver::WredQueue{true, 0, 40, 128});
      m.set_tx_stalled(o, true);
    }
    for (std::uint64_t c = 0; c < 12; ++c) {
      m.receive(0,
                make_packet(
                    {.dst = 0xC001, .ecn = fmt::Ecn::kEct0, .flow = static_cast<std::uint32_t>(c)}),
                2 * c);
      m.receive(1,
                make_packet(
                    {.dst = 0xC002, .ecn = fmt::Ecn::kEct0, .flow = static_cast<std::uint32_t>(c)}),
                2 * c);
    }
    m.run(100);
    for (unsigned o = 0; o < 4; ++o) {
      m.set_tx_stalled(o, false);
    }
    ASSERT_TRUE(m.run_until_idle(500)) << by_packet;
    for (unsigned o = 0; o < 4; ++o) {
      for (const TxPacket& t : m.transmitted(o)) {
        if (t.header().ecn() == fmt::Ecn::kCe) {
          marked.at(by_packet ? 1 : 0).emplace_back(t.pkt_id, o);
        }
      }
    }
    EXPECT_TRUE(m.violations().empty());
  }
  std::ranges::sort(marked[0]);
  std::ranges::sort(marked[1]);
  EXPECT_FALSE(marked[0].empty());
  EXPECT_EQ(marked[0], marked[1]);
}

// With the copies of a multicast packet enqueued one a cycle, a copy can
// leave before its siblings are enqueued (fwd_latency 1: the copy to output
// 1, enqueued in 0, leaves in 1; the copy to output 3 is enqueued in 2): the
// packet stays stored until its last copy has left, every copy carries the
// packet's bytes and the cells are freed once, at the end.
TEST(SwitchModelParams, EarlyCopyDoesNotFreeItsSiblings) {
  SwitchModelParams p = small_switch();
  p.enqueue_per_cycle = 1;
  SwitchModel m(p);
  driver::Switch sw(m.csr());
  sw.enable(true);
  sw.set_mft(0xC001, 0b1110);
  const PktSpec s{.dst = 0xC001, .flow = 3};
  m.receive(0, make_packet(s), 0);
  ASSERT_TRUE(m.run_until_idle(20));
  for (unsigned o = 1; o < 4; ++o) {
    ASSERT_EQ(m.transmitted(o).size(), 1U) << o;
    EXPECT_EQ(m.transmitted(o)[0].first_cycle, o) << o;
    EXPECT_EQ(m.transmitted(o)[0].flits, make_packet(s)) << o;
  }
  EXPECT_EQ(m.buffer_used(0), 0U);
  EXPECT_TRUE(m.violations().empty());
}

// Marks per copy are exactly those of the leaf wred_ecn model stepped in
// the model's enqueue order: one LFSR per output, or one for the switch.
class SwitchModelWredLfsr : public ::testing::TestWithParam<bool> {};

TEST_P(SwitchModelWredLfsr, MarksFollowTheLeafModel) {
  const bool shared = GetParam();
  SwitchModelParams p = small_switch();
  p.shared_wred = shared;
  p.wred_seed = 0x1234;
  SwitchModel m(p);
  driver::Switch sw(m.csr());
  sw.enable(true);
  sw.set_lft(5, 2);
  sw.set_lft(6, 3);
  const driver::WredQueue wq{true, 0, 20, 128};
  sw.configure_wred(2, 0, wq);
  sw.configure_wred(3, 0, wq);
  m.set_tx_stalled(2, true);
  m.set_tx_stalled(3, true);
  std::array<WredEcn, 2> oracle{WredEcn({16, 8, 0x1234}), WredEcn({16, 8, 0x1234})};
  std::array<std::vector<bool>, 2> want;
  const WredConfig cfg{true, 0, 20, 128};
  for (std::uint32_t k = 0; k < 40; ++k) {
    const unsigned o = k % 2;
    m.receive(0, make_packet({.dst = static_cast<std::uint16_t>(5 + o), .ecn = fmt::Ecn::kEct0}),
              k);
    WredEcn& w = shared ? oracle[0] : oracle[o];
    want[o].push_back(w.enqueue({k / 2, Ecn::kEct0, false}, cfg).mark);
  }
  while (m.cycle() < 41) {
    m.tick();
  }
  m.set_tx_stalled(2, false);
  m.set_tx_stalled(3, false);
  ASSERT_TRUE(m.run_until_idle(200));
  unsigned marks = 0;
  for (unsigned o = 0; o < 2; ++o) {
    const auto& log = m.transmitted(2 + o);
    ASSERT_EQ(log.size(), 20U);
    for (std::size_t j = 0; j < log.size(); ++j) {
      EXPECT_EQ(log[j].header().ecn() == fmt::Ecn::kCe, want[o][j])
          << "output " << 2 + o << " copy " << j;
      marks += want[o][j] ? 1U : 0U;
    }
  }
  EXPECT_GT(marks, 2U);  // the LFSR really decided something
  EXPECT_EQ(sw.counter(2, 0, fmt::SwCounter::kEcnMark) + sw.counter(3, 0, fmt::SwCounter::kEcnMark),
            marks);
}

INSTANTIATE_TEST_SUITE_P(PerOutputAndShared, SwitchModelWredLfsr, ::testing::Values(false, true));

TEST_F(SwitchModelTest, LookupMissesAreDroppedNoRoute) {
  sw.set_lft(5, 2);
  sw.set_mft(0xC001, 0x4);
  send(0, {.dst = 9, .prio = 1}, 0);       // unprogrammed LID
  send(0, {.dst = 100, .prio = 1}, 1);     // past the 64-entry LFT
  send(0, {.dst = 0xC003, .prio = 1}, 2);  // unprogrammed MLID
  send(0, {.dst = 0xC010, .prio = 1}, 3);  // past the 16-entry MFT
  send(0, {.dst = 0, .prio = 1}, 4);       // LID 0 is never programmed
  run_to(10);
  EXPECT_EQ(cnt(0, 1, fmt::SwCounter::kRx), 5U);
  EXPECT_EQ(cnt(0, 1, fmt::SwCounter::kDropNoRoute), 5U);
  ASSERT_EQ(m.drops().size(), 5U);
  for (const DropRecord& d : m.drops()) {
    EXPECT_EQ(d.reason, fmt::SwCounter::kDropNoRoute);
    EXPECT_EQ(d.port, 0U);
  }
  EXPECT_TRUE(m.transmitted(2).empty());
  EXPECT_EQ(m.buffer_used(0), 0U);
  EXPECT_EQ(sw.interrupt_status(), 0U);
}

TEST_F(SwitchModelTest, UnknownTypeIsDroppedBadPktAndThePortKeepsWorking) {
  sw.set_lft(5, 1);
  send(0, {.type = static_cast<fmt::PktType>(0x0F), .len = 3, .dst = 5, .prio = 4}, 0);
  // Type is checked before the lookup: unroutable and bad -> BAD_PKT.
  send(0, {.type = static_cast<fmt::PktType>(0x00), .dst = 9, .prio = 4}, 3);
  const PktSpec good{.type = fmt::PktType::kCnp, .dst = 5, .prio = 4, .flow = 3};
  send(0, good, 4);
  run_to(10);
  EXPECT_EQ(cnt(0, 4, fmt::SwCounter::kDropBadPkt), 2U);
  EXPECT_EQ(cnt(0, 4, fmt::SwCounter::kDropNoRoute), 0U);
  EXPECT_EQ(cnt(0, 4, fmt::SwCounter::kRx), 3U);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_BAD_PKT.mask, 0U);
  ASSERT_EQ(m.transmitted(1).size(), 1U);
  EXPECT_EQ(m.transmitted(1)[0].flits, make_packet(good));
  EXPECT_EQ(m.transmitted(1)[0].first_cycle, 5U);
}

TEST_F(SwitchModelTest, ShortAndLongPacketsAreDroppedBadPktAndFreeTheirCells) {
  sw.set_lft(5, 1);
  send(0, {.len = 4, .flits = 3, .dst = 5, .prio = 2}, 0);  // cycles 0..2
  send(0, {.len = 4, .flits = 6, .dst = 5, .prio = 2}, 3);  // cycles 3..8
  run_to(3);
  EXPECT_EQ(m.buffer_used(0), 0U);  // freed at the last flit (cycle 2)
  run_to(8);
  // The long one: 4 cells stored, flit 5 only makes the count wrong, flit 6
  // is discarded.
  EXPECT_EQ(m.buffer_used(0), 4U);
  EXPECT_EQ(m.occupancy(0, 2), 4U);
  run_to(9);
  EXPECT_EQ(m.buffer_used(0), 0U);
  EXPECT_EQ(cnt(0, 2, fmt::SwCounter::kDropBadPkt), 2U);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_BAD_PKT.mask, 0U);
  const PktSpec good{.len = 2, .dst = 5, .prio = 2, .flow = 9};
  send(0, good, 9);
  run_to(20);
  ASSERT_EQ(m.transmitted(1).size(), 1U);
  EXPECT_EQ(m.transmitted(1)[0].flits, make_packet(good));
  EXPECT_EQ(cnt(1, 2, fmt::SwCounter::kTx), 1U);
}

// len_flits 0 (datapath "Ingress" 1): the length is checked only at the
// last flit, so an unrouted one is DROP_NO_ROUTE, a routed one passes
// admission with 0 cells, stores nothing and is DROP_BAD_PKT.
TEST_F(SwitchModelTest, LenFlitsZeroIsCheckedAfterTheLookup) {
  sw.set_lft(5, 1);
  send(0, {.len = 0, .flits = 2, .dst = 9, .prio = 3}, 0);  // unrouted
  send(0, {.len = 0, .flits = 2, .dst = 5, .prio = 3}, 2);  // routed
  send(0, {.len = 0, .flits = 1, .dst = 5, .prio = 3}, 4);
  run_to(3);
  EXPECT_EQ(m.buffer_used(0), 0U);
  run_to(10);
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kRx), 3U);
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kDropNoRoute), 1U);
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kDropBadPkt), 2U);
  EXPECT_EQ(m.buffer_used(0), 0U);
  EXPECT_TRUE(m.transmitted(1).empty());
}

// Malformed PFC frames (datapath "Ports and packets"): three flits, two
// with len_flits 3, one flit: DROP_BAD_PKT at prio 0, never RX, never a
// pause (queue 0 of output 2 is not stopped).
TEST_F(SwitchModelTest, MalformedPfcFramesAreBadAndNotHonoured) {
  sw.set_pfc_timing({8, 50});
  lossless(2, 0, 32, 16, 10);
  sw.set_lft(5, 2);
  std::vector<Flit> longer = make_pfc(0x01, 100);
  longer.push_back(longer[1]);
  std::vector<Flit> badlen = make_pfc(0x01, 100);
  badlen[0][1] = 3;  // len_flits (byte 1 of pkt_hdr)
  std::vector<Flit> single = make_pfc(0x01, 100);
  single.pop_back();
  m.receive(2, longer, 0);
  m.receive(2, badlen, 3);
  m.receive(2, single, 5);
  send(0, {.dst = 5, .prio = 0, .flow = 1}, 6);
  run_to(12);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kDropBadPkt), 3U);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kRx), 0U);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kPauseRx), 0U);
  ASSERT_EQ(m.transmitted(2).size(), 1U);
  EXPECT_EQ(m.transmitted(2)[0].first_cycle, 7U);
}

TEST_F(SwitchModelTest, DisabledSwitchDropsEverythingFirst) {
  sw.set_lft(5, 1);
  sw.enable(false);
  send(0, {.dst = 5, .prio = 6}, 0);
  send(0, {.type = static_cast<fmt::PktType>(0xFF), .dst = 9, .prio = 6}, 1);  // would be BAD_PKT
  run_to(5);
  EXPECT_EQ(cnt(0, 6, fmt::SwCounter::kDropDisabled), 2U);
  EXPECT_EQ(cnt(0, 6, fmt::SwCounter::kDropBadPkt), 0U);
  EXPECT_EQ(cnt(0, 6, fmt::SwCounter::kRx), 2U);
  EXPECT_TRUE(m.transmitted(1).empty());
  sw.enable(true);
  send(0, {.dst = 5, .prio = 6}, 5);
  run_to(10);
  EXPECT_EQ(m.transmitted(1).size(), 1U);
}

TEST_F(SwitchModelTest, MulticastGoesToTheMaskMinusTheInputOneReadAtATime) {
  sw.set_mft(0xC001, 0b1011);
  const PktSpec s{.len = 3, .dst = 0xC001, .prio = 5, .flow = 11};
  send(1, s, 0);  // flits 0..2, copies may leave from cycle 3
  run_to(3);
  EXPECT_EQ(m.stored_packets(), 1U);
  EXPECT_EQ(m.buffer_used(1), 3U);  // stored once
  EXPECT_EQ(m.queue_cells(0, 5), 3U);
  EXPECT_EQ(m.queue_cells(3, 5), 3U);
  run_to(20);
  // Cycle 3: outputs are matched from 3 % 4 = 3, so output 3 reads input 1
  // in 3..5; output 0 waits for the read port and reads it in 6..8.
  ASSERT_EQ(m.transmitted(3).size(), 1U);
  ASSERT_EQ(m.transmitted(0).size(), 1U);
  EXPECT_EQ(m.transmitted(3)[0].first_cycle, 3U);
  EXPECT_EQ(m.transmitted(0)[0].first_cycle, 6U);
  EXPECT_EQ(m.transmitted(0)[0].last_cycle, 8U);
  EXPECT_EQ(m.transmitted(0)[0].flits, make_packet(s));
  EXPECT_EQ(m.transmitted(3)[0].flits, make_packet(s));
  EXPECT_TRUE(m.transmitted(1).empty());
  EXPECT_TRUE(m.transmitted(2).empty());
  EXPECT_EQ(m.stored_packets(), 0U);
  EXPECT_EQ(m.buffer_used(1), 0U);
  EXPECT_EQ(cnt(1, 5, fmt::SwCounter::kRx), 1U);
  EXPECT_EQ(cnt(0, 5, fmt::SwCounter::kTx), 1U);
  EXPECT_EQ(cnt(3, 5, fmt::SwCounter::kTx), 1U);
}

// shared_read (docs/switch-datapath.md "Egress", shared read): a one-flit
// multicast's copies leave in the same cycle from every free output; one
// whose tx is stalled takes its copy later, alone; a two-flit multicast
// still reads one copy at a time.
class SwitchModelSharedRead : public SwitchModelTest {
 protected:
  SwitchModelSharedRead() : SwitchModelTest(params()) {}
  static SwitchModelParams params() {
    SwitchModelParams p = small_switch();
    p.shared_read = true;
    return p;
  }
};

TEST_F(SwitchModelSharedRead, OneFlitCopiesLeaveTogether) {
  sw.set_mft(0xC001, 0b1101);
  m.set_tx_stalled(2, true);
  const PktSpec s{.dst = 0xC001, .prio = 5, .flow = 3};
  send(1, s, 0);  // one flit: copies may leave from cycle 1
  run_to(6);
  m.set_tx_stalled(2, false);
  run_to(20);
  for (const unsigned o : {0U, 3U}) {
    ASSERT_EQ(m.transmitted(o).size(), 1U) << o;
    EXPECT_EQ(m.transmitted(o)[0].first_cycle, 1U) << o;
    EXPECT_EQ(m.transmitted(o)[0].flits, make_packet(s)) << o;
  }
  ASSERT_EQ(m.transmitted(2).size(), 1U);
  EXPECT_GE(m.transmitted(2)[0].first_cycle, 6U);
  EXPECT_EQ(m.stored_packets(), 0U);
  EXPECT_EQ(m.buffer_used(1), 0U);
}

TEST_F(SwitchModelSharedRead, LongerCopiesStillReadOneAtATime) {
  sw.set_mft(0xC001, 0b1011);
  const PktSpec s{.len = 2, .dst = 0xC001, .prio = 5, .flow = 4};
  send(1, s, 0);  // flits 0..1, copies may leave from cycle 2
  run_to(20);
  ASSERT_EQ(m.transmitted(0).size(), 1U);
  ASSERT_EQ(m.transmitted(3).size(), 1U);
  const std::uint64_t a = m.transmitted(0)[0].first_cycle;
  const std::uint64_t b = m.transmitted(3)[0].first_cycle;
  EXPECT_EQ(std::min(a, b), 2U);
  EXPECT_EQ(std::max(a, b), 4U);
  EXPECT_EQ(m.buffer_used(1), 0U);
}

TEST_F(SwitchModelTest, MulticastToOnlyTheInputIsAMiss) {
  sw.set_mft(0xC002, 0b0010);
  send(1, {.dst = 0xC002, .prio = 0}, 0);
  run_to(5);
  EXPECT_EQ(cnt(1, 0, fmt::SwCounter::kDropNoRoute), 1U);
  EXPECT_EQ(m.buffer_used(1), 0U);
  EXPECT_TRUE(m.idle());
}

TEST_F(SwitchModelTest, ReferenceCountFreesTheCellsAfterTheLastCopy) {
  sw.set_mft(0xC001, 0b1011);
  m.set_tx_stalled(0, true);
  send(1, {.len = 3, .dst = 0xC001, .prio = 5}, 0);
  run_to(6);
  ASSERT_EQ(m.transmitted(3).size(), 1U);  // 3..5
  EXPECT_EQ(m.buffer_used(1), 3U);         // output 0's copy still holds them
  EXPECT_EQ(m.occupancy(1, 5), 3U);
  EXPECT_EQ(m.stored_packets(), 1U);
  run_to(20);
  EXPECT_EQ(m.buffer_used(1), 3U);
  m.set_tx_stalled(0, false);
  run_to(22);
  EXPECT_EQ(m.buffer_used(1), 3U);  // last flit in cycle 22
  run_to(23);
  ASSERT_EQ(m.transmitted(0).size(), 1U);
  EXPECT_EQ(m.transmitted(0)[0].first_cycle, 20U);
  EXPECT_EQ(m.buffer_used(1), 0U);
  EXPECT_EQ(m.occupancy(1, 5), 0U);
  EXPECT_EQ(m.stored_packets(), 0U);
}

TEST_F(SwitchModelTest, OrderIsKeptPerInputOutputAndQueue) {
  sw.set_lft(5, 2);
  const PktSpec a{.len = 2, .dst = 5, .prio = 1, .flow = 1};
  const PktSpec b{.len = 3, .dst = 5, .prio = 1, .flow = 2};
  const PktSpec c{.len = 1, .dst = 5, .prio = 1, .flow = 3};
  send(0, a, 0);  // 0..1 -> may leave at 2
  send(0, b, 2);  // 2..4 -> 5
  send(0, c, 5);  // 5    -> 6, output busy until 7
  run_to(20);
  const auto& log = m.transmitted(2);
  ASSERT_EQ(log.size(), 3U);
  EXPECT_EQ(log[0].flits, make_packet(a));
  EXPECT_EQ(log[1].flits, make_packet(b));
  EXPECT_EQ(log[2].flits, make_packet(c));
  EXPECT_EQ(log[0].first_cycle, 2U);
  EXPECT_EQ(log[1].first_cycle, 5U);
  EXPECT_EQ(log[1].last_cycle, 7U);
  EXPECT_EQ(log[2].first_cycle, 8U);
}

TEST_F(SwitchModelTest, RemapOnlyForUplinkToUplink) {
  driver::RemapConfig rc;
  rc.enable = true;
  rc.uplink_mask = 0b1100;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    rc.map[p] = {static_cast<std::uint8_t>(p), 0};
  }
  rc.map[1] = {5, 9};
  sw.configure_remap(rc);
  sw.set_lft(10, 3);
  sw.set_lft(11, 1);
  const PktSpec hook{.len = 2, .dst = 10, .prio = 1, .dscp = 4, .flow = 1};
  const PktSpec down{.len = 2, .dst = 10, .prio = 1, .dscp = 4, .flow = 2};
  const PktSpec up_down{.len = 2, .dst = 11, .prio = 1, .dscp = 4, .flow = 3};
  send(2, hook, 0);     // uplink -> uplink: remapped
  send(0, down, 0);     // downlink -> uplink: not
  send(2, up_down, 2);  // uplink -> downlink: not
  run_to(20);
  PktSpec remapped = hook;
  remapped.prio = 5;
  remapped.dscp = 9;
  ASSERT_EQ(m.transmitted(3).size(), 2U);
  for (const TxPacket& t : m.transmitted(3)) {
    if (t.in_port == 2) {
      EXPECT_EQ(t.queue, 5U);
      EXPECT_EQ(t.flits, make_packet(remapped));
    } else {
      EXPECT_EQ(t.queue, 1U);
      EXPECT_EQ(t.flits, make_packet(down));
    }
  }
  ASSERT_EQ(m.transmitted(1).size(), 1U);
  EXPECT_EQ(m.transmitted(1)[0].flits, make_packet(up_down));
  EXPECT_EQ(cnt(3, 5, fmt::SwCounter::kTx), 1U);
  EXPECT_EQ(cnt(3, 1, fmt::SwCounter::kTx), 1U);
  EXPECT_EQ(cnt(2, 1, fmt::SwCounter::kRx), 2U);  // RX at the arrival priority
}

TEST_F(SwitchModelTest, WredDecidesPerCopyAndNeverDropsLossless) {
  sw.set_mft(0xC004, 0b1100);                // from input 0 to outputs 2 and 3
  sw.configure_wred(3, 0, {true, 0, 1, 0});  // selected from queue length 1 on
  m.set_tx_stalled(2, true);
  m.set_tx_stalled(3, true);
  const PktSpec a{.dst = 0xC004, .ecn = fmt::Ecn::kNotEct, .flow = 1};  // qlen 0: passes
  const PktSpec b{.dst = 0xC004, .ecn = fmt::Ecn::kNotEct, .flow = 2};  // qlen 1: dropped on 3
  const PktSpec c{.dst = 0xC004, .ecn = fmt::Ecn::kEct0, .flow = 3};    // qlen 1: marked on 3
  send(0, a, 0);
  send(0, b, 1);
  send(0, c, 2);
  run_to(4);
  EXPECT_EQ(m.queue_cells(3, 0), 2U);
  EXPECT_EQ(m.queue_cells(2, 0), 3U);
  EXPECT_EQ(cnt(3, 0, fmt::SwCounter::kDropWred), 1U);
  EXPECT_EQ(cnt(3, 0, fmt::SwCounter::kEcnMark), 1U);
  // Queue 0 of output 3 lossless: a selected Not-ECT copy passes unchanged.
  lossless(3, 0, 32, 16, 100);
  const PktSpec d{.dst = 0xC004, .ecn = fmt::Ecn::kNotEct, .flow = 4};
  send(0, d, 4);
  run_to(6);
  EXPECT_EQ(cnt(3, 0, fmt::SwCounter::kDropWred), 1U);
  m.set_tx_stalled(2, false);
  m.set_tx_stalled(3, false);
  run_to(40);
  PktSpec c_marked = c;
  c_marked.ecn = fmt::Ecn::kCe;
  const auto& o2 = m.transmitted(2);
  const auto& o3 = m.transmitted(3);
  ASSERT_EQ(o2.size(), 4U);
  ASSERT_EQ(o3.size(), 3U);
  EXPECT_EQ(o2[0].flits, make_packet(a));
  EXPECT_EQ(o2[1].flits, make_packet(b));
  EXPECT_EQ(o2[2].flits, make_packet(c));  // output 2 has no WRED: ECT0 kept
  EXPECT_EQ(o2[3].flits, make_packet(d));
  EXPECT_EQ(o3[0].flits, make_packet(a));
  EXPECT_EQ(o3[1].flits, make_packet(c_marked));
  EXPECT_EQ(o3[2].flits, make_packet(d));
  ASSERT_EQ(m.drops().size(), 1U);
  EXPECT_EQ(m.drops()[0].reason, fmt::SwCounter::kDropWred);
  EXPECT_EQ(m.drops()[0].port, 3U);
  EXPECT_EQ(m.buffer_used(0), 0U);
}

TEST_F(SwitchModelTest, LossyLimitDropsBufAtInputAndPriority) {
  sw.set_lft(5, 1);
  // Lossless prio 3: XOFF 100 + headroom (2*2 + 2*8 + 4 = 24) -> LOSSY_LIMIT 256 - 124 = 132.
  lossless(0, 3, 100, 50, 100, 8);
  m.set_tx_stalled(1, true);
  std::uint64_t t = 0;
  for (int k = 0; k < 17; ++k, t += 8) {
    send(0, {.len = 8, .dst = 5, .prio = 0}, t);  // 16 fit (128 cells), the 17th would be 136
  }
  send(0, {.len = 4, .dst = 5, .prio = 0}, t);  // 128 + 4 = 132: fits exactly
  t += 4;
  send(0, {.len = 1, .dst = 5, .prio = 0}, t);  // 133 > 132
  t += 1;
  send(0, {.len = 8, .dst = 5, .prio = 3}, t);  // lossless: admitted
  t += 8;
  run_to(t + 1);
  EXPECT_EQ(cnt(0, 0, fmt::SwCounter::kDropBuf), 2U);
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kDropBuf), 0U);
  EXPECT_EQ(m.lossy_cells(0), 132U);
  EXPECT_EQ(m.buffer_used(0), 140U);
  EXPECT_EQ(m.occupancy(0, 3), 8U);
  EXPECT_TRUE(m.violations().empty());
  m.set_tx_stalled(1, false);
  ASSERT_TRUE(m.run_until_idle(1000));
  EXPECT_EQ(m.transmitted(1).size(), 18U);
  EXPECT_EQ(m.lossy_cells(0), 0U);
}

class SwitchModelSmallBuffer : public SwitchModelTest {
 protected:
  SwitchModelSmallBuffer() : SwitchModelTest(small_switch(64)) {}
};

TEST_F(SwitchModelSmallBuffer, FullBufferDropsLossyBuf) {
  sw.set_lft(5, 1);
  m.set_tx_stalled(1, true);
  for (std::uint64_t k = 0; k < 8; ++k) {
    send(0, {.len = 8, .dst = 5, .prio = 2}, 8 * k);  // 64 cells: full
  }
  send(0, {.len = 1, .dst = 5, .prio = 2}, 64);
  run_to(66);
  EXPECT_EQ(m.buffer_used(0), 64U);
  EXPECT_EQ(cnt(0, 2, fmt::SwCounter::kDropBuf),
            1U);  // LOSSY_LIMIT is 0xFFFF: free cells refused it
}

TEST_F(SwitchModelSmallBuffer, LosslessPacketThatDoesNotFitIsDropBuf) {
  sw.set_lft(5, 1);
  lossless(0, 3, 40, 20, 100, 8);  // 40 + 24 = 64 cells: the whole buffer
  m.set_tx_stalled(1, true);
  // The sender ignores our pause frames (as a peer whose watchdog ignores
  // them or has disabled PFC does): 8 packets fill the 64 cells, the ninth
  // finds none free and is dropped and counted, not stored.
  for (std::uint64_t k = 0; k < 9; ++k) {
    send(0, {.len = 8, .dst = 5, .prio = 3}, 8 * k);
  }
  run_to(80);
  EXPECT_TRUE(m.violations().empty());
  EXPECT_EQ(m.buffer_used(0), 64U);
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kDropBuf), 1U);
  EXPECT_FALSE(m.pfc_sent(0).empty());  // the pause went out, it was not honoured
}

TEST_F(SwitchModelTest, StrictPriorityQueuesGoFirst) {
  sw.set_lft(5, 2);
  driver::SchedConfig sc;
  sc.sp_mask = 0x80;
  sc.weight.fill(1);
  sw.configure_scheduler(2, sc);
  m.set_tx_stalled(2, true);
  for (std::uint64_t k = 0; k < 3; ++k) {
    send(0, {.dst = 5, .prio = 0, .flow = static_cast<std::uint32_t>(k)}, k);
    send(1, {.dst = 5, .prio = 7, .flow = static_cast<std::uint32_t>(10 + k)}, k);
  }
  run_to(10);
  m.set_tx_stalled(2, false);
  run_to(20);
  EXPECT_EQ(queues_of(m.transmitted(2)), (std::vector<unsigned>{7, 7, 7, 0, 0, 0}));
  EXPECT_EQ(m.transmitted(2)[0].first_cycle, 10U);
  EXPECT_EQ(m.transmitted(2)[5].first_cycle, 15U);
}

TEST_F(SwitchModelTest, WdrrSharesByWeight) {
  sw.set_lft(5, 2);
  driver::SchedConfig sc;
  sc.weight.fill(1);
  sc.weight[0] = 2;
  sw.configure_scheduler(2, sc);
  m.set_tx_stalled(2, true);
  for (std::uint64_t k = 0; k < 6; ++k) {
    send(0, {.dst = 5, .prio = 0}, k);
    send(1, {.dst = 5, .prio = 1}, k);
  }
  run_to(10);
  m.set_tx_stalled(2, false);
  run_to(30);
  // ptr 0 with deficit 0: credit moves to 1 (1 flit), then 0 earns 2 and
  // sends twice, and so on; queue 1 alone at the end.
  EXPECT_EQ(queues_of(m.transmitted(2)),
            (std::vector<unsigned>{1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1}));
  EXPECT_EQ(m.transmitted(2).back().first_cycle, 21U);
}

// A pause received on port 2 for priority 0 (10 quanta x 8 cycles) stops
// queue 0 of output 2 in cycles 2..81; queue 1 is not affected.
TEST_F(SwitchModelTest, ReceivedPauseStopsOnlyThatQueueForQuantaTimesCycles) {
  sw.set_pfc_timing({8, 50});
  lossless(2, 0, 32, 16, 10);
  sw.set_lft(5, 2);
  const std::vector<Flit> pause = make_pfc(0x01, 10);
  m.receive(2, pause, 0);
  send(0, {.dst = 5, .prio = 0, .flow = 1}, 2);
  send(1, {.dst = 5, .prio = 1, .flow = 2}, 2);
  run_to(100);
  const auto& log = m.transmitted(2);
  ASSERT_EQ(log.size(), 2U);
  EXPECT_EQ(log[0].queue, 1U);
  EXPECT_EQ(log[0].first_cycle, 3U);
  EXPECT_EQ(log[1].queue, 0U);
  EXPECT_EQ(log[1].first_cycle, 82U);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kPauseRx), 1U);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kRx), 0U);  // link-local, not a packet
}

class SwitchModelWatchdog : public SwitchModelTest {
 protected:
  void arm(bool drop_mode, std::uint8_t limit = 0) {
    lossless(2, 0, 32, 16, 1000);  // an 8000-cycle pause
    sw.configure_watchdog({20, 100, 1000, limit});
    sw.configure_watchdog_port(2, {0x01, drop_mode});
    sw.set_lft(5, 2);
    const std::vector<Flit> pause = make_pfc(0x01, 1000);
    m.receive(2, pause, 0);  // xoff from cycle 2: deadlock declared in cycle 21
  }
};

TEST_F(SwitchModelWatchdog, IgnoreReleasesAPausedQueue) {
  arm(false);
  send(0, {.len = 2, .dst = 5, .prio = 0, .flow = 5}, 2);
  run_to(21);
  EXPECT_TRUE(m.transmitted(2).empty());
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDetect), 0U);
  run_to(23);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDetect), 1U);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_WD_DETECT.mask, 0U);
  EXPECT_EQ(sw.watchdog_state(2)[0], fmt::WdState::kRecover);
  run_to(30);
  ASSERT_EQ(m.transmitted(2).size(), 1U);
  EXPECT_EQ(m.transmitted(2)[0].first_cycle, 22U);
  // Recovery of 100 cycles from 22 ends in cycle 121; still paused, so the
  // next deadlock is declared 20 cycles later, in 141.
  run_to(122);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdRecover), 1U);
  EXPECT_EQ(sw.watchdog_state(2)[0], fmt::WdState::kMonitor);
  run_to(141);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDetect), 1U);
  run_to(142);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDetect), 2U);
}

// Limit 1: the second deadlock in the window (cycle 141) disables PFC on
// the queue; software's re-enable (applied in cycle 150) clears the window,
// so the next deadlock (170) recovers again.
TEST_F(SwitchModelWatchdog, SecondDeadlockInTheWindowDisablesUntilReenabled) {
  arm(false, 1);
  run_to(141);
  EXPECT_EQ(sw.watchdog_state(2)[0], fmt::WdState::kMonitor);
  run_to(142);
  EXPECT_EQ(sw.watchdog_state(2)[0], fmt::WdState::kDisabled);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDisable), 1U);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDetect), 2U);
  EXPECT_NE(sw.interrupt_status() & r::INTR_STATUS_WD_DISABLE.mask, 0U);
  run_to(150);
  sw.reenable_pfc(2, 0x01);
  run_to(151);
  EXPECT_EQ(sw.watchdog_state(2)[0], fmt::WdState::kMonitor);
  run_to(170);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDetect), 2U);
  run_to(171);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDetect), 3U);
  EXPECT_EQ(sw.watchdog_state(2)[0], fmt::WdState::kRecover);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kWdDisable), 1U);
}

// A queue the watchdog has DISABLED is not lossless for WRED (docs/switch-
// datapath.md "Enqueue"): with WRED selecting from queue length 1, a Not-ECT
// copy passes on lossless queue 0 of output 2 while the watchdog monitors
// it, is dropped while it is DISABLED (cycles 142..160), and passes again
// after the re-enable. Output 2's tx is stalled so the queue stays long.
TEST_F(SwitchModelWatchdog, DisabledQueueIsNotLosslessForWred) {
  arm(false, 1);
  sw.configure_wred(2, 0, {true, 0, 1, 0});
  m.set_tx_stalled(2, true);
  send(0, {.dst = 5, .prio = 0, .flow = 1}, 60);  // qlen 0: passes
  send(0, {.dst = 5, .prio = 0, .flow = 2}, 61);  // qlen 1, lossless: passes
  run_to(145);
  ASSERT_EQ(sw.watchdog_state(2)[0], fmt::WdState::kDisabled);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kDropWred), 0U);
  const std::uint64_t dropped = send(0, {.dst = 5, .prio = 0, .flow = 3}, 150);
  run_to(155);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kDropWred), 1U);
  ASSERT_EQ(m.drops().size(), 1U);
  EXPECT_EQ(m.drops()[0].pkt_id, dropped);
  EXPECT_EQ(m.drops()[0].reason, fmt::SwCounter::kDropWred);
  sw.reenable_pfc(2, 0x01);
  run_to(157);
  ASSERT_EQ(sw.watchdog_state(2)[0], fmt::WdState::kMonitor);
  send(0, {.dst = 5, .prio = 0, .flow = 4}, 158);  // lossless again: passes
  run_to(165);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kDropWred), 1U);
  EXPECT_EQ(m.queue_cells(2, 0), 3U);
}

TEST_F(SwitchModelWatchdog, DropModeDiscardsAtLineRate) {
  arm(true);
  send(0, {.len = 3, .dst = 5, .prio = 0}, 2);  // may leave from 5, stopped until 22
  run_to(24);
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kDropWd), 0U);
  EXPECT_EQ(m.buffer_used(0), 3U);
  run_to(25);  // read out in 22..24
  EXPECT_EQ(cnt(2, 0, fmt::SwCounter::kDropWd), 1U);
  EXPECT_EQ(m.buffer_used(0), 0U);
  EXPECT_TRUE(m.transmitted(2).empty());
  ASSERT_EQ(m.drops().size(), 1U);
  EXPECT_EQ(m.drops()[0].reason, fmt::SwCounter::kDropWd);
}

// Occupancy of (0, 3) reaches XOFF = 8 at the edge ending cycle 7; pfc_tx
// sees it in cycle 8 and offers the frame from cycle 9; port 0's tx is idle.
TEST_F(SwitchModelTest, PauseFrameWhenOccupancyReachesXoffAndResumeBelowXon) {
  lossless(0, 3, 8, 4, 50);
  sw.set_lft(5, 1);
  m.set_tx_stalled(1, true);
  send(0, {.len = 10, .dst = 5, .prio = 3}, 0);
  run_to(9);
  EXPECT_TRUE(m.pfc_sent(0).empty());
  run_to(10);
  ASSERT_EQ(m.pfc_sent(0).size(), 1U);
  const TxPfcFrame& f = m.pfc_sent(0)[0];
  EXPECT_EQ(f.first_cycle, 9U);
  EXPECT_EQ(f.class_enable, 0x08);
  EXPECT_EQ(f.quanta[3], 50U);
  fmt::PfcFrame::Bytes img{};
  std::copy(f.flits[0].begin(), f.flits[0].end(), img.begin());
  std::copy(f.flits[1].begin(), f.flits[1].end(), img.begin() + 16);
  const fmt::PfcFrame wire(img);
  EXPECT_EQ(wire.pkt_type(), fmt::PktType::kPfc);
  EXPECT_EQ(wire.len_flits(), 2U);
  EXPECT_EQ(wire.class_enable(), 0x08);
  EXPECT_EQ(wire.quanta(3), 50U);
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kPauseTx), 1U);
  // Output 1 released at 20: the packet leaves in 20..29, its cells are
  // freed at that edge, pfc_tx sees 0 < XON in 30, the resume leaves in 31.
  run_to(20);
  m.set_tx_stalled(1, false);
  run_to(40);
  ASSERT_EQ(m.pfc_sent(0).size(), 2U);
  EXPECT_EQ(m.pfc_sent(0)[1].first_cycle, 31U);
  EXPECT_EQ(m.pfc_sent(0)[1].quanta[3], 0U);
  EXPECT_EQ(cnt(0, 3, fmt::SwCounter::kResumeTx), 1U);
}

TEST_F(SwitchModelTest, PauseFrameWaitsForThePacketAndGoesBeforeTheNext) {
  lossless(0, 3, 8, 4, 50, 32);
  sw.set_lft(5, 1);
  sw.set_lft(6, 0);
  m.set_tx_stalled(1, true);
  send(1, {.len = 20, .dst = 6, .prio = 0}, 0);   // output 0 busy in 20..39
  send(0, {.len = 10, .dst = 5, .prio = 3}, 20);  // XOFF seen in 28: frame pending from 29
  send(2, {.dst = 6, .prio = 0, .flow = 4}, 30);  // may leave from 31
  run_to(50);
  ASSERT_EQ(m.pfc_sent(0).size(), 1U);
  EXPECT_EQ(m.pfc_sent(0)[0].first_cycle, 40U);
  ASSERT_EQ(m.transmitted(0).size(), 2U);
  EXPECT_EQ(m.transmitted(0)[0].last_cycle, 39U);
  EXPECT_EQ(m.transmitted(0)[1].first_cycle, 42U);
}

TEST_F(SwitchModelTest, TraceNamesEventsInTheRdlVocabulary) {
  std::vector<std::string> lines;
  m.set_trace([&](std::string_view l) { lines.emplace_back(l); });
  sw.set_lft(5, 1);
  send(0, {.dst = 9, .prio = 2}, 0);
  send(0, {.dst = 5, .prio = 2}, 1);
  run_to(5);
  std::string all;
  for (const auto& l : lines) {
    all += l + "\n";
  }
  EXPECT_NE(all.find("cyc=0 DROP_NO_ROUTE port=0 prio=2 pkt=0 dst=0x0009"), std::string::npos)
      << all;
  EXPECT_NE(all.find("cyc=2 TX_START out=1 q=2 in=0 pkt=1"), std::string::npos) << all;
  EXPECT_NE(all.find("cyc=2 TX out=1 q=2 in=0 pkt=1"), std::string::npos) << all;
  m.set_trace(nullptr);
  send(0, {.dst = 9, .prio = 2}, 5);
  run_to(7);
  EXPECT_EQ(all.size(), [&] {
    std::size_t n = 0;
    for (const auto& l : lines) {
      n += l.size() + 1;
    }
    return n;
  }());
}

TEST_F(SwitchModelTest, ReceiveRefusesOverlappingAndPastPackets) {
  send(0, {.len = 4, .dst = 5}, 10);
  EXPECT_THROW(send(0, {.dst = 5}, 12), std::invalid_argument);
  EXPECT_NO_THROW(send(0, {.dst = 5}, 14));
  run_to(20);
  EXPECT_THROW(send(1, {.dst = 5}, 19), std::invalid_argument);
  EXPECT_THROW(send(4, {.dst = 5}, 30), std::invalid_argument);
}

}  // namespace
}  // namespace syncfab::model::test

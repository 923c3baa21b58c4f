// Directed tests of the NIC's link (docs/nic/top.md "rx demux", "Network
// arbiter", "PFC reception"): pauses and resumes to the cycle, a header shown
// is never withdrawn, frames that stop nothing, malformed PFC frames and
// packets the engine does not take, the traffic class of every header, the
// pause surviving soft reset and CTRL.ENABLE, back-pressure on the receive
// link. One NIC; the test drives the link pins (step(NetIn)).
#include <array>
#include <cstdint>
#include <vector>

#include <syncfab/hw/errors.hpp>

#include "engine_fixture.hpp"

namespace syncfab::model::test {
namespace {

using fmt::PktType;

constexpr std::uint16_t kA = 0x21;
constexpr std::uint16_t kB = 0x22;
constexpr std::uint16_t kC = 0x23;
constexpr unsigned kTc = hw::nic::kNetCfgTcReset;
constexpr std::uint8_t kTcBit = 1U << kTc;

// A flit holding this header, with `last` as given.
LinkFlit flit(const fmt::PktHdr& h, bool last) { return header_flit(h, last); }

// A payload flit: bytes that do not form any header the engine would use.
LinkFlit payload(std::uint8_t fill, bool last) {
  LinkFlit f;
  f.data.fill(fill);
  f.last = last;
  return f;
}

class LinkTest : public EngineTest {
 protected:
  // Round 0: send to A, B and C, hear from A. Posted now; its sends are
  // ready a few cycles later.
  void post_three_sends(std::uint16_t epoch = 1) {
    post(desc(0, epoch, 3, {{{kA, kB, kC}, {kA}}}));
  }
  // Cycles at the pins with nothing offered until the engine shows a header
  // (tx_ready as given); false after `limit` cycles.
  bool until_shown(bool tx_ready, unsigned limit = 100) {
    for (unsigned i = 0; i < limit; ++i) {
      if (eng_.tx_header()) {
        return true;
      }
      pins(std::nullopt, tx_ready);
    }
    return eng_.tx_header().has_value();
  }
  std::uint32_t status_paused() { return nic::STATUS_TX_PAUSED.get(reg(nic::STATUS)); }
};

TEST_F(LinkTest, PauseStopsNewHeadersForExactlyQuantaTimesCyclesPerQuantum) {
  set_pfc(0xFF, 4);
  EXPECT_FALSE(eng_.tx_paused());
  const auto f = pfc_flits(make_pfc_frame(kTcBit, 5));
  ASSERT_TRUE(pins(f[0]).rx_taken);
  EXPECT_FALSE(eng_.tx_paused()) << "honoured at the last flit, not the first";
  const std::uint64_t t = eng_.cycle();  // the last flit's cycle
  ASSERT_TRUE(pins(f[1]).rx_taken);
  EXPECT_EQ(cnt(Counter::kPfcRx), 1U);
  EXPECT_EQ(cnt(Counter::kPauseRx), 1U);
  post_three_sends();  // ready long before the pause ends
  // 5 quanta x 4 cycles: cycles t+1 .. t+20 stopped.
  for (unsigned i = 1; i <= 20; ++i) {
    ASSERT_EQ(eng_.cycle(), t + i);
    EXPECT_TRUE(eng_.tx_paused()) << "cycle t+" << i;
    EXPECT_EQ(status_paused(), 1U) << "cycle t+" << i;
    EXPECT_FALSE(eng_.tx_header()) << "a header first shown while paused, cycle t+" << i;
    EXPECT_FALSE(pins().tx);
  }
  EXPECT_EQ(nic::STATUS_ACTIVE_CTX.get(reg(nic::STATUS)), 1U);
  EXPECT_EQ(nic::STATUS_BUSY.get(reg(nic::STATUS)), 1U);
  // Cycle t+21: the pause is over and sending resumes at once, one a cycle.
  EXPECT_FALSE(eng_.tx_paused());
  EXPECT_EQ(status_paused(), 0U);
  for (const auto dst : {kA, kB, kC}) {
    const auto shown = eng_.tx_header();
    ASSERT_TRUE(shown) << "cycle " << eng_.cycle();
    EXPECT_EQ(shown->dst_lid(), dst);
    const auto o = pins();
    ASSERT_TRUE(o.tx_taken);
    EXPECT_EQ(o.tx->bytes(), shown->bytes());
  }
  EXPECT_EQ(cnt(Counter::kNotifSent), 3U);
  EXPECT_EQ(cnt(Counter::kDrop), 0U);
}

TEST_F(LinkTest, CyclesPerQuantumZeroActsAsOne) {
  set_pfc(0xFF, 0);
  const auto f = pfc_flits(make_pfc_frame(kTcBit, 3));
  offer(f);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_TRUE(eng_.tx_paused()) << i;
    pins();
  }
  EXPECT_FALSE(eng_.tx_paused());
  EXPECT_EQ(eng_.pfc_rx().timer(kTc), 0U);
}

TEST_F(LinkTest, ResumeEndsThePauseAtOnceAndAFrameReplacesTheTime) {
  set_pfc(0xFF, 8);
  offer(pfc_flits(make_pfc_frame(kTcBit, 1000)));
  post_three_sends();
  for (unsigned i = 0; i < 50; ++i) {
    ASSERT_FALSE(pins().tx);
  }
  // A shorter pause replaces the time left (it does not add to it).
  offer(pfc_flits(make_pfc_frame(kTcBit, 2)));
  EXPECT_EQ(eng_.pfc_rx().timer(kTc), 16U);
  offer(pfc_flits(make_pfc_frame(kTcBit, 1000)));
  EXPECT_TRUE(eng_.tx_paused());
  // The resume's last flit in cycle t: sending resumes in cycle t+1.
  const auto resume = pfc_flits(make_pfc_frame(kTcBit, 0));
  EXPECT_FALSE(pins(resume[0]).tx);
  EXPECT_FALSE(pins(resume[1]).tx) << "still paused in the resume's own cycle";
  EXPECT_FALSE(eng_.tx_paused());
  ASSERT_TRUE(eng_.tx_header());
  EXPECT_TRUE(pins().tx_taken);
  EXPECT_EQ(cnt(Counter::kPfcRx), 4U);
  EXPECT_EQ(cnt(Counter::kPauseRx), 3U) << "a resume is no pause";
}

TEST_F(LinkTest, PauseArrivingWhileAHeaderIsShownDoesNotWithdrawIt) {
  set_pfc(0xFF, 8);
  post_three_sends();
  ASSERT_TRUE(until_shown(false));
  const auto shown = *eng_.tx_header();
  EXPECT_EQ(shown.dst_lid(), kA);
  const auto f = pfc_flits(make_pfc_frame(kTcBit, 10));
  for (const auto& fl : f) {
    const auto o = pins(fl, false);
    ASSERT_TRUE(o.rx_taken);
    ASSERT_TRUE(o.tx) << "withdrawn";
    EXPECT_EQ(o.tx->bytes(), shown.bytes());
  }
  ASSERT_TRUE(eng_.tx_paused());
  for (unsigned i = 0; i < 30; ++i) {
    const auto o = pins(std::nullopt, false);
    ASSERT_TRUE(o.tx) << "withdrawn during the pause, cycle " << eng_.cycle() - 1;
    EXPECT_EQ(o.tx->bytes(), shown.bytes());
    EXPECT_FALSE(o.tx_taken);
  }
  EXPECT_TRUE(eng_.tx_paused());
  // Taken during the pause: it leaves; nothing new is shown until it ends.
  EXPECT_TRUE(pins().tx_taken);
  EXPECT_EQ(cnt(Counter::kNotifSent), 1U);
  unsigned quiet = 0;
  while (eng_.tx_paused()) {
    EXPECT_FALSE(pins().tx);
    ++quiet;
  }
  // 10 quanta x 8 cycles from the frame's last flit (cycle t): stopped in
  // t+1 .. t+80; 30 cycles held, the take in t+31, quiet in t+32 .. t+80.
  EXPECT_EQ(quiet, 80U - 31U);
  run(5);
  EXPECT_EQ(take(PktType::kNotify).size(), 3U);
  EXPECT_EQ(cnt(Counter::kNotifSent), 3U);
}

TEST_F(LinkTest, FramesThatStopNothingAreCountedButDoNotPause) {
  // Another priority, a class bit clear (quanta given), a priority whose
  // PFC_CFG.ENABLE bit is clear, a resume while not paused.
  const auto other = static_cast<std::uint8_t>(1U << ((kTc + 2) % fmt::kNumPrio));
  std::array<std::uint16_t, fmt::kNumPrio> q{};
  q.fill(100);
  set_pfc(0xFF & ~kTcBit, 8);
  offer(pfc_flits(make_pfc_frame(kTcBit, 50)));  // honoured nowhere: ENABLE bit clear
  set_pfc(0xFF, 8);
  offer(pfc_flits(make_pfc_frame(other, 100)));
  offer(pfc_flits(make_pfc_frame(static_cast<std::uint8_t>(0xFF & ~kTcBit), q)));
  offer(pfc_flits(make_pfc_frame(0, q)));
  offer(pfc_flits(make_pfc_frame(kTcBit, 0)));
  EXPECT_EQ(cnt(Counter::kPfcRx), 5U);
  EXPECT_EQ(cnt(Counter::kPauseRx), 0U);
  EXPECT_FALSE(eng_.tx_paused());
  EXPECT_EQ(status_paused(), 0U);
  EXPECT_EQ(eng_.pfc_rx().timer(kTc), 0U);
  EXPECT_GT(eng_.pfc_rx().timer((kTc + 2) % fmt::kNumPrio), 0U) << "kept, stops nothing";
  post_three_sends();
  run(20);
  EXPECT_EQ(take(PktType::kNotify).size(), 3U);
  // Only a pause on TC, class bit set, quanta > 0, honoured, counts PAUSE_RX.
  offer(pfc_flits(make_pfc_frame(kTcBit, 7)));
  EXPECT_EQ(cnt(Counter::kPauseRx), 1U);
  EXPECT_TRUE(eng_.tx_paused());
  EXPECT_EQ(cnt(Counter::kDrop), 0U);
}

TEST_F(LinkTest, AnotherPrioritysPauseStopsALaterTrafficClass) {
  const unsigned p = (kTc + 1) % fmt::kNumPrio;
  set_pfc(0xFF, 8);
  offer(pfc_flits(make_pfc_frame(static_cast<std::uint8_t>(1U << p), 100)));
  EXPECT_FALSE(eng_.tx_paused());
  EXPECT_EQ(cnt(Counter::kPauseRx), 0U) << "not the engine's priority when it came";
  eng_.csr_write(nic::CTRL.offset, 0);
  eng_.csr_write(nic::NET_CFG.offset, nic::NET_CFG_TC.put(p));
  EXPECT_TRUE(eng_.tx_paused());
  EXPECT_EQ(status_paused(), 1U);
  eng_.csr_write(nic::NET_CFG.offset, nic::NET_CFG_TC.put(kTc));
  EXPECT_FALSE(eng_.tx_paused());
}

TEST_F(LinkTest, MalformedPfcFramesAreDroppedAtTheirLastFlitAndNotHonoured) {
  set_pfc(0xFF, 8);
  const auto good = pfc_flits(make_pfc_frame(kTcBit, 100));
  // The flits of each malformed frame, `last` on the final one.
  std::vector<std::vector<LinkFlit>> bad;
  bad.push_back({LinkFlit{good[0].data, true}});                              // one flit
  bad.push_back({good[0], LinkFlit{good[1].data, false}, payload(0, true)});  // three
  for (const std::uint8_t len : {1, 3, 0}) {                                  // len_flits != 2
    auto first = good[0];
    first.data[1] = len;
    bad.push_back({first, good[1]});
  }
  std::uint32_t drops = 0;
  for (const auto& frame : bad) {
    for (const auto& f : frame) {
      ASSERT_TRUE(pins(f).rx_taken);
      EXPECT_EQ(cnt(Counter::kDrop), drops + (f.last ? 1U : 0U))
          << "counted once, at the last flit (frame " << drops << ")";
    }
    ++drops;
    EXPECT_FALSE(eng_.tx_paused()) << "malformed frame " << drops << " honoured";
  }
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    EXPECT_EQ(eng_.pfc_rx().timer(p), 0U);
  }
  EXPECT_EQ(cnt(Counter::kPfcRx), 0U);
  EXPECT_EQ(cnt(Counter::kPauseRx), 0U);
  // The demux is back at a packet's first flit: a good frame is honoured.
  offer(good);
  EXPECT_TRUE(eng_.tx_paused());
  EXPECT_EQ(cnt(Counter::kPfcRx), 1U);
  EXPECT_EQ(cnt(Counter::kDrop), bad.size());
}

TEST_F(LinkTest, PacketsTheEngineDoesNotTakeAreDroppedOnceAtTheLastFlit) {
  post(desc(0, 1, 1, {{{kA}, {kB}}}));
  run(10);
  out_.clear();
  const auto n = pkt(PktType::kNotify, kB, 0, 1, 0);  // a NOTIFY the descriptor expects
  auto data = pkt(PktType::kData, kA, 0, 0, 0);
  data.set_len_flits(3);
  auto cnp = pkt(PktType::kCnp, kA, 0, 0, 0);
  auto odd = pkt(static_cast<PktType>(0x7F), kA, 0, 0, 0);
  odd.set_len_flits(2);
  const std::vector<std::vector<LinkFlit>> dropped = {
      // A NOTIFY of three flits whose payload looks like the same NOTIFY.
      {flit(n, false), flit(n, false), flit(n, true)},
      {flit(data, false), payload(0x55, false), flit(n, true)},          // DATA
      {flit(cnp, true)},                                                 // CNP, one flit
      {flit(pkt(PktType::kAck, kA, 0, 1, 0), false), payload(0, true)},  // ACK of 2
      {flit(odd, false), payload(0xFF, true)},                           // unknown type
  };
  std::uint32_t drops = 0;
  for (const auto& packet : dropped) {
    for (const auto& f : packet) {
      const auto o = pins(f);
      ASSERT_TRUE(o.rx_taken);
      EXPECT_EQ(cnt(Counter::kDrop), drops + (f.last ? 1U : 0U)) << "packet " << drops;
    }
    ++drops;
  }
  run(10);
  EXPECT_TRUE(out_.empty()) << "nothing dropped is answered";
  EXPECT_EQ(cnt(Counter::kNotifRecv), 0U);
  EXPECT_EQ(cnt(Counter::kNackRecv), 0U);
  EXPECT_TRUE(eng_.ctx_active(0));
  // A one-flit NOTIFY goes to SE as before.
  offer(std::array{flit(n, true)});
  run(5);
  EXPECT_EQ(take(PktType::kAck).size(), 1U);
  EXPECT_EQ(cnt(Counter::kNotifRecv), 1U);
  EXPECT_EQ(cnt(Counter::kDrop), dropped.size());
}

TEST_F(LinkTest, EveryHeaderLeavesWithPrioTrafficClass) {
  EXPECT_EQ(nic::NET_CFG_TC.get(reg(nic::NET_CFG)), kTc);
  post(desc(0, 1, 2, {{{kA, kB}, {kA}}}));
  notify(kA, 0, 1, 0);
  for (std::uint8_t r = 0; r < 6; ++r) {
    notify(kC, 1, 5, r);  // four parked (ACK), then NACKs (DAMQ of 4)
  }
  run(40);
  ASSERT_EQ(out_.size(), 9U);
  unsigned nacks = 0;
  for (const auto& p : out_) {
    EXPECT_EQ(p.prio(), kTc) << fmt::to_string(p.pkt_type());
    nacks += p.pkt_type() == PktType::kNack ? 1U : 0U;
  }
  EXPECT_EQ(nacks, 2U);
  out_.clear();
  // Changed while idle: every header after it carries the new class.
  ack(kA, 0, 1, 0);
  ack(kB, 0, 1, 0);
  ASSERT_TRUE(run_until([&] { return !eng_.completions().empty(); }));
  eng_.csr_write(nic::CTRL.offset, 0);
  const unsigned tc = (kTc + 3) % fmt::kNumPrio;
  eng_.csr_write(nic::NET_CFG.offset, nic::NET_CFG_TC.put(tc));
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
  post(desc(0, 2, 1, {{{kB}, {kA}}}));
  notify(kA, 0, 2, 0);
  run(20);
  ASSERT_EQ(out_.size(), 2U);
  for (const auto& p : out_) {
    EXPECT_EQ(p.prio(), tc) << fmt::to_string(p.pkt_type());
  }
}

TEST_F(LinkTest, SoftResetAndDisableKeepThePauseAndFramesAreHonouredWhileDisabled) {
  set_pfc(0xFF, 8);
  offer(pfc_flits(make_pfc_frame(kTcBit, 100)));
  run(10);
  const auto before = eng_.pfc_rx().timer(kTc);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_SOFT_RESET.put(1));
  EXPECT_TRUE(eng_.tx_paused());
  EXPECT_EQ(status_paused(), 1U);
  EXPECT_EQ(eng_.pfc_rx().timer(kTc), before);
  pins();
  EXPECT_EQ(eng_.pfc_rx().timer(kTc), before - 1) << "the timer runs on";
  eng_.csr_write(nic::CTRL.offset, 0);
  EXPECT_TRUE(eng_.tx_paused());
  // Disabled: frames are still taken and honoured.
  offer(pfc_flits(make_pfc_frame(kTcBit, 0)));
  EXPECT_FALSE(eng_.tx_paused());
  offer(pfc_flits(make_pfc_frame(kTcBit, 3)));
  EXPECT_TRUE(eng_.tx_paused());
  EXPECT_EQ(cnt(Counter::kPfcRx), 3U);
  EXPECT_EQ(cnt(Counter::kPauseRx), 2U);
  // A soft reset withdraws what is shown; the pause is not the engine's.
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
  offer(pfc_flits(make_pfc_frame(kTcBit, 0)));
  post_three_sends();
  ASSERT_TRUE(until_shown(false));
  ASSERT_TRUE(pins(std::nullopt, false).tx);  // shown and not taken: held
  ASSERT_TRUE(eng_.tx_header());
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1) | nic::CTRL_SOFT_RESET.put(1));
  EXPECT_FALSE(eng_.tx_header());
  run(10);
  EXPECT_TRUE(out_.empty());
}

TEST_F(LinkTest, APauseBackPressuresNotifiesThroughTheResponseQueueAndLosesNothing) {
  set_pfc(0xFF, 8);
  post(desc(0, 1, 1, {{{kA}, {kB}}}));
  run(10);
  ASSERT_EQ(take(PktType::kNotify).size(), 1U);
  offer(pfc_flits(make_pfc_frame(kTcBit, 20)));  // 160 cycles
  // Five NOTIFYs (the expected one and four parked for a later epoch): SE's
  // response queue (2) fills, then the link waits.
  const std::array notifies = {flit(pkt(PktType::kNotify, kB, 0, 1, 0), true),
                               flit(pkt(PktType::kNotify, kA, 1, 7, 0), true),
                               flit(pkt(PktType::kNotify, kB, 1, 7, 0), true),
                               flit(pkt(PktType::kNotify, kC, 1, 7, 0), true),
                               flit(pkt(PktType::kNotify, kA, 1, 7, 1), true)};
  unsigned taken = 0;
  for (unsigned c = 0; c < 20 && taken < notifies.size(); ++c) {
    taken += pins(notifies[taken]).rx_taken ? 1U : 0U;
  }
  EXPECT_EQ(taken, eng_.config().resp_queue_depth);
  EXPECT_FALSE(eng_.rx_ready(notifies[taken])) << "SE's response queue is full";
  // What does not go to SE is still taken: a PFC frame, a packet to drop.
  EXPECT_TRUE(eng_.rx_ready(pfc_flits(make_pfc_frame(kTcBit, 20))[0]));
  EXPECT_TRUE(eng_.rx_ready(flit(pkt(PktType::kData, kA, 0, 0, 0), true)));
  EXPECT_TRUE(eng_.rx_ready(flit(pkt(PktType::kAck, kA, 0, 1, 0), true)));
  // The rest arrive on the queued link and wait there until the pause ends.
  eng_.receive(std::span(notifies).subspan(taken));
  ack(kA, 0, 1, 0);
  run(100);
  EXPECT_TRUE(eng_.tx_paused());
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(eng_.link_backlog(), notifies.size() - taken + 1);
  ASSERT_TRUE(run_until([&] { return eng_.quiescent(); }, 200));
  const auto acks = take(PktType::kAck);
  EXPECT_EQ(acks.size(), notifies.size());
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(cnt(Counter::kNotifRecv), notifies.size());
  EXPECT_EQ(eng_.completions().size(), 1U);
  EXPECT_EQ(eng_.request_damq().used(), 4U);
}

TEST_F(LinkTest, LinkRegistersResetFromTheRdlAndKeepTheirFields) {
  EXPECT_GE(nic::VERSION_MINOR.get(reg(nic::VERSION)), nic::kLinkRegsMinor);
  EXPECT_EQ(nic::VERSION_MINOR.get(reg(nic::VERSION)), nic::kVersionMinor);
  EXPECT_EQ(reg(nic::NET_CFG), nic::NET_CFG_TC.put(nic::kNetCfgTcReset));
  EXPECT_EQ(reg(nic::PFC_CFG),
            nic::PFC_CFG_ENABLE.put(nic::kPfcCfgEnableReset) |
                nic::PFC_CFG_CYC_PER_QUANTUM.put(nic::kPfcCfgCycPerQuantumReset));
  eng_.csr_write(nic::NET_CFG.offset, 0xFFFF'FFFF);
  EXPECT_EQ(reg(nic::NET_CFG), nic::NET_CFG_TC.mask);
  eng_.csr_write(nic::PFC_CFG.offset, 0xFFFF'FFFF);
  EXPECT_EQ(reg(nic::PFC_CFG), nic::PFC_CFG_ENABLE.mask | nic::PFC_CFG_CYC_PER_QUANTUM.mask);
  EXPECT_EQ(status_paused(), 0U);
  EXPECT_THROW(eng_.csr_write(nic::CNT_PFC_RX.offset, 0), hw::BusError);
  EXPECT_THROW(eng_.csr_write(nic::CNT_PAUSE_RX.offset, 0), hw::BusError);
  offer(pfc_flits(make_pfc_frame(0x80, 1)));  // TC 7 now: a pause on it
  EXPECT_EQ(reg(nic::CNT_PFC_RX), 1U);
  EXPECT_EQ(reg(nic::CNT_PAUSE_RX), 1U);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_CNT_CLEAR.put(1));
  EXPECT_EQ(reg(nic::CNT_PFC_RX), 0U);
  EXPECT_EQ(reg(nic::CNT_PAUSE_RX), 0U);
}

TEST_F(LinkTest, QueuedAndPinLevelFeedersDoNotMix) {
  eng_.receive(pkt(PktType::kData, kA, 0, 0, 0));
  EXPECT_THROW(eng_.step(NetIn{payload(0, true), true}), std::logic_error);
  EXPECT_THROW((void)make_pfc_frame(kTcBit, std::array<std::uint16_t, 3>{}), std::invalid_argument);
}

}  // namespace
}  // namespace syncfab::model::test

// The NIC's management mailbox (docs/group-protocol.md §1) in the golden
// model: the MGMT packet a SEND makes, flit by flit; the receive FIFO, its
// drops, and a soft reset; mailbox traffic beside a running barrier.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include <syncfab/hw/errors.hpp>

#include "engine_fixture.hpp"

namespace syncfab::model::test {
namespace {

constexpr std::uint16_t kAgent = 0x0002;
constexpr std::uint16_t kPeer = 0x0020;
using Payload = std::array<std::uint8_t, fmt::MgmtMsg::kSizeBytes>;

Payload payload(std::uint8_t seed) {
  Payload p{};
  for (std::size_t b = 0; b < p.size(); ++b) {
    p[b] = static_cast<std::uint8_t>(seed + 7 * b);
  }
  return p;
}

// A MGMT packet as a peer sends it: `len` in the header, `flits` flits (the
// header, then the payload, zero past its end).
std::vector<LinkFlit> mgmt_flits(std::uint16_t src, std::uint16_t dst, const Payload& p,
                                 unsigned len = fmt::kMgmtFlits, unsigned flits = fmt::kMgmtFlits) {
  fmt::PktHdr h;
  h.set_pkt_type(fmt::PktType::kMgmt)
      .set_len_flits(static_cast<std::uint8_t>(len))
      .set_src_lid(src)
      .set_dst_lid(dst);
  std::vector<LinkFlit> out{header_flit(h, flits == 1)};
  for (unsigned i = 1; i < flits; ++i) {
    LinkFlit f;
    for (std::size_t b = 0; b < kFlitBytes; ++b) {
      const std::size_t at = (i - 1) * kFlitBytes + b;
      f.data[b] = at < p.size() ? p[at] : std::uint8_t{0};
    }
    f.last = i + 1 == flits;
    out.push_back(f);
  }
  return out;
}

class MailboxTest : public EngineTest {
 public:
  explicit MailboxTest(EngineConfig cfg = make_cfg()) : EngineTest(cfg) {}

 protected:
  void load(const Payload& p) {
    for (std::size_t w = 0; w < nic::kMboxWords; ++w) {
      std::uint32_t v = 0;
      for (std::size_t b = 0; b < 4; ++b) {
        v |= std::uint32_t{p[4 * w + b]} << (8 * b);
      }
      eng_.csr_write(nic::MBOX_TX_DATA[w].offset, v);
    }
  }
  void send(std::uint16_t dst) {
    eng_.csr_write(nic::MBOX_TX_CTRL.offset,
                   nic::MBOX_TX_CTRL_DST_LID.put(dst) | nic::MBOX_TX_CTRL_SEND.put(1));
  }
  std::uint32_t tx_busy() { return nic::MBOX_STATUS_TX_BUSY.get(reg(nic::MBOX_STATUS)); }
  std::uint32_t rx_level() { return nic::MBOX_STATUS_RX_LEVEL.get(reg(nic::MBOX_STATUS)); }
  Payload head() {
    Payload p{};
    for (std::size_t w = 0; w < nic::kMboxWords; ++w) {
      const std::uint32_t v = reg(nic::MBOX_RX_DATA[w]);
      for (std::size_t b = 0; b < 4; ++b) {
        p[4 * w + b] = static_cast<std::uint8_t>(v >> (8 * b));
      }
    }
    return p;
  }
  std::uint16_t head_src() {
    return static_cast<std::uint16_t>(nic::MBOX_RX_SRC_SRC_LID.get(reg(nic::MBOX_RX_SRC)));
  }
  void pop() { eng_.csr_write(nic::MBOX_RX_POP.offset, nic::MBOX_RX_POP_POP.put(1)); }
  // Steps the queued link n cycles, keeping every packet that left whole.
  void run_flits(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      eng_.step();
      while (auto p = eng_.transmit_flits()) {
        sent_.push_back(std::move(*p));
      }
    }
  }

  std::vector<std::vector<LinkFlit>> sent_;
};

// The payload a MGMT packet's flits carry (byte b at byte b mod 16 of flit
// 1 + b div 16).
Payload carried(const std::vector<LinkFlit>& flits) {
  Payload p{};
  for (std::size_t b = 0; b < p.size(); ++b) {
    p[b] = flits.at(1 + b / kFlitBytes).data[b % kFlitBytes];
  }
  return p;
}

TEST_F(MailboxTest, SendMakesOneMgmtPacketFlitByFlit) {
  eng_.csr_write(nic::NET_CFG.offset, nic::NET_CFG_TC.put(5));
  const Payload p = payload(0x31);
  load(p);
  EXPECT_EQ(tx_busy(), 0U);
  send(kAgent);
  EXPECT_EQ(tx_busy(), 1U) << "busy from the SEND write";
  EXPECT_EQ(nic::MBOX_TX_CTRL_DST_LID.get(reg(nic::MBOX_TX_CTRL)), kAgent);
  EXPECT_EQ(nic::MBOX_TX_CTRL_SEND.get(reg(nic::MBOX_TX_CTRL)), 0U) << "SEND is a pulse";
  load(payload(0x99));  // after the write: not what is sent

  fmt::PktHdr want;
  want.set_pkt_type(fmt::PktType::kMgmt)
      .set_len_flits(fmt::kMgmtFlits)
      .set_src_lid(kMe)
      .set_dst_lid(kAgent)
      .set_prio(5);
  std::vector<LinkFlit> flits;
  for (unsigned i = 0; i < fmt::kMgmtFlits; ++i) {
    const auto shown = eng_.tx_flit();
    ASSERT_TRUE(shown) << "flit " << i << " shown in the cycle after the previous one";
    const NetOut o = pins();
    ASSERT_TRUE(o.tx_flit && o.tx_taken) << "flit " << i;
    EXPECT_EQ(*o.tx_flit, *shown) << "flit " << i;
    EXPECT_EQ(o.tx.has_value(), i == 0) << "a header only on the first flit";
    flits.push_back(*o.tx_flit);
    EXPECT_EQ(tx_busy(), i + 1 < fmt::kMgmtFlits ? 1U : 0U) << "after flit " << i;
    EXPECT_EQ(cnt(Counter::kMgmtSent), i + 1 < fmt::kMgmtFlits ? 0U : 1U) << "after flit " << i;
  }
  EXPECT_EQ(flits[0].data, want.bytes()) << "every other header field 0";
  EXPECT_FALSE(flits[0].last);
  EXPECT_FALSE(flits[1].last);
  EXPECT_TRUE(flits[2].last);
  EXPECT_EQ(carried(flits), p);
  EXPECT_FALSE(eng_.tx_flit());
  EXPECT_TRUE(eng_.quiescent());
}

TEST_F(MailboxTest, SendWhileBusyIsIgnoredAndTheHeaderWaitsForTxReady) {
  const Payload p = payload(1);
  load(p);
  send(kAgent);
  for (int i = 0; i < 5; ++i) {
    const NetOut o = pins(std::nullopt, false);
    ASSERT_TRUE(o.tx) << "the header stays shown";
    EXPECT_FALSE(o.tx_taken);
  }
  load(payload(2));
  send(0x0033);  // ignored: nothing sent or counted for it
  EXPECT_EQ(tx_busy(), 1U);
  run_flits(20);
  ASSERT_EQ(sent_.size(), 1U);
  ASSERT_EQ(sent_[0].size(), fmt::kMgmtFlits);
  EXPECT_EQ(fmt::PktHdr(sent_[0][0].data).dst_lid(), kAgent);
  EXPECT_EQ(carried(sent_[0]), p);
  EXPECT_EQ(cnt(Counter::kMgmtSent), 1U);
  EXPECT_EQ(tx_busy(), 0U);

  send(0x0033);  // idle now: the data written last
  run_flits(5);
  ASSERT_EQ(sent_.size(), 2U);
  EXPECT_EQ(fmt::PktHdr(sent_[1][0].data).dst_lid(), 0x0033);
  EXPECT_EQ(carried(sent_[1]), payload(2));
  EXPECT_EQ(cnt(Counter::kMgmtSent), 2U);
}

TEST_F(MailboxTest, PayloadFlitsWaitForTxReadyWithNothingInBetween) {
  load(payload(3));
  send(kAgent);
  run_flits(1);  // the header left
  ASSERT_EQ(tx_busy(), 1U);
  notify(kPeer, 0, 1, 0);  // parked; its ACK waits for the packet's end
  eng_.set_tx_ready(false);
  for (int i = 0; i < 4; ++i) {
    run_flits(1);
    ASSERT_TRUE(eng_.tx_flit());
    EXPECT_FALSE(eng_.tx_header()) << "the first payload flit, not the ACK";
  }
  ASSERT_EQ(cnt(Counter::kNotifRecv), 1U);
  // A pause stops a packet's first flit only.
  set_pfc(0xFF, 1);
  eng_.receive(pfc_flits(make_pfc_frame(0xFF, 100)));
  run_flits(2);
  ASSERT_TRUE(eng_.tx_paused());
  eng_.set_tx_ready(true);
  run_flits(2);
  EXPECT_EQ(tx_busy(), 0U) << "the payload left during the pause";
  EXPECT_EQ(cnt(Counter::kMgmtSent), 1U);
  ASSERT_EQ(sent_.size(), 1U);
  EXPECT_EQ(sent_[0].size(), fmt::kMgmtFlits);
  EXPECT_EQ(carried(sent_[0]), payload(3));
  EXPECT_FALSE(eng_.tx_flit()) << "the ACK waits for the pause's end";
  run_flits(200);
  ASSERT_EQ(sent_.size(), 2U);
  EXPECT_EQ(fmt::PktHdr(sent_[1][0].data).pkt_type(), fmt::PktType::kAck);
}

TEST_F(MailboxTest, ReceivedDatagramsQueueInOrderUntilPopped) {
  eng_.csr_write(nic::INTR_ENABLE.offset, nic::INTR_ENABLE_MGMT_RX.put(1));
  EXPECT_EQ(nic::INTR_ENABLE_MGMT_RX.get(reg(nic::INTR_ENABLE)), 1U);
  const auto a = mgmt_flits(kAgent, kMe, payload(10));
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(pins(a[i]).rx_taken);
    EXPECT_EQ(rx_level(), i + 1 == a.size() ? 1U : 0U)
        << "RX_LEVEL from the cycle after the last flit, flit " << i;
  }
  EXPECT_NE(nic::INTR_STATUS_MGMT_RX.get(reg(nic::INTR_STATUS)), 0U);
  EXPECT_TRUE(eng_.irq());
  eng_.csr_write(nic::INTR_STATUS.offset, nic::INTR_STATUS_MGMT_RX.mask);
  EXPECT_FALSE(eng_.irq());

  eng_.receive(mgmt_flits(0x0007, kMe, payload(20)));
  run_flits(10);
  EXPECT_EQ(rx_level(), 2U);
  EXPECT_EQ(eng_.mbox_rx_level(), 2U);
  EXPECT_EQ(cnt(Counter::kMgmtRecv), 2U);
  EXPECT_TRUE(eng_.irq()) << "set again by the second";
  EXPECT_EQ(head(), payload(10));
  EXPECT_EQ(head_src(), kAgent);
  EXPECT_EQ(head(), payload(10)) << "reading does not pop";
  pop();
  EXPECT_EQ(rx_level(), 1U);
  EXPECT_EQ(head(), payload(20));
  EXPECT_EQ(head_src(), 0x0007);
  pop();
  EXPECT_EQ(rx_level(), 0U);
  EXPECT_EQ(head(), Payload{}) << "0 when empty";
  EXPECT_EQ(head_src(), 0U);
  pop();  // ignored when empty
  EXPECT_EQ(rx_level(), 0U);
  EXPECT_EQ(reg(nic::MBOX_RX_POP), 0U);
  EXPECT_EQ(cnt(Counter::kDrop), 0U);
}

class SmallMailboxTest : public MailboxTest {
 public:
  SmallMailboxTest() : MailboxTest(small()) {}
  static EngineConfig small() {
    EngineConfig c = make_cfg();
    c.mbox_depth = 2;
    return c;
  }
};

TEST_F(SmallMailboxTest, AFullFifoDropsAndCounts) {
  EXPECT_EQ(nic::HW_CFG2_MBOX_DEPTH.get(reg(nic::HW_CFG2)), 2U);
  for (std::uint8_t i = 0; i < 3; ++i) {
    eng_.receive(mgmt_flits(kAgent, kMe, payload(i)));
  }
  run_flits(20);
  EXPECT_EQ(rx_level(), 2U);
  EXPECT_EQ(cnt(Counter::kMgmtRecv), 2U);
  EXPECT_EQ(cnt(Counter::kDrop), 1U);
  EXPECT_EQ(head(), payload(0));
  pop();
  eng_.receive(mgmt_flits(kAgent, kMe, payload(3)));
  run_flits(5);
  EXPECT_EQ(rx_level(), 2U);
  EXPECT_EQ(head(), payload(1));
  pop();
  EXPECT_EQ(head(), payload(3));
}

TEST(MailboxConfig, DepthOutOfRangeIsRefused) {
  hw::HostMemory mem(kMemBase, 4096);
  EngineConfig c;
  c.mbox_depth = 0;
  EXPECT_THROW(BarrierEngine(c, mem), std::invalid_argument);
  c.mbox_depth = 256;
  EXPECT_THROW(BarrierEngine(c, mem), std::invalid_argument);
  c.mbox_depth = 255;
  EXPECT_NO_THROW(BarrierEngine(c, mem));
}

TEST_F(MailboxTest, BadLengthsAreDroppedAndTheNextPacketIsTaken) {
  struct Case {
    unsigned len;
    unsigned flits;
  };
  const std::array<Case, 5> cases{
      {{fmt::kMgmtFlits, 2}, {fmt::kMgmtFlits, 4}, {4, 4}, {1, 1}, {2, fmt::kMgmtFlits}}};
  std::uint32_t drops = 0;
  for (const auto& c : cases) {
    eng_.receive(mgmt_flits(kAgent, kMe, payload(5), c.len, c.flits));
    run_flits(10);
    EXPECT_EQ(cnt(Counter::kDrop), ++drops) << "len_flits " << c.len << ", " << c.flits << " flits";
    EXPECT_EQ(rx_level(), 0U);
  }
  EXPECT_EQ(cnt(Counter::kMgmtRecv), 0U);
  EXPECT_EQ(nic::INTR_STATUS_MGMT_RX.get(reg(nic::INTR_STATUS)), 0U);
  eng_.receive(mgmt_flits(kAgent, kMe, payload(6)));
  run_flits(10);
  EXPECT_EQ(rx_level(), 1U);
  EXPECT_EQ(head(), payload(6));
}

TEST_F(MailboxTest, ForeignAndMulticastDestinationsAreDropped) {
  eng_.receive(mgmt_flits(kAgent, kMe + 1, payload(1)));
  eng_.receive(mgmt_flits(kAgent, fmt::kMlidBase, payload(2)));
  eng_.receive(mgmt_flits(kAgent, fmt::kLidNone, payload(3)));
  run_flits(20);
  EXPECT_EQ(cnt(Counter::kDrop), 3U);
  EXPECT_EQ(rx_level(), 0U);
  EXPECT_EQ(cnt(Counter::kMgmtRecv), 0U);
}

TEST_F(MailboxTest, SoftResetEmptiesTheFifoAndAbandonsASendNotStarted) {
  eng_.receive(mgmt_flits(kAgent, kMe, payload(1)));
  eng_.receive(mgmt_flits(kAgent, kMe, payload(2)));
  run_flits(10);
  ASSERT_EQ(rx_level(), 2U);
  send(kAgent);
  ASSERT_TRUE(pins(std::nullopt, false).tx) << "shown, not taken";
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1) | nic::CTRL_SOFT_RESET.put(1));
  EXPECT_EQ(rx_level(), 0U);
  EXPECT_EQ(head_src(), 0U);
  EXPECT_EQ(tx_busy(), 0U);
  EXPECT_FALSE(eng_.tx_flit()) << "withdrawn";
  run_flits(10);
  EXPECT_TRUE(sent_.empty());
  EXPECT_EQ(cnt(Counter::kMgmtSent), 0U);

  // A packet whose header left is finished: the link carries it whole.
  load(payload(4));
  send(kAgent);
  ASSERT_TRUE(pins().tx_taken);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1) | nic::CTRL_SOFT_RESET.put(1));
  EXPECT_EQ(tx_busy(), 1U);
  std::vector<LinkFlit> rest;
  for (int i = 0; i < 5; ++i) {
    if (const NetOut o = pins(); o.tx_taken) {
      rest.push_back(*o.tx_flit);
    }
  }
  ASSERT_EQ(rest.size(), fmt::kMgmtFlits - 1U);
  EXPECT_TRUE(rest.back().last);
  EXPECT_EQ(tx_busy(), 0U);
  EXPECT_EQ(cnt(Counter::kMgmtSent), 1U);
}

TEST_F(MailboxTest, CtrlEnableDoesNotStopTheMailbox) {
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(0));
  load(payload(8));
  send(kAgent);
  eng_.receive(mgmt_flits(kAgent, kMe, payload(9)));
  run_flits(10);
  ASSERT_EQ(sent_.size(), 1U);
  EXPECT_EQ(carried(sent_[0]), payload(8));
  EXPECT_EQ(rx_level(), 1U);
  EXPECT_EQ(head(), payload(9));
  EXPECT_EQ(nic::STATUS_BUSY.get(reg(nic::STATUS)), 0U);
}

TEST_F(MailboxTest, RegisterAccessRulesAndVersion) {
  EXPECT_EQ(nic::VERSION_MINOR.get(reg(nic::VERSION)), nic::kMboxRegsMinor);
  EXPECT_EQ(nic::HW_CFG2_MBOX_DEPTH.get(reg(nic::HW_CFG2)), 4U);
  for (std::size_t w = 0; w < nic::kMboxWords; ++w) {
    eng_.csr_write(nic::MBOX_TX_DATA[w].offset, 0xA5000000U + static_cast<std::uint32_t>(w));
  }
  for (std::size_t w = 0; w < nic::kMboxWords; ++w) {
    EXPECT_EQ(reg(nic::MBOX_TX_DATA[w]), 0xA5000000U + w);
  }
  EXPECT_THROW(eng_.csr_write(nic::MBOX_STATUS.offset, 0), hw::BusError);
  EXPECT_THROW(eng_.csr_write(nic::MBOX_RX_SRC.offset, 0), hw::BusError);
  for (const auto& r : nic::MBOX_RX_DATA) {
    EXPECT_THROW(eng_.csr_write(r.offset, 0), hw::BusError) << r.name;
  }
  EXPECT_THROW(eng_.csr_write(nic::CNT_MGMT_SENT.offset, 0), hw::BusError);
  // CNT_CLEAR clears the mailbox counters like the others.
  load(payload(1));
  send(kAgent);
  eng_.receive(mgmt_flits(kAgent, kMe, payload(1)));
  run_flits(10);
  EXPECT_EQ(reg(nic::CNT_MGMT_SENT), 1U);
  EXPECT_EQ(reg(nic::CNT_MGMT_RECV), 1U);
  eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1) | nic::CTRL_CNT_CLEAR.put(1));
  EXPECT_EQ(reg(nic::CNT_MGMT_SENT), 0U);
  EXPECT_EQ(reg(nic::CNT_MGMT_RECV), 0U);
  EXPECT_EQ(rx_level(), 1U) << "the FIFO is not a counter";
}

TEST_F(MailboxTest, MailboxTrafficBesideARunningBarrier) {
  // Round 0: send to the peer, hear from it; two barriers in a row, with
  // datagrams sent and received while they run.
  std::uint64_t acked = 0;
  for (std::uint16_t ep = 1; ep <= 2; ++ep) {
    post(desc(0, ep, 1, {{{kPeer}, {kPeer}}}));
    load(payload(static_cast<std::uint8_t>(40 + ep)));
    send(kAgent);
    eng_.receive(mgmt_flits(kAgent, kMe, payload(static_cast<std::uint8_t>(50 + ep))));
    notify(kPeer, 0, ep, 0);
    eng_.receive(mgmt_flits(kAgent, kMe, payload(static_cast<std::uint8_t>(60 + ep))));
    for (int i = 0; i < 200 && eng_.completions().size() < ep; ++i) {
      run_flits(1);
      for (auto& pkt : sent_) {
        const fmt::PktHdr h(pkt[0].data);
        if (h.pkt_type() == fmt::PktType::kNotify) {
          ASSERT_EQ(pkt.size(), 1U) << "a NOTIFY inside a MGMT packet";
          ack(kPeer, 0, h.epoch(), h.round());
          ++acked;
        } else if (h.pkt_type() == fmt::PktType::kMgmt) {
          ASSERT_EQ(pkt.size(), fmt::kMgmtFlits) << "a MGMT packet interleaved";
          EXPECT_EQ(carried(pkt), payload(static_cast<std::uint8_t>(40 + ep)));
        } else {
          ASSERT_EQ(pkt.size(), 1U);
        }
      }
      sent_.clear();
    }
    ASSERT_EQ(eng_.completions().size(), ep);
    EXPECT_EQ(eng_.completions().back().status, fmt::CqStatus::kOk);
    run_flits(10);
    sent_.clear();
    ASSERT_EQ(rx_level(), 2U);
    EXPECT_EQ(head(), payload(static_cast<std::uint8_t>(50 + ep)));
    pop();
    EXPECT_EQ(head(), payload(static_cast<std::uint8_t>(60 + ep)));
    pop();
  }
  EXPECT_EQ(acked, 2U);
  EXPECT_EQ(cnt(Counter::kMgmtSent), 2U);
  EXPECT_EQ(cnt(Counter::kMgmtRecv), 4U);
  EXPECT_EQ(cnt(Counter::kDrop), 0U);
}

}  // namespace
}  // namespace syncfab::model::test

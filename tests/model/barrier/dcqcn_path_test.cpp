// The NIC data path in the golden model (docs/nic/dcqcn.md): register
// refusals, flow errors, DATA packets on the wire, the token bucket, the
// notification point's CNP pacing, CNPs for no flow, and two NICs wired back
// to back running flows and a barrier at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/fmt/formats.hpp>
#include <syncfab/hw/dcqcn_regs.hpp>
#include <syncfab/hw/errors.hpp>
#include <syncfab/hw/host_memory.hpp>
#include <syncfab/hw/nic_regs.hpp>
#include <syncfab/model/barrier_engine.hpp>

namespace syncfab::model {
namespace {

namespace dq = hw::dcqcn;
namespace nic = hw::nic;
using Counter = DataPath::Counter;

constexpr hw::BusAddr kMemBase = 0x1000'0000;
constexpr std::uint16_t kA = 0x10;
constexpr std::uint16_t kB = 0x20;

EngineConfig cfg(std::uint16_t lid) {
  EngineConfig c;
  c.lid = lid;
  c.num_ctx = 2;
  c.data_path = true;
  return c;
}

// One NIC with its host memory, CQ and interrupts set up.
struct Node {
  explicit Node(std::uint16_t lid) : mem(kMemBase, 1 << 16), eng(cfg(lid), mem) {
    eng.csr_write(nic::CQ_BASE_LO.offset, static_cast<std::uint32_t>(kMemBase + 0x1000));
    eng.csr_write(nic::CQ_BASE_HI.offset, static_cast<std::uint32_t>((kMemBase + 0x1000) >> 32));
    eng.csr_write(nic::CQ_SIZE.offset, 8);
    eng.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
  }
  void wr(const hw::Reg& r, std::uint32_t v) { eng.csr_write(dq::kBase + r.offset, v); }
  std::uint32_t rd(const hw::Reg& r) { return eng.csr_read(dq::kBase + r.offset); }
  void start(unsigned index, std::uint16_t dst, std::uint32_t label, unsigned payload,
             std::uint32_t pkts, unsigned prio = 3) {
    wr(dq::FLOW_DST, dst);
    wr(dq::FLOW_CFG, dq::FLOW_CFG_PAYLOAD_FLITS.put(payload) | dq::FLOW_CFG_PRIO.put(prio) |
                         dq::FLOW_CFG_ECT.put(1));
    wr(dq::FLOW_LABEL, label);
    wr(dq::FLOW_COUNT, pkts);
    wr(dq::FLOW_CTRL, dq::FLOW_CTRL_INDEX.put(index) | dq::FLOW_CTRL_START.put(1));
  }
  [[nodiscard]] DataPath::FlowView flow(unsigned f) const { return eng.data_path()->flow(f); }
  [[nodiscard]] std::uint32_t count(Counter c) const { return eng.data_path()->counter(c); }
  void post(const fmt::BarrierDesc& d) {
    const auto words = driver::desc_words(d);
    for (std::size_t w = 0; w < words.size(); ++w) {
      eng.csr_write(static_cast<std::uint32_t>(nic::kHdqWindowOffset + 4 * w), words[w]);
    }
    eng.csr_write(nic::HDQ_POST.offset, nic::HDQ_POST_POST.put(1));
  }

  hw::HostMemory mem;
  BarrierEngine eng;
};

fmt::PktHdr hdr(fmt::PktType t, std::uint16_t src, std::uint16_t dst, std::uint32_t label,
                unsigned len = 1) {
  fmt::PktHdr h;
  h.set_pkt_type(t)
      .set_len_flits(static_cast<std::uint8_t>(len))
      .set_src_lid(src)
      .set_dst_lid(dst)
      .set_flow_label(label);
  return h;
}

// Runs `cycles` cycles of one NIC, returning every packet that left (flits).
std::vector<std::vector<LinkFlit>> run(BarrierEngine& e, unsigned cycles) {
  std::vector<std::vector<LinkFlit>> out;
  for (unsigned i = 0; i < cycles; ++i) {
    e.step();
    while (auto p = e.transmit_flits()) {
      out.push_back(std::move(*p));
    }
  }
  return out;
}

TEST(DcqcnPath, AbsentDataPathAnswersBusError) {
  hw::HostMemory mem(kMemBase, 1 << 12);
  EngineConfig c = cfg(kA);
  c.data_path = false;
  BarrierEngine e(c, mem);
  EXPECT_THROW((void)e.csr_read(dq::kBase + dq::ID.offset), hw::BusError);
  EXPECT_EQ(e.data_path(), nullptr);
}

TEST(DcqcnPath, IdentityAndResetValues) {
  Node n(kA);
  EXPECT_EQ(n.rd(dq::ID), dq::kMagic);
  EXPECT_EQ(dq::HW_CFG_NUM_FLOWS.get(n.rd(dq::HW_CFG)), fmt::kNumFlows);
  EXPECT_EQ(n.rd(dq::RATE_AI), dq::kRateAiReset);
  EXPECT_EQ(n.rd(dq::ALPHA_CFG), 8U);
  EXPECT_EQ(n.rd(dq::CNP_INTERVAL), 50000U);
  EXPECT_THROW((void)n.rd(hw::Reg{static_cast<std::uint32_t>(dq::kBlockBytes), "past the block"}),
               hw::BusError);
}

TEST(DcqcnPath, OutOfRangeRegistersAreRefusedAndUnchanged) {
  Node n(kA);
  for (const auto* r : {&dq::RATE_AI, &dq::RATE_HAI, &dq::RATE_MIN}) {
    const std::uint32_t before = n.rd(*r);
    EXPECT_THROW(n.wr(*r, 0), hw::BusError) << r->name;
    EXPECT_THROW(n.wr(*r, fmt::kRateLine + 1), hw::BusError) << r->name;
    EXPECT_EQ(n.rd(*r), before) << r->name;
    n.wr(*r, fmt::kRateLine);  // the top of the range is taken
    EXPECT_EQ(n.rd(*r), fmt::kRateLine) << r->name;
  }
  EXPECT_THROW(n.wr(dq::ALPHA_CFG, 0), hw::BusError);
  EXPECT_THROW(n.wr(dq::ALPHA_CFG, 17), hw::BusError);
  EXPECT_EQ(n.rd(dq::ALPHA_CFG), 8U);
  for (const auto* r : {&dq::ALPHA_TIMER, &dq::RATE_TIMER, &dq::BYTE_COUNTER}) {
    EXPECT_THROW(n.wr(*r, 0), hw::BusError) << r->name;
  }
  EXPECT_THROW(n.wr(dq::FLOW_SEL, fmt::kNumFlows), hw::BusError);
  EXPECT_THROW(
      n.wr(dq::FLOW_CTRL, dq::FLOW_CTRL_INDEX.put(fmt::kNumFlows) | dq::FLOW_CTRL_START.put(1)),
      hw::BusError);
  EXPECT_THROW(n.wr(dq::FLOW_CTRL, dq::FLOW_CTRL_START.put(1) | dq::FLOW_CTRL_STOP.put(1)),
               hw::BusError);
  EXPECT_THROW(n.wr(dq::FLOW_STATUS, 0), hw::BusError);  // read-only
  EXPECT_EQ(n.rd(dq::FLOW_SUMMARY), 0U);
}

TEST(DcqcnPath, BadFlowsEndInErrorWithTheirCode) {
  Node n(kA);
  struct Case {
    std::uint16_t dst;
    unsigned payload;
    std::uint32_t pkts;
    fmt::FlowErr err;
  };
  const Case cases[] = {
      {kB, 0, 1, fmt::FlowErr::kBadLength},
      {kB, fmt::kDataMaxPayloadFlits + 1, 1, fmt::FlowErr::kBadLength},
      {kB, 1, 0, fmt::FlowErr::kBadCount},
      {fmt::kLidNone, 1, 1, fmt::FlowErr::kBadLid},
      {fmt::kMlidBase, 1, 1, fmt::FlowErr::kBadLid},
      {kA, 1, 1, fmt::FlowErr::kBadLid},
  };
  for (const auto& c : cases) {
    n.start(1, c.dst, 7, c.payload, c.pkts);
    EXPECT_EQ(n.flow(1).state, fmt::FlowState::kError) << fmt::to_string(c.err);
    EXPECT_EQ(n.flow(1).err, c.err);
    n.wr(dq::FLOW_SEL, 1);
    EXPECT_EQ(dq::FLOW_STATUS_ERR.get(n.rd(dq::FLOW_STATUS)), static_cast<unsigned>(c.err));
  }
  EXPECT_EQ(dq::FLOW_SUMMARY_ERROR.get(n.rd(dq::FLOW_SUMMARY)), 1U << 1);
  n.start(0, kB, 7, 1, 1000);
  EXPECT_EQ(n.flow(0).state, fmt::FlowState::kRunning);
  n.start(1, kB, 7, 1, 1000);
  EXPECT_EQ(n.flow(1).err, fmt::FlowErr::kDupFlow);
  EXPECT_THROW(n.start(0, kB, 8, 1, 1), hw::BusError);  // START on a RUNNING flow
  (void)run(n.eng, 1);
  EXPECT_EQ(n.count(Counter::kDataTx), 1U);  // the refused write left flow 0 as it was
  EXPECT_EQ(n.flow(0).state, fmt::FlowState::kRunning);
}

TEST(DcqcnPath, DataPacketsCarryTheFlowAndLeaveBackToBack) {
  Node n(kA);
  n.start(2, kB, 0xABCDE, 3, 5, 5);
  const auto pkts = run(n.eng, 40);
  ASSERT_EQ(pkts.size(), 5U);
  for (std::uint32_t i = 0; i < pkts.size(); ++i) {
    ASSERT_EQ(pkts[i].size(), 4U);
    const fmt::PktHdr h(pkts[i][0].data);
    EXPECT_EQ(h.pkt_type(), fmt::PktType::kData);
    EXPECT_EQ(h.len_flits(), 4U);
    EXPECT_EQ(h.dst_lid(), kB);
    EXPECT_EQ(h.src_lid(), kA);
    EXPECT_EQ(h.prio(), 5U);
    EXPECT_EQ(h.ecn(), fmt::Ecn::kEct0);
    EXPECT_EQ(h.flow_label(), 0xABCDEU);
    EXPECT_EQ(h.epoch(), i);
    for (unsigned j = 1; j < 4; ++j) {
      const auto& d = pkts[i][j].data;
      EXPECT_EQ(d[0] | d[1] << 8 | d[2] << 16, 0xABCDE);
      EXPECT_EQ(d[4], i);
      EXPECT_EQ(d[8], j);
      EXPECT_EQ(pkts[i][j].last, j == 3);
    }
  }
  EXPECT_EQ(n.flow(2).state, fmt::FlowState::kDone);
  EXPECT_EQ(n.flow(2).sent, 5U);
  EXPECT_EQ(n.count(Counter::kDataTx), 5U);
  EXPECT_EQ(n.count(Counter::kDataTxFlits), 20U);
  EXPECT_TRUE(n.eng.quiescent());
}

TEST(DcqcnPath, StopEndsAFlowEarly) {
  Node n(kA);
  n.start(0, kB, 1, 1, 1000);
  (void)run(n.eng, 10);
  n.wr(dq::FLOW_CTRL, dq::FLOW_CTRL_INDEX.put(0) | dq::FLOW_CTRL_STOP.put(1));
  const std::uint32_t sent = n.flow(0).sent;
  (void)run(n.eng, 10);
  EXPECT_EQ(n.flow(0).state, fmt::FlowState::kStopped);
  EXPECT_EQ(n.flow(0).sent, sent);
  EXPECT_LT(sent, 1000U);
}

TEST(DcqcnPath, CnpHalvesTheRateAndTheTokenBucketEnforcesIt) {
  Node n(kA);
  n.start(0, kB, 9, 1, 100000);  // 2-flit packets
  (void)run(n.eng, 100);
  EXPECT_EQ(n.count(Counter::kDataTx), 50U);  // line rate: one packet per 2 cycles
  n.eng.receive(hdr(fmt::PktType::kCnp, kB, kA, 9));
  (void)run(n.eng, 2);
  EXPECT_EQ(n.count(Counter::kCnpRx), 1U);
  EXPECT_EQ(n.flow(0).rc, fmt::kRateLine / 2);
  EXPECT_EQ(n.flow(0).rt, fmt::kRateLine);
  EXPECT_EQ(n.flow(0).cnps, 1U);
  const std::uint32_t before = n.count(Counter::kDataTx);
  (void)run(n.eng, 400);
  // Half the line: 400 cycles carry 200 flits = 100 packets (one of slack
  // for the bucket's phase).
  EXPECT_NEAR(n.count(Counter::kDataTx) - before, 100, 1);
  // RP disabled: back to line rate although RC stays halved.
  n.wr(dq::CTRL, dq::CTRL_RP_ENABLE.put(0) | dq::CTRL_NP_ENABLE.put(1));
  const std::uint32_t mid = n.count(Counter::kDataTx);
  (void)run(n.eng, 400);
  EXPECT_NEAR(n.count(Counter::kDataTx) - mid, 200, 1);
  EXPECT_EQ(n.flow(0).rc, fmt::kRateLine / 2);
}

TEST(DcqcnPath, CnpForNoRunningFlowIsCountedAndDropped) {
  Node n(kA);
  n.start(0, kB, 9, 1, 100000);
  n.eng.receive(hdr(fmt::PktType::kCnp, kB, kA, 10));   // unknown label
  n.eng.receive(hdr(fmt::PktType::kCnp, 0x30, kA, 9));  // another sender
  n.eng.receive(hdr(fmt::PktType::kCnp, kB, 0x30, 9));  // not for this NIC
  (void)run(n.eng, 10);
  EXPECT_EQ(n.count(Counter::kCnpUnknown), 3U);
  EXPECT_EQ(n.count(Counter::kCnpRx), 0U);
  EXPECT_EQ(n.flow(0).rc, fmt::kRateLine);
  EXPECT_EQ(n.eng.counter(nic::Counter::kDrop), 0U);
}

// The receiver: CE-marked DATA packets from one flow get one CNP per
// CNP_INTERVAL; other flows have their own slots.
TEST(DcqcnPath, NotificationPointPacesCnpsPerFlow) {
  Node b(kB);
  b.wr(dq::CNP_INTERVAL, 100);
  std::vector<std::vector<LinkFlit>> out;
  const auto ce_data = [&](std::uint16_t src, std::uint32_t label) {
    auto h = hdr(fmt::PktType::kData, src, kB, label, 2);
    h.set_ecn(fmt::Ecn::kCe);
    const std::vector<LinkFlit> flits{header_flit(h, false), LinkFlit{{}, true}};
    b.eng.receive(flits);
  };
  ce_data(kA, 5);  // cycle ~1: CNP
  auto pkts = run(b.eng, 10);
  ce_data(kA, 5);  // inside the interval: held back
  ce_data(kA, 6);  // another flow: its own CNP
  auto more = run(b.eng, 10);
  pkts.insert(pkts.end(), more.begin(), more.end());
  ASSERT_EQ(pkts.size(), 2U);
  const fmt::PktHdr c0(pkts[0][0].data);
  EXPECT_EQ(c0.pkt_type(), fmt::PktType::kCnp);
  EXPECT_EQ(c0.dst_lid(), kA);
  EXPECT_EQ(c0.src_lid(), kB);
  EXPECT_EQ(c0.flow_label(), 5U);
  EXPECT_EQ(c0.prio(), dq::kCnpPrioReset);
  EXPECT_EQ(c0.len_flits(), 1U);
  EXPECT_EQ(fmt::PktHdr(pkts[1][0].data).flow_label(), 6U);
  EXPECT_EQ(b.count(Counter::kCnpSuppressed), 1U);
  (void)run(b.eng, 100);  // past the interval
  ce_data(kA, 5);
  EXPECT_EQ(run(b.eng, 10).size(), 1U);
  EXPECT_EQ(b.count(Counter::kCnpTx), 3U);
  EXPECT_EQ(b.count(Counter::kDataRx), 4U);
  EXPECT_EQ(b.count(Counter::kDataRxCe), 4U);
  EXPECT_EQ(b.count(Counter::kDataRxFlits), 4U);
}

TEST(DcqcnPath, NotificationPointTableFullLosesTheCnp) {
  Node b(kB);
  b.wr(dq::CNP_INTERVAL, 100000);
  for (std::uint32_t label = 0; label <= fmt::kNpSlots; ++label) {
    auto h = hdr(fmt::PktType::kData, kA, kB, label, 1);
    h.set_ecn(fmt::Ecn::kCe);
    b.eng.receive(h);
  }
  const auto pkts = run(b.eng, 3 * fmt::kNpSlots);
  EXPECT_EQ(pkts.size(), fmt::kNpSlots);
  EXPECT_EQ(b.count(Counter::kCnpDrop), 1U);
  // A malformed DATA packet (len_flits 3, two flits) and one for another node.
  b.eng.receive(std::vector<LinkFlit>{header_flit(hdr(fmt::PktType::kData, kA, kB, 1, 3), false),
                                      LinkFlit{{}, true}});
  b.eng.receive(hdr(fmt::PktType::kData, kA, 0x30, 1, 1));
  (void)run(b.eng, 5);
  EXPECT_EQ(b.count(Counter::kDataDrop), 2U);
}

// Two NICs back to back: A sends a flow to B through a wire that marks every
// DATA packet CE; B's CNPs slow A down; a barrier between them completes
// meanwhile, its packets ahead of the DATA in the arbiter.
TEST(DcqcnPath, FlowsAndABarrierShareTheLink) {
  Node a(kA);
  Node b(kB);
  for (Node* n : {&a, &b}) {
    n->wr(dq::CNP_INTERVAL, 200);
  }
  a.wr(dq::RATE_TIMER, 50);  // recover between CNPs
  a.start(0, kB, 3, 7, 400);
  const auto wire = [](BarrierEngine& from, BarrierEngine& to, bool mark) {
    while (auto p = from.transmit_flits()) {
      fmt::PktHdr h((*p)[0].data);
      if (mark && h.pkt_type() == fmt::PktType::kData) {
        h.set_ecn(fmt::Ecn::kCe);
        (*p)[0] = header_flit(h, (*p)[0].last);
      }
      to.receive(*p);
    }
  };
  const auto cycle = [&] {
    a.eng.step();
    b.eng.step();
    wire(a.eng, b.eng, true);
    wire(b.eng, a.eng, false);
  };
  for (int i = 0; i < 200; ++i) {
    cycle();
  }
  fmt::BarrierDesc da;
  fmt::BarrierDesc db;
  for (auto* d : {&da, &db}) {
    d->set_opcode(fmt::Opcode::kBarrier)
        .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
        .set_ctx(0)
        .set_epoch(1)
        .set_fanout_k(1)
        .set_num_rounds(1)
        .set_flag_cq_entry(true);
  }
  da.set_round_dst_lid(0, 0, kB).set_round_src_lid(0, 0, kB);
  db.set_round_dst_lid(0, 0, kA).set_round_src_lid(0, 0, kA);
  a.post(da);
  b.post(db);
  const std::uint64_t posted = a.eng.cycle();
  std::optional<std::uint64_t> done;
  for (int i = 0; i < 20000 && a.flow(0).state == fmt::FlowState::kRunning; ++i) {
    cycle();
    if (!done && !a.eng.completions().empty() && !b.eng.completions().empty()) {
      done = a.eng.cycle();
    }
  }
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(a.eng.completions().at(0).status, fmt::CqStatus::kOk);
  EXPECT_EQ(b.eng.completions().at(0).status, fmt::CqStatus::kOk);
  // Strict priority over DATA: the barrier does not wait behind the flow's
  // backlog (a handful of packets in flight at most).
  EXPECT_LT(*done - posted, 200U);
  for (int i = 0; i < 100; ++i) {
    cycle();
  }
  EXPECT_EQ(a.flow(0).state, fmt::FlowState::kDone);
  EXPECT_EQ(b.count(Counter::kDataRx), 400U);
  EXPECT_EQ(b.count(Counter::kDataRxFlits), 400U * 7);
  EXPECT_GT(b.count(Counter::kCnpTx), 0U);
  // A CNP for the flow's last packets may arrive after it is DONE.
  EXPECT_EQ(a.count(Counter::kCnpRx) + a.count(Counter::kCnpUnknown), b.count(Counter::kCnpTx));
  EXPECT_EQ(a.flow(0).cnps, a.count(Counter::kCnpRx));
  EXPECT_LT(a.flow(0).rc, fmt::kRateLine);
  EXPECT_EQ(a.eng.counter(nic::Counter::kDrop), 0U);
  EXPECT_EQ(b.eng.counter(nic::Counter::kDrop), 0U);
}

}  // namespace
}  // namespace syncfab::model

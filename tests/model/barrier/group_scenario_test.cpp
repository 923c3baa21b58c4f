// Several model NICs running group barriers together (docs/group-barrier.md),
// wired by the test: an ideal network (unicast by LID, multicast to every
// member but the sender, a fixed latency, chosen packets lost) for the
// multicast-release barrier, and one model switch with a root combine entry
// for the switch-combined barrier. Checks the fabric rule of §7: no member
// completes an epoch before every member posted it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/hw/host_memory.hpp>
#include <syncfab/hw/nic_regs.hpp>
#include <syncfab/hw/switch_regs.hpp>
#include <syncfab/model/barrier_engine.hpp>
#include <syncfab/model/nic_group_regs.hpp>
#include <syncfab/model/switch_model.hpp>
#include <syncfab/test/seeds.hpp>

namespace syncfab::model::test {
namespace {

namespace nic = hw::nic;

constexpr hw::BusAddr kBase = 0x1000'0000;
constexpr std::uint16_t kGroup = fmt::kMlidBase + 2;
constexpr std::uint8_t kCtx = 1;

struct Node {
  explicit Node(std::uint16_t lid) : mem(kBase, 1 << 14), eng(cfg(lid), mem) {
    eng.csr_write(nic::CQ_BASE_LO.offset, static_cast<std::uint32_t>(kBase));
    eng.csr_write(nic::CQ_SIZE.offset, 64);
    eng.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
    eng.csr_write(group_regs::kGroupTimeout.offset, 300);
  }
  static EngineConfig cfg(std::uint16_t lid) {
    EngineConfig c;
    c.lid = lid;
    c.num_ctx = 4;
    return c;
  }
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

fmt::BarrierDesc group_desc(fmt::Opcode op, std::uint16_t epoch, std::uint16_t member,
                            std::uint16_t members, std::uint16_t root_lid) {
  fmt::BarrierDesc d;
  d.set_opcode(op)
      .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
      .set_ctx(kCtx)
      .set_epoch(epoch)
      .set_flag_cq_entry(true)
      .set_mlid(kGroup)
      .set_root_lid(root_lid)
      .set_member(member)
      .set_members(members);
  return d;
}

// Posts one epoch on every node at its own skew and runs until every node
// completed it; checks the completions against the last post.
class GroupScenario : public ::testing::Test {
 protected:
  void make_nodes(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      nodes_.push_back(std::make_unique<Node>(static_cast<std::uint16_t>(i + 1)));
    }
  }
  void run_epoch(fmt::Opcode op, std::uint16_t epoch, const std::vector<unsigned>& skew) {
    std::vector<std::size_t> before;
    for (const auto& nd : nodes_) {
      before.push_back(nd->eng.completions().size());
      // Software has read every CQ entry so far.
      nd->eng.csr_write(nic::CQ_TAIL.offset, nd->eng.csr_read(nic::CQ_HEAD.offset));
    }
    const std::uint64_t start = cycle_;
    std::uint64_t last_post = 0;
    std::vector<bool> posted(nodes_.size(), false);
    for (std::uint64_t k = 0; k < 20'000; ++k) {
      for (std::size_t i = 0; i < nodes_.size(); ++i) {
        if (!posted[i] && cycle_ >= start + skew[i]) {
          nodes_[i]->post(group_desc(op, epoch, static_cast<std::uint16_t>(i),
                                     static_cast<std::uint16_t>(nodes_.size()), 1));
          posted[i] = true;
          last_post = cycle_;
        }
      }
      step();
      bool all = true;
      for (std::size_t i = 0; i < nodes_.size(); ++i) {
        all = all && nodes_[i]->eng.completions().size() > before[i];
      }
      if (all) {
        break;
      }
    }
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const auto& c = nodes_[i]->eng.completions();
      ASSERT_EQ(c.size(), before[i] + 1) << "node " << i << " epoch " << epoch;
      EXPECT_EQ(c.back().status, fmt::CqStatus::kOk) << "node " << i;
      EXPECT_EQ(c.back().epoch, epoch);
      EXPECT_GT(c.back().cycle, last_post) << "node " << i << " done before every post";
    }
  }
  virtual void step() = 0;

  std::vector<std::unique_ptr<Node>> nodes_;
  std::uint64_t cycle_ = 0;
};

// The ideal network: every packet reaches its destination(s) `kLatency`
// cycles after it left, unless lose() says otherwise.
class McastScenario : public GroupScenario {
 protected:
  static constexpr std::uint64_t kLatency = 5;
  struct InFlight {
    std::uint64_t at;
    std::size_t node;
    fmt::PktHdr pkt;
  };
  void step() override {
    while (!wire_.empty() && wire_.front().at <= cycle_) {
      nodes_[wire_.front().node]->eng.receive(wire_.front().pkt);
      wire_.pop_front();
    }
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i]->eng.step();
      while (auto p = nodes_[i]->eng.transmit()) {
        for (std::size_t j = 0; j < nodes_.size(); ++j) {
          const bool to_j = p->dst_lid() == kGroup ? j != i : p->dst_lid() == j + 1;
          if (to_j && !(lose && lose(*p, j))) {
            wire_.push_back({cycle_ + kLatency, j, *p});
          }
        }
      }
    }
    ++cycle_;
  }
  std::deque<InFlight> wire_;
  std::function<bool(const fmt::PktHdr&, std::size_t)> lose;
};

TEST_F(McastScenario, ConsecutiveEpochsWithSkewAndEarlyArrivals) {
  make_nodes(5);
  // The root (node 0) posts last in the first epochs: arrivals come early.
  run_epoch(fmt::Opcode::kMcastBarrier, 10, {40, 0, 5, 10, 20});
  run_epoch(fmt::Opcode::kMcastBarrier, 11, {0, 30, 5, 60, 1});
  run_epoch(fmt::Opcode::kMcastBarrier, 12, {100, 3, 2, 1, 0});
  const auto& root = nodes_[0]->eng;
  EXPECT_EQ(root.counter(Counter::kArriveRecv), 12U);
  EXPECT_EQ(root.counter(Counter::kReleaseSent), 3U);
  for (std::size_t i = 1; i < nodes_.size(); ++i) {
    EXPECT_EQ(nodes_[i]->eng.counter(Counter::kArriveSent), 3U);
    EXPECT_EQ(nodes_[i]->eng.counter(Counter::kReleaseRecv), 3U);
    EXPECT_EQ(nodes_[i]->eng.counter(Counter::kGroupRetry), 0U);
  }
}

TEST_F(McastScenario, LostArriveAndLostReleaseAreRepairedByReSends) {
  make_nodes(4);
  bool arrive_lost = false;
  bool release_lost = false;
  lose = [&](const fmt::PktHdr& p, std::size_t to) {
    if (p.pkt_type() == fmt::PktType::kArrive && p.src_lid() == 3 && !arrive_lost) {
      return arrive_lost = true;
    }
    if (p.pkt_type() == fmt::PktType::kRelease && to == 3 && !release_lost) {
      return release_lost = true;
    }
    return false;
  };
  run_epoch(fmt::Opcode::kMcastBarrier, 1, {0, 0, 0, 0});
  EXPECT_TRUE(arrive_lost);
  EXPECT_TRUE(release_lost);
  EXPECT_EQ(nodes_[2]->eng.counter(Counter::kGroupRetry), 1U);  // its ARRIVE
  EXPECT_EQ(nodes_[3]->eng.counter(Counter::kGroupRetry), 1U);  // its RELEASE
  // The root answered node 3's re-send with a unicast RELEASE.
  EXPECT_EQ(nodes_[0]->eng.counter(Counter::kReleaseSent), 2U);
  run_epoch(fmt::Opcode::kMcastBarrier, 2, {0, 7, 0, 3});
}

SwitchModelParams switch_params(bool rtl_timing) {
  SwitchModelParams p;
  p.csr = SwitchCsrParams{4, 256, 64, 16};
  if (rtl_timing) {
    // The co-simulation's alignment with the RTL (docs/switch-datapath.md).
    p.fwd_latency = 3;
    p.enqueue_per_cycle = 1;
    p.enqueue_by_packet = true;
    p.shared_read = true;
    p.shared_wred = true;
  }
  return p;
}

// The group's MFT and combine entry on one switch, through its table
// registers, as the subnet manager programs them (first epoch 50), and the
// switch enabled.
void program_group(SwitchModel& sw, std::uint32_t children, bool root, unsigned parent) {
  namespace r = hw::switch_regs;
  const auto table = [&](unsigned t, unsigned idx, std::uint32_t data) {
    sw.csr().write32(r::TBL_ADDR.offset, r::TBL_ADDR_INDEX.put(idx) | r::TBL_ADDR_TABLE.put(t));
    sw.csr().write32(r::TBL_WDATA.offset, data);
    sw.csr().write32(r::TBL_CMD.offset, r::TBL_CMD_WRITE.put(1));
  };
  const unsigned x = kGroup - fmt::kMlidBase;
  table(1, x, CombineEntry::kValidBit | children | (root ? 0U : 1U << parent));  // MFT
  table(2, x, children);
  table(3, x, CombineEntry::kValidBit | (root ? CombineEntry::kRootBit : 0U) | (50U << 8) | parent);
  sw.csr().write32(r::CTRL.offset, r::CTRL_ENABLE.put(1));
}

// One model switch, node i on port i, a root combine entry over the four.
class CombScenario : public GroupScenario {
 protected:
  explicit CombScenario(const SwitchModelParams& p = switch_params(false)) : sw_(p) {
    make_nodes(4);
    program_group(sw_, 0xF, true, 0);
  }
  void step() override {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i]->eng.step();
      while (auto p = nodes_[i]->eng.transmit()) {
        const Flit f = p->bytes();
        if (!(lose && lose(*p, i))) {
          sw_.receive(static_cast<unsigned>(i), std::span(&f, 1), sw_.cycle());
        }
      }
    }
    sw_.tick();
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const auto& log = sw_.transmitted(static_cast<unsigned>(i));
      for (; seen_[i] < log.size(); ++seen_[i]) {
        const fmt::PktHdr h = log[seen_[i]].header();
        if (!(lose && lose(h, i))) {
          nodes_[i]->eng.receive(h);
        }
      }
    }
    ++cycle_;
  }
  // A packet lost on the link of node i (either way).
  std::function<bool(const fmt::PktHdr&, std::size_t)> lose;
  SwitchModel sw_;
  std::array<std::size_t, 4> seen_{};
};

TEST_F(CombScenario, MembersCompleteThroughTheSwitchCombineUnit) {
  run_epoch(fmt::Opcode::kCombBarrier, 50, {0, 10, 20, 30});
  run_epoch(fmt::Opcode::kCombBarrier, 51, {30, 0, 15, 2});
  EXPECT_EQ(sw_.csr().combine()[kGroup - fmt::kMlidBase].epoch, 52);
  for (unsigned p = 0; p < 4; ++p) {
    EXPECT_EQ(sw_.buffer_used(p), 0U);
    EXPECT_EQ(nodes_[p]->eng.counter(Counter::kReleaseRecv), 2U);
    EXPECT_EQ(nodes_[p]->eng.counter(Counter::kDrop), 0U);
  }
}

// Three model switches as the group's tree: two leaves (members 0, 1 and 2,
// 3 on ports 0, 1; port 3 up) under a root (the leaves on ports 0, 1, member
// 4 on port 2).
class CombTreeScenario : public GroupScenario {
 protected:
  struct End {
    int sw;  // -1: node `port`
    unsigned port;
    bool operator==(const End&) const = default;
  };
  struct Link {
    End a;
    End b;
  };
  CombTreeScenario() {
    make_nodes(5);
    for (int i = 0; i < 3; ++i) {
      sws_.push_back(std::make_unique<SwitchModel>(switch_params(i == 1)));
    }
    program_group(*sws_[0], 0b0011, false, 3);
    program_group(*sws_[1], 0b0011, false, 3);
    program_group(*sws_[2], 0b0111, true, 0);
    links_ = {{{-1, 0}, {0, 0}}, {{-1, 1}, {0, 1}}, {{-1, 2}, {1, 0}}, {{-1, 3}, {1, 1}},
              {{-1, 4}, {2, 2}}, {{0, 3}, {2, 0}},  {{1, 3}, {2, 1}}};
  }
  // The other end of the link at `from`, and the link's index.
  [[nodiscard]] std::pair<End, std::size_t> peer(End from) const {
    for (std::size_t l = 0; l < links_.size(); ++l) {
      if (links_[l].a == from) {
        return {links_[l].b, l};
      }
      if (links_[l].b == from) {
        return {links_[l].a, l};
      }
    }
    throw std::logic_error("no link at switch " + std::to_string(from.sw) + " port " +
                           std::to_string(from.port));
  }
  void deliver(End from, const fmt::PktHdr& h) {
    const auto [to, link] = peer(from);
    if (lose && lose(h, link)) {
      return;
    }
    if (to.sw < 0) {
      nodes_[to.port]->eng.receive(h);
      return;
    }
    SwitchModel& sw = *sws_[static_cast<std::size_t>(to.sw)];
    const Flit f = h.bytes();
    auto& free = next_free_[{to.sw, to.port}];
    free = std::max(free, sw.cycle());
    sw.receive(to.port, std::span(&f, 1), free++);
  }
  void step() override {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i]->eng.step();
      while (auto p = nodes_[i]->eng.transmit()) {
        deliver({-1, static_cast<unsigned>(i)}, *p);
      }
    }
    for (std::size_t s = 0; s < sws_.size(); ++s) {
      sws_[s]->tick();
      for (unsigned port = 0; port < sws_[s]->ports(); ++port) {
        const auto& log = sws_[s]->transmitted(port);
        auto& seen = seen_[{static_cast<int>(s), port}];
        for (; seen < log.size(); ++seen) {
          deliver({static_cast<int>(s), port}, log[seen].header());
        }
      }
    }
    ++cycle_;
  }
  [[nodiscard]] std::uint16_t epoch_of(std::size_t s) const {
    return sws_[s]->csr().combine()[kGroup - fmt::kMlidBase].epoch;
  }

  std::function<bool(const fmt::PktHdr&, std::size_t)> lose;  // by link index
  std::vector<std::unique_ptr<SwitchModel>> sws_;
  std::vector<Link> links_;
  std::map<std::pair<int, unsigned>, std::size_t> seen_;
  std::map<std::pair<int, unsigned>, std::uint64_t> next_free_;
};

TEST_F(CombTreeScenario, ArrivalsCombineUpTheTreeAndReleasesComeDown) {
  run_epoch(fmt::Opcode::kCombBarrier, 50, {0, 50, 10, 90, 30});
  run_epoch(fmt::Opcode::kCombBarrier, 51, {90, 0, 0, 10, 0});
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(epoch_of(s), 52) << s;
  }
  // Each leaf sent one arrival per epoch up, the root one release down.
  EXPECT_EQ(sws_[0]->transmitted(3).size(), 2U);
  EXPECT_EQ(sws_[1]->transmitted(3).size(), 2U);
  EXPECT_EQ(sws_[2]->transmitted(0).size(), 2U);
  for (const auto& nd : nodes_) {
    EXPECT_EQ(nd->eng.counter(Counter::kArriveSent), 2U);
    EXPECT_EQ(nd->eng.counter(Counter::kReleaseRecv), 2U);
  }
}

// Seeded: random skews and every packet lost with probability 1/10, four
// consecutive epochs per seed (the epochs go on from seed to seed: the
// group's state does too); every barrier completes OK after its last post
// and the models' own safety checks (exceptions) hold.
void lossy_epochs(const std::function<void(std::uint16_t, const std::vector<unsigned>&)>& epoch,
                  std::function<bool(const fmt::PktHdr&, std::size_t)>& lose, std::size_t nodes,
                  std::uint16_t& next_epoch) {
  for (const auto seed : syncfab::test::seeds({1, 2, 3})) {
    SCOPED_TRACE("seed " + std::to_string(seed) +
                 "; replay: " + syncfab::test::replay_command(seed));
    std::mt19937_64 rng(seed);
    lose = [&rng](const fmt::PktHdr&, std::size_t) {
      return std::bernoulli_distribution(0.1)(rng);
    };
    for (unsigned k = 0; k < 4; ++k) {
      std::vector<unsigned> skew;
      for (std::size_t i = 0; i < nodes; ++i) {
        skew.push_back(std::uniform_int_distribution<unsigned>(0, 600)(rng));
      }
      epoch(next_epoch++, skew);
      if (::testing::Test::HasFatalFailure()) {
        return;
      }
    }
  }
  lose = nullptr;
}

TEST_F(McastScenario, LossyLinksSkewedPostsSeeded) {
  make_nodes(6);
  std::uint16_t ep = 100;
  lossy_epochs(
      [&](std::uint16_t e, const std::vector<unsigned>& skew) {
        run_epoch(fmt::Opcode::kMcastBarrier, e, skew);
      },
      lose, nodes_.size(), ep);
}

TEST_F(CombScenario, LossyLinksSkewedPostsSeeded) {
  std::uint16_t ep = 50;  // the combine entry's first epoch
  lossy_epochs(
      [&](std::uint16_t e, const std::vector<unsigned>& skew) {
        run_epoch(fmt::Opcode::kCombBarrier, e, skew);
      },
      lose, nodes_.size(), ep);
  EXPECT_EQ(sw_.csr().combine()[kGroup - fmt::kMlidBase].epoch, ep);
}

class CombScenarioRtlTiming : public CombScenario {
 protected:
  CombScenarioRtlTiming() : CombScenario(switch_params(true)) {}
};

TEST_F(CombScenarioRtlTiming, LossyLinksSkewedPostsSeeded) {
  std::uint16_t ep = 50;
  lossy_epochs(
      [&](std::uint16_t e, const std::vector<unsigned>& skew) {
        run_epoch(fmt::Opcode::kCombBarrier, e, skew);
      },
      lose, nodes_.size(), ep);
  EXPECT_EQ(sw_.csr().combine()[kGroup - fmt::kMlidBase].epoch, ep);
}

TEST_F(CombTreeScenario, LossyLinksSkewedPostsSeeded) {
  std::uint16_t ep = 50;
  lossy_epochs(
      [&](std::uint16_t e, const std::vector<unsigned>& skew) {
        run_epoch(fmt::Opcode::kCombBarrier, e, skew);
      },
      lose, nodes_.size(), ep);
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(epoch_of(s), ep) << s;
  }
}

}  // namespace
}  // namespace syncfab::model::test

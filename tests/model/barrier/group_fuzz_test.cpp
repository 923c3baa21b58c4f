// Random group-barrier stimulus against one engine, the test playing the
// other members, the root NIC and the switches: MCAST_BARRIER (root and
// member) and COMB_BARRIER descriptors (some malformed, some on a busy
// context), random ARRIVE / RELEASE / COMB_ARRIVE / COMB_RELEASE packets
// around each context's epoch, the matching ones more often, random
// GROUP_TIMEOUT / GROUP_RETRY_LIMIT, a link that is not always ready.
// Checked throughout (besides the model's own safety exceptions):
//   * a member completes OK only after the test sent its matching release,
//     a root only after the test sent an ARRIVE of that epoch from every
//     member 1 .. members - 1;
//   * RELEASE_TIMEOUT only for a member descriptor, with a limit set;
//   * every ARRIVE / COMB_ARRIVE the engine sends names a running member
//     descriptor (dst, ctx, epoch, member); a multicast RELEASE a root
//     descriptor whose members all arrived; a unicast RELEASE an ARRIVE the
//     test sent;
//   * every group packet received lands in exactly one outcome: CNT_ARRIVE_RECV,
//     CNT_DUP, CNT_DROP (less the early sets discarded), CNT_RELEASE_RECV or
//     a re-sent release.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/hw/host_memory.hpp>
#include <syncfab/hw/nic_regs.hpp>
#include <syncfab/model/barrier_engine.hpp>
#include <syncfab/model/nic_group_regs.hpp>

#include <syncfab/test/seeds.hpp>

namespace syncfab::model::test {
namespace {

namespace nic = hw::nic;
using fmt::Opcode;
using fmt::PktType;

constexpr std::uint16_t kMe = 0x10;
constexpr std::uint16_t kRootLid = 0x31;
constexpr std::uint16_t kMlid = fmt::kMlidBase + 1;
constexpr unsigned kCtx = 4;

struct Posted {
  Opcode op = Opcode::kMcastBarrier;
  std::uint16_t epoch = 0;
  std::uint16_t member = 0;
  std::uint16_t members = 0;
  bool valid = false;
};

class GroupFuzz {
 public:
  explicit GroupFuzz(std::uint64_t seed)
      : rng_(seed), mem_(0x1000'0000, 1 << 14), eng_(cfg(), mem_) {
    eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
    eng_.set_trace([this](std::string_view s) {
      if (s.find("ge.discard") != std::string_view::npos) {
        ++discards_;
      }
      if (s.find("-> re-send release") != std::string_view::npos) {
        ++resend_decisions_;
      }
    });
    for (unsigned c = 0; c < kCtx; ++c) {
      next_ep_[c] = static_cast<std::uint16_t>(uni(0, 0xFFFF));
    }
  }

  void run(unsigned cycles) {
    for (unsigned k = 0; k < cycles && !::testing::Test::HasFatalFailure(); ++k) {
      stimulus();
      eng_.set_tx_ready(chance(0.8));
      const std::size_t before = eng_.completions().size();
      eng_.step();
      while (auto p = eng_.transmit()) {
        check_sent(*p);
      }
      for (std::size_t i = before; i < eng_.completions().size(); ++i) {
        check_completion(eng_.completions()[i]);
      }
    }
    // Drain what is on its way out, then the counter identity.
    eng_.set_tx_ready(true);
    for (unsigned k = 0; k < 200; ++k) {
      eng_.step();
      while (auto p = eng_.transmit()) {
        check_sent(*p);
      }
    }
    using C = Counter;
    const auto cnt = [&](C c) { return std::uint64_t{eng_.counter(c)}; };
    EXPECT_EQ(received_, cnt(C::kArriveRecv) + cnt(C::kDup) + cnt(C::kDrop) - discards_ +
                             cnt(C::kReleaseRecv) + resend_decisions_);
    EXPECT_EQ(unicast_releases_, resend_decisions_);
    EXPECT_GT(cnt(C::kReleaseRecv) + ok_roots_, 0U) << "nothing completed";
  }

 private:
  static EngineConfig cfg() {
    EngineConfig c;
    c.lid = kMe;
    c.num_ctx = kCtx;
    c.max_members = 8;
    return c;
  }
  unsigned uni(unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  void stimulus() {
    if (chance(0.002)) {
      eng_.csr_write(group_regs::kGroupTimeout.offset, uni(0, 3) == 0 ? 0 : uni(5, 200));
      eng_.csr_write(group_regs::kGroupRetryLimit.offset, uni(0, 3));
    }
    const auto level = nic::HDQ_POST_FULL.get(eng_.csr_read(nic::HDQ_POST.offset));
    if (level == 0 && chance(0.01)) {
      post();
    }
    if (chance(0.05)) {
      inject();
    }
  }

  void post() {
    const unsigned c = uni(0, kCtx);  // kCtx: BAD_CONTEXT
    Posted p;
    const unsigned kind = uni(0, 2);
    p.op = kind == 2 ? Opcode::kCombBarrier : Opcode::kMcastBarrier;
    p.members = static_cast<std::uint16_t>(uni(1, 5));
    p.member = static_cast<std::uint16_t>(kind == 0 || p.members == 1 ? 0 : uni(1, p.members - 1));
    std::uint16_t mlid = kMlid;
    // A context still running (or about to) gets a malformed descriptor:
    // CTX_BUSY would depend on when the first one ends.
    const bool busy = c < kCtx && (pending_[c] || eng_.ctx_active(c));
    if (busy || chance(0.05)) {
      mlid = 0x20;  // BAD_LID
    }
    if (chance(0.05)) {
      p.members = 0;  // BAD_MEMBERS (BAD_LID first)
    }
    p.valid = c < kCtx && mlid == kMlid && p.members != 0;
    const std::uint16_t ep = c < kCtx ? next_ep_[c] : 0;
    fmt::BarrierDesc d;
    d.set_opcode(p.op)
        .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
        .set_ctx(static_cast<std::uint8_t>(c))
        .set_epoch(ep)
        .set_mlid(mlid)
        .set_root_lid(kRootLid)
        .set_member(p.member)
        .set_members(p.members);
    p.epoch = ep;
    if (p.valid) {
      posted_[c] = p;
      history_[{c, ep}] = p;
      pending_[c] = true;
      ++next_ep_[c];
    }
    const auto words = driver::desc_words(d);
    for (std::size_t w = 0; w < words.size(); ++w) {
      eng_.csr_write(static_cast<std::uint32_t>(nic::kHdqWindowOffset + 4 * w), words[w]);
    }
    eng_.csr_write(nic::HDQ_POST.offset, nic::HDQ_POST_POST.put(1));
  }

  void inject() {
    const unsigned c = uni(0, kCtx);
    const Posted* run = c < kCtx && pending_[c] ? &posted_[c] : nullptr;
    std::uint16_t ep = c < kCtx ? static_cast<std::uint16_t>(next_ep_[c] - 2 + uni(0, 3)) : 0;
    fmt::PktHdr p;
    p.set_len_flits(1).set_ctx(static_cast<std::uint8_t>(c));
    // A matching packet for the running descriptor half of the time.
    if (run != nullptr && chance(0.5)) {
      ep = run->epoch;
      if (run->op == Opcode::kMcastBarrier && run->member == 0) {
        p.set_pkt_type(PktType::kArrive)
            .set_dst_lid(kMe)
            .set_member(static_cast<std::uint16_t>(uni(1, std::max(1U, run->members - 1U))));
      } else {
        p.set_pkt_type(run->op == Opcode::kMcastBarrier ? PktType::kRelease : PktType::kCombRelease)
            .set_dst_lid(chance(0.8) ? kMlid : kMe);
      }
    } else {
      const PktType types[] = {PktType::kArrive, PktType::kRelease, PktType::kCombArrive,
                               PktType::kCombRelease};
      p.set_pkt_type(types[uni(0, 3)]);
      const std::uint16_t dsts[] = {kMe, kMlid, static_cast<std::uint16_t>(kMlid + 1), 0x77};
      p.set_dst_lid(dsts[uni(0, 3)]).set_member(static_cast<std::uint16_t>(uni(0, 9)));
    }
    p.set_epoch(ep).set_src_lid(static_cast<std::uint16_t>(0x40 + uni(0, 7)));
    if (p.pkt_type() == PktType::kArrive && p.dst_lid() == kMe) {
      arrivals_.insert({c, ep, p.member()});
      arrive_srcs_.insert({c, ep, p.src_lid()});
    }
    if ((p.pkt_type() == PktType::kRelease && (p.dst_lid() == kMlid || p.dst_lid() == kMe)) ||
        (p.pkt_type() == PktType::kCombRelease && p.dst_lid() == kMlid)) {
      releases_.insert({c, ep, static_cast<unsigned>(p.pkt_type())});
    }
    ++received_;
    eng_.receive(p);
  }

  void check_sent(const fmt::PktHdr& p) {
    const unsigned c = p.ctx();
    ASSERT_LT(c, kCtx);
    // A header shown when its barrier ended still leaves, maybe after the
    // next post on its context: judge it by the descriptor of its epoch.
    const auto it = history_.find({c, p.epoch()});
    ASSERT_TRUE(it != history_.end())
        << "sent for no posted descriptor: ctx " << c << " ep " << p.epoch();
    const Posted& d = it->second;
    const std::string what = "sent type " + std::to_string(static_cast<unsigned>(p.pkt_type())) +
                             " ctx " + std::to_string(c) + " ep " + std::to_string(p.epoch());
    switch (p.pkt_type()) {
      case PktType::kArrive:
        EXPECT_EQ(d.op, Opcode::kMcastBarrier) << what;
        EXPECT_EQ(p.dst_lid(), kRootLid) << what;
        EXPECT_EQ(p.member(), d.member) << what;
        EXPECT_EQ(p.epoch(), d.epoch) << what;
        break;
      case PktType::kCombArrive:
        EXPECT_EQ(d.op, Opcode::kCombBarrier) << what;
        EXPECT_EQ(p.dst_lid(), kMlid) << what;
        EXPECT_EQ(p.epoch(), d.epoch) << what;
        break;
      case PktType::kRelease:
        if (p.dst_lid() == kMlid) {
          EXPECT_EQ(d.member, 0) << what;
          EXPECT_EQ(p.epoch(), d.epoch) << what;
          for (unsigned m = 1; m < d.members; ++m) {
            EXPECT_TRUE(arrivals_.contains({c, d.epoch, m})) << what << " without member " << m;
          }
        } else {
          ++unicast_releases_;
          EXPECT_TRUE(arrive_srcs_.contains({c, p.epoch(), p.dst_lid()})) << what;
        }
        break;
      default:
        ADD_FAILURE() << what;
    }
    EXPECT_EQ(p.src_lid(), kMe);
  }

  void check_completion(const CompletionRecord& r) {
    if (r.status == fmt::CqStatus::kDescError) {
      return;  // a malformed or busy post
    }
    ASSERT_LT(r.ctx, kCtx);
    ASSERT_TRUE(pending_[r.ctx]) << "completion of nothing on ctx " << unsigned{r.ctx};
    const Posted& d = posted_[r.ctx];
    pending_[r.ctx] = false;
    EXPECT_EQ(r.epoch, d.epoch);
    const bool root = d.op == Opcode::kMcastBarrier && d.member == 0;
    if (r.status == fmt::CqStatus::kNetError) {
      EXPECT_EQ(r.err, fmt::ErrCode::kReleaseTimeout);
      EXPECT_FALSE(root);
      return;
    }
    ASSERT_EQ(r.status, fmt::CqStatus::kOk);
    if (d.members == 1) {
      return;
    }
    if (root) {
      ++ok_roots_;
      for (unsigned m = 1; m < d.members; ++m) {
        EXPECT_TRUE(arrivals_.contains({r.ctx, d.epoch, m})) << "root OK without member " << m;
      }
    } else {
      const auto t = d.op == Opcode::kMcastBarrier ? PktType::kRelease : PktType::kCombRelease;
      EXPECT_TRUE(releases_.contains({r.ctx, d.epoch, static_cast<unsigned>(t)}))
          << "member OK without its release, ctx " << unsigned{r.ctx} << " ep " << d.epoch;
    }
  }

  std::mt19937_64 rng_;
  hw::HostMemory mem_;
  BarrierEngine eng_;
  std::array<std::uint16_t, kCtx> next_ep_{};
  std::array<Posted, kCtx> posted_{};
  std::array<bool, kCtx> pending_{};
  std::map<std::pair<unsigned, std::uint16_t>, Posted> history_;         // (ctx, epoch)
  std::set<std::tuple<unsigned, std::uint16_t, unsigned>> arrivals_;     // ctx ep member
  std::set<std::tuple<unsigned, std::uint16_t, unsigned>> arrive_srcs_;  // ctx ep src
  std::set<std::tuple<unsigned, std::uint16_t, unsigned>> releases_;     // ctx ep type
  std::uint64_t received_ = 0;
  std::uint64_t discards_ = 0;
  std::uint64_t resend_decisions_ = 0;
  std::uint64_t unicast_releases_ = 0;
  std::uint64_t ok_roots_ = 0;
};

TEST(GroupFuzz, RandomGroupStimulusKeepsEveryRule) {
  for (const auto seed : syncfab::test::seeds({1, 2, 3})) {
    SCOPED_TRACE("seed " + std::to_string(seed) +
                 "; replay: " + syncfab::test::replay_command(seed));
    GroupFuzz f(seed);
    f.run(20'000);
  }
}

}  // namespace
}  // namespace syncfab::model::test

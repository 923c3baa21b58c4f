// Random stimulus against one engine, the test playing every peer: random
// descriptors (some malformed), random and scheduled notifications across
// epochs and contexts, ACKs and NACKs with random delays, stray responses,
// PFC frames (some malformed) from the link, a link that is not always ready
// to take what the engine sends.
// Checked throughout:
//   * TE sends round r only after the engine has ACKed every expected
//     notification of rounds < r for that context and epoch;
//   * an OK completion only after every expected notification was ACKed by
//     the engine and every send was ACKed by its peer;
//   * a RETRY_LIMIT completion only after a send was NACKed more than the limit;
//   * every NOTIFY gets exactly one ACK or NACK; the DAMQ never exceeds its
//     capacity; CNT_NACK_SENT and CNT_NOTIF_SENT match what was seen;
//   * the link (docs/nic/top.md): a header is first shown only while
//     NET_CFG.TC is not paused, stays shown unchanged until taken, leaves
//     with prio = NET_CFG.TC; CNT_PFC_RX and CNT_PAUSE_RX count the
//     well-formed frames and the pauses on TC sent.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/hw/host_memory.hpp>
#include <syncfab/hw/nic_regs.hpp>
#include <syncfab/model/barrier_engine.hpp>
#include <syncfab/model/nic_link.hpp>

#include <syncfab/test/seeds.hpp>

namespace syncfab::model::test {
namespace {

namespace nic = hw::nic;
using fmt::PktType;

constexpr std::uint16_t kMe = 0x10;
constexpr unsigned kCtx = 4;
constexpr std::uint32_t kRetryLimit = 5;
constexpr std::uint16_t kPool[] = {0x21, 0x22, 0x23, 0x24, 0x25, 0x26};
constexpr unsigned kTc = 5;

using Key = std::tuple<unsigned, std::uint16_t, unsigned, std::uint16_t>;  // ctx ep round lid

struct Running {
  std::vector<std::vector<std::uint16_t>> expect;         // per round
  std::vector<std::pair<unsigned, std::uint16_t>> sends;  // (round, dst)
};

class Fuzz {
 public:
  explicit Fuzz(std::uint64_t seed)
      : rng_(seed),
        mem_(0x1000'0000, 1 << 16),
        eng_(cfg(), mem_),
        tx_stall_(seed % 3 == 0 ? 0.0 : std::uniform_real_distribution<>(0, 0.5)(rng_)) {
    if (std::getenv("SYNCFAB_TRACE") != nullptr) {
      eng_.set_trace(
          [](std::string_view s) { std::printf("%.*s\n", static_cast<int>(s.size()), s.data()); });
    }
    eng_.csr_write(nic::CQ_BASE_LO.offset, 0x1000'1000);
    eng_.csr_write(nic::CQ_SIZE.offset, 4);
    eng_.csr_write(nic::RETRY_DELAY.offset, 1 + static_cast<std::uint32_t>(seed % 20));
    eng_.csr_write(nic::RETRY_LIMIT.offset, kRetryLimit);
    eng_.csr_write(nic::NET_CFG.offset, nic::NET_CFG_TC.put(kTc));
    eng_.csr_write(nic::PFC_CFG.offset,
                   nic::PFC_CFG_ENABLE.put(0xFF) | nic::PFC_CFG_CYC_PER_QUANTUM.put(1 + seed % 8));
    eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
  }

  void run(std::uint64_t cycles) {
    for (std::uint64_t i = 0; i < cycles && !::testing::Test::HasFailure(); ++i) {
      stimulate(true);
      cycle();
    }
    // Drain: answer what is outstanding, deliver what is still expected.
    for (std::uint64_t i = 0; i < 20'000 && !::testing::Test::HasFailure(); ++i) {
      stimulate(false);
      cycle();
      if (running_.empty() && due_.empty() && eng_.quiescent()) {
        break;
      }
    }
    EXPECT_TRUE(running_.empty()) << running_.size() << " barriers never completed";
    for (const auto& [key, when, what] : must_precede_) {
      const auto it = accepted_.find(key);
      ASSERT_TRUE(it != accepted_.end() && it->second <= when)
          << what << " at cycle " << when << " (ctx " << std::get<0>(key) << " epoch "
          << std::get<1>(key) << ") before round " << std::get<2>(key) << "'s notification from "
          << std::get<3>(key) << " was taken";
    }
    EXPECT_EQ(responses_seen_, notifies_delivered_) << "every NOTIFY gets one ACK or NACK";
    EXPECT_EQ(eng_.counter(Counter::kNackSent), nacks_seen_);
    EXPECT_EQ(eng_.counter(Counter::kNotifSent), notifies_seen_);
    // Each NOTIFY lands in one of RECV, DUP, NACK_SENT or DROP; DROP also
    // counts stray responses and parked entries dropped at activation.
    const std::uint64_t taken = eng_.counter(Counter::kNotifRecv) + eng_.counter(Counter::kDup) +
                                eng_.counter(Counter::kNackSent);
    EXPECT_LE(taken, notifies_delivered_);
    EXPECT_GE(taken + eng_.counter(Counter::kDrop), notifies_delivered_);
    EXPECT_GT(ok_completions_, 10U) << "the random run should complete barriers";
    EXPECT_EQ(eng_.counter(Counter::kPfcRx), pfc_frames_);
    EXPECT_EQ(eng_.counter(Counter::kPauseRx), pauses_on_tc_);
    EXPECT_GT(pauses_on_tc_, 0U) << "the random run should pause the engine";
  }

 private:
  static EngineConfig cfg() {
    EngineConfig c;
    c.lid = kMe;
    c.num_ctx = kCtx;
    c.req_damq_entries = 3;
    c.hdq_depth = 2;
    return c;
  }

  bool chance(double p) { return std::uniform_real_distribution<>(0, 1)(rng_) < p; }
  std::uint64_t pick(std::uint64_t n) { return rng_() % n; }

  void post_random() {
    const auto c = static_cast<unsigned>(pick(kCtx));
    if (busy_[c] || nic::HDQ_POST_FULL.get(eng_.csr_read(nic::HDQ_POST.offset)) != 0) {
      return;
    }
    fmt::BarrierDesc d;
    const unsigned k = 1 + static_cast<unsigned>(pick(fmt::kKMax));
    const auto rounds = static_cast<unsigned>(pick(5));
    const auto ep = static_cast<std::uint16_t>(epoch_[c] + 1);
    d.set_opcode(fmt::Opcode::kBarrier)
        .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
        .set_ctx(static_cast<std::uint8_t>(c))
        .set_epoch(ep)
        .set_fanout_k(static_cast<std::uint8_t>(k))
        .set_num_rounds(static_cast<std::uint8_t>(rounds))
        .set_flag_cq_entry(true);
    Running run;
    run.expect.resize(rounds);
    for (unsigned r = 0; r < rounds; ++r) {
      for (auto* which : {&run.expect[r], static_cast<std::vector<std::uint16_t>*>(nullptr)}) {
        std::vector<std::uint16_t> lids(std::begin(kPool), std::end(kPool));
        std::shuffle(lids.begin(), lids.end(), rng_);
        for (unsigned slot = 0; slot < k; ++slot) {
          if (chance(0.2)) {
            continue;  // a LID_NONE slot
          }
          const auto lid = lids[slot];
          if (which != nullptr) {
            d.set_round_src_lid(r, slot, lid);
            which->push_back(lid);
          } else {
            d.set_round_dst_lid(r, slot, lid);
            run.sends.emplace_back(r, lid);
          }
        }
      }
    }
    const bool malformed = chance(0.1);
    if (malformed) {
      d.set_version(static_cast<std::uint8_t>(fmt::kDescVersion + 1));
    }
    const auto words = driver::desc_words(d);
    for (std::size_t w = 0; w < words.size(); ++w) {
      eng_.csr_write(static_cast<std::uint32_t>(nic::kHdqWindowOffset + 4 * w), words[w]);
    }
    eng_.csr_write(nic::HDQ_POST.offset, nic::HDQ_POST_POST.put(1));
    if (malformed) {
      ++malformed_posted_;
      return;
    }
    epoch_[c] = ep;
    busy_[c] = true;
    running_[{c, ep}] = std::move(run);
  }

  void deliver_notify(unsigned c, std::uint16_t ep, unsigned round, std::uint16_t src) {
    fmt::PktHdr p;
    p.set_pkt_type(PktType::kNotify).set_len_flits(1).set_src_lid(src).set_dst_lid(kMe);
    p.set_ctx(static_cast<std::uint8_t>(c))
        .set_epoch(ep)
        .set_round(static_cast<std::uint8_t>(round));
    eng_.receive(p);
    ++notifies_delivered_;
    delivered_.emplace_back(Key{c, ep, round, src}, eng_.cycle());
  }

  void stimulate(bool random) {
    if (random && chance(0.03)) {
      post_random();
    }
    // Software reads the CQ now and then (a full CQ holds completions back).
    if (!random || chance(0.05)) {
      eng_.csr_write(nic::CQ_TAIL.offset, eng_.csr_read(nic::CQ_HEAD.offset));
    }
    if (random && chance(0.1)) {  // noise across contexts, epochs and rounds
      const auto c = static_cast<unsigned>(pick(kCtx + 1));
      const auto ep = static_cast<std::uint16_t>(epoch_[c % kCtx] + pick(4) - 1);
      deliver_notify(c, ep, static_cast<unsigned>(pick(6)), kPool[pick(std::size(kPool))]);
    }
    if (random && chance(0.004)) {  // the link pauses (or resumes) some priorities
      std::array<std::uint16_t, fmt::kNumPrio> q{};
      for (auto& v : q) {
        v = chance(0.2) ? 0 : static_cast<std::uint16_t>(1 + pick(40));
      }
      auto classes = static_cast<std::uint8_t>(rng_());
      if (chance(0.6)) {
        classes |= 1U << kTc;
      }
      auto flits = pfc_flits(make_pfc_frame(classes, q));
      if (chance(0.1)) {  // malformed: one flit, or len_flits not 2
        if (chance(0.5)) {
          flits[0].last = true;
          eng_.receive(std::span(flits).first(1));
        } else {
          flits[0].data[1] = static_cast<std::uint8_t>(3 + pick(4));
          eng_.receive(flits);
        }
      } else {
        eng_.receive(flits);
        ++pfc_frames_;
        pauses_on_tc_ += ((classes >> kTc) & 1U) != 0 && q[kTc] != 0 ? 1 : 0;
      }
    }
    if (random && chance(0.01)) {  // a stray response
      fmt::PktHdr p;
      p.set_pkt_type(chance(0.5) ? PktType::kAck : PktType::kNack)
          .set_len_flits(1)
          .set_src_lid(kPool[pick(std::size(kPool))])
          .set_dst_lid(kMe)
          .set_ctx(static_cast<std::uint8_t>(pick(kCtx)))
          .set_epoch(static_cast<std::uint16_t>(rng_()));
      eng_.receive(p);
    }
    if (!running_.empty() && chance(0.3)) {  // progress: an expected notification
      auto it = running_.begin();
      std::advance(it, static_cast<long>(pick(running_.size())));
      const auto& [key, run] = *it;
      std::vector<std::pair<unsigned, std::uint16_t>> missing;
      for (unsigned r = 0; r < run.expect.size(); ++r) {
        for (auto src : run.expect[r]) {
          if (accepted_.count({key.first, key.second, r, src}) == 0) {
            missing.emplace_back(r, src);
          }
        }
      }
      if (!missing.empty()) {
        const auto& [r, src] = missing[pick(missing.size())];
        deliver_notify(key.first, key.second, r, src);
      }
    }
    while (!due_.empty() && due_.begin()->first <= eng_.cycle()) {
      const auto p = due_.begin()->second;
      due_.erase(due_.begin());
      if (p.pkt_type() == PktType::kAck) {
        acks_delivered_.insert({p.ctx(), p.epoch(), p.round(), p.src_lid()});
      }
      eng_.receive(p);
    }
  }

  void cycle() {
    // The link rules, at the pins: what tx shows before the cycle.
    const auto shown = eng_.tx_header();
    if (held_) {
      ASSERT_TRUE(shown) << "a shown header withdrawn at cycle " << eng_.cycle();
      ASSERT_EQ(shown->bytes(), held_->bytes()) << "a shown header changed at " << eng_.cycle();
    } else if (shown) {
      ASSERT_FALSE(eng_.tx_paused()) << "a header first shown while paused at " << eng_.cycle();
    }
    const bool ready = !chance(tx_stall_);
    eng_.set_tx_ready(ready);
    eng_.step();
    ASSERT_LE(eng_.request_damq().used(), eng_.request_damq().capacity());
    std::optional<fmt::PktHdr> sent;
    while (auto p = eng_.transmit()) {
      ASSERT_FALSE(sent) << "two headers left in one cycle";
      sent = p;
    }
    ASSERT_EQ(sent.has_value(), shown.has_value() && ready);
    held_ = shown && !ready ? shown : std::nullopt;
    if (sent) {
      ASSERT_EQ(sent->bytes(), shown->bytes());
      ASSERT_EQ(sent->prio(), kTc);
      on_tx(*sent);
    }
    const auto& done = eng_.completions();
    for (; seen_completions_ < done.size(); ++seen_completions_) {
      on_completion(done[seen_completions_]);
    }
  }

  void on_tx(const fmt::PktHdr& p) {
    const Key key{p.ctx(), p.epoch(), p.round(), p.dst_lid()};
    if (p.pkt_type() == PktType::kAck || p.pkt_type() == PktType::kNack) {
      // Responses leave in the order the notifications arrived.
      ++responses_seen_;
      ASSERT_FALSE(delivered_.empty()) << "a response nobody asked for";
      const auto [want, at] = delivered_.front();
      delivered_.pop_front();
      ASSERT_EQ(key, want) << "response out of order or with the wrong fields";
      if (p.pkt_type() == PktType::kAck) {
        accepted_.emplace(key, at);  // keeps the earliest accepted delivery
      } else {
        ++nacks_seen_;
      }
      return;
    }
    ASSERT_EQ(p.pkt_type(), PktType::kNotify);
    ++notifies_seen_;
    const auto it = running_.find({p.ctx(), p.epoch()});
    ASSERT_NE(it, running_.end()) << "NOTIFY for a barrier that is not running";
    // Checked at the end, once every response is out: every expected
    // notification of rounds < r was delivered before this send and accepted.
    for (unsigned r = 0; r < p.round(); ++r) {
      for (auto src : it->second.expect[r]) {
        must_precede_.emplace_back(Key{p.ctx(), p.epoch(), r, src}, eng_.cycle(),
                                   "send of round " + std::to_string(p.round()));
      }
    }
    fmt::PktHdr resp;
    const bool nack = chance(0.25);
    if (nack) {
      ++nacks_given_[key];
    }
    resp.set_pkt_type(nack ? PktType::kNack : PktType::kAck)
        .set_len_flits(1)
        .set_src_lid(p.dst_lid())
        .set_dst_lid(kMe)
        .set_ctx(p.ctx())
        .set_epoch(p.epoch())
        .set_round(p.round());
    due_.emplace(eng_.cycle() + 1 + pick(30), resp);
  }

  void on_completion(const CompletionRecord& c) {
    if (c.status == fmt::CqStatus::kDescError) {
      ASSERT_EQ(c.err, fmt::ErrCode::kBadVersion);
      ASSERT_GT(malformed_posted_, 0U);
      --malformed_posted_;
      return;
    }
    const auto it = running_.find({c.ctx, c.epoch});
    ASSERT_NE(it, running_.end()) << "completion of a barrier that is not running";
    const auto& run = it->second;
    if (c.status == fmt::CqStatus::kOk) {
      for (unsigned r = 0; r < run.expect.size(); ++r) {
        for (auto src : run.expect[r]) {
          must_precede_.emplace_back(Key{c.ctx, c.epoch, r, src}, c.cycle, "OK completion");
        }
      }
      for (const auto& [r, dst] : run.sends) {
        ASSERT_EQ(acks_delivered_.count({c.ctx, c.epoch, r, dst}), 1U) << "completed unACKed";
      }
      ++ok_completions_;
    } else {
      ASSERT_EQ(c.err, fmt::ErrCode::kRetryLimit);
      bool exceeded = false;
      for (const auto& [r, dst] : run.sends) {
        exceeded |= nacks_given_[{c.ctx, c.epoch, r, dst}] > kRetryLimit;
      }
      ASSERT_TRUE(exceeded) << "RETRY_LIMIT without that many NACKs";
    }
    busy_[c.ctx] = false;
    running_.erase(it);
  }

  std::mt19937_64 rng_;
  hw::HostMemory mem_;
  BarrierEngine eng_;
  std::uint16_t epoch_[kCtx] = {};
  bool busy_[kCtx] = {};
  std::map<std::pair<unsigned, std::uint16_t>, Running> running_;
  std::deque<std::pair<Key, std::uint64_t>> delivered_;  // NOTIFYs awaiting a response
  std::map<Key, std::uint64_t> accepted_;                // ACKed NOTIFY -> cycle it was delivered
  std::vector<std::tuple<Key, std::uint64_t, std::string>> must_precede_;
  std::set<Key> acks_delivered_;  // test ACKed an engine send (key: its dst)
  std::map<Key, unsigned> nacks_given_;
  std::multimap<std::uint64_t, fmt::PktHdr> due_;
  std::size_t seen_completions_ = 0;
  std::uint64_t notifies_delivered_ = 0, responses_seen_ = 0, nacks_seen_ = 0;
  std::uint64_t notifies_seen_ = 0, ok_completions_ = 0, malformed_posted_ = 0;
  double tx_stall_;                  // chance the link does not take tx in a cycle
  std::optional<fmt::PktHdr> held_;  // shown last cycle and not taken
  std::uint64_t pfc_frames_ = 0, pauses_on_tc_ = 0;
};

TEST(EngineFuzz, RandomStimulusKeepsEveryRule) {
  for (const auto seed : syncfab::test::seeds({1, 2, 3, 4, 5})) {
    Fuzz f(seed);
    f.run(20'000);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "seed " << seed
                    << "\nreplay: " << syncfab::test::replay_command(seed, "SYNCFAB_TRACE=1");
      return;
    }
  }
}

}  // namespace
}  // namespace syncfab::model::test

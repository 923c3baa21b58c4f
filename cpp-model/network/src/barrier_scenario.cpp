#include "syncfab/model/barrier_scenario.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include <syncfab/hw/nic_regs.hpp>

#include "syncfab/model/dissemination.hpp"

namespace syncfab::model {

namespace nic = hw::nic;

namespace {

constexpr std::uint32_t kCqEntries = 16;
constexpr std::uint32_t kSdqEntries = 8;
constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

struct Layout {
  hw::BusAddr cq;
  hw::BusAddr sdq;
  hw::BusAddr flags;
};

Layout layout(const FabricConfig& f) {
  return {f.mem_base + 0x100, f.mem_base + 0x400,
          f.mem_base + 0x400 + kSdqEntries * fmt::BarrierDesc::kSizeBytes};
}

// Word w of the descriptor as the HDQ window takes it (little-endian bytes).
constexpr std::size_t kDescWords = fmt::BarrierDesc::kSizeBytes / 4;
static_assert(fmt::BarrierDesc::kSizeBytes % 4 == 0);
std::uint32_t desc_word(const fmt::BarrierDesc& d, std::size_t w) {
  std::uint32_t v = 0;
  for (std::size_t b = 0; b < 4; ++b) {
    v |= std::uint32_t{d.bytes()[4 * w + b]} << (8 * b);
  }
  return v;
}

std::uint64_t cmpl_value(unsigned ctx, std::uint16_t epoch) {
  return 0xB000'0000'0000'0000ULL | (std::uint64_t{ctx} << 16) | epoch;
}

struct Submission {
  fmt::BarrierDesc desc;
  bool real = true;  // false: a malformed one
  unsigned ctx = 0;
};

struct CtxAgent {
  unsigned next = 0;  // barrier index to submit next
  bool in_flight = false;
  std::uint64_t arrive_at = 0;
};

struct NodeAgent {
  std::vector<CtxAgent> ctx;
  std::deque<Submission> pending;
  std::uint32_t sdq_prod = 0;
  std::uint32_t cq_tail = 0;
  bool cq_phase = true;
  std::multiset<std::tuple<unsigned, std::uint16_t, fmt::ErrCode>> expected_errors;
};

class Runner {
 public:
  explicit Runner(const ScenarioConfig& cfg)
      : cfg_(cfg), fabric_(fabric_config(cfg)), rng_(cfg.seed), lay_(layout(fabric_.config())) {}

  ScenarioResult run();

 private:
  static FabricConfig fabric_config(const ScenarioConfig& c) {
    FabricConfig f;
    f.x = c.x;
    f.y = c.y;
    f.z = c.z;
    f.hop_latency = c.hop_latency;
    f.nic_latency = c.nic_latency;
    f.engine.num_ctx = c.num_ctx;
    f.engine.req_damq_entries = c.damq_entries;
    f.pauses.interval = c.pause_interval;
    f.pauses.max_quanta = c.pause_quanta;
    f.pauses.seed = c.seed ^ 0x9E37'79B9'7F4A'7C15ULL;
    return f;
  }
  void fail(const std::string& what) {
    if (res_.violations.size() < 20) {
      res_.violations.push_back("cycle " + std::to_string(fabric_.now()) + ": " + what);
    }
  }
  [[nodiscard]] std::uint16_t epoch_of(unsigned ctx, unsigned index) const {
    return static_cast<std::uint16_t>(epoch0_[ctx] + index);
  }
  void setup();
  void queue_barrier(unsigned node, unsigned ctx);
  fmt::BarrierDesc spoil(fmt::BarrierDesc d, fmt::ErrCode& err);
  bool try_post(unsigned node, const Submission& s);
  void poll_cq(unsigned node);
  void tick(unsigned node);
  [[nodiscard]] bool all_done() const;
  [[nodiscard]] std::uint64_t next_arrival() const;
  void final_checks();

  ScenarioConfig cfg_;
  Fabric fabric_;
  std::mt19937_64 rng_;
  Layout lay_;
  std::vector<NodeAgent> agents_;
  std::vector<std::uint16_t> lids_;
  std::vector<std::uint16_t> epoch0_;
  // [ctx][index][node]
  std::vector<std::vector<std::vector<std::uint64_t>>> arrived_;
  std::vector<std::vector<std::vector<std::uint64_t>>> done_;
  std::uint64_t first_sends_per_barrier_ = 0;
  ScenarioResult res_;
};

void Runner::setup() {
  const unsigned n = fabric_.size();
  lids_.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    lids_[i] = Fabric::lid_of(i);
  }
  for (unsigned c = 0; c < cfg_.contexts; ++c) {
    // Start near the wrap now and then: epochs are serial numbers.
    epoch0_.push_back(
        static_cast<std::uint16_t>(rng_() % 4 == 0 ? 0xFFFF - (rng_() % 4) : rng_() % 0x10000));
  }
  arrived_.assign(cfg_.contexts, std::vector<std::vector<std::uint64_t>>(
                                     cfg_.barriers, std::vector<std::uint64_t>(n, kNever)));
  done_ = arrived_;
  agents_.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    auto& e = fabric_.nic(i);
    if (cfg_.trace) {
      e.set_trace([i](std::string_view s) {
        std::printf("node%u %.*s\n", i, static_cast<int>(s.size()), s.data());
      });
    }
    e.csr_write(nic::CQ_BASE_LO.offset, static_cast<std::uint32_t>(lay_.cq));
    e.csr_write(nic::CQ_BASE_HI.offset, static_cast<std::uint32_t>(lay_.cq >> 32));
    e.csr_write(nic::CQ_SIZE.offset, kCqEntries);
    e.csr_write(nic::SDQ_BASE_LO.offset, static_cast<std::uint32_t>(lay_.sdq));
    e.csr_write(nic::SDQ_BASE_HI.offset, static_cast<std::uint32_t>(lay_.sdq >> 32));
    e.csr_write(nic::SDQ_SIZE.offset, kSdqEntries);
    e.csr_write(nic::RETRY_DELAY.offset, cfg_.retry_delay);
    e.csr_write(nic::NET_CFG.offset, nic::NET_CFG_TC.put(cfg_.traffic_class));
    e.csr_write(nic::PFC_CFG.offset, nic::PFC_CFG_ENABLE.put(nic::kPfcCfgEnableReset) |
                                         nic::PFC_CFG_CYC_PER_QUANTUM.put(cfg_.cyc_per_quantum));
    e.csr_write(nic::INTR_ENABLE.offset, nic::INTR_ENABLE_ERROR.mask);
    e.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
    agents_[i].ctx.resize(cfg_.contexts);
    for (auto& c : agents_[i].ctx) {
      c.arrive_at = cfg_.max_skew ? rng_() % (cfg_.max_skew + 1) : 0;
    }
    for (const auto& r : dissemination_schedule(i, n, cfg_.fanout)) {
      first_sends_per_barrier_ += r.send_to.size();
    }
  }
}

fmt::BarrierDesc Runner::spoil(fmt::BarrierDesc d, fmt::ErrCode& err) {
  d.set_epoch(static_cast<std::uint16_t>(rng_()));
  switch (rng_() % 7) {
    case 0:
      d.set_opcode(static_cast<fmt::Opcode>(0x80 | (rng_() % 0x80)));
      err = fmt::ErrCode::kBadOpcode;
      break;
    case 1:
      d.set_version(static_cast<std::uint8_t>(fmt::kDescVersion + 1 + rng_() % 200));
      err = fmt::ErrCode::kBadVersion;
      break;
    case 2:
      d.set_num_rounds(static_cast<std::uint8_t>(fmt::kMaxRounds + 1 + rng_() % 200));
      err = fmt::ErrCode::kBadRounds;
      break;
    case 3:
      d.set_fanout_k(rng_() % 2 == 0 ? 0 : static_cast<std::uint8_t>(fmt::kKMax + 1 + rng_() % 9));
      err = fmt::ErrCode::kBadFanout;
      break;
    case 4:
      d.set_flag_cmpl_write(true).set_cmpl_addr(rng_() % 2 == 0 ? 0 : lay_.flags + 4);
      err = fmt::ErrCode::kBadAddr;
      break;
    case 5:
      d.set_ctx(static_cast<std::uint8_t>(cfg_.num_ctx + rng_() % (256 - cfg_.num_ctx)));
      err = fmt::ErrCode::kBadContext;
      break;
    default:
      d.set_round_dst_lid(0, 0, static_cast<std::uint16_t>(fmt::kMlidBase + rng_() % 0x3FFF));
      err = fmt::ErrCode::kBadLid;
      break;
  }
  return d;
}

void Runner::queue_barrier(unsigned node, unsigned ctx) {
  auto& a = agents_[node];
  auto& ca = a.ctx[ctx];
  const std::uint16_t ep = epoch_of(ctx, ca.next);
  const HostCompletion cmpl{true, lay_.flags + 8ULL * ctx, cmpl_value(ctx, ep), true,
                            rng_() % 4 == 0};
  const auto desc =
      dissemination_descriptor(node, cfg_.fanout, lids_, static_cast<std::uint8_t>(ctx), ep, cmpl);
  if (cfg_.malformed > 0 && std::uniform_real_distribution<>(0, 1)(rng_) < cfg_.malformed) {
    fmt::ErrCode err{};
    const auto bad = spoil(desc, err);
    a.expected_errors.emplace(bad.ctx(), bad.epoch(), err);
    a.pending.push_back(Submission{bad, false, ctx});
    ++res_.malformed_posted;
  }
  a.pending.push_back(Submission{desc, true, ctx});
  ca.in_flight = true;
}

bool Runner::try_post(unsigned node, const Submission& s) {
  auto& e = fabric_.nic(node);
  auto& a = agents_[node];
  const bool sdq_room = (a.sdq_prod + 1) % kSdqEntries != e.csr_read(nic::SDQ_CONS.offset);
  const bool hdq_room = nic::HDQ_POST_FULL.get(e.csr_read(nic::HDQ_POST.offset)) == 0;
  const bool want_sdq = std::uniform_real_distribution<>(0, 1)(rng_) < cfg_.sdq_share;
  if (sdq_room && (want_sdq || !hdq_room)) {
    fabric_.memory(node).write(lay_.sdq + std::uint64_t{a.sdq_prod} * fmt::BarrierDesc::kSizeBytes,
                               std::as_bytes(std::span(s.desc.bytes())));
    a.sdq_prod = (a.sdq_prod + 1) % kSdqEntries;
    e.csr_write(nic::SDQ_PROD.offset, a.sdq_prod);
  } else if (hdq_room) {
    for (std::size_t w = 0; w < kDescWords; ++w) {
      e.csr_write(static_cast<std::uint32_t>(nic::kHdqWindowOffset + 4 * w), desc_word(s.desc, w));
    }
    e.csr_write(nic::HDQ_POST.offset, nic::HDQ_POST_POST.put(1));
  } else {
    return false;
  }
  if (s.real) {
    arrived_[s.ctx][a.ctx[s.ctx].next][node] = fabric_.now();
  }
  return true;
}

void Runner::poll_cq(unsigned node) {
  auto& a = agents_[node];
  auto& mem = fabric_.memory(node);
  for (;;) {
    fmt::CqEntry::Bytes b{};
    mem.read(lay_.cq + std::uint64_t{a.cq_tail} * fmt::CqEntry::kSizeBytes,
             std::as_writable_bytes(std::span(b)));
    const fmt::CqEntry e(b);
    if (e.phase() != a.cq_phase) {
      return;
    }
    a.cq_tail = (a.cq_tail + 1) % kCqEntries;
    if (a.cq_tail == 0) {
      a.cq_phase = !a.cq_phase;
    }
    fabric_.nic(node).csr_write(nic::CQ_TAIL.offset, a.cq_tail);
    const std::string who = "node " + std::to_string(node) + " ctx " + std::to_string(e.ctx()) +
                            " epoch " + std::to_string(e.epoch());
    if (e.status() != fmt::CqStatus::kOk) {
      const auto it = a.expected_errors.find({e.ctx(), e.epoch(), e.err_code()});
      if (it == a.expected_errors.end()) {
        fail(who + ": unexpected " + std::string(fmt::to_string(e.status())) + "/" +
             std::string(fmt::to_string(e.err_code())));
      } else {
        a.expected_errors.erase(it);
      }
      continue;
    }
    if (e.ctx() >= cfg_.contexts) {
      fail(who + ": OK completion on a context nobody uses");
      continue;
    }
    auto& ca = a.ctx[e.ctx()];
    if (!ca.in_flight || e.epoch() != epoch_of(e.ctx(), ca.next)) {
      fail(who + ": OK completion for a barrier not in flight");
      continue;
    }
    if (mem.read64(lay_.flags + 8ULL * e.ctx()) != cmpl_value(e.ctx(), e.epoch())) {
      fail(who + ": completion entry before (or without) the completion write");
    }
    done_[e.ctx()][ca.next][node] = fabric_.now();
    ca.in_flight = false;
    ++ca.next;
    ca.arrive_at = fabric_.now() + (cfg_.max_skew ? rng_() % (cfg_.max_skew + 1) : 0);
  }
}

void Runner::tick(unsigned node) {
  auto& a = agents_[node];
  for (unsigned c = 0; c < cfg_.contexts; ++c) {
    auto& ca = a.ctx[c];
    if (!ca.in_flight && ca.next < cfg_.barriers && ca.arrive_at <= fabric_.now()) {
      queue_barrier(node, c);
    }
  }
  while (!a.pending.empty() && try_post(node, a.pending.front())) {
    a.pending.pop_front();
  }
  poll_cq(node);
}

bool Runner::all_done() const {
  for (const auto& a : agents_) {
    for (const auto& c : a.ctx) {
      if (c.next < cfg_.barriers) {
        return false;
      }
    }
    if (!a.expected_errors.empty()) {
      return false;
    }
  }
  return true;
}

std::uint64_t Runner::next_arrival() const {
  std::uint64_t t = kNever;
  for (const auto& a : agents_) {
    if (!a.pending.empty()) {
      return fabric_.now();
    }
    for (const auto& c : a.ctx) {
      if (!c.in_flight && c.next < cfg_.barriers) {
        t = std::min(t, c.arrive_at);
      }
    }
  }
  return t;
}

void Runner::final_checks() {
  const std::uint64_t bound = res_.liveness_bound;
  for (unsigned c = 0; c < cfg_.contexts; ++c) {
    for (unsigned b = 0; b < cfg_.barriers; ++b) {
      BarrierTiming t{c, b, 0, kNever, 0};
      const auto& arr = arrived_[c][b];
      const auto& dn = done_[c][b];
      t.last_arrival = *std::max_element(arr.begin(), arr.end());
      for (unsigned i = 0; i < dn.size(); ++i) {
        const std::string who = "ctx " + std::to_string(c) + " barrier " + std::to_string(b) +
                                " node " + std::to_string(i);
        if (dn[i] == kNever) {
          fail(who + ": never completed");
          continue;
        }
        if (dn[i] <= t.last_arrival) {
          fail(who + ": SAFETY: completed at " + std::to_string(dn[i]) +
               " before the last node posted at " + std::to_string(t.last_arrival));
        } else if (dn[i] - t.last_arrival > bound) {
          fail(who + ": LIVENESS: completed " + std::to_string(dn[i] - t.last_arrival) +
               " cycles after the last post (bound " + std::to_string(bound) + ")");
        }
        t.first_done = std::min(t.first_done, dn[i]);
        t.last_done = std::max(t.last_done, dn[i]);
      }
      res_.barriers.push_back(t);
    }
  }
  for (unsigned i = 0; i < fabric_.size(); ++i) {
    for (unsigned k = 0; k < kNumCounters; ++k) {
      res_.counters[k] += fabric_.nic(i).counter(static_cast<Counter>(k));
    }
  }
  const auto cnt = [&](Counter c) { return res_.counters[static_cast<unsigned>(c)]; };
  const auto expect_eq = [&](const char* what, std::uint64_t got, std::uint64_t want) {
    if (got != want) {
      fail(std::string(what) + ": " + std::to_string(got) + ", expected " + std::to_string(want));
    }
  };
  const std::uint64_t barriers = std::uint64_t{cfg_.contexts} * cfg_.barriers;
  expect_eq("CNT_DUP (lossless fabric)", cnt(Counter::kDup), 0);
  expect_eq("CNT_DROP (lossless fabric)", cnt(Counter::kDrop), 0);
  expect_eq("CNT_NACK_RECV vs CNT_NACK_SENT", cnt(Counter::kNackRecv), cnt(Counter::kNackSent));
  expect_eq("CNT_RETRY vs CNT_NACK_RECV", cnt(Counter::kRetry), cnt(Counter::kNackRecv));
  expect_eq("CNT_ERROR vs malformed posted", cnt(Counter::kError), res_.malformed_posted);
  expect_eq("CNT_COMPLETION", cnt(Counter::kCompletion),
            barriers * fabric_.size() + res_.malformed_posted);
  expect_eq("first sends (CNT_NOTIF_SENT - CNT_RETRY)",
            cnt(Counter::kNotifSent) - cnt(Counter::kRetry), barriers * first_sends_per_barrier_);
  expect_eq("CNT_NOTIF_RECV", cnt(Counter::kNotifRecv), barriers * first_sends_per_barrier_);
  expect_eq("unroutable packets", fabric_.unroutable(), 0);
  // Every frame the links sent was well formed and taken (drained below).
  expect_eq("CNT_PFC_RX vs PFC frames sent", cnt(Counter::kPfcRx), fabric_.pfc_frames());
  expect_eq("CNT_PAUSE_RX vs pauses sent on the traffic class", cnt(Counter::kPauseRx),
            fabric_.pauses_sent(cfg_.traffic_class));
}

ScenarioResult Runner::run() {
  const auto t0 = std::chrono::steady_clock::now();
  res_.liveness_bound = liveness_bound(cfg_);
  setup();
  for (;;) {
    for (unsigned i = 0; i < fabric_.size(); ++i) {
      tick(i);
    }
    if (all_done()) {
      break;
    }
    if (fabric_.now() >= cfg_.cycle_limit) {
      fail("cycle limit reached with barriers outstanding");
      break;
    }
    if (fabric_.quiescent()) {
      const std::uint64_t t = std::min(next_arrival(), cfg_.cycle_limit);
      if (t == kNever || t <= fabric_.now()) {
        if (t == kNever) {
          fail("deadlock: fabric idle, barriers outstanding, nobody will arrive");
          break;
        }
      } else {
        fabric_.skip_to(t);
        continue;
      }
    }
    fabric_.step();
  }
  res_.cycles = fabric_.now();
  // The links' last PFC frames may still wait on them: let the NICs take
  // them before the counters are read.
  if (!fabric_.drain_links(1'000'000)) {
    fail("the NICs' links did not drain");
  }
  res_.packets = fabric_.delivered();
  final_checks();
  res_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res_;
}

}  // namespace

std::uint64_t liveness_bound(const ScenarioConfig& cfg) {
  const Torus3D t(cfg.x, cfg.y, cfg.z);
  const EngineConfig ec;
  const std::uint64_t lat = cfg.nic_latency + std::uint64_t{t.diameter()} * cfg.hop_latency;
  const std::uint64_t rounds = dissemination_rounds(t.nodes(), cfg.fanout);
  // A pause holds a NIC's transmit for up to `pause` cycles, at most once per
  // pause_interval cycles: a packet may wait out one pause at its sender, and
  // queueing at a NIC slows by up to (interval + pause) / interval.
  std::uint64_t pause = 0;
  std::uint64_t slow = 1;
  if (cfg.pause_interval != 0) {
    pause = std::uint64_t{cfg.pause_quanta} * std::max(cfg.cyc_per_quantum, 1U);
    slow = 1 + (pause + cfg.pause_interval - 1) / cfg.pause_interval;
  }
  // Queueing at one NIC's network arbiter: its own sends and the responses it
  // owes, for every context in use.
  const std::uint64_t queue = (4ULL * cfg.fanout * cfg.contexts + 16) * slow;
  // Dispatch: this node's other contexts' (and malformed) descriptors ahead.
  const std::uint64_t dispatch =
      2ULL * (cfg.contexts + 1) * std::max(ec.sdq_fetch_cycles, ec.hdq_dispatch_cycles) + 16;
  // Per round: the send, at worst a NACK back and a re-send after the delay;
  // each of the three may wait out a pause.
  const std::uint64_t per_round = 3 * (lat + pause) + cfg.retry_delay + queue;
  const std::uint64_t completion = std::uint64_t{ec.completion_cycles} * (2 * cfg.contexts + 1);
  return dispatch + rounds * per_round + 2 * (lat + pause) + queue + completion + 4;
}

std::string ScenarioResult::summary() const {
  std::string s = std::to_string(violations.size()) + " violation(s)";
  for (const auto& v : violations) {
    s += "\n  " + v;
  }
  return s;
}

ScenarioResult run_barrier_scenario(const ScenarioConfig& cfg) { return Runner(cfg).run(); }

}  // namespace syncfab::model

// Co-simulation of nic_top against the golden model (model::BarrierEngine on
// model::ModelDevice). The same driver code (one scenario function, the same
// seed) runs on both devices; the peers are the same PeerWorld, whose every
// decision (skew, ACK or NACK, delays) is a hash of the event, so both engines
// see the same transactions even though their cycle timing differs (the model
// is transaction level: CSR accesses take no time, OF takes 2 or 16 cycles).
//
// What is comparable, and compared:
//   - NOTIFYs out: per (ctx, epoch, round, dst) the number sent (first sends
//     and re-sends); the interleaving across contexts is not (TE: round-robin
//     per context, docs/nic/te.md "Order across contexts");
//   - ACK/NACK out: per (ctx, epoch, round, dst, type) the number sent;
//   - completion records: per context, in order (ctx, epoch, status, error);
//   - every counter at the end (the link's CNT_PFC_RX / CNT_PAUSE_RX and the
//     CNT_DROP of malformed PFC frames included).
// PFC frames from the link (a pause changes when the engine sends, never
// what) are part of the stimulus: the peers inject the same frames into both
// engines, in the same order relative to their headers.
// The peers' NOTIFYs of a barrier start `base` cycles after arrive() returns,
// late enough that both engines have activated the descriptor: parking and
// DAMQ-full NACKs depend on the engine's timing (the RTL spends ~270 cycles
// in the HDQ PIO that the model does at once), so they are not stimulus the
// two can share. Except in the one directed case that parks a few on purpose
// (fewer than the DAMQ holds: RECV counts the same whether parked or not).
#include <syncfab/model/barrier_engine.hpp>
#include <syncfab/model/model_device.hpp>
#include <syncfab/model/nic_link.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "nic_top_bench.hpp"
#include "syncfab/driver/barrier_desc.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/nic_regs.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::nic_top;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace nic = syncfab::hw::nic;
namespace fmt = syncfab::fmt;
namespace model = syncfab::model;

namespace {

constexpr auto kTimeout = std::chrono::microseconds(400);
constexpr unsigned kBase = 300;  // peers start after both engines activated

// What one run leaves for the scoreboard.
struct Outcome {
  std::map<PeerWorld::Key, unsigned> notifies;
  std::map<std::pair<PeerWorld::Key, bool>, unsigned> responses;
  std::vector<CqWrite> cq;  // in completion order
  std::vector<std::uint32_t> counters;
  std::uint64_t cycles = 0;
};

// The device side of one run.
struct Env {
  hw::Device& dev;
  hw::HostMemory& memory;
  PeerWorld& world;
  std::function<std::uint64_t()> cycles;
  std::function<void(std::uint64_t)> idle;
  std::function<void()> nic_opened;  // the rings are programmed (RTL: watch the CQ)
};

drv::NicOptions options(const Env& env) {
  drv::NicOptions o;
  o.poll_interval = std::chrono::nanoseconds(40);
  o.cq_entries = 16;
  o.sdq_entries = 8;
  o.retry_delay_cycles = 16;
  o.retry_limit = 0;
  auto cyc = env.cycles;
  o.clock = [cyc] { return std::chrono::nanoseconds(cyc() * 10); };
  return o;
}

std::vector<std::uint32_t> counters(hw::Device& d) {
  std::vector<std::uint32_t> v;
  v.reserve(std::size(nic::kCounters));
  for (const auto r : nic::kCounters) {
    v.push_back(hw::Csr(d).read(r));
  }
  return v;
}

void barrier(Env& env, drv::BarrierContext& bc, const std::vector<std::uint16_t>& lids,
             drv::SubmitPath path, drv::WaitMode mode, unsigned skew, unsigned gap) {
  const std::uint16_t epoch = bc.next_descriptor(mode).epoch();
  bc.arrive(path, mode);
  env.world.expect(bc.id(), epoch, bc.schedule(), lids, skew, gap, kBase);
}

void wait(drv::BarrierContext& bc, const char* what) {
  TB_CHECK(bc.wait(kTimeout)) << what << ": ctx " << bc.id() << " did not complete";
}

fmt::PktHdr garbage(unsigned kind) {
  fmt::PktHdr g;
  switch (kind % 4) {
    case 0:
      g.set_pkt_type(fmt::PktType::kCombArrive).set_len_flits(1).set_dst_lid(kOwnLid);
      break;
    case 1:
      g.set_pkt_type(fmt::PktType::kNotify).set_len_flits(1).set_dst_lid(0x0777);
      break;
    case 2:
      g.set_pkt_type(fmt::PktType::kAck).set_len_flits(2).set_dst_lid(kOwnLid);
      break;
    default:
      g.set_pkt_type(fmt::PktType::kNack).set_len_flits(1).set_dst_lid(kOwnLid);
      g.set_src_lid(0x0FFF).set_ctx(1).set_epoch(0x9999);
      break;
  }
  return g;
}

// A PFC frame from the link: `classes` paused for `quanta` (0: resumed).
void inject_pfc(Env& env, std::uint8_t classes, std::uint16_t quanta, std::uint64_t delay) {
  env.world.inject_packet(pfc_packet(pfc_frame(classes, quanta)), delay);
}

// A malformed PFC frame (docs/nic/top.md "rx demux"): its first flit alone,
// the frame with a third flit, or two flits whose len_flits is not 2.
void inject_bad_pfc(Env& env, unsigned kind, std::uint64_t delay) {
  Packet p = pfc_packet(pfc_frame(1U << kTcReset, 4));
  switch (kind % 3) {
    case 0:
      p.resize(1);
      break;
    case 1:
      p.push_back(p.back());
      break;
    default: {
      fmt::PfcFrame f = pfc_frame(1U << kTcReset, 4);
      f.set_len_flits(3);
      p = pfc_packet(f);
      break;
    }
  }
  env.world.inject_packet(std::move(p), delay);
}

// Directed: one barrier per path and mode, two contexts at once, consecutive
// barriers, malformed descriptors, a few parked NOTIFYs, garbage.
void directed(Env& env) {
  drv::Nic n(env.dev, env.memory, options(env));
  env.nic_opened();
  {
    const auto l = rank_lids(8, 3);
    auto a = n.open_context(drv::ContextConfig(1, 3, 8, 1, l));
    barrier(env, a, l, drv::SubmitPath::kHdq, drv::WaitMode::kPoll, 30, 10);
    wait(a, "hdq");
    barrier(env, a, l, drv::SubmitPath::kSdq, drv::WaitMode::kInterrupt, 30, 10);
    wait(a, "sdq irq");
  }
  {
    const auto la = rank_lids(16, 7);
    const auto lb = rank_lids(9, 2);
    auto a = n.open_context(drv::ContextConfig(0, 7, 16, 1, la));
    auto c = n.open_context(drv::ContextConfig(3, 2, 9, 2, lb));
    barrier(env, a, la, drv::SubmitPath::kHdq, drv::WaitMode::kPoll, 100, 0);
    barrier(env, c, lb, drv::SubmitPath::kSdq, drv::WaitMode::kPoll, 100, 0);
    wait(a, "two contexts");
    wait(c, "two contexts");
    for (unsigned i = 0; i < 3; ++i) {
      barrier(env, c, lb, drv::SubmitPath::kHdq, drv::WaitMode::kPoll, 60, 5);
      wait(c, "consecutive");
    }
  }
  {
    const auto l = rank_lids(4, 1);
    auto a = n.open_context(drv::ContextConfig(2, 1, 4, 1, l));
    fmt::BarrierDesc bad = a.next_descriptor(drv::WaitMode::kPoll);
    bad.set_opcode(static_cast<fmt::Opcode>(0x7E)).set_epoch(0x4242);
    const drv::CqRecord r1 =
        n.wait_raw(n.submit_raw_descriptor(bad, drv::SubmitPath::kHdq), kTimeout);
    TB_CHECK(r1.err == fmt::ErrCode::kBadOpcode) << drv::describe(r1);
    fmt::BarrierDesc fan = a.next_descriptor(drv::WaitMode::kPoll);
    fan.set_fanout_k(0).set_num_rounds(0).set_epoch(0x4243);
    const drv::CqRecord r2 =
        n.wait_raw(n.submit_raw_descriptor(fan, drv::SubmitPath::kSdq), kTimeout);
    TB_CHECK(r2.err == fmt::ErrCode::kBadFanout) << drv::describe(r2);
    // Two NOTIFYs parked before the descriptor (on the RTL; the model may
    // take them after activation): RECV counts them once either way.
    const std::uint16_t epoch = a.next_descriptor(drv::WaitMode::kPoll).epoch();
    env.world.expect(2, epoch, a.schedule(), l, 5, 0, 0);
    a.arrive(drv::SubmitPath::kHdq);
    wait(a, "parked");
  }
  for (unsigned g = 0; g < 4; ++g) {
    env.world.inject_garbage(garbage(g), 10 + 7 * g);
  }
  env.idle(300);
}

// Parking on purpose, in a way both engines see alike: the NOTIFYs are all
// taken before the descriptor is posted (an idle gap in both), so both park
// the first four and NACK the rest (§4 rule 6, DAMQ of 4); the peers re-send
// the NACKed ones 450-600 cycles later, after both have activated. Then
// consecutive barriers whose next-epoch NOTIFYs arrive while the previous
// barrier runs or just after it: newer epoch, parked in both (§4 rule 6),
// drained at activation (§5).
void parking(Env& env) {
  drv::Nic n(env.dev, env.memory, options(env));
  env.nic_opened();
  {
    const auto l = rank_lids(16, 5);  // k = 3: 2 rounds, 6 NOTIFYs expected
    auto a = n.open_context(drv::ContextConfig(0, 5, 16, 3, l));
    const std::uint16_t epoch = a.next_descriptor(drv::WaitMode::kPoll).epoch();
    env.world.expect(0, epoch, a.schedule(), l, 0, 0, 0);
    env.idle(40);
    a.arrive(drv::SubmitPath::kHdq);
    wait(a, "parked and NACKed");
  }
  {
    const auto l = rank_lids(4, 2);  // k = 1: 2 NOTIFYs per barrier
    auto c = n.open_context(drv::ContextConfig(1, 2, 4, 1, l));
    std::uint16_t epoch = c.next_descriptor(drv::WaitMode::kPoll).epoch();
    env.world.expect(1, epoch, c.schedule(), l, 0, 0, 0);
    env.idle(40);
    for (unsigned i = 0; i < 4; ++i) {
      c.arrive(i % 2 == 0 ? drv::SubmitPath::kHdq : drv::SubmitPath::kSdq);
      if (i + 1 < 4) {
        env.world.expect(1, static_cast<std::uint16_t>(epoch + 1), c.schedule(), l, 20, 0, 0);
      }
      wait(c, "consecutive parked");
      ++epoch;
      env.idle(40);
    }
  }
  env.idle(600);
}

// Barriers under PFC: pauses of the barrier priority (NET_CFG.TC) long and
// short, refreshed, ended by a resume or by running out; pauses of other
// priorities only; malformed frames; before, during and between barriers.
void pfc(Env& env) {
  drv::Nic n(env.dev, env.memory, options(env));
  env.nic_opened();
  const auto tc = static_cast<std::uint8_t>(1U << kTcReset);
  const auto l = rank_lids(16, 5);
  auto a = n.open_context(drv::ContextConfig(0, 5, 16, 2, l));
  inject_pfc(env, tc, 30, 0);  // paused before the first barrier starts
  for (unsigned i = 0; i < 6; ++i) {
    const std::uint64_t at = kBase + 20 * i;
    switch (i % 3) {
      case 0:  // a long pause, refreshed, then resumed
        inject_pfc(env, tc, 40, at);
        inject_pfc(env, static_cast<std::uint8_t>(tc | 0x81), 60, at + 100);
        inject_pfc(env, tc, 0, at + 300);
        break;
      case 1:  // short pauses that run out, a pause of other priorities
        inject_pfc(env, tc, 2, at);
        inject_pfc(env, static_cast<std::uint8_t>(~tc), 500, at + 10);
        inject_pfc(env, tc, 3, at + 60);
        break;
      default:  // malformed frames between good ones
        inject_bad_pfc(env, i, at);
        inject_pfc(env, tc, 8, at + 30);
        inject_bad_pfc(env, i + 1, at + 50);
        inject_bad_pfc(env, i + 2, at + 90);
        break;
    }
    barrier(env, a, l, i % 2 == 0 ? drv::SubmitPath::kHdq : drv::SubmitPath::kSdq,
            drv::WaitMode::kPoll, 40, 10);
    wait(a, "under PFC");
  }
  inject_pfc(env, 0xFF, 0, 10);
  env.idle(600);
  const hw::Csr csr(env.dev);
  TB_CHECK(csr.read(nic::kCounters[static_cast<unsigned>(nic::Counter::kPauseRx)]) >= 6)
      << "the pauses of NET_CFG.TC reached the engine";
}

// Random: contexts, sizes, fan-outs, paths, modes, NACKs from the peers.
void random_run(Env& env, std::uint64_t seed, unsigned iterations) {
  std::mt19937_64 rng(seed);
  drv::Nic n(env.dev, env.memory, options(env));
  env.nic_opened();
  for (unsigned it = 0; it < iterations; ++it) {
    const unsigned nctx = 1 + static_cast<unsigned>(rng() % kNumCtx);
    std::vector<drv::BarrierContext> ctxs;
    std::vector<std::vector<std::uint16_t>> lids;
    for (unsigned c = 0; c < nctx; ++c) {
      const auto p = static_cast<std::uint32_t>(1 + rng() % 40);
      const auto rank = static_cast<std::uint32_t>(rng() % p);
      const auto fan = static_cast<unsigned>(1 + rng() % 4);
      lids.push_back(rank_lids(p, rank));
      ctxs.push_back(n.open_context(drv::ContextConfig(c, rank, p, fan, lids.back())));
    }
    if (rng() % 3 == 0) {
      env.world.inject_garbage(garbage(static_cast<unsigned>(rng())), rng() % 100);
    }
    if (rng() % 2 == 0) {
      const auto classes = static_cast<std::uint8_t>(rng());
      const auto quanta = static_cast<std::uint16_t>(rng() % 4 == 0 ? 0 : 1 + rng() % 40);
      inject_pfc(env, classes, quanta, kBase + rng() % 200);
    }
    if (rng() % 8 == 0) {
      inject_bad_pfc(env, static_cast<unsigned>(rng()), kBase + rng() % 200);
    }
    for (unsigned c = 0; c < nctx; ++c) {
      const auto path = rng() % 2 == 0 ? drv::SubmitPath::kHdq : drv::SubmitPath::kSdq;
      const auto mode = rng() % 3 == 0 ? drv::WaitMode::kInterrupt : drv::WaitMode::kPoll;
      barrier(env, ctxs[c], lids[c], path, mode, static_cast<unsigned>(rng() % 200),
              static_cast<unsigned>(rng() % 20));
    }
    for (auto& c : ctxs) {
      wait(c, "random");
    }
  }
  env.idle(300);
}

Outcome collect(Env& env, std::vector<CqWrite> cq) {
  Outcome o;
  o.notifies = env.world.notify_counts();
  o.responses = env.world.response_counts();
  o.cq = std::move(cq);
  o.counters = counters(env.dev);
  o.cycles = env.cycles();
  return o;
}

// The golden model with the same peers.
struct ModelRun {
  explicit ModelRun(const Knobs& knobs, std::uint64_t salt)
      : memory(kMemBase, kMemBytes),
        engine(config(), memory),
        world([this] { return engine.cycle(); }, salt, knobs),
        dev(
            engine, memory, [this] { step(); }, 10) {}

  static model::EngineConfig config() {
    model::EngineConfig c;
    c.lid = kOwnLid;
    c.num_ctx = kNumCtx;
    c.hdq_depth = 2;
    c.req_damq_entries = 4;
    return c;
  }
  void step() {
    if (world.has_due_packet(engine.cycle())) {
      const Packet p = world.pop_due_packet();
      std::vector<model::LinkFlit> flits;
      for (std::size_t i = 0; i < p.size(); ++i) {
        flits.push_back(model::LinkFlit{p[i], i + 1 == p.size()});
      }
      engine.receive(flits);
    } else if (world.has_due(engine.cycle())) {
      const fmt::PktHdr h = world.pop_due();
      engine.receive(h);
      world.taken(h, engine.cycle());
    }
    engine.step();
    while (auto p = engine.transmit()) {
      world.transmitted(*p, engine.cycle());
    }
  }
  Env env() {
    return Env{dev,
               memory,
               world,
               [this] { return engine.cycle(); },
               [this](std::uint64_t k) {
                 for (std::uint64_t i = 0; i < k; ++i) {
                   step();
                 }
               },
               [] {}};
  }
  [[nodiscard]] std::vector<CqWrite> cq() const {
    std::vector<CqWrite> v;
    for (const auto& r : engine.completions()) {
      v.push_back(CqWrite{r.cycle, r.ctx, r.epoch, static_cast<unsigned>(r.status),
                          static_cast<unsigned>(r.err)});
    }
    return v;
  }

  hw::HostMemory memory;
  model::BarrierEngine engine;
  PeerWorld world;
  model::ModelDevice dev;
};

std::string key_text(const PeerWorld::Key& k) {
  std::ostringstream os;
  os << "ctx " << std::get<0>(k) << " epoch " << std::get<1>(k) << " round " << std::get<2>(k)
     << " peer 0x" << std::hex << std::get<3>(k);
  return os.str();
}

// The scoreboard: RTL vs model.
void compare(const Outcome& rtl, const Outcome& mod) {
  std::vector<std::string> diffs;
  for (const auto& [k, n] : rtl.notifies) {
    const auto it = mod.notifies.find(k);
    const unsigned m = it == mod.notifies.end() ? 0 : it->second;
    if (m != n) {
      diffs.push_back("NOTIFY " + key_text(k) + ": rtl " + std::to_string(n) + " model " +
                      std::to_string(m));
    }
  }
  for (const auto& [k, m] : mod.notifies) {
    if (rtl.notifies.count(k) == 0) {
      diffs.push_back("NOTIFY " + key_text(k) + ": rtl 0 model " + std::to_string(m));
    }
  }
  auto resp_diff = [&](const auto& a, const auto& b, const char* an, const char* bn) {
    for (const auto& [k, n] : a) {
      const auto it = b.find(k);
      const unsigned m = it == b.end() ? 0 : it->second;
      if (m != n) {
        diffs.push_back(std::string(k.second ? "NACK " : "ACK ") + key_text(k.first) + ": " + an +
                        " " + std::to_string(n) + " " + bn + " " + std::to_string(m));
      }
    }
  };
  resp_diff(rtl.responses, mod.responses, "rtl", "model");
  for (const auto& [k, m] : mod.responses) {
    if (rtl.responses.count(k) == 0) {
      diffs.push_back(std::string(k.second ? "NACK " : "ACK ") + key_text(k.first) +
                      ": rtl 0 model " + std::to_string(m));
    }
  }
  for (unsigned c = 0; c < 256; ++c) {
    std::vector<std::string> a;
    std::vector<std::string> b;
    for (const auto& w : rtl.cq) {
      if (w.ctx == c) {
        a.push_back(std::to_string(w.epoch) + "/" + std::to_string(w.status) + "/" +
                    std::to_string(w.err));
      }
    }
    for (const auto& w : mod.cq) {
      if (w.ctx == c) {
        b.push_back(std::to_string(w.epoch) + "/" + std::to_string(w.status) + "/" +
                    std::to_string(w.err));
      }
    }
    if (a != b) {
      std::string s = "CQ ctx " + std::to_string(c) + ": rtl [";
      for (const auto& x : a) {
        s += x + " ";
      }
      s += "] model [";
      for (const auto& x : b) {
        s += x + " ";
      }
      diffs.push_back(s + "] (epoch/status/err)");
    }
  }
  for (std::size_t i = 0; i < rtl.counters.size(); ++i) {
    if (rtl.counters[i] != mod.counters[i]) {
      diffs.push_back(std::string(nic::kCounters[i].name) + ": rtl " +
                      std::to_string(rtl.counters[i]) + " model " +
                      std::to_string(mod.counters[i]));
    }
  }
  std::ostringstream os;
  for (const auto& d : diffs) {
    os << "\n  " << d;
  }
  TB_CHECK(diffs.empty()) << diffs.size() << " co-simulation mismatch(es):" << os.str();
}

template <class Scenario>
Task<> cosim(TestContext& ctx, const Knobs& knobs, Scenario scenario, const char* name) {
  const std::uint64_t salt = ctx.rng()();
  Bench b(ctx, knobs, salt);
  co_await b.reset();
  b.start();
  b.set_node_lid(kOwnLid);
  Env renv{b.dev,
           b.memory,
           b.world,
           [&b] { return b.clk.cycles(); },
           [&b](std::uint64_t k) { b.idle_cycles(k); },
           [&b] { b.watch_cq(); }};
  const std::uint64_t c0 = b.clk.cycles();
  scenario(renv);
  b.world.verify(b.mem.cq_writes());
  Outcome rtl = collect(renv, b.mem.cq_writes());
  rtl.cycles -= c0;

  ModelRun m(knobs, salt);
  Env menv = m.env();
  scenario(menv);
  m.world.verify(m.cq());
  const Outcome mod = collect(menv, m.cq());
  std::cout << name << ": rtl " << rtl.cycles << " cycles, model " << mod.cycles << " cycles, "
            << rtl.cq.size() << " completions\n";
  compare(rtl, mod);
}

}  // namespace

SYNCFAB_TEST(nic_top_cosim, directed) {
  Knobs k;
  k.nack = 0.2;
  co_await cosim(
      ctx, k, [](Env& e) { directed(e); }, "nic_top_cosim.directed");
}

SYNCFAB_TEST(nic_top_cosim, parking) {
  Knobs k;
  k.peer_retry_min = 450;
  k.peer_retry = 600;
  co_await cosim(
      ctx, k, [](Env& e) { parking(e); }, "nic_top_cosim.parking");
}

SYNCFAB_TEST(nic_top_cosim, pfc) {
  Knobs k;
  k.nack = 0.1;
  co_await cosim(
      ctx, k, [](Env& e) { pfc(e); }, "nic_top_cosim.pfc");
}

SYNCFAB_TEST(nic_top_cosim, random) {
  Knobs k;
  auto& rng = ctx.rng();
  k.nack = std::uniform_real_distribution<double>(0.0, 0.4)(rng);
  k.resp_delay = 1 + static_cast<unsigned>(rng() % 30);
  k.mem_latency = 1 + static_cast<unsigned>(rng() % 8);
  k.tx_stall = std::uniform_real_distribution<double>(0.0, 0.3)(rng);
  const std::uint64_t seed = rng();
  const auto iterations = static_cast<unsigned>(ctx.param("iterations", 8));
  co_await cosim(
      ctx, k, [seed, iterations](Env& e) { random_run(e, seed, iterations); },
      "nic_top_cosim.random");
}

#include "nic_fabric_scenario.hpp"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <optional>

#include "syncfab/driver/barrier_errors.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/device.hpp"
#include "syncfab/hw/nic_regs.hpp"

namespace syncfab::tb::fabric {

namespace drv = syncfab::driver;
namespace nic = syncfab::hw::nic;

namespace {

constexpr std::uint64_t kPollStep = 4;  // cycles between two host polling sweeps

// A malformed descriptor a host submitted raw, and the error it must get.
struct Bad {
  drv::RawTicket ticket;
  unsigned ctx = 0;
  std::uint16_t epoch = 0;
  fmt::ErrCode err = fmt::ErrCode::kNone;
};

std::uint64_t uniform(std::mt19937_64& rng, std::uint64_t hi) {
  return std::uniform_int_distribution<std::uint64_t>(0, hi)(rng);
}

// One node's host for one flow.
struct Host {
  drv::BarrierContext bc;
  unsigned next = 0;  // barriers posted so far
  bool pending = false;
  std::uint64_t post_at = 0;
  std::vector<std::uint64_t> posts;
  std::vector<std::uint64_t> returned;
  std::vector<std::uint16_t> epochs;
  std::uint64_t sends = 0;  // NOTIFYs one barrier of this node's schedule sends
  std::uint64_t hears = 0;  // NOTIFYs it expects
  std::vector<Bad> bad;
};

// The context's next descriptor spoilt in one of the ways the NIC must reject
// (`which` picks: bad opcode, too many rounds, k above K_MAX, k = 0) under an
// epoch no barrier of the scenario uses, submitted raw on `path`.
Bad post_malformed(Node& n, const Host& h, drv::SubmitPath path, std::uint64_t which) {
  fmt::BarrierDesc d = h.bc.next_descriptor(drv::WaitMode::kPoll);
  d.set_epoch(static_cast<std::uint16_t>(d.epoch() ^ 0x8000U));
  fmt::ErrCode err = fmt::ErrCode::kBadFanout;
  switch (which % 4) {
    case 0:
      d.set_opcode(static_cast<fmt::Opcode>(0x7E));
      err = fmt::ErrCode::kBadOpcode;
      break;
    case 1:
      d.set_num_rounds(static_cast<std::uint8_t>(fmt::kMaxRounds + 1));
      err = fmt::ErrCode::kBadRounds;
      break;
    case 2:
      d.set_fanout_k(static_cast<std::uint8_t>(n.nic->hw().k_max + 1));
      break;
    default:
      d.set_fanout_k(0);
      break;
  }
  return {n.nic->submit_raw_descriptor(d, path), d.ctx(), d.epoch(), err};
}

}  // namespace

Counters read_counters(hw::Device& d) {
  hw::Csr c(d);
  return {
      c.read(nic::CNT_NOTIF_SENT),  c.read(nic::CNT_NOTIF_RECV),   c.read(nic::CNT_NACK_SENT),
      c.read(nic::CNT_NACK_RECV),   c.read(nic::CNT_RETRY),        c.read(nic::CNT_COMPLETION),
      c.read(nic::CNT_ERROR),       c.read(nic::CNT_DROP),         c.read(nic::CNT_DUP),
      c.read(nic::CNT_PFC_RX),      c.read(nic::CNT_PAUSE_RX),     c.read(nic::CNT_ARRIVE_SENT),
      c.read(nic::CNT_ARRIVE_RECV), c.read(nic::CNT_RELEASE_SENT), c.read(nic::CNT_RELEASE_RECV),
      c.read(nic::CNT_GROUP_RETRY), c.read(nic::CNT_MGMT_SENT),    c.read(nic::CNT_MGMT_RECV)};
}

ScenarioResult run_scenario(Fabric& fab, const Scenario& sc, std::mt19937_64& rng) {
  const unsigned p = fab.size();
  Clock& clk = fab.clk();
  std::vector<std::uint16_t> lids(p);
  for (unsigned i = 0; i < p; ++i) {
    lids[i] = lid_of(i);
  }
  const std::uint64_t start = clk.cycles();
  std::vector<std::size_t> cq_before(p);
  std::vector<Counters> cnt_before(p);
  for (unsigned i = 0; i < p; ++i) {
    cq_before[i] = fab.node(i).mem.cq_writes().size();
    cnt_before[i] = read_counters(fab.node(i).dev);
  }
  const NetStats net_before = fab.net().stats();
  const std::vector<PfcCounts> pfc_before = fab.net().pfc_counts();
  // hosts[f][i]: node i's host of flow f. Paths alternate over nodes,
  // flows and barriers so both HDQ and SDQ carry every barrier.
  std::vector<std::vector<Host>> hosts(sc.flows.size());
  unsigned max_rounds = 0;
  unsigned total_barriers = 0;
  for (std::size_t f = 0; f < sc.flows.size(); ++f) {
    const Flow& fl = sc.flows[f];
    total_barriers += fl.barriers;
    for (unsigned i = 0; i < p; ++i) {
      Host h;
      h.bc = fab.node(i).nic->open_context(drv::ContextConfig(fl.ctx, i, p, fl.k, lids));
      for (const auto& r : h.bc.schedule().rounds) {
        h.sends += r.send_to.size();
        h.hears += r.expect_from.size();
      }
      max_rounds = std::max(max_rounds, static_cast<unsigned>(h.bc.schedule().rounds.size()));
      h.post_at = start + (sc.late != 0 && i == sc.late_node ? sc.late : uniform(rng, sc.skew));
      hosts[f].push_back(std::move(h));
    }
  }
  // Liveness bound after the last post, in the shape of the golden model's
  // (docs/barrier-protocol.md §10): per round a NOTIFY, a NACK and its
  // re-send after RETRY_DELAY plus queueing at the receiver; then the
  // completion writes. The NIC's own pipeline is counted in `nic`.
  const std::uint64_t nic = 16;
  const std::uint64_t lat = fab.net().max_latency() + nic;
  const std::uint64_t pause = sc.pauses ? sc.pauses->max_pause() : 0;
  ScenarioResult res;
  res.bound = 200 +
              std::uint64_t{max_rounds} * (3 * lat + 2ULL * sc.retry_delay + 2ULL * p + 4 * pause) +
              2 * lat;
  if (sc.pauses) {
    fab.net().start_pauses(*sc.pauses);
  }
  const std::uint64_t limit = start + sc.skew + sc.late +
                              std::uint64_t{total_barriers} * (sc.gap + res.bound + 64ULL * p) +
                              std::uint64_t{p} * 400;
  // One post of host (f, i): maybe a malformed descriptor first, then the
  // barrier's own.
  const auto path_of = [&](std::size_t f, unsigned i) {
    return sc.path ? *sc.path
                   : ((i + f + hosts[f][i].next) % 2 == 0 ? drv::SubmitPath::kHdq
                                                          : drv::SubmitPath::kSdq);
  };
  const auto maybe_malformed = [&](std::size_t f, unsigned i) {
    if (sc.malformed > 0 && std::uniform_real_distribution<>(0, 1)(rng) < sc.malformed) {
      Host& h = hosts[f][i];
      h.bad.push_back(post_malformed(fab.node(i), h, path_of(f, i), res.malformed++));
    }
  };
  const auto post = [&](std::size_t f, unsigned i) {
    Host& h = hosts[f][i];
    const auto path = path_of(f, i);
    h.posts.push_back(clk.cycles());
    h.bc.arrive(path);
    h.returned.push_back(clk.cycles());
    h.epochs.push_back(h.bc.epoch());
    h.pending = true;
    ++h.next;
  };
  if (sc.common_start) {
    TB_CHECK(sc.skew == 0 && sc.late == 0) << "a common start needs skew = late = 0";
    // Malformed descriptors go first, unheld: with theirs held, the driver
    // would have to read queue levels that miss the held posts.
    for (std::size_t f = 0; f < sc.flows.size(); ++f) {
      for (unsigned i = 0; i < p; ++i) {
        if (sc.flows[f].barriers > 0) {
          maybe_malformed(f, i);
        }
      }
    }
    fab.hold_doorbells();
    for (std::size_t f = 0; f < sc.flows.size(); ++f) {
      for (unsigned i = 0; i < p; ++i) {
        if (sc.flows[f].barriers > 0) {
          post(f, i);
        }
      }
    }
    const std::uint64_t at = fab.release_doorbells();
    for (auto& flow : hosts) {
      for (Host& h : flow) {
        if (!h.posts.empty()) {
          h.posts.back() = at;
          h.returned.back() = clk.cycles();
        }
      }
    }
  }
  // The hosts share one simulated timeline (the driver is synchronous), so a
  // sweep serves them one after another; a fresh random order per sweep keeps
  // the order of posts seeded even when the APB time of the sweep dwarfs
  // the skew (128 nodes).
  std::vector<unsigned> order(p);
  for (unsigned i = 0; i < p; ++i) {
    order[i] = i;
  }
  for (;;) {
    bool all = true;
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t f = 0; f < sc.flows.size(); ++f) {
      for (const unsigned i : order) {
        Host& h = hosts[f][i];
        if (h.pending && h.bc.test()) {
          h.pending = false;
          h.post_at = clk.cycles() + uniform(rng, sc.gap);
        }
        if (!h.pending && h.next < sc.flows[f].barriers && clk.cycles() >= h.post_at) {
          maybe_malformed(f, i);
          post(f, i);
        }
        all = all && !h.pending && h.next == sc.flows[f].barriers;
      }
    }
    if (all) {
      break;
    }
    TB_CHECK(clk.cycles() < limit) << "LIVENESS: barriers still outstanding at cycle "
                                   << clk.cycles() << " (scenario started at " << start << ")";
    fab.idle_cycles(kPollStep);
  }
  res.cycles = clk.cycles() - start;
  fab.net().stop_pauses();
  fab.idle_cycles(200 + pause);  // last responses out (after the last pause)
  TB_CHECK(fab.net().idle()) << "packets still in the torus after every barrier completed";

  // Completions, safety, liveness.
  for (std::size_t f = 0; f < sc.flows.size(); ++f) {
    const Flow& fl = sc.flows[f];
    std::uint64_t prev_last_done = 0;
    for (unsigned b = 0; b < fl.barriers; ++b) {
      BarrierFigure fig{fl.ctx, fl.k, b, UINT64_MAX, 0, 0, 0, 0};
      const std::uint16_t epoch = hosts[f][0].epochs[b];
      for (unsigned i = 0; i < p; ++i) {
        TB_CHECK_EQ(hosts[f][i].epochs[b], epoch) << "node " << i << " ctx " << fl.ctx;
        fig.first_post = std::min(fig.first_post, hosts[f][i].posts[b]);
        fig.last_post = std::max(fig.last_post, hosts[f][i].posts[b]);
        fig.last_returned = std::max(fig.last_returned, hosts[f][i].returned[b]);
      }
      double sum = 0;
      for (unsigned i = 0; i < p; ++i) {
        const auto& cq = fab.node(i).mem.cq_writes();
        std::optional<std::uint64_t> done;
        for (std::size_t w = cq_before[i]; w < cq.size(); ++w) {
          if (cq[w].ctx != fl.ctx || cq[w].epoch != epoch) {
            continue;
          }
          TB_CHECK(!done) << "node " << i << " ctx " << fl.ctx << " epoch " << epoch
                          << ": two CQ entries";
          TB_CHECK_EQ(cq[w].status, 0U) << "node " << i << " ctx " << fl.ctx << " epoch " << epoch
                                        << " completed with error code " << cq[w].err;
          done = cq[w].cycle;
        }
        TB_CHECK(done) << "node " << i << " ctx " << fl.ctx << " epoch " << epoch
                       << ": no CQ entry";
        TB_CHECK(*done > fig.last_post) << "SAFETY: node " << i << " ctx " << fl.ctx << " barrier "
                                        << b << " completed at cycle " << *done
                                        << " before the last node posted at " << fig.last_post;
        const std::uint64_t lat_i = *done - fig.last_post;
        TB_CHECK(lat_i <= res.bound)
            << "LIVENESS: node " << i << " ctx " << fl.ctx << " barrier " << b << " completed "
            << lat_i << " cycles after the last post (bound " << res.bound << ")";
        res.worst = std::max(res.worst, lat_i);
        fig.last_done = std::max(fig.last_done, *done);
        sum += static_cast<double>(lat_i);
      }
      fig.mean_done = sum / p;
      if (b > 0) {
        for (unsigned i = 0; i < p; ++i) {
          res.ahead += hosts[f][i].posts[b] < prev_last_done ? 1U : 0U;
        }
      }
      prev_last_done = fig.last_done;
      res.barriers.push_back(fig);
    }
  }

  // Malformed descriptors: each completed once, with DESC_ERROR and its code.
  std::vector<std::uint64_t> bad_per_node(p, 0);
  for (const auto& flow : hosts) {
    for (unsigned i = 0; i < p; ++i) {
      for (const Bad& b : flow[i].bad) {
        const std::string what = "node " + std::to_string(i) + " malformed descriptor ctx " +
                                 std::to_string(b.ctx) + " epoch " + std::to_string(b.epoch);
        const auto r = fab.node(i).nic->raw_result(b.ticket);
        TB_CHECK(r) << what << ": no completion entry";
        TB_CHECK(r->status == fmt::CqStatus::kDescError && r->err == b.err)
            << what << ": got " << drv::describe(*r) << ", want DESC_ERROR/"
            << fmt::to_string(b.err);
        const auto& cq = fab.node(i).mem.cq_writes();
        const auto n = std::count_if(
            cq.begin() + static_cast<std::ptrdiff_t>(cq_before[i]), cq.end(),
            [&](const nic_top::CqWrite& w) { return w.ctx == b.ctx && w.epoch == b.epoch; });
        TB_CHECK_EQ(n, 1) << what << ": CQ entries written";
        ++bad_per_node[i];
      }
    }
  }

  // Counter identities of a lossless fabric (§10), per node and summed.
  std::uint64_t sum_recv = 0;
  std::uint64_t sum_nack_recv = 0;
  std::uint64_t want_sends = 0;
  for (unsigned i = 0; i < p; ++i) {
    const Counters c = read_counters(fab.node(i).dev) - cnt_before[i];
    std::uint64_t hears = 0;
    std::uint64_t sends = 0;
    for (std::size_t f = 0; f < sc.flows.size(); ++f) {
      hears += hosts[f][i].hears * sc.flows[f].barriers;
      sends += hosts[f][i].sends * sc.flows[f].barriers;
    }
    want_sends += sends;
    const std::string who = "node " + std::to_string(i) + ": ";
    TB_CHECK_EQ(c.recv, hears) << who << "CNT_NOTIF_RECV = notifications its schedules expect";
    TB_CHECK_EQ(c.sent - c.retry, sends)
        << who << "CNT_NOTIF_SENT - CNT_RETRY = its schedules' sends";
    TB_CHECK_EQ(c.retry, c.nack_recv) << who << "every NACK re-sent (retry limit 0)";
    TB_CHECK_EQ(c.dup, 0U) << who << "CNT_DUP (lossless fabric)";
    TB_CHECK_EQ(c.drop, 0U) << who << "CNT_DROP (lossless fabric)";
    TB_CHECK_EQ(c.error, bad_per_node[i]) << who << "CNT_ERROR = its malformed descriptors";
    TB_CHECK_EQ(c.completion, fab.node(i).mem.cq_writes().size() - cq_before[i])
        << who << "CNT_COMPLETION = CQ entries written";
    const PfcCounts& pc = fab.net().pfc_counts()[i];
    TB_CHECK_EQ(c.pfc_rx, pc.frames - pfc_before[i].frames)
        << who << "CNT_PFC_RX = PFC frames its link sent";
    TB_CHECK_EQ(c.pause_rx, pc.pauses - pfc_before[i].pauses)
        << who << "CNT_PAUSE_RX = pauses of NET_CFG.TC its link sent";
    res.pfc_frames += c.pfc_rx;
    res.pauses += c.pause_rx;
    res.paused_cycles += pc.paused_cycles - pfc_before[i].paused_cycles;
    res.notif_sent += c.sent;
    res.retries += c.retry;
    res.nack_sent += c.nack_sent;
    sum_recv += c.recv;
    sum_nack_recv += c.nack_recv;
  }
  TB_CHECK_EQ(sum_nack_recv, res.nack_sent) << "sum CNT_NACK_RECV = sum CNT_NACK_SENT";
  TB_CHECK_EQ(res.notif_sent, sum_recv + res.nack_sent)
      << "sum CNT_NOTIF_SENT = sum CNT_NOTIF_RECV + sum CNT_NACK_SENT (DUP = DROP = 0)";
  TB_CHECK_EQ(sum_recv, want_sends) << "every scheduled NOTIFY received once";
  const NetStats& ns = fab.net().stats();
  TB_CHECK_EQ(ns.notifies - net_before.notifies, res.notif_sent)
      << "NOTIFYs on the wire = sum CNT_NOTIF_SENT";
  TB_CHECK_EQ(ns.nacks - net_before.nacks, res.nack_sent)
      << "NACKs on the wire = sum CNT_NACK_SENT";
  TB_CHECK_EQ(ns.acks - net_before.acks, sum_recv) << "ACKs on the wire = sum CNT_NOTIF_RECV";
  return res;
}

void print(const std::string& name, Fabric& fab, const ScenarioResult& r) {
  std::cout << name << ": p=" << fab.size() << ", longest one-way " << fab.net().max_latency()
            << " cycles; " << r.cycles << " cycles; NOTIFY " << r.notif_sent << ", NACK "
            << r.nack_sent << ", retries " << r.retries << "; worst completion " << r.worst
            << " cycles after the last post (bound " << r.bound << "); " << r.ahead
            << " posts of barrier n+1 while a node was still in n";
  if (r.malformed != 0) {
    std::cout << "; " << r.malformed << " malformed descriptors, each DESC_ERROR";
  }
  if (r.pfc_frames != 0) {
    std::cout << "; " << r.pfc_frames << " PFC frames, " << r.pauses << " pauses of the TC, "
              << r.paused_cycles << " node-cycles paused";
  }
  std::cout << "\n";
  for (const auto& b : r.barriers) {
    std::cout << "  ctx " << b.ctx << " k=" << b.k << " barrier " << b.barrier << ": posts "
              << b.first_post << ".." << b.last_post << ", last post -> last completion "
              << b.last_done - b.last_post << " cycles (from the last arrive() return "
              << b.last_done - b.last_returned << "), mean per node " << std::fixed
              << std::setprecision(1) << b.mean_done << "\n";
  }
}

}  // namespace syncfab::tb::fabric

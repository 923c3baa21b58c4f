#include "barrier_run.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "barrier_bound.hpp"
#include "syncfab/driver/nic.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::tb::system {

namespace drv = syncfab::driver;

namespace {

// The NIC's own pipeline, rx to tx (the NIC fabric's bound counts the same).
constexpr std::uint64_t kNicPipeline = 16;

struct Host {
  drv::BarrierContext bc;
  unsigned next = 0;  // barriers posted
  bool pending = false;
  std::uint64_t post_at = 0;
  std::vector<std::uint64_t> posts;
  std::vector<std::uint64_t> posted;  // arrive() returned (the driver's bus accesses done)
  std::vector<std::uint16_t> epochs;
};

// The context rank r opens: a dissemination barrier across every NIC, or
// member r of the run's group.
drv::ContextConfig context_of(const SystemFabric& sys, const BarrierRun& run,
                              std::span<const unsigned> ranks, unsigned r) {
  const auto n = static_cast<std::uint32_t>(ranks.size());
  if (!run.group) {
    std::vector<std::uint16_t> lids;
    lids.reserve(n);
    for (const unsigned nic : ranks) {
      lids.push_back(sys.nic_lids()[nic]);
    }
    drv::ContextConfig c(run.ctx, r, n, run.k, std::move(lids));
    c.first_epoch = run.first_epoch;
    return c;
  }
  const GroupRun& g = *run.group;
  drv::ContextConfig c(run.ctx, r, n, 1, {});
  c.group = drv::GroupTarget{g.kind, g.mlid, sys.nic_lids()[ranks[0]]};
  c.first_epoch = g.first_epoch;
  return c;
}

std::vector<unsigned> ranks_of(const SystemFabric& sys, const BarrierRun& run) {
  if (run.group) {
    for (const unsigned m : run.group->members) {
      TB_CHECK(m < sys.nic_count()) << "group member NIC " << m << " of " << sys.nic_count();
    }
    return run.group->members;
  }
  if (!run.members.empty()) {
    for (const unsigned m : run.members) {
      TB_CHECK(m < sys.nic_count()) << "barrier member NIC " << m << " of " << sys.nic_count();
    }
    return run.members;
  }
  std::vector<unsigned> all(sys.nic_count());
  for (unsigned r = 0; r < all.size(); ++r) {
    all[r] = r;
  }
  return all;
}

}  // namespace

std::uint64_t longest_nic_path(const SystemFabric& sys) {
  const sm::Fabric& smf = sys.sm();
  const sm::MinHop mh(smf);
  std::vector<sm::SwitchIdx> at;
  at.reserve(sys.nic_count());
  for (unsigned a = 0; a < sys.nic_count(); ++a) {
    at.push_back(smf.attach_switch(sys.nic_hca(a)));
  }
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  std::uint64_t worst = 0;
  for (const sm::SwitchIdx a : at) {
    for (const sm::SwitchIdx b : at) {
      worst = std::max<std::uint64_t>(worst, mh.distance(a, b) + 2U);
    }
  }
  return worst;
}

BarrierResult run_barriers(SystemFabric& sys, const BarrierRun& run, std::mt19937_64& rng) {
  const std::vector<unsigned> ranks = ranks_of(sys, run);
  const auto p = static_cast<unsigned>(ranks.size());
  const auto nic = [&](unsigned r) -> NicNode& { return sys.nic(ranks[r]); };
  const std::uint64_t start = sys.cycle();
  std::uniform_int_distribution<std::uint64_t> skew(0, run.skew);
  std::vector<Host> hosts;
  std::vector<std::size_t> cq_before(p);
  BarrierResult res;
  for (unsigned r = 0; r < p; ++r) {
    cq_before[r] = nic(r).cq_writes().size();
    Host h{nic(r).nic().open_context(context_of(sys, run, ranks, r)), 0, false, 0, {}, {}, {}};
    for (const auto& round : h.bc.schedule().rounds) {
      res.sends_per_barrier += round.send_to.size();
    }
    h.post_at = start + skew(rng);
    hosts.push_back(std::move(h));
  }
  if (run.group && p > 1) {
    const bool mcast = run.group->kind == drv::GroupBarrierKind::kMulticastRelease;
    res.sends_per_barrier = mcast ? p - 1 : p;
  }
  // The drivers are synchronous and share one timeline: a sweep serves the
  // hosts one after another, in a fresh seeded order each time.
  std::vector<unsigned> order(p);
  for (unsigned r = 0; r < p; ++r) {
    order[r] = r;
  }
  const auto path = [&](unsigned r, const Host& h) {
    if (run.submit == SubmitMode::kHdq) {
      return drv::SubmitPath::kHdq;
    }
    return (r + h.next) % 2 == 0 ? drv::SubmitPath::kHdq : drv::SubmitPath::kSdq;
  };
  const auto check_limit = [&] {
    TB_CHECK(sys.cycle() < start + run.limit)
        << "LIVENESS: barriers of ctx " << run.ctx << " k=" << run.k << " still outstanding "
        << run.limit << " cycles after the run started at cycle " << start;
  };
  unsigned count = run.barriers;  // barriers posted
  if (run.common_start) {
    std::uint64_t slot = 0;
    for (unsigned b = 0; b < run.barriers; ++b) {
      if (run.every != 0) {
        // The first slot not yet begun; those missed while the previous
        // barrier ran are skipped.
        slot = std::max<std::uint64_t>(slot, (sys.cycle() - start + run.every - 1) / run.every);
        if (slot >= run.barriers) {
          count = b;
          break;
        }
        if (const std::uint64_t due = start + run.every * slot; sys.cycle() < due) {
          sys.idle_cycles(due - sys.cycle());
        }
        ++slot;
      }
      std::shuffle(order.begin(), order.end(), rng);
      sys.hold_doorbells();
      for (const unsigned r : order) {
        Host& h = hosts[r];
        h.posts.push_back(sys.cycle());
        h.bc.arrive(path(r, h));
        h.epochs.push_back(h.bc.epoch());
        h.pending = true;
        ++h.next;
      }
      std::vector<bool> held(p);
      for (unsigned r = 0; r < p; ++r) {
        held[r] = nic(r).holds_doorbells();
      }
      const std::uint64_t at = sys.release_doorbells();
      for (unsigned r = 0; r < p; ++r) {
        // A NIC that kept its doorbell posted at the release; one that keeps
        // nothing (a model: no bus time) at its arrive().
        if (held[r]) {
          hosts[r].posts.back() = at;
        }
        hosts[r].posted.push_back(hosts[r].posts.back());
      }
      for (;;) {
        bool all = true;
        for (const unsigned r : order) {
          Host& h = hosts[r];
          if (h.pending && h.bc.test()) {
            h.pending = false;
          }
          all = all && !h.pending;
        }
        if (all) {
          break;
        }
        check_limit();
        sys.idle_cycles(kPollStep);
      }
    }
  } else {
    for (;;) {
      bool all = true;
      std::shuffle(order.begin(), order.end(), rng);
      for (const unsigned r : order) {
        Host& h = hosts[r];
        if (h.pending && h.bc.test()) {
          h.pending = false;
          h.post_at = sys.cycle() + skew(rng);
        }
        if (!h.pending && h.next < run.barriers && sys.cycle() >= h.post_at) {
          h.posts.push_back(sys.cycle());
          h.bc.arrive(path(r, h));
          h.posted.push_back(sys.cycle());
          h.epochs.push_back(h.bc.epoch());
          h.pending = true;
          ++h.next;
        }
        all = all && !h.pending && h.next == run.barriers;
      }
      if (all) {
        break;
      }
      check_limit();
      sys.idle_cycles(kPollStep);
    }
  }
  res.cycles = sys.cycle() - start;
  // Liveness bound after the last post, in the shape of the NIC fabric's
  // (docs/barrier-protocol.md §10): per round a NOTIFY, a NACK and its
  // re-send after the retry delay, queueing at the receiver (2 cycles per
  // node) and the pauses a path can see; then the completion writes. A hop is
  // its link's delay plus a switch's forwarding.
  const std::uint64_t links = longest_nic_path(sys);
  std::uint64_t max_delay = 0;
  for (const auto& l : sys.links()) {
    max_delay = std::max<std::uint64_t>(max_delay, l->delay());
  }
  res.one_way = links * max_delay + (links - 1) * (kSwitchForward + 2ULL * run.other_pkt_flits) +
                kNicPipeline;
  std::uint64_t rounds = run.group ? 2 : 0;  // a group barrier: arrivals up, the release down
  for (const Host& h : hosts) {
    rounds = std::max<std::uint64_t>(rounds, h.bc.schedule().rounds.size());
  }
  res.bound = 200 +
              rounds * (3 * res.one_way + 2ULL * sys.retry_delay() + 2ULL * p +
                        4 * links * run.pause_cycles) +
              2 * res.one_way + run.fault_cycles;

  for (unsigned b = 0; b < count; ++b) {
    const std::uint16_t epoch = hosts[0].epochs[b];
    TB_CHECK_EQ(epoch, static_cast<std::uint16_t>(hosts[0].epochs[0] + b))
        << "barrier " << b << ": epochs of one context count up by one";
    std::uint64_t last_post = 0;
    std::uint64_t last_posted = 0;
    for (unsigned r = 0; r < p; ++r) {
      TB_CHECK_EQ(hosts[r].epochs[b], epoch) << nic(r).name() << ": epoch of barrier " << b;
      last_post = std::max(last_post, hosts[r].posts[b]);
      last_posted = std::max(last_posted, hosts[r].posted[b]);
    }
    std::uint64_t last_done = 0;
    for (unsigned r = 0; r < p; ++r) {
      const std::string who =
          nic(r).name() + " ctx " + std::to_string(run.ctx) + " epoch " + std::to_string(epoch);
      const auto& cq = nic(r).cq_writes();
      std::optional<std::uint64_t> done;
      for (std::size_t w = cq_before[r]; w < cq.size(); ++w) {
        if (cq[w].ctx != run.ctx || cq[w].epoch != epoch) {
          continue;
        }
        TB_CHECK(!done) << who << ": two CQ entries";
        TB_CHECK_EQ(cq[w].status, 0U) << who << ": completed with error code " << cq[w].err;
        done = cq[w].cycle - (sys.clk().cycles() - sys.cycle());
      }
      TB_CHECK(done) << who << ": no CQ entry";
      TB_CHECK(*done > last_post) << "SAFETY: " << who << " completed at cycle " << *done
                                  << " before the last node posted at " << last_post;
      TB_CHECK(*done - last_post <= res.bound)
          << "LIVENESS: " << who << " completed " << *done - last_post
          << " cycles after the last post (bound " << res.bound << ")";
      res.worst = std::max(res.worst, *done - last_post);
      last_done = std::max(last_done, *done);
    }
    res.epochs.push_back(epoch);
    res.last_post.push_back(last_post);
    res.last_posted.push_back(last_posted);
    res.last_done.push_back(last_done);
  }
  return res;
}

}  // namespace syncfab::tb::system

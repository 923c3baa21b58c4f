#include "concurrent_run.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "barrier_bound.hpp"
#include "syncfab/driver/nic.hpp"

namespace syncfab::tb::system {

namespace drv = syncfab::driver;

namespace {

struct Host {
  unsigned group = 0;
  unsigned nic = 0;
  drv::BarrierContext bc;
  unsigned next = 0;  // barriers posted
  bool pending = false;
  std::vector<std::uint64_t> posts;
  std::vector<std::uint16_t> epochs;
};

}  // namespace

std::vector<unsigned> group_contexts(const std::vector<std::vector<unsigned>>& members,
                                     unsigned base, unsigned count) {
  std::map<unsigned, std::vector<unsigned>> colours_at;  // NIC -> colours its groups took
  std::vector<unsigned> out;
  for (std::size_t g = 0; g < members.size(); ++g) {
    unsigned c = 0;
    for (;;) {
      bool taken = false;
      for (const unsigned n : members[g]) {
        const auto& used = colours_at[n];
        taken = taken || std::find(used.begin(), used.end(), c) != used.end();
      }
      if (!taken) {
        break;
      }
      ++c;
    }
    if (c >= count) {
      throw std::invalid_argument("group " + std::to_string(g) + " shares NICs with groups on " +
                                  std::to_string(count) + " contexts already (contexts " +
                                  std::to_string(base) + ".." + std::to_string(base + count - 1) +
                                  " are all taken at one of its members)");
    }
    for (const unsigned n : members[g]) {
      colours_at[n].push_back(c);
    }
    out.push_back(base + c);
  }
  return out;
}

ConcurrentResult run_concurrent(SystemFabric& sys, const ConcurrentRun& run, std::mt19937_64& rng) {
  ConcurrentResult res;
  const std::uint64_t start = sys.cycle();
  std::vector<Host> hosts;
  std::vector<std::size_t> cq_before(sys.nic_count());
  for (unsigned n = 0; n < sys.nic_count(); ++n) {
    cq_before[n] = sys.nic(n).cq_writes().size();
  }
  for (unsigned g = 0; g < run.groups.size(); ++g) {
    const GroupRun& gr = run.groups[g].group;
    const auto p = static_cast<std::uint32_t>(gr.members.size());
    TB_CHECK(p >= 2) << "group " << g << ": " << p << " member(s)";
    for (std::uint32_t r = 0; r < p; ++r) {
      const unsigned n = gr.members[r];
      TB_CHECK(n < sys.nic_count()) << "group " << g << " member NIC " << n;
      drv::ContextConfig c(run.groups[g].ctx, r, p, 1, {});
      c.group = drv::GroupTarget{gr.kind, gr.mlid, sys.nic_lids()[gr.members[0]]};
      c.first_epoch = gr.first_epoch;
      hosts.push_back(Host{g, n, sys.nic(n).nic().open_context(c), 0, false, {}, {}});
    }
    res.arrivals += std::uint64_t{gr.kind == drv::GroupBarrierKind::kMulticastRelease ? p - 1 : p} *
                    run.barriers;
  }
  const std::uint64_t links = longest_nic_path(sys);
  std::uint64_t max_delay = 0;
  for (const auto& l : sys.links()) {
    max_delay = std::max<std::uint64_t>(max_delay, l->delay());
  }
  // Arrivals up and the release down, each path waiting at every switch for
  // the copies of every other group's barrier (each group has one barrier
  // in flight).
  const std::uint64_t one_way = links * max_delay + (links - 1) * kSwitchForward + 16;
  res.bound = 200 + 4 * one_way * run.groups.size();

  std::vector<std::size_t> order(hosts.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  for (;;) {
    std::shuffle(order.begin(), order.end(), rng);
    bool all = true;
    bool post = false;
    for (const std::size_t i : order) {
      Host& h = hosts[i];
      if (h.pending && h.bc.test()) {
        h.pending = false;
      }
      post = post || (!h.pending && h.next < run.barriers);
      all = all && !h.pending && h.next == run.barriers;
    }
    if (all) {
      break;
    }
    if (post) {
      sys.hold_doorbells();
      std::vector<std::size_t> posted;
      // One post per NIC per sweep: the HDQ is one register window, so a
      // second descriptor written before the first one's held doorbell went
      // out would overwrite it.
      std::vector<bool> busy(sys.nic_count());
      for (const std::size_t i : order) {
        Host& h = hosts[i];
        if (!h.pending && h.next < run.barriers && !busy[h.nic]) {
          busy[h.nic] = true;
          h.posts.push_back(sys.cycle());
          h.bc.arrive(drv::SubmitPath::kHdq);
          h.epochs.push_back(h.bc.epoch());
          h.pending = true;
          ++h.next;
          posted.push_back(i);
        }
      }
      std::vector<bool> held(sys.nic_count());
      for (unsigned n = 0; n < sys.nic_count(); ++n) {
        held[n] = sys.nic(n).holds_doorbells();
      }
      const std::uint64_t at = sys.release_doorbells();
      for (const std::size_t i : posted) {
        if (held[hosts[i].nic]) {
          hosts[i].posts.back() = at;
        }
      }
    }
    TB_CHECK(sys.cycle() < start + run.limit)
        << "LIVENESS: concurrent group barriers still outstanding " << run.limit
        << " cycles after the run started at cycle " << start;
    sys.idle_cycles(kPollStep);
  }

  // Every NIC's completions by (context, epoch).
  std::vector<std::map<std::pair<unsigned, std::uint16_t>, std::uint64_t>> done_at(sys.nic_count());
  for (unsigned n = 0; n < sys.nic_count(); ++n) {
    const auto& cq = sys.nic(n).cq_writes();
    for (std::size_t w = cq_before[n]; w < cq.size(); ++w) {
      const std::string who = sys.nic(n).name() + " ctx " + std::to_string(cq[w].ctx) + " epoch " +
                              std::to_string(cq[w].epoch);
      TB_CHECK_EQ(cq[w].status, 0U) << who << ": completed with error code " << cq[w].err;
      const auto [it, fresh] = done_at[n].emplace(
          std::make_pair(unsigned{cq[w].ctx}, static_cast<std::uint16_t>(cq[w].epoch)),
          cq[w].cycle - (sys.clk().cycles() - sys.cycle()));
      TB_CHECK(fresh) << who << ": two CQ entries";
    }
  }
  std::size_t h0 = 0;
  std::uint64_t last = start;
  for (unsigned g = 0; g < run.groups.size(); ++g) {
    const std::size_t p = run.groups[g].group.members.size();
    std::vector<std::uint64_t> lat;
    for (unsigned b = 0; b < run.barriers; ++b) {
      const std::uint16_t epoch = hosts[h0].epochs[b];
      TB_CHECK_EQ(epoch, static_cast<std::uint16_t>(hosts[h0].epochs[0] + b))
          << "group " << g << " barrier " << b << ": epochs count up by one";
      std::uint64_t last_post = 0;
      for (std::size_t m = 0; m < p; ++m) {
        TB_CHECK_EQ(hosts[h0 + m].epochs[b], epoch) << "group " << g << " member " << m;
        last_post = std::max(last_post, hosts[h0 + m].posts[b]);
      }
      std::uint64_t last_done = 0;
      for (std::size_t m = 0; m < p; ++m) {
        const Host& h = hosts[h0 + m];
        const std::string who = sys.nic(h.nic).name() + " group " + std::to_string(g) + " ctx " +
                                std::to_string(run.groups[g].ctx) + " epoch " +
                                std::to_string(epoch);
        const auto it = done_at[h.nic].find({run.groups[g].ctx, epoch});
        TB_CHECK(it != done_at[h.nic].end()) << who << ": no CQ entry";
        TB_CHECK(it->second > last_post)
            << "SAFETY: " << who << " completed at cycle " << it->second
            << " before the group's last post at " << last_post;
        TB_CHECK(it->second - last_post <= res.bound)
            << "LIVENESS: " << who << " completed " << it->second - last_post
            << " cycles after the group's last post (bound " << res.bound << ")";
        last_done = std::max(last_done, it->second);
      }
      lat.push_back(last_done - last_post);
      res.post.push_back(last_post);
      res.done.push_back(last_done);
      last = std::max(last, last_done);
    }
    res.latency.push_back(std::move(lat));
    h0 += p;
  }
  res.cycles = last - start;
  return res;
}

}  // namespace syncfab::tb::system

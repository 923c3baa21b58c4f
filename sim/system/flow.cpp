#include "flow.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

#include "barrier_bound.hpp"
#include "combine_program.hpp"
#include "nic_top_bench.hpp"
#include "syncfab/sim/nearest_rank.hpp"

namespace syncfab::tb::system {

namespace {

using Clock = std::chrono::steady_clock;

// Pause time of a PFC frame the switches send (quanta of the NIC's reset
// cycles per quantum), and the thresholds: every buffered cell pauses.
constexpr std::uint16_t kQuanta = 16;

class StepTimer {
 public:
  StepTimer(FlowResult& r, SystemFabric* sys) : r_(r), sys_(sys) {}
  void begin() {
    t0_ = Clock::now();
    c0_ = sys_ != nullptr ? sys_->cycle() : 0;
  }
  void end(std::string name) {
    const double s = std::chrono::duration<double>(Clock::now() - t0_).count();
    const std::uint64_t c = sys_ != nullptr ? sys_->cycle() - c0_ : 0;
    r_.steps.push_back({std::move(name), s, c});
  }
  void attach(SystemFabric* sys) { sys_ = sys; }

 private:
  FlowResult& r_;
  SystemFabric* sys_;
  Clock::time_point t0_;
  std::uint64_t c0_ = 0;
};

double mean_latency(const BarrierResult& b) {
  double sum = 0;
  for (std::size_t i = 0; i < b.last_done.size(); ++i) {
    sum += static_cast<double>(b.last_done[i] - b.last_posted[i]);
  }
  return b.last_done.empty() ? 0 : sum / static_cast<double>(b.last_done.size());
}

// Every group barrier runs on context 0 (the dissemination runs take
// ctx = k): kind i, group g starts at epoch 1 + (i * groups + g) * barriers,
// so each NIC's epochs on the context only count up.
constexpr unsigned kGroupCtx = 0;

std::uint16_t group_first_epoch(const FlowOptions& opts, std::size_t kind_index, std::size_t groups,
                                std::size_t g) {
  if (opts.concurrent != 0) {
    return static_cast<std::uint16_t>(1 + kind_index * opts.concurrent);
  }
  return static_cast<std::uint16_t>(1 + (kind_index * groups + g) * opts.barriers);
}

// The value below which `q` of the values lie (nearest rank).
double quantile(std::vector<std::uint64_t> v, double q) {
  std::sort(v.begin(), v.end());
  return static_cast<double>(sim::nearest_rank(v, q));
}

void append(BarrierResult& all, const BarrierResult& r) {
  all.last_post.insert(all.last_post.end(), r.last_post.begin(), r.last_post.end());
  all.last_posted.insert(all.last_posted.end(), r.last_posted.begin(), r.last_posted.end());
  all.last_done.insert(all.last_done.end(), r.last_done.begin(), r.last_done.end());
  all.epochs.insert(all.epochs.end(), r.epochs.begin(), r.epochs.end());
}

// The NIC index of every member of every group (std::invalid_argument for a
// member that is not a NIC: a bulk host).
std::vector<std::vector<unsigned>> group_members(const SystemFabric& sys,
                                                 const SystemRouting& routing) {
  std::map<sm::NodeId, unsigned> nic_of;
  for (unsigned r = 0; r < sys.nic_count(); ++r) {
    nic_of[sys.nic_hca(r)] = r;
  }
  std::vector<std::vector<unsigned>> out;
  for (std::size_t g = 0; g < routing.groups.groups.size(); ++g) {
    std::vector<unsigned> m;
    for (const sm::NodeId n : routing.groups.groups[g].members) {
      const auto it = nic_of.find(n);
      if (it == nic_of.end()) {
        throw std::invalid_argument("group " + std::to_string(g) + ": member " + sys.sm().name(n) +
                                    " is not a NIC");
      }
      m.push_back(it->second);
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

FlowResult run_flow(TestContext& ctx, const sm::Fabric& smf, const SystemRouting& routing,
                    const FlowOptions& opts, const std::string& label) {
  if (opts.concurrent != 0 && !opts.ks.empty()) {
    throw std::invalid_argument(label + ": concurrent group barriers take every context; " +
                                std::to_string(opts.ks.size()) +
                                " dissemination fan-out(s) asked for as well (run them apart)");
  }
  FlowResult res;
  res.label = label;
  StepTimer t(res, nullptr);
  t.begin();
  SystemFabric sys(ctx, smf, opts.cfg);
  t.end("build");
  t.attach(&sys);

  t.begin();
  sys.start(nic_top::nic_options(ctx.sim(), opts.retry_delay));
  std::uint64_t pause = 0;
  if (opts.pfc) {
    pause = std::uint64_t{kQuanta} * nic_top::kCpqReset;
    driver::PfcPortConfig pc{};
    pc[nic_top::kTcReset] = driver::PfcPriority{true, 1, 1, kQuanta};
    configure_pfc(sys, driver::PfcTiming{nic_top::kCpqReset, 64}, pc, 1);
  }
  t.end(opts.pfc ? "start + PFC" : "start");

  t.begin();
  res.program = program_and_verify(sys, routing);
  const std::size_t groups = routing.trees.size();
  if (!opts.group_kinds.empty() && groups == 0) {
    throw std::invalid_argument(label +
                                ": group barriers need multicast groups (a group "
                                "pattern and a multicast engine)");
  }
  for (std::size_t i = 0; i < opts.group_kinds.size(); ++i) {
    if (opts.group_kinds[i] == driver::GroupBarrierKind::kSwitchCombined) {
      std::vector<std::uint16_t> epochs;
      for (std::size_t g = 0; g < groups; ++g) {
        epochs.push_back(group_first_epoch(opts, i, groups, g));
      }
      res.combine_entries +=
          opts.comb_scheme == CombScheme::kRing
              ? program_ring_combine(sys, routing.groups.groups, routing.trees, epochs)
              : program_combine(sys, routing.groups.groups, routing.trees, epochs);
    }
  }
  t.end("program");

  t.begin();
  // The same draws on every backend: the host sweeps' order.
  std::mt19937_64 rng(ctx.seed());
  BarrierResult all;
  const std::vector<std::vector<unsigned>> members =
      opts.group_kinds.empty() && !opts.disseminate_groups ? std::vector<std::vector<unsigned>>{}
                                                           : group_members(sys, routing);
  if (opts.disseminate_groups && members.empty()) {
    throw std::invalid_argument(label + ": dissemination on the groups, but there are none");
  }
  for (const unsigned k : opts.ks) {
    BarrierRun run;
    run.ctx = k;  // one context per fan-out (the driver refuses one the NIC lacks)
    run.k = k;
    run.barriers = opts.barriers;
    run.limit = opts.limit;
    run.pause_cycles = pause;
    run.common_start = true;
    run.submit = opts.submit;
    BarrierResult r;
    for (std::size_t g = 0; g < (opts.disseminate_groups ? members.size() : 1); ++g) {
      if (opts.disseminate_groups) {
        run.members = members[g];
        run.first_epoch = static_cast<std::uint16_t>(1 + g * opts.barriers);
      }
      const BarrierResult one = run_barriers(sys, run, rng);
      append(r, one);
      r.sends_per_barrier += one.sends_per_barrier;
      r.cycles += one.cycles;
    }
    res.latency.push_back(mean_latency(r));
    append(all, r);
    res.per_k.push_back(std::move(r));
  }
  std::uint64_t concurrent_arrivals = 0;
  std::uint64_t min_delay = ~std::uint64_t{0};
  for (const auto& l : sys.links()) {
    min_delay = std::min<std::uint64_t>(min_delay, l->delay());
  }
  const std::vector<unsigned> ctxs = opts.concurrent != 0
                                         ? group_contexts(members, kConcurrentCtx, kConcurrentCtxs)
                                         : std::vector<unsigned>{};
  for (std::size_t ki = 0; ki < opts.group_kinds.size(); ++ki) {
    const driver::GroupBarrierKind kind = opts.group_kinds[ki];
    GroupFlowResult gr;
    gr.kind = kind;
    if (opts.concurrent != 0) {
      ConcurrentRun run;
      run.barriers = opts.concurrent;
      run.limit = opts.limit * opts.concurrent;
      for (std::size_t g = 0; g < members.size(); ++g) {
        run.groups.push_back(ConcurrentGroup{GroupRun{kind, routing.trees[g].mlid, members[g],
                                                      group_first_epoch(opts, ki, groups, g)},
                                             ctxs[g]});
      }
      ConcurrentResult r = run_concurrent(sys, run, rng);
      std::vector<std::uint64_t> every;
      for (std::size_t g = 0; g < members.size(); ++g) {
        double sum = 0;
        for (const std::uint64_t l : r.latency[g]) {
          sum += static_cast<double>(l);
          every.push_back(l);
        }
        const double lat = sum / static_cast<double>(r.latency[g].size());
        const std::uint64_t bound = group_bound(smf, routing.groups.groups[g].members, min_delay);
        gr.latency.push_back(lat);
        gr.bound.push_back(bound);
        const double over = bound == 0 ? 0 : lat / static_cast<double>(bound);
        gr.mean_over_bound += over / static_cast<double>(members.size());
        gr.max_over_bound = std::max(gr.max_over_bound, over);
      }
      double sum = 0;
      for (const std::uint64_t l : every) {
        sum += static_cast<double>(l);
      }
      gr.mean_latency = sum / static_cast<double>(every.size());
      gr.p99 = quantile(every, 0.99);
      gr.per_kcycle = r.cycles == 0 ? 0
                                    : 1000.0 * static_cast<double>(every.size()) /
                                          static_cast<double>(r.cycles);
      BarrierResult b;
      b.last_post = r.post;
      b.last_posted = r.post;
      b.last_done = r.done;
      append(all, b);
      concurrent_arrivals += r.arrivals;
      gr.concurrent = std::move(r);
      res.groups.push_back(std::move(gr));
      continue;
    }
    for (std::size_t g = 0; g < members.size(); ++g) {
      BarrierRun run;
      run.ctx = kGroupCtx;
      run.barriers = opts.barriers;
      run.limit = opts.limit;
      run.pause_cycles = pause;
      run.common_start = true;
      run.submit = opts.submit;
      run.group =
          GroupRun{kind, routing.trees[g].mlid, members[g], group_first_epoch(opts, ki, groups, g)};
      BarrierResult r = run_barriers(sys, run, rng);
      const double lat = mean_latency(r);
      const std::uint64_t bound = group_bound(smf, routing.groups.groups[g].members, min_delay);
      gr.latency.push_back(lat);
      gr.bound.push_back(bound);
      const double over = bound == 0 ? 0 : lat / static_cast<double>(bound);
      gr.mean_over_bound += over;
      gr.max_over_bound = std::max(gr.max_over_bound, over);
      gr.mean_latency += lat;
      append(all, r);
      gr.per_group.push_back(std::move(r));
    }
    if (!members.empty()) {
      gr.mean_latency /= static_cast<double>(members.size());
      gr.mean_over_bound /= static_cast<double>(members.size());
    }
    res.groups.push_back(std::move(gr));
  }
  t.end("barriers");

  t.begin();
  sys.idle_cycles(200);
  res.traffic = check_traffic(sys);
  std::uint64_t sends = 0;
  for (const BarrierResult& r : res.per_k) {
    sends += r.sends_per_barrier * opts.barriers;
  }
  TB_CHECK_EQ(res.traffic.notify - res.traffic.retries, sends)
      << label << ": NOTIFYs sent = the schedules' sends";
  std::uint64_t arrivals = concurrent_arrivals;
  for (const GroupFlowResult& gr : res.groups) {
    for (const BarrierResult& r : gr.per_group) {
      arrivals += r.sends_per_barrier * opts.barriers;
    }
  }
  TB_CHECK_EQ(res.traffic.arrivals - res.traffic.group_retries, arrivals)
      << label << ": arrivals sent = one per member and barrier (the root NIC's aside)";
  if (!opts.pfc) {
    TB_CHECK_EQ(res.traffic.pfc_frames, 0U) << label << ": no PFC frame without PFC";
  }
  res.record = record(sys, all, label);
  t.end("check");
  return res;
}

}  // namespace syncfab::tb::system

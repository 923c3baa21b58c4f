// A link that fails mid-run (docs/system-fabric.md "A link that fails"): on
// the 16-NIC fat tree (`--param nics=32`: the SM's 8-port 2-tree), a
// leaf-spine link that carried barrier traffic is pulled like a cable; the
// subnet manager routes the fabric without it (LFTs and FULB-MC trees), the
// switches whose entries changed are reprogrammed through their drivers,
// and the hosts recover from the barriers the lost packets stranded. The NIC
// has no ACK timeout: a NOTIFY, ACK or NACK lost on the link is never sent
// again, so a barrier that lost one cannot complete by itself; each host
// waits with its driver's device-time timeout and reports it, then closes
// and reopens its driver (CTRL.SOFT_RESET through Nic::close and bring-up).
#include <chrono>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fabric_setup.hpp"
#include "link_failure.hpp"
#include "routing.hpp"
#include "syncfab/driver/barrier_errors.hpp"
#include "syncfab/sm/generators.hpp"

using namespace syncfab;
using namespace syncfab::tb;
using namespace syncfab::tb::system;

namespace {

constexpr std::uint64_t kNsPerCycle = nic_top::kPeriod / 1000;
constexpr std::uint64_t kIdleLimit = 4'000;  // cycles for a fabric to empty

// The fabric, its routing and the driver options every scenario starts from.
struct Bed {
  sm::Fabric smf;
  SystemConfig cfg;
  driver::NicOptions opts;
  RoutingOptions ro;
};

Bed make_bed(TestContext& ctx, Backend backend) {
  Bed b;
  b.smf = ctx.param("nics", 16) == 32 ? sm::make_fabric("fattree:ports=8,levels=2") : fat_tree_16();
  b.cfg.delay = static_cast<unsigned>(ctx.param("delay", 4));
  b.cfg.backend = [backend](sm::NodeId) { return backend; };
  b.opts = fabric::nic_options(ctx.sim(), kRetryDelay);
  // A stranded barrier is abandoned on close after 1 us, not 100.
  b.opts.drain_timeout = std::chrono::microseconds(1);
  b.ro.unicast = "ftree";
  b.ro.groups = "random:count=" + std::to_string(ctx.param("groups", 8)) +
                ",size=" + std::to_string(ctx.param("group_size", 5));
  b.ro.seed = ctx.seed();
  return b;
}

std::uint64_t packets(const Link& l) {
  std::uint64_t n = 0;
  for (const DirStats* d : {&l.ab(), &l.ba()}) {
    for (const std::uint64_t c : d->packets) {
      n += c;
    }
  }
  return n;
}

// One barrier (k = 2, common start) on the healthy fabric, its identities
// checked, then a switch-to-switch link that carried some of it, picked by
// the seed (`--param link=<i>`: the i-th such link).
Link& warm_up_and_pick(TestContext& ctx, SystemFabric& sys, BarrierResult& warm) {
  std::vector<std::uint64_t> before;
  for (const auto& l : sys.links()) {
    before.push_back(packets(*l));
  }
  const BarrierRun run{0, 2, 1, 0, kLimit, 0, true};
  warm = run_barriers(sys, run, ctx.rng());
  print_run("healthy", run, warm);
  sys.idle_cycles(200);
  print_totals(check_traffic(sys));
  std::vector<Link*> carried;
  for (std::size_t i = 0; i < sys.links().size(); ++i) {
    Link& l = *sys.links()[i];
    const SmPort end = sm_port_of(sys, l);
    if (sys.sm().is_switch(sys.sm().peer(end.node, end.port).node) && packets(l) > before[i]) {
      carried.push_back(&l);
    }
  }
  TB_CHECK(!carried.empty()) << "no switch-to-switch link carried the healthy barrier";
  const auto pick = static_cast<std::size_t>(
      ctx.param("link", static_cast<std::int64_t>(ctx.rng()() % carried.size())));
  TB_CHECK(pick < carried.size()) << "--param link=" << pick << ": only " << carried.size()
                                  << " switch-to-switch links carried the barrier";
  std::cout << carried.size() << " switch-to-switch links carried the healthy barrier; failing "
            << carried[pick]->name() << "\n";
  return *carried[pick];
}

// The SM's reroute around `dead` and the reprogramming of what changed.
SystemRouting reroute(SystemFabric& sys, const sm::Fabric& degraded, const SystemRouting& before,
                      const RoutingOptions& ro, const Link& dead) {
  Rerouting rr = route_around(degraded, ro);
  if (!rr.why_fallback.empty()) {
    std::cout << "reroute: " << rr.why_fallback << "; routed with " << rr.routing.unicast << "\n";
  } else {
    std::cout << "reroute: " << rr.routing.unicast << " routes the degraded fabric\n";
  }
  std::map<sm::SwitchIdx, std::string> unreached;
  for (const auto& [s, h] : rr.unreached) {
    unreached[s] += (unreached[s].empty() ? "" : " ") + degraded.name(h);
  }
  for (const auto& [s, nics] : unreached) {
    std::cout << "  " << degraded.name(degraded.switch_node(s))
              << " has no route to (no NIC's path passes it): " << nics << "\n";
  }
  SystemRouting after = std::move(rr.routing);
  check_avoids(sys, after, dead);
  const RerouteReport rep = reprogram_changed(sys, before, after);
  std::cout << "reprogrammed " << rep.switches << " switches: " << rep.lft_set
            << " LFT entries set, " << rep.lft_cleared << " cleared, " << rep.mft_set
            << " MFT entries set, " << rep.mft_cleared << " cleared, every one read back, in "
            << rep.cycles << " cycles\n";
  TB_CHECK(rep.lft_set > 0) << "no LFT entry changed, yet the old LFTs used " << dead.name();
  return after;
}

// Barriers of k = 1, 2, 3 on the rerouted fabric (ctx k - 1, skewed posts):
// every check of run_barriers, ctx 0's epochs counting from `ctx0_epoch`,
// the others' from 1.
void barriers_after(TestContext& ctx, SystemFabric& sys, std::uint16_t ctx0_epoch) {
  const auto skew = static_cast<unsigned>(ctx.param("skew", 200));
  const auto barriers = static_cast<unsigned>(ctx.param("barriers", 2));
  for (unsigned k = 1; k <= 3; ++k) {
    const BarrierRun run{k - 1, k, barriers, skew, kLimit};
    const BarrierResult r = run_barriers(sys, run, ctx.rng());
    print_run("rerouted", run, r);
    TB_CHECK_EQ(r.epochs.at(0), run.ctx == 0 ? ctx0_epoch : 1U) << "first epoch on ctx " << run.ctx;
  }
  sys.idle_cycles(200);
}

void check_dead_silent(const Link& dead, const DirStats& ab, const DirStats& ba,
                       const std::string& since) {
  TB_CHECK_EQ(dead.ab().flits_in, ab.flits_in)
      << dead.a().name << " -> " << dead.b().name << ": flits sent into the failed link " << since;
  TB_CHECK_EQ(dead.ba().flits_in, ba.flits_in)
      << dead.b().name << " -> " << dead.a().name << ": flits sent into the failed link " << since;
}

std::string describe(const LostPacket& p, const std::map<std::uint16_t, std::string>& by_lid) {
  const auto name = [&](std::uint16_t lid) {
    const auto it = by_lid.find(lid);
    return it != by_lid.end() ? it->second : sm::hex_lid(lid);
  };
  return std::string(to_string(p.kind)) + " " + name(p.hdr.src_lid()) + " -> " +
         name(p.hdr.dst_lid()) + " round " + std::to_string(p.hdr.round()) + " at cycle " +
         std::to_string(p.cycle);
}

// The link fails `offset` cycles after the first packet of the barrier
// entered it (offset below the link's delay - 1: that packet is still on
// the wire, so at least one is lost).
Task<> fail_when_busy(SystemFabric& sys, Link& link, std::uint64_t base, std::uint64_t offset) {
  while (packets(link) == base) {
    co_await RisingEdge(sys.clk());
  }
  co_await ClockCycles(sys.clk(), offset);
  link.fail(sys.cycle());
}

// The failure lands on a running barrier; see the file comment.
void mid_barrier(TestContext& ctx, Backend backend) {
  Bed bed = make_bed(ctx, backend);
  SystemFabric sys(ctx, bed.smf, bed.cfg);
  sys.start(bed.opts);
  const SystemRouting routing = route_system(bed.smf, bed.ro);
  const ProgramReport pr = program_and_verify(sys, routing);
  std::cout << bed.smf.hca_count() << " NICs, " << bed.smf.switch_count() << " switches, "
            << routing.unicast << ": " << pr.lft_entries << " LFT and " << pr.mft_entries
            << " MFT entries programmed and read back\n";
  BarrierResult warm;
  Link& dead = warm_up_and_pick(ctx, sys, warm);
  const std::uint64_t timeout = ctx.param("timeout", 2 * static_cast<std::int64_t>(warm.bound));

  // The barrier the link fails under: ctx 0, k = 2, every NIC posting at one edge.
  const TrafficMark mark = mark_traffic(sys);
  const unsigned p = sys.nic_count();
  const std::vector<std::uint16_t> lids = sys.nic_lids();
  std::vector<driver::BarrierContext> hosts;
  std::vector<driver::BarrierSchedule> schedules;
  for (unsigned r = 0; r < p; ++r) {
    hosts.push_back(sys.nic(r).nic().open_context(driver::ContextConfig(0, r, p, 2, lids)));
    schedules.push_back(hosts.back().schedule());
  }
  // Up to delay - 2 cycles: the first packet is due at the far end no earlier
  // than the cycle after the failure, whichever of the watcher and the links
  // runs first at an edge.
  const std::uint64_t offset = dead.delay() > 1 ? ctx.rng()() % (dead.delay() - 1) : 0;
  TaskHandle watcher =
      ctx.sim().start_soon(fail_when_busy(sys, dead, packets(dead), offset), "link failure");
  sys.hold_doorbells();
  for (unsigned r = 0; r < p; ++r) {
    hosts[r].arrive(r % 2 == 0 ? driver::SubmitPath::kHdq : driver::SubmitPath::kSdq);
  }
  const std::uint16_t epoch = hosts[0].epoch();
  const std::uint64_t posted = sys.release_doorbells();
  const std::uint64_t deadline = posted + timeout;
  // Each host waits with its driver's timeout, up to the common deadline
  // (the hosts share one timeline: a later host waits for what is left).
  std::vector<bool> timed_out(p, false);
  for (unsigned r = 0; r < p; ++r) {
    const std::uint64_t now = sys.cycle();
    try {
      const bool ok = now < deadline
                          ? hosts[r].wait(std::chrono::nanoseconds((deadline - now) * kNsPerCycle))
                          : hosts[r].test();
      timed_out[r] = !ok;
    } catch (const driver::BarrierError& e) {
      TB_CHECK(false) << sys.nic(r).name() << " ctx 0 epoch " << epoch
                      << ": completed with an error instead of OK or a timeout: " << e.what();
    }
  }
  wait_idle(sys, kIdleLimit, "after the deadline");
  TB_CHECK(dead.failed()) << dead.name() << " never carried the barrier, so it never failed";
  watcher.cancel();

  std::map<std::uint16_t, std::string> by_lid;
  for (unsigned r = 0; r < p; ++r) {
    by_lid[lids[r]] = sys.nic(r).name();
  }
  std::uint64_t lost = 0;
  for (const PktKind k : {PktKind::kNotify, PktKind::kAck, PktKind::kNack}) {
    lost += dead.ab().count_lost(k) + dead.ba().count_lost(k);
  }
  std::cout << dead.name() << " failed at cycle " << *dead.failed_at() << " ("
            << *dead.failed_at() - posted << " cycles after the common post), lost " << lost
            << " barrier packets (" << dead.ab().lost_flits + dead.ba().lost_flits << " flits):\n";
  for (const LostPacket& l : dead.lost()) {
    std::cout << "  lost " << describe(l, by_lid) << "\n";
  }
  TB_CHECK_EQ(lost, dead.lost().size()) << "every packet lost was a barrier packet";
  TB_CHECK(lost > 0) << "the link failed with a packet on its wire, yet lost none";

  const std::vector<bool> stuck = predict_stuck(schedules, lids, 0, epoch, dead.lost());
  unsigned failed = 0;
  for (unsigned r = 0; r < p; ++r) {
    const std::string who = sys.nic(r).name() + " ctx 0 epoch " + std::to_string(epoch);
    if (timed_out[r]) {
      ++failed;
      std::string own;
      for (const LostPacket& l : dead.lost()) {
        if (l.hdr.src_lid() == lids[r] || l.hdr.dst_lid() == lids[r]) {
          own += (own.empty() ? "" : "; ") + describe(l, by_lid);
        }
      }
      std::cout << "FAILED " << who << ": timed out after " << timeout
                << " cycles: packets lost on the failed link " << dead.name() << " (" << lost
                << " lost; "
                << (own.empty() ? std::string("none to or from it: it waits on peers that lost "
                                              "theirs")
                                : "to or from it: " + own)
                << ")\n";
    }
    TB_CHECK_EQ(timed_out[r], stuck[r])
        << who
        << (stuck[r] ? ": the lost packets strand it, yet it completed"
                     : ": none of the lost packets strands it, yet it timed out");
  }
  TB_CHECK(failed > 0) << lost << " barrier packets lost, yet every barrier completed";
  std::cout << failed << " of " << p << " NICs' barriers failed, " << p - failed
            << " completed OK\n";
  const PhaseTraffic during = check_traffic_since(sys, mark);
  TB_CHECK_EQ(during.lost_notify + during.lost_ack + during.lost_nack, lost)
      << "the identities count the packets the link lost";
  TB_CHECK_EQ(during.lost_flits, dead.ab().lost_flits + dead.ba().lost_flits)
      << "flits lost on the failed link alone";
  std::cout << "traffic while failing: NOTIFY " << during.notify << ", ACK " << during.ack
            << ", NACK " << during.nack << "; lost NOTIFY " << during.lost_notify << ", ACK "
            << during.lost_ack << ", NACK " << during.lost_nack << "\n";

  // The SM routes around the link; then the hosts recover.
  const sm::Fabric degraded = fabric_without(sys, dead);
  const SystemRouting after = reroute(sys, degraded, routing, bed.ro, dead);
  const DirStats dead_ab = dead.ab();
  const DirStats dead_ba = dead.ba();
  const std::uint64_t closing = sys.cycle();
  const std::vector<unsigned> abandoned = reopen_nics(sys, bed.opts, kIdleLimit);
  hosts.clear();
  for (unsigned r = 0; r < p; ++r) {
    TB_CHECK_EQ(abandoned[r], timed_out[r] ? 1U : 0U)
        << sys.nic(r).name() << ": barriers its driver's close() abandoned";
  }
  std::cout << "recovered: every NIC's driver closed (" << failed
            << " barriers abandoned) and opened again in " << sys.cycle() - closing << " cycles\n";
  check_dead_silent(dead, dead_ab, dead_ba, "after the reprogramming");

  const TrafficMark recovered = mark_traffic(sys);
  barriers_after(ctx, sys, 1);
  const PhaseTraffic t = check_traffic_since(sys, recovered);
  TB_CHECK_EQ(t.lost_flits, 0U) << "nothing lost after the reroute";
  check_dead_silent(dead, dead_ab, dead_ba, "after the reprogramming");
  std::cout << "after recovery: NOTIFY " << t.notify << ", ACK " << t.ack << ", NACK " << t.nack
            << ", " << t.link_packets << " packets, none lost, none on " << dead.name() << "\n";
}

}  // namespace

// The link fails under a running barrier: its lost packets strand exactly
// the NICs predict_stuck names, each reported and recovered; then barriers
// on the rerouted fabric all complete.
SYNCFAB_TEST(system_link_failure, mid_barrier) {
  mid_barrier(ctx, Backend::kRtl);
  co_return;
}

// The same on the golden-model fabric.
SYNCFAB_TEST(system_link_failure, mid_barrier_model) {
  mid_barrier(ctx, Backend::kModel);
  co_return;
}

// The link fails while no packet is on it and the SM reroutes before the
// next barriers: nothing is lost, every barrier completes, the link stays
// silent.
SYNCFAB_TEST(system_link_failure, between_barriers) {
  Bed bed = make_bed(ctx, Backend::kRtl);
  SystemFabric sys(ctx, bed.smf, bed.cfg);
  sys.start(bed.opts);
  const SystemRouting routing = route_system(bed.smf, bed.ro);
  program_and_verify(sys, routing);
  BarrierResult warm;
  Link& dead = warm_up_and_pick(ctx, sys, warm);
  wait_idle(sys, kIdleLimit, "before the failure");
  const TrafficMark mark = mark_traffic(sys);
  dead.fail(sys.cycle());
  std::cout << dead.name() << " failed at cycle " << sys.cycle() << " with the fabric idle\n";
  const DirStats dead_ab = dead.ab();
  const DirStats dead_ba = dead.ba();
  const sm::Fabric degraded = fabric_without(sys, dead);
  reroute(sys, degraded, routing, bed.ro, dead);
  // The healthy barrier's context closed with epoch 1; ctx 0 carries on from 2.
  barriers_after(ctx, sys, 2);
  const PhaseTraffic t = check_traffic_since(sys, mark);
  TB_CHECK_EQ(t.lost_flits, 0U) << "nothing lost: no packet was on the link when it failed";
  TB_CHECK(dead.lost().empty()) << dead.name() << " lost " << dead.lost().size() << " packets";
  check_dead_silent(dead, dead_ab, dead_ba, "after it failed");
  std::cout << "after the reroute: NOTIFY " << t.notify << ", ACK " << t.ack << ", NACK " << t.nack
            << ", " << t.link_packets << " packets, none lost, none on " << dead.name() << "\n";
  co_return;
}

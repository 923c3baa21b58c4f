// Scenario: tori of verilated switches whose virtual lanes are PFC
// priorities (docs/switch-scenarios.md, "Lanes as PFC priorities"). The
// subnet manager routes the torus (DOR, LASH) and assigns lanes; plan_lanes
// turns them into the priority each host sends on and the hook-flow remap of
// the dateline switches; the credit-loop checker judges the lanes the
// hardware realises; then every host sends to every host on another switch
// back to back until the buffers fill and PFC pauses the links, and the run
// confirms the verdict: with a credit loop the fabric stops delivering and
// the PFC watchdog detects the deadlock, without one everything arrives.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "delivery_check.hpp"
#include "scenario_util.hpp"
#include "switch_fabric.hpp"
#include "switch_fabric_lanes.hpp"
#include "switch_fabric_sm.hpp"
#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::tb::swfab {
namespace {

namespace drv = syncfab::driver;
using K = fmt::SwCounter;

// Lane l on priority kLanePrio[l].
constexpr std::array<unsigned, 4> kLanePrio{3, 4, 5, 6};
constexpr unsigned kMaxPkt = 8;
// XOFF 40 / XON 24 cells; three lanes x (40 + headroom of a 12-cycle link,
// 44) = 252 of the 256 cells, which the driver checks.
constexpr drv::PfcPriority kLossless{true, 40, 24, 32};
constexpr drv::PfcTiming kTiming{8, 128};
constexpr unsigned kMinDelay = 4;
constexpr unsigned kMaxDelay = 12;
// No host received anything for kStall cycles while packets were in the
// fabric: no progress. Longer than several pauses (32 quanta x 8 cycles),
// shorter than the watchdog's detection time, so a deadlock shows as a
// stall first and then as a detection.
constexpr std::uint64_t kStall = 2'000;
// Drop mode on every switch-to-switch queue of a lane priority. Detection
// after 16,000 cycles of continuous pause: congestion without a credit loop
// held single queues paused for up to ~6,100 cycles under these loads while
// the fabric kept delivering, and a 4,000-cycle detection declared such a
// live fabric deadlocked (LASH lanes on the loop's flows, seeds 4, 6, 10).
constexpr drv::WatchdogConfig kWatchdog{16'000, 1'000, 1'000'000, 0};
// Cycles the hosts send (--param load=N): a deadlock forms within ~600; a
// deadlock outlives the sources and the watchdog detects it after they stop.
constexpr std::uint64_t kLoad = 12'000;

enum class Routing : std::uint8_t { kDor, kLash };

// Which host pairs send: all of them, or only those whose path takes two
// consecutive channels of the credit loop the checker finds in the routing
// on one lane (the flows that make that loop's dependencies).
enum class Load : std::uint8_t { kAllToAll, kLoopFlows };

struct Setup {
  sm::TorusSpec torus;
  Routing routing = Routing::kDor;
  bool one_lane = false;  // every packet on kLanePrio[0], whatever the SM's lanes
  Load load = Load::kAllToAll;
};

// A channel (switch s leaving by SM port out) on a lane.
struct Queue {
  sm::SwitchIdx sw = 0;
  sm::PortNum out = 0;
  std::uint8_t lane = 0;
  friend bool operator==(const Queue&, const Queue&) = default;
  friend bool operator<(const Queue& a, const Queue& b) {
    return std::tie(a.sw, a.out, a.lane) < std::tie(b.sw, b.out, b.lane);
  }
};

// The dependencies of the realised lanes: queue a -> queue b when some path
// holds a and asks for b next (check_credit_loops' graph, rebuilt here so
// that a cycle of paused queues can be matched against it).
using Deps = std::map<Queue, std::set<Queue>>;

bool to_switch(const sm::Fabric& smf, sm::NodeId n, sm::PortNum p) {
  if (p == 0 || p == sm::kNoRoute) {
    return false;
  }
  const sm::PortPeer peer = smf.peer(n, p);
  return peer.connected() && smf.is_switch(peer.node);
}

// Calls fn(queue) for each switch-to-switch channel of the path from switch
// src to LID dst, with its lane.
void walk_lanes(const sm::Lft& lft, const sm::VlAssignment& v, sm::SwitchIdx src, sm::Lid dst,
                const std::function<void(const Queue&)>& fn) {
  const sm::Fabric& smf = lft.fabric();
  sm::NodeId at = smf.switch_node(src);
  sm::PortNum out = lft.get(src, dst);
  if (!to_switch(smf, at, out)) {
    return;
  }
  std::uint8_t lane = v.first ? v.first(src, dst, out) : 0;
  for (;;) {
    fn(Queue{smf.switch_index(at), out, lane});
    const sm::PortPeer hop = smf.peer(at, out);
    const sm::PortNum q = lft.get(smf.switch_index(hop.node), dst);
    if (!to_switch(smf, hop.node, q)) {
      return;
    }
    lane = v.next ? v.next(smf.switch_index(hop.node), hop.port, q, lane, dst) : lane;
    at = hop.node;
    out = q;
  }
}

Deps dependencies(const sm::Lft& lft, const sm::VlAssignment& v) {
  const sm::Fabric& smf = lft.fabric();
  Deps deps;
  for (const sm::NodeId a : smf.hcas()) {
    for (const sm::NodeId b : smf.hcas()) {
      std::optional<Queue> prev;
      walk_lanes(lft, v, smf.attach_switch(a), smf.lid(b, 1), [&](const Queue& q) {
        if (prev) {
          deps[*prev].insert(q);
        }
        prev = q;
      });
    }
  }
  return deps;
}

// A cycle of the dependency graph through `nodes` only, or empty.
std::vector<Queue> find_cycle(const Deps& deps, const std::set<Queue>& nodes) {
  std::map<Queue, int> colour;
  std::vector<Queue> path;
  std::vector<Queue> found;
  std::function<bool(const Queue&)> dfs = [&](const Queue& u) {
    colour[u] = 1;
    path.push_back(u);
    if (const auto it = deps.find(u); it != deps.end()) {
      for (const Queue& w : it->second) {
        if (nodes.count(w) == 0) {
          continue;
        }
        if (colour[w] == 1) {
          found.assign(std::find(path.begin(), path.end(), w), path.end());
          return true;
        }
        if (colour[w] == 0 && dfs(w)) {
          return true;
        }
      }
    }
    colour[u] = 2;
    path.pop_back();
    return false;
  };
  for (const Queue& n : nodes) {
    if (colour[n] == 0 && dfs(n)) {
      return found;
    }
  }
  return {};
}

std::string queue_text(const sm::Fabric& smf, std::span<const Queue> qs) {
  std::string s;
  for (const Queue& q : qs) {
    const sm::NodeId n = smf.switch_node(q.sw);
    s += (s.empty() ? "" : ", ") + smf.name(n) + ":" + std::to_string(q.out) + " -> " +
         smf.name(smf.peer(n, q.out).node) + " (lane " + std::to_string(q.lane) + ")";
  }
  return s;
}

// What a run measured.
struct Outcome {
  bool sm_acyclic = true;        // the SM's own lane assignment
  bool realised_acyclic = true;  // the lanes the programmed hardware gives
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t longest_stall = 0;            // cycles without a delivery, packets in flight
  std::optional<std::uint64_t> stall_at;      // the cycle a stall reached kStall
  std::vector<Queue> paused_cycle;            // at stall_at: a dependency cycle of paused queues
  std::optional<std::uint64_t> first_detect;  // first watchdog detection (sampled)
  std::uint64_t wd_detects = 0;               // WD_DETECT, all switches
  std::uint64_t drop_wd = 0;
  std::uint64_t other_drops = 0;               // every other drop kind, every priority
  std::map<unsigned, std::uint64_t> pause_tx;  // lane priority -> PAUSE_TX on switch links
  std::uint64_t longest_pause = 0;  // cycles, a switch-to-switch queue held paused without a break
  bool drained = false;
  std::uint64_t cycles = 0;
  DeliveryReport delivery;
};

class Scenario {
 public:
  Scenario(TestContext& ctx, const Setup& setup)
      : ctx_(ctx), setup_(setup), smf_(sm::make_torus(setup.torus)), mh_(smf_), f_(ctx) {}

  Outcome run() {
    const auto load = static_cast<std::uint64_t>(ctx_.param("load", kLoad));
    const std::string cmd = std::filesystem::read_symlink("/proc/self/exe").string() + " --test " +
                            ctx_.full_name() + " --seed " + std::to_string(ctx_.seed()) +
                            (load == kLoad ? "" : " --param load=" + std::to_string(load));
    std::cout << "replay: " << cmd << "\nwaves:  " << cmd << " +trace\n";
    route();
    std::mt19937_64& rng = ctx_.rng();
    std::uniform_int_distribution<unsigned> delay(kMinDelay, kMaxDelay);
    instantiate(f_, smf_, [&](sm::NodeId, sm::NodeId) { return delay(rng); });
    f_.start();
    program_lfts(f_, *lft_);
    program_lanes(f_, plan_, kTiming, kLossless, kMaxPkt);
    drv::SchedConfig sched{};
    sched.weight.fill(kMaxPkt);  // WDRR, a packet per round
    configure_sched_all(f_, sched);
    f_.program_all([&](unsigned s, drv::Switch& d) {
      d.configure_watchdog(kWatchdog);
      const sm::NodeId n = smf_.switch_node(s);
      for (int p = 1; p <= smf_.num_ports(n); ++p) {
        if (to_switch(smf_, n, static_cast<sm::PortNum>(p))) {
          d.configure_watchdog_port(hw_port(static_cast<sm::PortNum>(p)),
                                    drv::WatchdogPort{plan_.prio_mask(), true});
        }
      }
    });
    f_.enable_all();
    add_flows();
    f_.on_cycle([this](std::uint64_t now) { sample(now); });
    f_.run_cycles(load + 20);
    out_.drained = f_.run_until_idle(150'000);
    finish();
    return out_;
  }

  [[nodiscard]] const sm::Fabric& smf() const { return smf_; }
  [[nodiscard]] const LanePlan& plan() const { return plan_; }

  // Per switch-to-switch port and priority, the packets the realised lanes
  // put there, against what the links counted; and every packet arrived on
  // the priority (and DSCP) of its last lane.
  void check_wire() const {
    const sm::VlAssignment v = plan_.realised();
    std::map<std::pair<unsigned, unsigned>, std::array<std::uint64_t, fmt::kNumPrio>> want;
    std::map<std::pair<unsigned, std::uint16_t>, unsigned> last_prio;  // (src host, dst LID)
    for (unsigned fl = 0; fl < f_.flow_count(); ++fl) {
      const FlowState& st = f_.flow(fl);
      const sm::SwitchIdx src = smf_.attach_switch(smf_.hcas()[st.src_host]);
      unsigned last = st.spec.prio;
      walk_lanes(*lft_, v, src, st.spec.dst_lid, [&](const Queue& q) {
        last = plan_.lane_prio()[q.lane];
        want[{q.sw, hw_port(q.out)}].at(last) += st.sent;
      });
      last_prio[{st.src_host, st.spec.dst_lid}] = last;
    }
    std::uint64_t checked = 0;
    for (unsigned s = 0; s < f_.switch_count(); ++s) {
      const sm::NodeId n = smf_.switch_node(s);
      for (int p = 1; p <= smf_.num_ports(n); ++p) {
        if (!to_switch(smf_, n, static_cast<sm::PortNum>(p))) {
          continue;
        }
        const unsigned hp = hw_port(static_cast<sm::PortNum>(p));
        const auto& got = f_.sent_by(switch_end(s, hp)).packets_by_prio;
        const auto it = want.find({s, hp});
        for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
          const std::uint64_t w = it == want.end() ? 0 : it->second.at(q);
          TB_CHECK_EQ(got.at(q), w) << f_.switch_name(s) << " port " << hp << " priority " << q
                                    << ": packets on the link vs the realised lanes";
          checked += got.at(q);
        }
      }
    }
    for (unsigned h = 0; h < f_.host_count(); ++h) {
      for (const RxPacket& p : f_.received(h)) {
        const unsigned want_prio = last_prio.at({p.id.src_host, p.dst_lid});
        TB_CHECK(p.prio == want_prio && p.dscp == lane_dscp(want_prio))
            << f_.host_name(h) << " got flow " << p.id.flow << " seq " << p.id.seq
            << " on priority " << p.prio << " DSCP " << p.dscp << ", its last lane is priority "
            << want_prio;
      }
    }
    std::cout << "wire: " << checked
              << " packet-hops on switch links, each on the priority of its realised lane\n";
  }

 private:
  void route() {
    const std::span<const unsigned> prios(kLanePrio);
    if (setup_.routing == Routing::kDor) {
      const sm::TorusLayout layout = sm::torus_layout(smf_);
      lft_.emplace(sm::route_dor(smf_, layout));
      vls_ = sm::dor_dateline_vls(layout);
    } else {
      sm::LashRouting lash = sm::route_lash(mh_, static_cast<int>(kLanePrio.size()));
      vls_ = lash.vls();
      lft_.emplace(std::move(lash.lft));
    }
    if (setup_.one_lane) {
      vls_ = sm::VlAssignment{};
    }
    plan_ = plan_lanes(*lft_, vls_, prios);
    const sm::CreditLoopReport sm_rep = sm::check_credit_loops(*lft_, vls_);
    const sm::CreditLoopReport hw_rep = sm::check_credit_loops(*lft_, plan_.realised());
    out_.sm_acyclic = sm_rep.acyclic;
    out_.realised_acyclic = hw_rep.acyclic;
    std::cout << "fabric: torus " << setup_.torus.x << "x" << setup_.torus.y << "x"
              << setup_.torus.z << ", " << smf_.switch_count() << " switches, " << smf_.hca_count()
              << " hosts; routing " << (setup_.routing == Routing::kDor ? "DOR" : "LASH") << ", "
              << plan_.lanes() << " lane(s) on priorities";
    for (const unsigned p : plan_.lane_prio()) {
      std::cout << " " << p;
    }
    std::cout << "; remap at";
    for (const sm::SwitchIdx s : plan_.remap_switches()) {
      const drv::RemapConfig& rc = plan_.remap(s);
      std::cout << " " << smf_.name(smf_.switch_node(s)) << " (ports mask 0x" << std::hex
                << unsigned{rc.uplink_mask} << std::dec << ")";
    }
    if (plan_.remap_switches().empty()) {
      std::cout << " no switch";
    }
    std::cout << "\ncredit-loop check, SM lanes: " << sm_rep.describe(smf_) << " ("
              << sm_rep.channels << " channels, " << sm_rep.dependencies << " dependencies)\n"
              << "credit-loop check, realised lanes: " << hw_rep.describe(smf_) << "\n";
    deps_ = dependencies(*lft_, plan_.realised());
    const sm::CreditLoopReport one = sm::check_credit_loops(*lft_, sm::VlAssignment{});
    for (const sm::CdgLink& l : one.cycle) {
      loop_.push_back(Queue{smf_.switch_index(l.from), l.out, 0});
    }
    if (setup_.load == Load::kLoopFlows && loop_.empty()) {
      throw std::invalid_argument("load on the credit loop's flows: the routing has no loop");
    }
  }

  // Whether host pair (a, b) sends under the setup's load.
  [[nodiscard]] bool sends(sm::NodeId a, sm::NodeId b) const {
    if (smf_.attach_switch(a) == smf_.attach_switch(b)) {
      return false;
    }
    if (setup_.load == Load::kAllToAll) {
      return true;
    }
    std::vector<Queue> path;
    walk_lanes(*lft_, sm::VlAssignment{}, smf_.attach_switch(a), smf_.lid(b, 1),
               [&](const Queue& q) {
                 path.push_back(Queue{q.sw, q.out, 0});
               });
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      for (std::size_t c = 0; c < loop_.size(); ++c) {
        if (path[i] == loop_[c] && path[i + 1] == loop_[(c + 1) % loop_.size()]) {
          return true;
        }
      }
    }
    return false;
  }

  // Every sending pair back to back, on the priority of the path's first
  // lane.
  void add_flows() {
    const auto load = static_cast<std::uint64_t>(ctx_.param("load", kLoad));
    std::uniform_int_distribution<unsigned> len(4, kMaxPkt);
    const std::uint64_t t0 = f_.cycle() + 10;
    const auto hcas = smf_.hcas();
    for (unsigned a = 0; a < hcas.size(); ++a) {
      for (unsigned b = 0; b < hcas.size(); ++b) {
        if (!sends(hcas[a], hcas[b])) {
          continue;
        }
        FlowSpec s;
        s.dst_lid = smf_.lid(hcas[b], 1);
        s.prio = plan_.host_prio(smf_, a, s.dst_lid);
        s.dscp = lane_dscp(s.prio);
        s.len_flits = len(ctx_.rng());
        s.rate = 1.0;
        s.start_cycle = t0;
        s.stop_cycle = t0 + load;
        f_.add_flow(a, s);
      }
    }
    std::cout << "load: " << f_.flow_count() << " flows ("
              << (setup_.load == Load::kAllToAll ? "every host to every host on another switch"
                                                 : "the pairs whose path makes the loop")
              << "), back to back, cycles " << t0 << ".." << t0 + load << "\n";
  }

  // Progress is a delivery anywhere; with every sent packet delivered there
  // is nothing to wait for, so that does not count as a stall either.
  void sample(std::uint64_t now) {
    std::uint64_t rx = 0;
    for (unsigned h = 0; h < f_.host_count(); ++h) {
      rx += f_.received(h).size();
    }
    std::uint64_t sent = 0;
    for (unsigned fl = 0; fl < f_.flow_count(); ++fl) {
      sent += f_.flow(fl).sent;
    }
    if (rx != rx_ || sent == rx) {
      rx_ = rx;
      last_rx_ = now;
    }
    const std::uint64_t stall = now - last_rx_;
    out_.longest_stall = std::max(out_.longest_stall, stall);
    if (stall >= kStall && !out_.stall_at) {
      out_.stall_at = now;
      out_.paused_cycle = paused_cycle(last_rx_);
    }
    if (!out_.first_detect && now % 16 == 0) {
      for (const auto& [q, next] : deps_) {
        if (f_.wd_state(q.sw, hw_port(q.out), plan_.lane_prio()[q.lane]) !=
            fmt::WdState::kMonitor) {
          out_.first_detect = now;
          break;
        }
      }
    }
  }

  // The queues paused without a break since `since`, and a dependency cycle
  // among them.
  [[nodiscard]] std::vector<Queue> paused_cycle(std::uint64_t since) const {
    std::set<Queue> paused;
    for (const auto& [q, next] : deps_) {
      const auto p = f_.paused_since(q.sw, hw_port(q.out), plan_.lane_prio()[q.lane]);
      if (p && *p <= since) {
        paused.insert(q);
      }
    }
    return find_cycle(deps_, paused);
  }

  void finish() {
    const CounterSnapshot snap = f_.dump_counters(std::cout);
    std::cout << "counters: " << f_.write_counters_file(snap).string() << "\n";
    for (unsigned fl = 0; fl < f_.flow_count(); ++fl) {
      out_.sent += f_.flow(fl).sent;
    }
    for (unsigned h = 0; h < f_.host_count(); ++h) {
      out_.received += f_.received(h).size();
    }
    out_.wd_detects = snap.total(K::kWdDetect);
    out_.drop_wd = snap.total(K::kDropWd);
    for (const K k : drop_kinds()) {
      if (k != K::kDropWd) {
        out_.other_drops += snap.total(k);
      }
    }
    for (const unsigned p : plan_.lane_prio()) {
      // PAUSE_TX counts at the ingress that sends the frame: every switch
      // port facing another switch.
      std::uint64_t n = 0;
      for (unsigned s = 0; s < f_.switch_count(); ++s) {
        const sm::NodeId node = smf_.switch_node(s);
        for (int port = 1; port <= smf_.num_ports(node); ++port) {
          if (to_switch(smf_, node, static_cast<sm::PortNum>(port))) {
            n += snap.at(s, hw_port(static_cast<sm::PortNum>(port)), p, K::kPauseTx);
          }
        }
      }
      out_.pause_tx[p] = n;
    }
    for (unsigned sw = 0; sw < f_.switch_count(); ++sw) {
      const sm::NodeId node = smf_.switch_node(sw);
      for (int port = 1; port <= smf_.num_ports(node); ++port) {
        if (!to_switch(smf_, node, static_cast<sm::PortNum>(port))) {
          continue;
        }
        for (const unsigned p : plan_.lane_prio()) {
          for (const Interval& iv : f_.trace(sw, hw_port(static_cast<sm::PortNum>(port)), p).xoff) {
            out_.longest_pause = std::max(out_.longest_pause, iv.to - iv.from);
          }
        }
      }
    }
    out_.cycles = f_.cycle();
    std::vector<unsigned> flows(f_.flow_count());
    for (unsigned fl = 0; fl < flows.size(); ++fl) {
      flows[fl] = fl;
    }
    const bool lossy = out_.drop_wd != 0;
    out_.delivery = check_delivery(
        f_, flows, [this](unsigned fl) { return unicast_receiver(f_, fl); },
        [lossy](unsigned) { return lossy; });
    const SpeedStats sp = f_.speed();
    Summary sum("torus lanes");
    sum.add("packets sent", std::to_string(out_.sent));
    sum.add("packets received", std::to_string(out_.received));
    sum.add("longest stall (cycles, packets in flight, nothing delivered)",
            std::to_string(out_.longest_stall));
    sum.add("no-progress window reached at",
            out_.stall_at ? std::to_string(*out_.stall_at) : std::string("never"));
    sum.add("paused dependency cycle",
            out_.paused_cycle.empty() ? std::string("none") : queue_text(smf_, out_.paused_cycle));
    sum.add("first watchdog detection",
            out_.first_detect ? std::to_string(*out_.first_detect) : std::string("never"));
    sum.add("WD_DETECT", std::to_string(out_.wd_detects));
    sum.add("DROP_WD", std::to_string(out_.drop_wd));
    sum.add("other drops", std::to_string(out_.other_drops));
    for (const auto& [p, n] : out_.pause_tx) {
      sum.add("PAUSE_TX on switch links, priority " + std::to_string(p), std::to_string(n));
    }
    sum.add("longest pause of a switch-to-switch queue (cycles)",
            std::to_string(out_.longest_pause));
    sum.add("drained", out_.drained ? "yes" : "no");
    sum.add("fabric cycles", std::to_string(out_.cycles));
    sum.add("wall s", sp.wall_s, 2);
    sum.print(std::cout);
    std::cout << out_.delivery << "\n";
  }

  TestContext& ctx_;
  Setup setup_;
  sm::Fabric smf_;
  sm::MinHop mh_;
  Fabric f_;
  std::optional<sm::Lft> lft_;
  sm::VlAssignment vls_;
  LanePlan plan_;
  Deps deps_;
  std::vector<Queue> loop_;  // the one-lane credit loop's channels, in order
  Outcome out_;
  std::uint64_t rx_ = 0;
  std::uint64_t last_rx_ = 0;
};

std::uint64_t total_pauses(const Outcome& o) {
  std::uint64_t n = 0;
  for (const auto& [p, c] : o.pause_tx) {
    n += c;
  }
  return n;
}

// A credit loop and a real deadlock: the checker finds the cycle, the run
// stops delivering for kStall cycles with a dependency cycle of queues all
// paused for that whole time, and the watchdog (drop mode) detects it; its
// drops then let the fabric drain, and every packet is delivered or counted
// as DROP_WD.
void expect_deadlock(const Outcome& o, const sm::Fabric& smf) {
  TB_CHECK(!o.sm_acyclic) << "the checker finds no credit loop";
  TB_CHECK(!o.realised_acyclic) << "the checker finds no credit loop in the realised lanes";
  TB_CHECK(total_pauses(o) > 0) << "no PFC pause on a switch link: the load never filled a buffer";
  TB_CHECK(o.stall_at.has_value())
      << "the fabric kept delivering (longest stall " << o.longest_stall << " cycles)";
  TB_CHECK(!o.paused_cycle.empty()) << "no dependency cycle of paused queues at the stall";
  TB_CHECK(o.first_detect.has_value() && o.wd_detects > 0) << "the PFC watchdog detected nothing";
  TB_CHECK(o.drained) << "the fabric did not drain after the watchdog's recovery";
  TB_CHECK_EQ(o.other_drops, 0U) << "drops other than the watchdog's";
  TB_CHECK_EQ(o.sent, o.received + o.drop_wd) << "sent = received + DROP_WD";
  TB_CHECK(o.delivery.duplicates == 0 && o.delivery.unexpected == 0 && o.delivery.malformed == 0 &&
           o.delivery.out_of_order == 0)
      << o.delivery;
  std::cout << "deadlock: no delivery for " << kStall << " cycles at cycle " << *o.stall_at
            << ", paused cycle " << queue_text(smf, o.paused_cycle) << "; watchdog detection at "
            << *o.first_detect << "\n";
}

// No credit loop and no deadlock under the same full load: every packet
// delivered exactly once, in order, no drop, no detection, and PFC did pause
// switch links (otherwise the load proved nothing).
void expect_no_deadlock(const Outcome& o) {
  TB_CHECK(o.sm_acyclic) << "the checker finds a credit loop in the SM's lanes";
  TB_CHECK(o.realised_acyclic) << "the checker finds a credit loop in the realised lanes";
  TB_CHECK(total_pauses(o) > 0) << "no PFC pause on a switch link: the load never filled a buffer";
  TB_CHECK(o.drained) << "the fabric did not drain";
  TB_CHECK(!o.stall_at.has_value())
      << "no delivery for " << kStall << " cycles at cycle " << *o.stall_at;
  TB_CHECK_EQ(o.wd_detects, 0U) << "the PFC watchdog detected a deadlock";
  TB_CHECK_EQ(o.drop_wd + o.other_drops, 0U) << "a lossless fabric dropped";
  TB_CHECK(o.delivery.ok() && o.delivery.delivered == o.delivery.expected) << o.delivery;
  TB_CHECK_EQ(o.sent, o.received);
}

// The ring: torus 6x1x1, two hosts per switch.
constexpr sm::TorusSpec kRing{6, 1, 1, 2};
// The 2-D torus: 4x3x1 (LASH needs two lanes; 3x3 has paths of at most two
// hops and needs one), two hosts per switch (ports 1-4 torus, 7-8 hosts).
constexpr sm::TorusSpec kTorus2d{4, 3, 1, 2};

}  // namespace

// (a) DOR on one lossless priority: the ring's channels form a credit loop
// and the run deadlocks.
SYNCFAB_TEST(torus_lanes, ring_dor_one_priority_deadlocks) {
  Scenario sc(ctx, Setup{kRing, Routing::kDor, true});
  const Outcome o = sc.run();
  expect_deadlock(o, sc.smf());
  co_return;
}

// (b) The same ring and load with DOR's dateline lanes on two priorities:
// hosts start a path on the lane of its first channel, the two switches
// before the wrap links remap lane 0 to lane 1 for packets passing through.
SYNCFAB_TEST(torus_lanes, ring_dor_dateline_lanes) {
  Scenario sc(ctx, Setup{kRing, Routing::kDor, false});
  const Outcome o = sc.run();
  // Exactly the dateline switches remap: coordinate 5 (before the + wrap)
  // and 0 (before the - wrap), both ring ports in the group, lane 0 -> 1.
  const std::vector<sm::SwitchIdx> remapped = sc.plan().remap_switches();
  const sm::TorusLayout layout = sm::torus_layout(sc.smf());
  TB_CHECK_EQ(remapped.size(), 2U);
  for (const sm::SwitchIdx s : remapped) {
    const drv::RemapConfig& rc = sc.plan().remap(s);
    TB_CHECK(layout.coord.at(s)[0] == 0 || layout.coord.at(s)[0] == kRing.x - 1)
        << sc.smf().name(sc.smf().switch_node(s)) << " is not at a dateline";
    TB_CHECK_EQ(unsigned{rc.uplink_mask}, (1U << hw_port(1)) | (1U << hw_port(2)));
    TB_CHECK_EQ(unsigned{rc.map.at(kLanePrio[0]).prio}, kLanePrio[1]);
    TB_CHECK_EQ(unsigned{rc.map.at(kLanePrio[1]).prio}, kLanePrio[1]);
  }
  expect_no_deadlock(o);
  TB_CHECK(o.pause_tx.at(kLanePrio[0]) > 0 && o.pause_tx.at(kLanePrio[1]) > 0)
      << "both lanes must have been paused";
  sc.check_wire();
  co_return;
}

// (c) A 4x3 torus routed by LASH, its lanes as priorities chosen at
// injection (a LASH path keeps its lane).
SYNCFAB_TEST(torus_lanes, torus2d_lash_lanes) {
  Scenario sc(ctx, Setup{kTorus2d, Routing::kLash, false});
  const Outcome o = sc.run();
  TB_CHECK(sc.plan().lanes() >= 2) << "LASH needed one lane: nothing to confirm";
  TB_CHECK(sc.plan().remap_switches().empty()) << "LASH lanes need no remap";
  expect_no_deadlock(o);
  sc.check_wire();
  co_return;
}

// (c) The same routing on one priority: the credit loop LASH avoided with
// its lanes is there, and loading the flows it is made of deadlocks the
// run. (Under all-to-all load those flows are a small share of every
// link's traffic and the loop did not close in the runs measured: a credit
// loop is the condition for a deadlock, not a promise of one.)
SYNCFAB_TEST(torus_lanes, torus2d_lash_one_priority_deadlocks) {
  Scenario sc(ctx, Setup{kTorus2d, Routing::kLash, true, Load::kLoopFlows});
  const Outcome o = sc.run();
  expect_deadlock(o, sc.smf());
  co_return;
}

// (c) The loop's flows again, on LASH's lanes: acyclic, everything arrives.
SYNCFAB_TEST(torus_lanes, torus2d_lash_lanes_loop_flows) {
  Scenario sc(ctx, Setup{kTorus2d, Routing::kLash, false, Load::kLoopFlows});
  const Outcome o = sc.run();
  expect_no_deadlock(o);
  sc.check_wire();
  co_return;
}

// What the hardware cannot do is refused, naming the value: DOR's dateline
// lanes on a 2-D torus (a turn and a straight hop through the same remap
// ports), more lanes than priorities, a bad priority.
SYNCFAB_TEST(torus_lanes, unrealisable_rejected) {
  const auto refused = [](const std::function<void()>& fn, const std::string& needle) {
    try {
      fn();
    } catch (const std::invalid_argument& e) {
      std::cout << "refused: " << e.what() << "\n";
      return std::string(e.what()).find(needle) != std::string::npos;
    }
    return false;
  };
  const sm::Fabric t2 = sm::make_torus(kTorus2d);
  const sm::TorusLayout layout = sm::torus_layout(t2);
  const sm::Lft dor = sm::route_dor(t2, layout);
  const std::array<unsigned, 2> two{3, 4};
  TB_CHECK(refused([&] { (void)plan_lanes(dor, sm::dor_dateline_vls(layout), two); },
                   "cannot tell them apart"))
      << "2-D DOR dateline lanes were accepted";
  const sm::MinHop mh(t2);
  const sm::LashRouting lash = sm::route_lash(mh, 8);
  TB_CHECK(lash.lanes >= 2);
  const std::array<unsigned, 1> one{3};
  TB_CHECK(refused([&] { (void)plan_lanes(lash.lft, lash.vls(), one); },
                   std::to_string(lash.lanes) + " lanes, 1 priorities"))
      << "LASH's " << lash.lanes << " lanes were accepted on one priority";
  const std::array<unsigned, 2> dup{3, 3};
  TB_CHECK(
      refused([&] { (void)plan_lanes(lash.lft, lash.vls(), dup); }, "priority 3 given to two"));
  const std::array<unsigned, 2> range{3, 8};
  TB_CHECK(
      refused([&] { (void)plan_lanes(lash.lft, lash.vls(), range); }, "priority 8 out of range"));
  // On the ring the realised lanes are the SM's on every path.
  const sm::Fabric ring = sm::make_torus(kRing);
  const sm::TorusLayout rl = sm::torus_layout(ring);
  const sm::Lft rlft = sm::route_dor(ring, rl);
  const sm::VlAssignment sm_v = sm::dor_dateline_vls(rl);
  const LanePlan plan = plan_lanes(rlft, sm_v, two);
  const sm::VlAssignment hw_v = plan.realised();
  std::size_t hops = 0;
  for (sm::SwitchIdx s = 0; s < ring.switch_count(); ++s) {
    for (const sm::NodeId h : ring.hcas()) {
      std::vector<Queue> a;
      std::vector<Queue> b;
      walk_lanes(rlft, sm_v, s, ring.lid(h, 1), [&](const Queue& q) { a.push_back(q); });
      walk_lanes(rlft, hw_v, s, ring.lid(h, 1), [&](const Queue& q) { b.push_back(q); });
      TB_CHECK(a == b) << "from switch " << s << " to " << ring.name(h) << ": SM "
                       << queue_text(ring, a) << ", hardware " << queue_text(ring, b);
      hops += a.size();
    }
  }
  std::cout << "ring: the realised lanes equal DOR's dateline lanes on " << hops << " hops\n";
  co_return;
}

}  // namespace syncfab::tb::swfab

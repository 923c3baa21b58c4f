#include "ecmp_incast.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "barrier_run.hpp"
#include "nic_top_bench.hpp"
#include "program.hpp"
#include "routing.hpp"
#include "switch_fabric_sm.hpp"
#include "syncfab/driver/barrier_schedule.hpp"
#include "syncfab/driver/data_flows.hpp"
#include "syncfab/sim/nearest_rank.hpp"
#include "system_fabric.hpp"
#include "traffic_check.hpp"

namespace syncfab::tb::system {

namespace {

using K = fmt::SwCounter;

constexpr unsigned kLeaves = 3;
constexpr unsigned kSpines = 4;
constexpr unsigned kHostsPerLeaf = 4;
constexpr unsigned kNicsPerLeaf = 4;
constexpr std::uint32_t kRetryDelay = 16;

// A switch egress: (switch index, switch_top port).
using Egress = std::pair<unsigned, unsigned>;

// Every egress a packet from switch `from` to `lid` may take: the LFT's
// port, or every member of the group its entry names, hop by hop.
std::set<Egress> egresses(const sm::Fabric& smf, const sm::Lft& lft, const sm::PortGroups* groups,
                          sm::SwitchIdx from, std::uint16_t lid) {
  std::set<Egress> out;
  std::vector<sm::SwitchIdx> todo{from};
  std::set<sm::SwitchIdx> seen{from};
  while (!todo.empty()) {
    const sm::SwitchIdx s = todo.back();
    todo.pop_back();
    for (const sm::PortNum p : sm::entry_ports(lft, groups, s, lid)) {
      const auto ports = static_cast<unsigned>(smf.num_ports(smf.switch_node(s)));
      out.emplace(s, swfab::hw_port(p, ports));
      const sm::PortPeer peer = smf.peer(smf.switch_node(s), p);
      if (peer.connected() && smf.is_switch(peer.node)) {
        const sm::SwitchIdx next = smf.switch_index(peer.node);
        if (seen.insert(next).second) {
          todo.push_back(next);
        }
      }
    }
  }
  return out;
}

std::string egress_name(const sm::Fabric& smf, const Egress& e) {
  const sm::NodeId n = smf.switch_node(e.first);
  const sm::PortPeer peer =
      smf.peer(n, swfab::sm_port(e.second, static_cast<unsigned>(smf.num_ports(n))));
  return smf.name(n) + ":" + std::to_string(e.second) + "->" +
         (peer.connected() ? smf.name(peer.node) : std::string("?"));
}

unsigned switch_named(const sm::Fabric& smf, const std::string& name) {
  return smf.switch_index(smf.find(name).value());
}

void check_config(const EcmpIncastConfig& c) {
  const auto refuse = [](const std::string& what) {
    throw std::invalid_argument("ECMP incast: " + what);
  };
  if (c.senders == 0 || c.senders >= kLeaves * kHostsPerLeaf) {
    refuse("senders " + std::to_string(c.senders) + " (1.." +
           std::to_string(kLeaves * kHostsPerLeaf - 1) + ")");
  }
  // The bulk host names a flow by 8 bits of its flow label.
  if (c.flows_per_sender == 0 || c.flows_per_sender > 256) {
    refuse("flows_per_sender " + std::to_string(c.flows_per_sender) + " (1..256)");
  }
  if (c.dcqcn && (c.flows_per_sender > fmt::kNumFlows || c.senders >= kLeaves * kNicsPerLeaf)) {
    refuse("with dcqcn, flows_per_sender " + std::to_string(c.flows_per_sender) + " (1.." +
           std::to_string(fmt::kNumFlows) + ") and senders " + std::to_string(c.senders) + " (1.." +
           std::to_string(kLeaves * kNicsPerLeaf - 1) + ")");
  }
  if (c.len_flits < 2 || c.len_flits > 255) {
    refuse("len_flits " + std::to_string(c.len_flits) + " (2..255)");
  }
  if (c.flow_prio >= fmt::kNumPrio || c.barrier_prio >= fmt::kNumPrio) {
    refuse("priorities " + std::to_string(c.flow_prio) + ", " + std::to_string(c.barrier_prio) +
           " (0.." + std::to_string(fmt::kNumPrio - 1) + ")");
  }
  if (c.sample_every == 0 || c.barrier_every == 0) {
    refuse("sample_every " + std::to_string(c.sample_every) + ", barrier_every " +
           std::to_string(c.barrier_every) + " (both > 0)");
  }
  if (c.warmup >= c.cycles) {
    refuse("warmup " + std::to_string(c.warmup) + " is not below cycles " +
           std::to_string(c.cycles));
  }
  if (c.barrier_first + c.barrier_every > c.cycles) {
    refuse("no barrier fits: barrier_first " + std::to_string(c.barrier_first) + " + every " +
           std::to_string(c.barrier_every) + " > cycles " + std::to_string(c.cycles));
  }
}

// Sets of switch ingress ports whose buffered cells of the flows' priority
// the series sums: where the incast queues with and without ECMP.
struct PortSet {
  std::string name;
  std::vector<std::pair<unsigned, unsigned>> ports;  // (switch, port)
};

// `first`: the leaves' port of their first sender (h0's or n0's).
std::vector<PortSet> watched_queues(const sm::Fabric& smf, unsigned first) {
  std::vector<PortSet> q;
  const unsigned leaf0 = switch_named(smf, "leaf0");
  const unsigned leaf1 = switch_named(smf, "leaf1");
  PortSet up{"leaf0 from spines", {}};
  const std::string who = first == 0 ? "h" : "n";
  PortSet local{"leaf0 from " + who + "1-" + who + "3", {}};
  PortSet l1{"leaf1 from " + who + "4-" + who + "7", {}};
  for (unsigned s = 0; s < kSpines; ++s) {
    up.ports.emplace_back(leaf0, kHostsPerLeaf + s);
  }
  for (unsigned h = 0; h < kHostsPerLeaf; ++h) {
    if (h != 0) {
      local.ports.emplace_back(leaf0, first + h);
    }
    l1.ports.emplace_back(leaf1, first + h);
  }
  PortSet sp1{"spines from leaf1", {}};
  PortSet sp2{"spines from leaf2", {}};
  for (unsigned s = 0; s < kSpines; ++s) {
    const unsigned sw = switch_named(smf, "spine" + std::to_string(s));
    sp1.ports.emplace_back(sw, 1);
    sp2.ports.emplace_back(sw, 2);
  }
  q.push_back(up);
  q.push_back(sp1);
  q.push_back(sp2);
  q.push_back(l1);
  q.push_back(local);
  return q;
}

// The time series, taken from the fabric once per cycle (the fabric's cycle
// hook): it only reads.
class Sampler {
 public:
  Sampler(SystemFabric& sys, const EcmpIncastConfig& cfg, std::uint64_t t0,
          std::vector<PortSet> queues, std::vector<std::vector<unsigned>> pause_sets)
      : sys_(sys),
        cfg_(cfg),
        t0_(t0),
        queues_(std::move(queues)),
        pause_sets_(std::move(pause_sets)),
        last_flits_(cfg.senders, 0),
        qmax_(queues_.size(), 0),
        last_pause_at_(pause_sets_.size(), 0) {}

  void cycle(std::uint64_t now) {
    if (now < t0_ || now >= t0_ + cfg_.cycles) {
      return;
    }
    for (std::size_t i = 0; i < queues_.size(); ++i) {
      qmax_[i] = std::max(qmax_[i], cells(queues_[i]));
    }
    const std::uint64_t end = now + 1 - t0_;
    if (end % cfg_.sample_every == 0 || end == cfg_.cycles) {
      take(end);
    }
  }

  [[nodiscard]] std::vector<EcmpSample>& series() { return series_; }
  // Per sender, the flits h0 took up to the last sample.
  [[nodiscard]] const std::vector<std::uint64_t>& flits_so_far() const { return last_flits_; }

 private:
  [[nodiscard]] std::uint32_t cells(const PortSet& q) const {
    std::uint32_t n = 0;
    for (const auto& [s, p] : q.ports) {
      n += sys_.sw(s).ingress_cells(p, cfg_.flow_prio);
    }
    return n;
  }
  [[nodiscard]] std::uint64_t pause_tx(const std::vector<unsigned>& switches, unsigned prio) const {
    std::uint64_t n = 0;
    for (const unsigned s : switches) {
      for (unsigned p = 0; p < sys_.sw(s).port_count(); ++p) {
        n += sys_.sw(s).counter(p, prio, K::kPauseTx);
      }
    }
    return n;
  }

  void take(std::uint64_t end) {
    EcmpSample smp;
    smp.end = end;
    smp.length = end - last_end_;
    last_end_ = end;
    std::vector<std::uint64_t> total(cfg_.senders, 0);
    if (cfg_.dcqcn) {
      for (unsigned i = 0; i < cfg_.senders; ++i) {
        total[i] =
            driver::DataFlows(sys_.nic(i + 1).device()).counter(hw::dcqcn::Counter::kDataTxFlits);
      }
    }
    for (const auto& [key, f] : sys_.host(0).rx_flows()) {
      if (key.first >= 1 && key.first <= cfg_.senders) {
        total[key.first - 1] += f.flits;
      }
    }
    for (unsigned i = 0; i < cfg_.senders; ++i) {
      smp.flits.push_back(total[i] - last_flits_[i]);
      last_flits_[i] = total[i];
    }
    for (std::size_t i = 0; i < queues_.size(); ++i) {
      smp.queues.push_back({cells(queues_[i]), qmax_[i]});
      qmax_[i] = 0;
    }
    std::uint64_t all = 0;
    for (std::size_t i = 0; i < pause_sets_.size(); ++i) {
      const std::uint64_t v = pause_tx(pause_sets_[i], cfg_.flow_prio);
      smp.pause_tx_at.push_back(v - last_pause_at_[i]);
      last_pause_at_[i] = v;
      all += smp.pause_tx_at.back();
    }
    smp.pause_tx = all;
    std::uint64_t hp = 0;
    for (unsigned i = 1; i <= cfg_.senders; ++i) {
      hp += sys_.host(i).received().pauses;
    }
    smp.host_pauses = hp - last_host_pauses_;
    last_host_pauses_ = hp;
    if (cfg_.barrier_prio != cfg_.flow_prio) {
      std::uint64_t bp = 0;
      for (unsigned s = 0; s < sys_.switch_count(); ++s) {
        bp += pause_tx({s}, cfg_.barrier_prio);
      }
      smp.barrier_pause_tx = bp - last_barrier_pause_;
      last_barrier_pause_ = bp;
    }
    series_.push_back(std::move(smp));
  }

  SystemFabric& sys_;
  const EcmpIncastConfig& cfg_;
  std::uint64_t t0_;
  std::vector<PortSet> queues_;
  std::vector<std::vector<unsigned>> pause_sets_;
  std::vector<std::uint64_t> last_flits_;
  std::vector<std::uint32_t> qmax_;
  std::vector<std::uint64_t> last_pause_at_;
  std::uint64_t last_host_pauses_ = 0;
  std::uint64_t last_barrier_pause_ = 0;
  std::uint64_t last_end_ = 0;
  std::vector<EcmpSample> series_;
};

double jain_of(const std::vector<double>& x) {
  double s = 0;
  double q = 0;
  for (const double v : x) {
    s += v;
    q += v * v;
  }
  return q == 0 ? 0 : s * s / (static_cast<double>(x.size()) * q);
}

}  // namespace

sm::Fabric ecmp_incast_fabric() {
  sm::Fabric f;
  std::vector<sm::NodeId> spines;
  std::vector<sm::NodeId> leaves;
  for (unsigned s = 0; s < kSpines; ++s) {
    spines.push_back(f.add_node(sm::NodeType::kSwitch, "spine" + std::to_string(s), 8));
  }
  // Hosts, uplinks and NICs: 12 ports, the 16-port switch shape.
  const unsigned leaf_ports = kHostsPerLeaf + kSpines + kNicsPerLeaf;
  for (unsigned l = 0; l < kLeaves; ++l) {
    leaves.push_back(f.add_node(sm::NodeType::kSwitch, "leaf" + std::to_string(l), leaf_ports));
  }
  // The bulk hosts first, so that bulk host h is h<h> and NIC rank r is n<r>.
  for (unsigned l = 0; l < kLeaves; ++l) {
    for (unsigned h = 0; h < kHostsPerLeaf; ++h) {
      const sm::NodeId n =
          f.add_node(sm::NodeType::kHca, "h" + std::to_string(l * kHostsPerLeaf + h), 1);
      f.connect(n, 1, leaves[l], swfab::sm_port(h, leaf_ports));
    }
  }
  for (unsigned l = 0; l < kLeaves; ++l) {
    for (unsigned k = 0; k < kNicsPerLeaf; ++k) {
      const sm::NodeId n =
          f.add_node(sm::NodeType::kHca, "n" + std::to_string(l * kNicsPerLeaf + k), 1);
      f.connect(n, 1, leaves[l], swfab::sm_port(kHostsPerLeaf + kSpines + k, leaf_ports));
    }
  }
  for (unsigned l = 0; l < kLeaves; ++l) {
    for (unsigned s = 0; s < kSpines; ++s) {
      f.connect(leaves[l], swfab::sm_port(kHostsPerLeaf + s, leaf_ports), spines[s],
                swfab::sm_port(l, 8));
    }
  }
  f.assign_lids();
  return f;
}

EcmpLatency latency_stats(const EcmpIncastResult& r, std::uint64_t from) {
  std::vector<std::uint64_t> lat;
  for (const EcmpBarrier& b : r.barriers) {
    if (b.posted >= from) {
      lat.push_back(b.latency);
    }
  }
  EcmpLatency st;
  st.count = lat.size();
  if (lat.empty()) {
    return st;
  }
  std::sort(lat.begin(), lat.end());
  st.median = sim::nearest_rank(lat, 0.5);
  st.p99 = sim::nearest_rank(lat, 0.99);
  st.max = lat.back();
  return st;
}

EcmpIncastResult run_ecmp_incast(TestContext& ctx, const EcmpIncastConfig& cfg) {
  check_config(cfg);
  const sm::Fabric smf = ecmp_incast_fabric();
  EcmpIncastResult r;

  SystemConfig sc;
  sc.nic_data_path = cfg.dcqcn;
  sc.link_delay = [&smf, &cfg](sm::NodeId a, sm::NodeId b) {
    return smf.is_switch(a) && smf.is_switch(b) ? cfg.switch_delay : cfg.host_delay;
  };
  sc.backend = [&cfg](sm::NodeId) { return cfg.backend; };
  sc.bulk_host = [&smf](sm::NodeId n) { return smf.name(n).front() == 'h'; };
  sc.max_pkt_flits = cfg.len_flits;
  SystemFabric sys(ctx, smf, sc);
  driver::NicOptions nic_opts = nic_top::nic_options(ctx.sim(), kRetryDelay);
  nic_opts.traffic_class = cfg.barrier_prio;
  nic_opts.pfc_enable = 1U << cfg.barrier_prio | (cfg.dcqcn ? 1U << cfg.flow_prio : 0U);
  nic_opts.pfc_cycles_per_quantum = cfg.cycles_per_quantum;
  sys.start(nic_opts);

  // PFC and the schedulers while the switches are still disabled.
  const bool own_class = cfg.barrier_prio != cfg.flow_prio;
  driver::PfcPortConfig pfc{};
  pfc[cfg.flow_prio] = driver::PfcPriority{true, static_cast<std::uint16_t>(cfg.xoff),
                                           static_cast<std::uint16_t>(cfg.xon),
                                           static_cast<std::uint16_t>(cfg.quanta)};
  driver::SchedConfig sched{};
  sched.weight.fill(static_cast<std::uint8_t>(cfg.len_flits));
  if (own_class) {
    pfc[cfg.barrier_prio] = driver::PfcPriority{true, static_cast<std::uint16_t>(cfg.barrier_xoff),
                                                static_cast<std::uint16_t>(cfg.barrier_xon),
                                                static_cast<std::uint16_t>(cfg.quanta)};
    sched.sp_mask = static_cast<std::uint8_t>(1U << cfg.barrier_prio);
  }
  configure_pfc(sys, driver::PfcTiming{static_cast<std::uint8_t>(cfg.cycles_per_quantum), 64}, pfc,
                cfg.len_flits);
  const driver::WredQueue wred{true, static_cast<std::uint16_t>(cfg.kmin),
                               static_cast<std::uint16_t>(cfg.kmax),
                               static_cast<std::uint8_t>(cfg.pmax)};
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    for (unsigned p = 0; p < sys.sw(s).port_count(); ++p) {
      if (sys.switch_link(s, p) != nullptr) {
        sys.sw(s).driver().configure_scheduler(p, sched);
        if (cfg.dcqcn) {
          sys.sw(s).driver().configure_wred(p, cfg.flow_prio, wred);
        }
      }
    }
  }
  RoutingOptions ro;
  ro.unicast = "ftree";
  ro.mc.clear();
  ro.group_mode = cfg.ecmp ? sm::GroupMode::kEcmp : sm::GroupMode::kOff;
  const SystemRouting routing = route_system(smf, ro);
  const ProgramReport pr = program_and_verify(sys, routing);
  r.port_groups = pr.port_groups;
  r.group_entries = pr.group_entries;
  TB_CHECK(!cfg.ecmp || pr.group_entries > 0) << "ECMP: FTREE proposed no port group";

  // Which barrier sends can meet the incast: an egress both may take.
  const sm::PortGroups* groups = routing.uc.groups ? &*routing.uc.groups : nullptr;
  const std::uint16_t target = cfg.dcqcn ? sys.nic_lid(0) : sys.host(0).lid();
  std::set<Egress> incast;
  for (unsigned i = 1; i <= cfg.senders; ++i) {
    const auto e =
        egresses(smf, *routing.uc.lft, groups,
                 smf.attach_switch(cfg.dcqcn ? sys.nic_hca(i) : sys.host_hca(i)), target);
    incast.insert(e.begin(), e.end());
  }
  std::set<Egress> shared;
  for (unsigned a = 0; a < sys.nic_count(); ++a) {
    const driver::BarrierSchedule sch =
        driver::build_barrier_schedule(a, sys.nic_count(), cfg.barrier_k);
    for (const auto& round : sch.rounds) {
      for (const std::uint32_t b : round.send_to) {
        ++r.schedule_sends;
        bool crosses = false;
        for (const Egress& e : egresses(smf, *routing.uc.lft, groups,
                                        smf.attach_switch(sys.nic_hca(a)), sys.nic_lid(b))) {
          if (incast.contains(e)) {
            crosses = true;
            shared.insert(e);
          }
        }
        r.crossing_sends += crosses ? 1 : 0;
      }
    }
  }
  for (const Egress& e : shared) {
    r.shared_egresses.push_back(egress_name(smf, e));
  }

  for (unsigned i = 1; i <= cfg.senders; ++i) {
    r.sender_names.push_back(cfg.dcqcn ? sys.nic(i).name() : sys.host(i).name());
  }
  std::vector<PortSet> queues = watched_queues(smf, cfg.dcqcn ? kHostsPerLeaf + kSpines : 0);
  for (const PortSet& q : queues) {
    r.queue_names.push_back(q.name);
  }
  std::vector<std::vector<unsigned>> pause_sets(4);
  r.pause_names = {"leaf0", "spines", "leaf1", "leaf2"};
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    const std::string& n = sys.sw(s).name();
    const std::size_t at = n.starts_with("spine") ? 1 : n == "leaf0" ? 0 : n == "leaf1" ? 2 : 3;
    pause_sets[at].push_back(s);
  }

  // The flows, from t0: every sender starts within 4 packets (seeded).
  const std::uint64_t t0 = sys.cycle() + 20;
  auto& rng = ctx.rng();
  // DCQCN's flows: (start cycle, sender) in start order.
  std::vector<std::pair<std::uint64_t, unsigned>> nic_starts;
  if (cfg.dcqcn) {
    driver::DcqcnConfig dc;
    dc.rp_enable = true;
    dc.np_enable = true;
    dc.cnp_interval = cfg.cnp_interval;
    dc.alpha_timer = cfg.alpha_timer;
    dc.rate_timer = cfg.rate_timer;
    dc.byte_counter = cfg.byte_counter;
    for (unsigned n = 0; n < sys.nic_count(); ++n) {
      driver::DataFlows(sys.nic(n).device()).configure(dc);
    }
    for (unsigned i = 1; cfg.flows && i <= cfg.senders; ++i) {
      nic_starts.emplace_back(t0 + rng() % (std::uint64_t{4} * cfg.len_flits), i);
    }
    std::sort(nic_starts.begin(), nic_starts.end());
  }
  if (cfg.flows && !cfg.dcqcn) {
    for (unsigned i = 1; i <= cfg.senders; ++i) {
      swfab::FlowSpec f;
      f.dst_lid = target;
      f.prio = cfg.flow_prio;
      f.len_flits = cfg.len_flits;
      f.count = 0;
      f.start_cycle = t0 + rng() % (std::uint64_t{4} * cfg.len_flits);
      f.stop_cycle = t0 + cfg.cycles;
      for (unsigned q = 0; q < cfg.flows_per_sender; ++q) {
        if (cfg.labels == FlowLabels::kRandom) {
          f.flow_label = static_cast<std::uint32_t>(rng() & 0xFFFFFU);
        }
        sys.host(i).add_flow(f);
      }
    }
  }
  Sampler sampler(sys, cfg, t0, std::move(queues), std::move(pause_sets));
  sys.set_cycle_hook([&sampler](std::uint64_t now) { sampler.cycle(now); });
  for (const auto& [at, i] : nic_starts) {
    if (sys.cycle() < at) {
      sys.idle_cycles(at - sys.cycle());
    }
    driver::DataFlows df(sys.nic(i).device());
    driver::FlowSpec f;
    f.dst_lid = target;
    f.payload_flits = cfg.len_flits - 1;
    // More packets than the run can send: the flows stop at its end.
    f.packets = static_cast<std::uint32_t>(cfg.cycles / cfg.len_flits + 1);
    f.prio = cfg.flow_prio;
    for (unsigned q = 0; q < cfg.flows_per_sender; ++q) {
      f.flow_label = cfg.labels == FlowLabels::kRandom
                         ? static_cast<std::uint32_t>(rng() & 0xFFFFFU)
                         : i * 256 + q;
      df.start(q, f);
    }
  }

  sys.idle_cycles(t0 + cfg.barrier_first - sys.cycle());
  BarrierRun run;
  run.ctx = 0;
  run.k = cfg.barrier_k;
  // Slots from barrier_first to the last that ends within the run.
  run.barriers = static_cast<unsigned>(
      (cfg.cycles - cfg.barrier_every - cfg.barrier_first) / cfg.barrier_every + 1);
  run.limit = std::numeric_limits<std::uint64_t>::max() / 4;
  run.pause_cycles = std::uint64_t{cfg.quanta} * cfg.cycles_per_quantum;
  run.other_pkt_flits = cfg.len_flits;
  run.common_start = true;
  run.every = cfg.barrier_every;
  run.submit = SubmitMode::kHdq;
  const BarrierResult br = run_barriers(sys, run, rng);
  r.barriers_posted = br.last_posted.size();
  for (std::size_t b = 0; b < br.last_posted.size(); ++b) {
    r.barriers.push_back({br.last_posted[b] - t0, br.last_done[b] - br.last_posted[b]});
  }
  if (sys.cycle() < t0 + cfg.cycles) {
    sys.idle_cycles(t0 + cfg.cycles - sys.cycle());
  }
  for (const auto& [at, i] : nic_starts) {
    driver::DataFlows df(sys.nic(i).device());
    for (unsigned q = 0; q < cfg.flows_per_sender; ++q) {
      if ((df.running() >> q & 1U) != 0) {
        df.stop(q);
      }
    }
  }
  sys.set_cycle_hook({});
  r.series = std::move(sampler.series());
  for (EcmpSample& smp : r.series) {
    for (const std::uint64_t last : br.last_done) {
      // Cycle t0 + c belongs to the sample whose end is c + 1.
      const std::uint64_t done = last - t0;
      smp.barriers_done += done >= smp.end - smp.length && done < smp.end ? 1 : 0;
    }
  }

  // Drain, then the lossless identities of every link, NIC and switch.
  const std::uint64_t drain_from = sys.cycle();
  while (!(sys.hosts_quiet() && sys.idle())) {
    TB_CHECK(sys.cycle() < drain_from + 100'000) << "the incast did not drain in 100,000 cycles";
    sys.idle_cycles(64);
  }
  sys.idle_cycles(1000);
  const TrafficTotals tt = check_traffic(sys, TrafficRules{});
  r.fabric_cycles = sys.cycle() - t0;
  r.host_pauses = tt.host_pauses;

  for (unsigned i = 1; i <= cfg.senders; ++i) {
    r.data_sent += sys.host(i).data_sent();
  }
  r.data_received = sys.host(0).received().data;
  r.data_flits = sys.host(0).received().data_flits;
  if (cfg.dcqcn) {
    using C = hw::dcqcn::Counter;
    driver::DataFlows rx(sys.nic(0).device());
    for (unsigned i = 1; i <= cfg.senders; ++i) {
      driver::DataFlows tx(sys.nic(i).device());
      r.data_sent += tx.counter(C::kDataTx);
      r.cnps_received += tx.counter(C::kCnpRx);
    }
    r.data_received = rx.counter(C::kDataRx);
    // CNT_DATA_RX_FLITS counts payload; the bulk host's count has the header too.
    r.data_flits = std::uint64_t{rx.counter(C::kDataRxFlits)} + r.data_received;
    r.data_drops = rx.counter(C::kDataDrop);
    r.cnps = rx.counter(C::kCnpTx);
    r.flows = nic_starts.size() * cfg.flows_per_sender;
    TB_CHECK_EQ(r.data_received, r.data_sent)
        << "n0's CNT_DATA_RX against the senders' CNT_DATA_TX";
    r.flits_after_end = r.data_flits;
  }
  for (const std::uint64_t f : sampler.flits_so_far()) {
    r.flits_after_end -= f;
  }
  for (const auto& [key, f] : sys.host(0).rx_flows()) {
    r.flits_after_end += f.flits;
    ++r.flows;
    r.out_of_order += f.out_of_order;
    TB_CHECK_EQ(f.packets, f.next_seq)
        << "flow " << key.second << " of bulk host " << key.first << ": packets received";
  }
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    for (unsigned p = 0; p < sys.sw(s).port_count(); ++p) {
      r.pause_frames += sys.sw(s).counter(p, cfg.flow_prio, K::kPauseTx);
      r.ecn_marks += sys.sw(s).counter(p, cfg.flow_prio, K::kEcnMark);
      if (own_class) {
        r.barrier_pause_frames += sys.sw(s).counter(p, cfg.barrier_prio, K::kPauseTx);
      }
      for (const unsigned q : {cfg.flow_prio, cfg.barrier_prio}) {
        for (const K k : {K::kDropWred, K::kDropNoRoute, K::kDropBadPkt, K::kDropDisabled,
                          K::kDropWd, K::kDropBuf}) {
          r.lossless_drops += sys.sw(s).counter(p, q, k);
        }
        if (!own_class) {
          break;
        }
      }
    }
  }

  // The window's shares: the samples that start at or after warmup.
  std::vector<double> flits(cfg.senders, 0);
  std::uint64_t window = 0;
  for (const EcmpSample& smp : r.series) {
    if (smp.end - smp.length >= cfg.warmup) {
      window += smp.length;
      for (unsigned i = 0; i < cfg.senders; ++i) {
        flits[i] += static_cast<double>(smp.flits[i]);
      }
    }
  }
  double total = 0;
  for (const double f : flits) {
    r.share.push_back(window == 0 ? 0 : f / static_cast<double>(window));
    total += f;
  }
  r.throughput = window == 0 ? 0 : total / static_cast<double>(window);
  r.jain = jain_of(flits);
  return r;
}

}  // namespace syncfab::tb::system

// Topology, bring-up, configuration and observation of the switch fabric
// (switch_fabric.hpp); the per-cycle engine is switch_fabric_engine.cpp.
#include "switch_fabric.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <ostream>
#include <stdexcept>

#include "switch_fabric_internal.hpp"
#include "syncfab/hw/switch_regs.hpp"

#ifndef SYNCFAB_BUILD_DIR
#define SYNCFAB_BUILD_DIR "."
#endif

namespace syncfab::tb::swfab {

namespace drv = syncfab::driver;

Flit encode_payload(const PacketId& id) {
  Flit f{};
  for (unsigned i = 0; i < 4; ++i) {
    f[i] = static_cast<std::uint8_t>(id.src_host >> (8 * i));
    f[4 + i] = static_cast<std::uint8_t>(id.flow >> (8 * i));
  }
  for (unsigned i = 0; i < 8; ++i) {
    f[8 + i] = static_cast<std::uint8_t>(id.seq >> (8 * i));
  }
  return f;
}

PacketId decode_payload(const Flit& f) {
  PacketId id;
  for (unsigned i = 0; i < 4; ++i) {
    id.src_host |= static_cast<std::uint32_t>(f[i]) << (8 * i);
    id.flow |= static_cast<std::uint32_t>(f[4 + i]) << (8 * i);
  }
  for (unsigned i = 0; i < 8; ++i) {
    id.seq |= static_cast<std::uint64_t>(f[8 + i]) << (8 * i);
  }
  return id;
}

std::uint64_t CounterSnapshot::sum(unsigned s, fmt::SwCounter kind, std::optional<unsigned> port,
                                   std::optional<unsigned> prio) const {
  std::uint64_t n = 0;
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      if ((!port || *port == p) && (!prio || *prio == q)) {
        n += at(s, p, q, kind);
      }
    }
  }
  return n;
}

std::uint64_t CounterSnapshot::total(fmt::SwCounter kind, std::optional<unsigned> prio) const {
  std::uint64_t n = 0;
  for (unsigned s = 0; s < sw.size(); ++s) {
    n += sum(s, kind, std::nullopt, prio);
  }
  return n;
}

Fabric::SwitchNode::SwitchNode(TestContext& ctx, const std::string& n)
    : name(n),
      dut(ctx.make_dut<Vswitch_top>(n)),
      clk(ctx.sim().add_clock("clk_" + n, dut.clk_i, kPeriod)),
      apb(clk, apb_pins_of(dut, kCsrWindow)),
      memory(0x8000'0000, 4096),
      dev(
          ctx.sim(), clk, apb, [this] { return dut.intr_o != 0; }, memory, kCsrWindow),
      tee(dev, shadow),
      probe(probe_ports(dut)) {}

void hold_in_reset(Vswitch_top& dut) {
  dut.rst_ni = 0;
  dut.pprot_i = 0;
  dut.rx_valid_i = 0;
  dut.rx_last_i = 0;
  dut.tx_ready_i = (1U << kPorts) - 1;
}

Fabric::Fabric(TestContext& ctx) : ctx_(ctx), impl_(std::make_unique<Impl>(*this)) {}

Fabric::~Fabric() {
  if (impl_->started) {
    impl_->engine.cancel();
  }
}

unsigned Fabric::add_switch(const std::string& name) {
  if (impl_->started) {
    throw std::logic_error("Fabric::add_switch(" + name + ") after start()");
  }
  switches_.push_back(std::make_unique<SwitchNode>(ctx_, name));
  return static_cast<unsigned>(switches_.size() - 1);
}

unsigned Fabric::add_host(const std::string& name, std::uint16_t lid) {
  if (impl_->started) {
    throw std::logic_error("Fabric::add_host(" + name + ") after start()");
  }
  if (lid == 0 || lid >= fmt::kMlidBase) {
    throw std::invalid_argument("host " + name + ": LID " + std::to_string(lid) +
                                " is not a unicast LID");
  }
  auto h = std::make_unique<HostNode>();
  h->name = name;
  h->lid = lid;
  hosts_.push_back(std::move(h));
  return static_cast<unsigned>(hosts_.size() - 1);
}

unsigned Fabric::connect(End a, End b, unsigned delay_cycles) {
  if (impl_->started) {
    throw std::logic_error("Fabric::connect after start()");
  }
  if (delay_cycles == 0) {
    throw std::invalid_argument("Fabric::connect: a link delay must be at least 1 cycle");
  }
  const auto id = static_cast<unsigned>(links_.size());
  const auto attach = [&](End e) {
    if (e.kind == NodeKind::kSwitch) {
      SwitchNode& s = *switches_.at(e.node);
      if (e.port >= kPorts) {
        throw std::invalid_argument("switch " + s.name + " has no port " + std::to_string(e.port));
      }
      if (s.link[e.port]) {
        throw std::invalid_argument("switch " + s.name + " port " + std::to_string(e.port) +
                                    " is already connected");
      }
      s.link[e.port] = id;
    } else {
      HostNode& h = *hosts_.at(e.node);
      if (h.link) {
        throw std::invalid_argument("host " + h.name + " is already connected");
      }
      h.link = id;
    }
  };
  attach(a);
  attach(b);
  links_.push_back(LinkInfo{a, b, delay_cycles, true, {}, {}});
  impl_->ab.emplace_back();
  impl_->ba.emplace_back();
  return id;
}

void Fabric::start() {
  if (impl_->started) {
    throw std::logic_error("Fabric::start called twice");
  }
  if (switches_.empty()) {
    throw std::logic_error("Fabric::start: no switch");
  }
  for (auto& s : switches_) {
    s->apb.idle();
    hold_in_reset(s->dut);
  }
  Clock& clk = switches_.front()->clk;
  ctx_.sim().run([](Clock& c) -> Task<> { co_await ClockCycles(c, 3); }(clk), "fabric reset");
  for (auto& s : switches_) {
    s->dut.rst_ni = 1;
  }
  ctx_.sim().run([](Clock& c) -> Task<> { co_await RisingEdge(c); }(clk), "fabric reset release");
  impl_->start_cycle = clk.cycles();
  impl_->wall0 = std::chrono::steady_clock::now();
  impl_->started = true;
  impl_->engine = ctx_.sim().start_soon(impl_->run(), "switch fabric");
  for (auto& s : switches_) {
    s->drv = std::make_unique<drv::Switch>(s->tee);
    s->shadow_drv = std::make_unique<drv::Switch>(s->shadow);
    if (s->drv->info().ports != kPorts || s->drv->info().buf_cells != kBufCells) {
      throw std::runtime_error("switch " + s->name + ": HW_CFG says " +
                               std::to_string(s->drv->info().ports) + " ports, " +
                               std::to_string(s->drv->info().buf_cells) +
                               " cells; the harness is built for vl_switch_top8");
    }
  }
}

drv::Switch& Fabric::driver(unsigned sw) {
  SwitchNode& s = *switches_.at(sw);
  if (!s.drv) {
    throw std::logic_error("Fabric::driver(" + s.name + ") before start()");
  }
  return *s.drv;
}

void Fabric::program(unsigned sw, const std::function<void(drv::Switch&)>& fn) { fn(driver(sw)); }

namespace {
Task<> replay_writes(ApbMaster* apb, std::vector<std::pair<std::uint32_t, std::uint32_t>> writes,
                     const std::string* name) {
  for (const auto& [offset, value] : writes) {
    const ApbResult r = co_await apb->write(offset, value);
    TB_CHECK(!r.error) << "switch " << *name << ": PSLVERR on the staged write of 0x" << std::hex
                       << value << " at offset 0x" << offset;
  }
}
}  // namespace

void Fabric::program_all(const std::function<void(unsigned, drv::Switch&)>& fn) {
  if (!impl_->started) {
    throw std::logic_error("Fabric::program_all before start()");
  }
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> writes(switches_.size());
  for (unsigned s = 0; s < switch_count(); ++s) {
    SwitchNode& n = *switches_[s];
    n.shadow.start_recording();
    try {
      fn(s, *n.shadow_drv);
    } catch (...) {
      // The shadow took writes the RTL will not get: they disagree from now.
      n.shadow.stop_recording();
      throw;
    }
    writes[s] = n.shadow.stop_recording();
  }
  ctx_.sim().run(
      [](Fabric& f,
         std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>& w) -> Task<> {
        std::vector<TaskHandle> hs;
        for (std::size_t i = 0; i < f.switches_.size(); ++i) {
          if (!w[i].empty()) {
            hs.push_back(f.ctx_.sim().start_soon(
                replay_writes(&f.switches_[i]->apb, std::move(w[i]), &f.switches_[i]->name),
                "staged writes " + f.switches_[i]->name));
          }
        }
        for (auto& h : hs) {
          co_await h;
        }
      }(*this, writes),
      "staged programming");
}

drv::LinkParams Fabric::link_params(unsigned sw, unsigned port, unsigned max_pkt_flits) const {
  const SwitchNode& s = *switches_.at(sw);
  if (port >= kPorts || !s.link[port]) {
    throw std::invalid_argument("switch " + s.name + " port " + std::to_string(port) +
                                " has no link");
  }
  return drv::LinkParams{links_.at(*s.link[port]).delay, max_pkt_flits};
}

void Fabric::set_cycles_per_quantum(unsigned cpq) {
  if (cpq == 0) {
    throw std::invalid_argument("Fabric::set_cycles_per_quantum: 0");
  }
  impl_->cpq = cpq;
}

void Fabric::configure_pfc_all(const drv::PfcTiming& timing, const drv::PfcPortConfig& cfg,
                               unsigned max_pkt_flits) {
  set_cycles_per_quantum(timing.cyc_per_quantum);
  program_all([&](unsigned s, drv::Switch& d) {
    // Timing first: configure_pfc checks each port's quanta against the
    // refresh programmed at that moment.
    d.set_pfc_timing(timing);
    for (unsigned p = 0; p < kPorts; ++p) {
      if (switches_[s]->link[p]) {
        d.configure_pfc(p, cfg, link_params(s, p, max_pkt_flits));
      }
    }
  });
}

void Fabric::enable_all() {
  program_all([](unsigned, drv::Switch& d) { d.enable(true); });
}

unsigned Fabric::add_flow(unsigned host, const FlowSpec& spec) {
  HostNode& h = *hosts_.at(host);
  if (spec.len_flits < 2 || spec.len_flits > 255) {
    throw std::invalid_argument("flow of host " + h.name + ": len_flits " +
                                std::to_string(spec.len_flits) +
                                " (2..255: flit 1 carries the packet id)");
  }
  if (spec.prio >= fmt::kNumPrio) {
    throw std::invalid_argument("flow of host " + h.name + ": prio " + std::to_string(spec.prio));
  }
  if (!(spec.rate > 0.0 && spec.rate <= 1.0)) {
    throw std::invalid_argument("flow of host " + h.name + ": rate must be in (0, 1]");
  }
  if (spec.flow_label && *spec.flow_label > 0xFFFFFU) {
    throw std::invalid_argument("flow of host " + h.name + ": flow_label " +
                                std::to_string(*spec.flow_label) + " (20 bits)");
  }
  if (!h.link) {
    throw std::invalid_argument("flow of host " + h.name + ": the host has no link");
  }
  const auto id = static_cast<unsigned>(flows_.size());
  FlowState st;
  st.spec = spec;
  st.src_host = host;
  flows_.push_back(st);
  impl_->flow_run.emplace_back();
  h.flows.push_back(id);
  return id;
}

void Fabric::stop_flow(unsigned flow) { flows_.at(flow).stopped = true; }

unsigned Fabric::add_pfc_storm(unsigned host, const PfcStormSpec& spec) {
  HostNode& h = *hosts_.at(host);
  if (spec.period_cycles == 0) {
    throw std::invalid_argument("PFC storm of host " + h.name + ": period_cycles must be >= 1");
  }
  if (spec.class_mask == 0) {
    throw std::invalid_argument("PFC storm of host " + h.name +
                                ": class_mask 0 (a frame that names no priority)");
  }
  if (!h.link) {
    throw std::invalid_argument("PFC storm of host " + h.name + ": the host has no link");
  }
  const auto id = static_cast<unsigned>(storms_.size());
  PfcStormState st;
  st.spec = spec;
  st.host = host;
  storms_.push_back(st);
  h.storms.push_back(id);
  return id;
}

unsigned Fabric::send_pfc(unsigned host, std::uint8_t class_mask, std::uint16_t quanta,
                          std::uint64_t at_cycle) {
  return add_pfc_storm(host, PfcStormSpec{.class_mask = class_mask,
                                          .quanta = quanta,
                                          .period_cycles = 1,
                                          .start_cycle = at_cycle,
                                          .count = 1});
}

void Fabric::stop_pfc_storm(unsigned id) { storms_.at(id).stopped = true; }

const std::vector<RxPacket>& Fabric::received(unsigned host) const {
  return hosts_.at(host)->received;
}

void Fabric::on_cycle(std::function<void(std::uint64_t)> fn) {
  impl_->hooks.push_back(std::move(fn));
}

void Fabric::set_link_up(unsigned link, bool up) { links_.at(link).up = up; }

std::uint64_t Fabric::cycle() const {
  return impl_->started ? switches_.front()->clk.cycles() - impl_->start_cycle : 0;
}

void Fabric::run_cycles(std::uint64_t n) {
  if (!impl_->started) {
    throw std::logic_error("Fabric::run_cycles before start()");
  }
  ctx_.sim().run([](Clock& c, std::uint64_t k) -> Task<> { co_await ClockCycles(c, k); }(
                                                   switches_.front()->clk, n),
                 "fabric cycles");
}

bool Fabric::run_until_idle(std::uint64_t limit, std::uint64_t quiet) {
  const std::uint64_t end = cycle() + limit;
  while (cycle() < end) {
    const std::uint64_t now = cycle();
    if (impl_->idle(now) && now >= impl_->last_data_move + quiet) {
      return true;
    }
    run_cycles(std::min<std::uint64_t>(50, end - now));
  }
  return impl_->idle(cycle()) && cycle() >= impl_->last_data_move + quiet;
}

const std::string& Fabric::switch_name(unsigned sw) const { return switches_.at(sw)->name; }
const std::string& Fabric::host_name(unsigned h) const { return hosts_.at(h)->name; }
std::uint16_t Fabric::host_lid(unsigned h) const { return hosts_.at(h)->lid; }

std::optional<unsigned> Fabric::link_at(End e) const {
  if (e.kind == NodeKind::kSwitch) {
    return switches_.at(e.node)->link.at(e.port);
  }
  return hosts_.at(e.node)->link;
}

const DirStats& Fabric::sent_by(End e) const {
  const auto l = link_at(e);
  if (!l) {
    throw std::invalid_argument("Fabric::sent_by: end without a link");
  }
  const LinkInfo& li = links_[*l];
  return li.a == e ? li.ab : li.ba;
}

const DirStats& Fabric::sent_to(End e) const {
  const auto l = link_at(e);
  if (!l) {
    throw std::invalid_argument("Fabric::sent_to: end without a link");
  }
  const LinkInfo& li = links_[*l];
  return li.a == e ? li.ba : li.ab;
}

Vswitch_top& Fabric::dut(unsigned sw) { return switches_.at(sw)->dut; }

const PortPrioTrace& Fabric::trace(unsigned sw, unsigned port, unsigned prio) const {
  return switches_.at(sw)->trace.at(port).at(prio);
}

std::optional<std::uint64_t> Fabric::paused_since(unsigned sw, unsigned port, unsigned prio) const {
  const auto& x = trace(sw, port, prio).xoff;
  if (x.empty() || !x.back().open) {
    return std::nullopt;
  }
  return x.back().from;
}

fmt::WdState Fabric::wd_state(unsigned sw, unsigned port, unsigned prio) const {
  const SwitchNode& s = *switches_.at(sw);
  return static_cast<fmt::WdState>((s.wd.at(port) >> (2 * prio)) & 3U);
}

const std::vector<Interval>& Fabric::host_paused(unsigned host, unsigned prio) const {
  return hosts_.at(host)->paused.at(prio);
}

CounterSnapshot Fabric::read_counters() {
  CounterSnapshot snap;
  snap.cycle = cycle();
  snap.sw.resize(switches_.size());
  for (std::size_t i = 0; i < switches_.size(); ++i) {
    for (unsigned p = 0; p < kPorts; ++p) {
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        for (unsigned k = 0; k < fmt::kSwCounterCount; ++k) {
          snap.sw[i][p][q][k] = switches_[i]->probe[p].counter(q, k);
        }
      }
    }
  }
  return snap;
}

void Fabric::check_counters_over_apb(const CounterSnapshot& snap, unsigned per_switch) {
  auto& rng = ctx_.rng();
  for (unsigned s = 0; s < switch_count(); ++s) {
    std::vector<unsigned> nonzero;
    for (unsigned i = 0; i < kPorts * fmt::kNumPrio * fmt::kSwCounterCount; ++i) {
      if (snap.sw[s][i / (fmt::kNumPrio * fmt::kSwCounterCount)]
                 [i / fmt::kSwCounterCount % fmt::kNumPrio][i % fmt::kSwCounterCount] != 0) {
        nonzero.push_back(i);
      }
    }
    std::vector<unsigned> pick;
    std::sample(nonzero.begin(), nonzero.end(), std::back_inserter(pick), per_switch, rng);
    // One that is zero too (if any), so a probe that reads all zeros fails.
    constexpr std::uint64_t kAll = std::uint64_t{kPorts} * fmt::kNumPrio * fmt::kSwCounterCount;
    pick.push_back(static_cast<unsigned>(rng() % kAll));
    for (const unsigned i : pick) {
      const unsigned p = i / (fmt::kNumPrio * fmt::kSwCounterCount);
      const unsigned q = i / fmt::kSwCounterCount % fmt::kNumPrio;
      const unsigned k = i % fmt::kSwCounterCount;
      const auto kind = static_cast<fmt::SwCounter>(k);
      const std::uint32_t bus = driver(s).counter(p, q, kind);
      // A counter may still count while the read runs (pause refreshes).
      const std::uint32_t after = switches_[s]->probe[p].counter(q, k);
      TB_CHECK(bus >= snap.sw[s][p][q][k] && bus <= after)
          << switch_name(s) << " port " << p << " prio " << q << " " << fmt::to_string(kind)
          << ": CNT_VALUE over APB reads " << bus << ", the counter array held "
          << snap.sw[s][p][q][k] << ".." << after
          << ": CNT_VALUE over APB vs the counter array the harness read";
    }
  }
}

void Fabric::dump_counters(std::ostream& out, const CounterSnapshot& snap,
                           const std::vector<std::string>& switch_names) {
  out << "counters at fabric cycle " << snap.cycle << " (nonzero only)\n";
  out << std::left << std::setw(10) << "switch" << std::setw(6) << "port" << std::setw(6) << "prio"
      << std::setw(16) << "kind"
      << "value\n";
  for (std::size_t s = 0; s < snap.sw.size(); ++s) {
    for (unsigned p = 0; p < kPorts; ++p) {
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        for (unsigned k = 0; k < fmt::kSwCounterCount; ++k) {
          const std::uint32_t v = snap.sw[s][p][q][k];
          if (v == 0) {
            continue;
          }
          out << std::left << std::setw(10) << switch_names.at(s) << std::setw(6) << p
              << std::setw(6) << q << std::setw(16)
              << fmt::to_string(static_cast<fmt::SwCounter>(k)) << v << '\n';
        }
      }
    }
  }
  out << std::right;
}

CounterSnapshot Fabric::dump_counters(std::ostream& out) {
  CounterSnapshot snap = read_counters();
  check_counters_over_apb(snap, 2);
  std::vector<std::string> names;
  for (const auto& s : switches_) {
    names.push_back(s->name);
  }
  dump_counters(out, snap, names);
  return snap;
}

std::filesystem::path Fabric::write_counters_file(const CounterSnapshot& snap) const {
  const std::filesystem::path dir = std::filesystem::path(SYNCFAB_BUILD_DIR) / "scenarios";
  std::filesystem::create_directories(dir);
  std::filesystem::path path =
      dir / (ctx_.full_name() + "-seed" + std::to_string(ctx_.seed()) + "-counters.txt");
  std::ofstream f(path);
  if (!f) {
    throw std::runtime_error("cannot write " + path.string());
  }
  std::vector<std::string> names;
  for (const auto& s : switches_) {
    names.push_back(s->name);
  }
  dump_counters(f, snap, names);
  return path;
}

SpeedStats Fabric::speed() const {
  SpeedStats s;
  s.cycles = cycle();
  s.switches = switch_count();
  if (impl_->started) {
    s.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->wall0).count();
  }
  return s;
}

}  // namespace syncfab::tb::swfab

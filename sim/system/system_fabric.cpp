#include "system_fabric.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends.hpp"
#include "switch_fabric_sm.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/nic_regs.hpp"

namespace syncfab::tb::system {

namespace {

std::string port_name(const std::string& node, unsigned port) {
  return node + ":" + std::to_string(port);
}

}  // namespace

SystemFabric::SystemFabric(TestContext& ctx, const sm::Fabric& smf, const SystemConfig& cfg)
    : ctx_(ctx), smf_(smf), nic_data_path_(cfg.nic_data_path) {
  // NICs and switches address end nodes by 16-bit LIDs (sw-driver/sm, "Past
  // the LID space").
  if (smf.lidless_count() != 0) {
    throw std::invalid_argument("system fabric: " + std::to_string(smf.lidless_count()) + " of " +
                                std::to_string(smf.destination_count()) +
                                " destinations have no LID; the hardware model needs one each");
  }
  const auto backend = [&](sm::NodeId n) { return cfg.backend ? cfg.backend(n) : Backend::kRtl; };
  for (sm::SwitchIdx s = 0; s < smf.switch_count(); ++s) {
    const sm::NodeId n = smf.switch_node(s);
    switches_.push_back(make_switch(backend(n), ctx, smf.name(n),
                                    static_cast<unsigned>(smf.num_ports(n)), cfg.max_pkt_flits));
  }
  // Index of each HCA among the NICs or among the bulk hosts.
  std::vector<unsigned> hca_index(smf.node_count(), 0);
  for (const sm::NodeId h : smf.hcas()) {
    if (cfg.bulk_host && cfg.bulk_host(h)) {
      hca_index[h] = static_cast<unsigned>(hosts_.size());
      host_hca_.push_back(h);
      hosts_.push_back(std::make_unique<BulkHost>(ctx, smf.name(h), hca_index[h], smf.lid(h, 1)));
    } else {
      hca_index[h] = static_cast<unsigned>(nics_.size());
      nic_hca_.push_back(h);
      nics_.push_back(make_nic(backend(h), ctx, smf.name(h), cfg.nic_data_path));
    }
  }
  check(smf);
  for (auto& s : switches_) {
    nodes_.push_back(s.get());
  }
  for (auto& n : nics_) {
    nodes_.push_back(n.get());
  }
  for (auto& h : hosts_) {
    nodes_.push_back(h.get());
  }

  nic_link_.resize(nics_.size());
  host_link_.resize(hosts_.size());
  switch_link_.resize(switches_.size());
  for (std::size_t s = 0; s < switches_.size(); ++s) {
    switch_link_[s].resize(switches_[s]->port_count());
  }
  // The node, its port index and the link slot of an SM (node, port).
  struct EndRef {
    Node* node;
    unsigned port;
    std::optional<unsigned>* slot;
  };
  const auto end_of = [&](sm::NodeId n, sm::PortNum p) -> EndRef {
    if (smf.is_switch(n)) {
      const sm::SwitchIdx s = smf.switch_index(n);
      const unsigned hw = swfab::hw_port(p, switches_[s]->port_count());
      return {switches_[s].get(), hw, &switch_link_[s][hw]};
    }
    const unsigned i = hca_index.at(n);
    if (cfg.bulk_host && cfg.bulk_host(n)) {
      return {hosts_[i].get(), 0, &host_link_[i]};
    }
    return {nics_[i].get(), 0, &nic_link_[i]};
  };
  swfab::for_each_link(smf, [&](sm::NodeId na, sm::PortNum pa, sm::NodeId nb, sm::PortNum pb) {
    const EndRef a = end_of(na, pa);
    const EndRef b = end_of(nb, pb);
    const unsigned delay = cfg.link_delay ? cfg.link_delay(na, nb) : cfg.delay;
    *a.slot = static_cast<unsigned>(links_.size());
    *b.slot = static_cast<unsigned>(links_.size());
    links_.push_back(std::make_unique<Link>(
        LinkEnd{&a.node->port(a.port), port_name(a.node->name(), a.port)},
        LinkEnd{&b.node->port(b.port), port_name(b.node->name(), b.port)}, delay));
  });
  for (std::size_t s = 0; s < switches_.size(); ++s) {
    for (unsigned p = 0; p < switches_[s]->port_count(); ++p) {
      if (!switch_link_[s][p]) {
        unlinked_.push_back(Attached{switches_[s].get(), p});
      }
    }
  }
}

void SystemFabric::check(const sm::Fabric& smf) const {
  unsigned lft_entries = UINT32_MAX;
  for (sm::SwitchIdx s = 0; s < smf.switch_count(); ++s) {
    const sm::NodeId n = smf.switch_node(s);
    const SwitchShape shape = switches_[s]->shape();
    lft_entries = std::min(lft_entries, shape.lft_entries);
    if (smf.num_ports(n) > static_cast<int>(shape.ports)) {
      throw std::invalid_argument("switch " + smf.name(n) + " has " +
                                  std::to_string(smf.num_ports(n)) + " ports; its backend has " +
                                  std::to_string(shape.ports));
    }
  }
  for (const sm::NodeId h : smf.hcas()) {
    if (!smf.peer(h, 1).connected()) {
      throw std::invalid_argument("HCA " + smf.name(h) + ": port 1 is not connected");
    }
    for (int p = 2; p <= smf.num_ports(h); ++p) {
      if (smf.peer(h, static_cast<sm::PortNum>(p)).connected()) {
        throw std::invalid_argument("HCA " + smf.name(h) + ": port " + std::to_string(p) +
                                    " is connected; a NIC has one port (1)");
      }
    }
  }
  // Every LID is a destination some switch may route: each must have an LFT entry.
  for (sm::Lid lid = 1; lid <= smf.max_lid() && lft_entries != UINT32_MAX; ++lid) {
    if (lid < lft_entries) {
      continue;
    }
    const sm::LidOwner o = smf.lid_owner(lid);
    if (o.node != sm::kNoNode) {
      throw std::invalid_argument(std::string(smf.is_switch(o.node) ? "switch " : "HCA ") +
                                  smf.name(o.node) + ": LID " + sm::hex_lid(lid) +
                                  " is past the switches' LFT (" + std::to_string(lft_entries) +
                                  " entries)");
    }
  }
  for (const sm::NodeId h : smf.hcas()) {
    if (smf.lid(h, 1) == 0) {
      throw std::invalid_argument("HCA " + smf.name(h) + ": port 1 has no LID");
    }
  }
}

SystemFabric::~SystemFabric() {
  if (started_) {
    for (auto& n : nics_) {
      n->shut_down();
    }
    engine_.cancel();
  }
}

std::uint16_t SystemFabric::nic_lid(unsigned rank) const { return smf_.lid(nic_hca_.at(rank), 1); }

bool SystemFabric::hosts_quiet() {
  const std::uint64_t now = cycle();
  return std::all_of(hosts_.begin(), hosts_.end(), [&](const auto& h) { return h->quiet(now); });
}

std::vector<std::uint16_t> SystemFabric::nic_lids() const {
  std::vector<std::uint16_t> lids;
  for (unsigned r = 0; r < nic_count(); ++r) {
    lids.push_back(nic_lid(r));
  }
  return lids;
}

const Link& SystemFabric::nic_link(unsigned rank) const { return *links_.at(*nic_link_.at(rank)); }

const Link* SystemFabric::switch_link(unsigned s, unsigned port) const {
  const auto& slot = switch_link_.at(s).at(port);
  return slot ? links_.at(*slot).get() : nullptr;
}

Link& SystemFabric::nic_link(unsigned rank) { return *links_.at(*nic_link_.at(rank)); }

Link* SystemFabric::switch_link(unsigned s, unsigned port) {
  const auto& slot = switch_link_.at(s).at(port);
  return slot ? links_.at(*slot).get() : nullptr;
}

Clock& SystemFabric::clk() {
  if (!switches_.empty()) {
    return switches_.front()->clk();
  }
  if (!nics_.empty()) {
    return nics_.front()->clk();
  }
  throw std::logic_error("SystemFabric: no node");
}

std::uint64_t SystemFabric::cycle() { return clk().cycles() - start_cycle_; }

void SystemFabric::start(const driver::NicOptions& nic_opts) {
  if (started_) {
    throw std::logic_error("SystemFabric::start called twice");
  }
  retry_delay_ = nic_opts.retry_delay_cycles.value_or(hw::nic::kRetryDelayReset);
  for (auto& s : switches_) {
    s->assert_reset();
  }
  for (auto& n : nics_) {
    n->assert_reset();
  }
  idle_cycles(3);
  for (auto& s : switches_) {
    s->release_reset();
  }
  for (auto& n : nics_) {
    n->release_reset();
  }
  ctx_.sim().run([](Clock& c) -> Task<> { co_await RisingEdge(c); }(clk()), "system reset release");
  start_cycle_ = clk().cycles();
  for (unsigned h = 0; h < host_count(); ++h) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      host_pause_checks_.emplace_back(hosts_[h]->name(), host_link(h), hosts_[h]->port(0), q, true,
                                      hosts_[h]->cycles_per_quantum(), true);
    }
  }
  started_ = true;
  engine_ = ctx_.sim().start_soon(run(), "system links");
  for (auto& s : switches_) {
    s->bring_up();
  }
  for (unsigned r = 0; r < nic_count(); ++r) {
    NicNode& n = *nics_[r];
    n.bring_up(nic_lid(r), nic_opts);
    const hw::Csr csr(n.device());
    const unsigned tc = csr.read(hw::nic::NET_CFG_TC);
    // A data path sends DATA and CNPs on their own priorities, paused on
    // their own: the check holds the barrier class only.
    pause_checks_.emplace_back(n.name(), nic_link(r), n.port(0), tc,
                               ((csr.read(hw::nic::PFC_CFG_ENABLE) >> tc) & 1U) != 0,
                               csr.read(hw::nic::PFC_CFG_CYC_PER_QUANTUM), nic_data_path_);
  }
}

void SystemFabric::set_host_cycles_per_quantum(unsigned cpq) {
  for (auto& h : hosts_) {
    h->set_cycles_per_quantum(cpq);
  }
  for (NicPauseCheck& c : host_pause_checks_) {
    c.set_cycles_per_quantum(cpq);
  }
}

Task<> SystemFabric::run() {
  Clock& c = clk();
  if (c.sim().in_readonly()) {
    co_await RisingEdge(c);
  }
  for (;;) {
    const std::uint64_t now = c.cycles() - start_cycle_;
    for (auto& l : links_) {
      l->drive(now);
    }
    co_await ReadOnly();
    for (Node* n : nodes_) {
      n->settle(now);
    }
    for (auto& l : links_) {
      l->sample(now);
    }
    for (NicPauseCheck& c : pause_checks_) {
      c.cycle(now);
    }
    for (NicPauseCheck& c : host_pause_checks_) {
      c.cycle(now);
    }
    for (const Attached& u : unlinked_) {
      TB_CHECK(!u.node->port(u.port).sent())
          << u.node->name() << " sent a flit out of port " << u.port
          << ", which has no link (cycle " << now << ")";
    }
    if (cycle_hook_) {
      cycle_hook_(now);
    }
    co_await RisingEdge(c);
  }
}

void SystemFabric::idle_cycles(std::uint64_t n) {
  ctx_.sim().run([](Clock& c, std::uint64_t k) -> Task<> { co_await ClockCycles(c, k); }(clk(), n),
                 "idle");
}

void SystemFabric::hold_doorbells() {
  for (auto& n : nics_) {
    n->hold_doorbells();
  }
}

std::uint64_t SystemFabric::release_doorbells() {
  return ctx_.sim().run(
      [](SystemFabric& f) -> Task<std::uint64_t> {
        // From just after an edge every NIC's bus master starts its transfer
        // in this same step: the doorbells all land at the same edge.
        co_await RisingEdge(f.clk());
        const std::uint64_t at = f.cycle();
        std::vector<TaskHandle> writes;
        for (auto& n : f.nics_) {
          if (n->holds_doorbells()) {
            writes.push_back(f.ctx_.sim().start_soon(n->release_doorbells(), "held doorbells"));
          }
        }
        for (auto& w : writes) {
          co_await w;
        }
        co_return at;
      }(*this),
      "release doorbells");
}

bool SystemFabric::idle() const {
  return std::all_of(links_.begin(), links_.end(), [](const auto& l) { return l->idle(); });
}

}  // namespace syncfab::tb::system

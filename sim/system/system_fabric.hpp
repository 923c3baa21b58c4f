// The system: one fabric of NICs and switches built from the subnet manager's
// fabric (sm::Fabric: a generator spec or a net file), every HCA a NIC and
// every switch a switch (node.hpp), each with the backend the configuration
// picks, joined by links of a fixed delay that never lose a flit (link.hpp).
// One clock period and phase for every node; one coroutine moves every
// link's flits every cycle (the tb scheduler: drive before the edge, sample
// in ReadOnly).
//
// Node numbering follows the SM: NIC r is the r-th of the SM's end nodes
// hcas() that is not a bulk host (rank r; its LID is the LID of its port 1;
// without bulk hosts, hcas()[r]), bulk host h the h-th that is
// (SystemConfig::bulk_host, bulk_host.hpp), switch s is SM switch index s; SM
// data port p of a switch is the switch's port p - 1 (swfab::hw_port).
//
// The constructor checks the SM fabric against the backends before any
// simulation and throws std::invalid_argument naming the node: a switch with
// more ports than its backend, a LID past a switch's LFT, an HCA whose port 1
// is not connected (or that uses another port: a NIC has one).
//
// Usage (inside a SYNCFAB_TEST body; calls are synchronous and advance
// simulated time where they say so):
//   const sm::Fabric smf = sm::make_fabric("fattree:ports=4,levels=2");  // outlives sys
//   SystemFabric sys(ctx, smf, {.delay = 4});
//   sys.start(fabric::nic_options(ctx.sim(), 16));   // reset, links, drivers
//   program_switches(sys, lft, trees);                // program.hpp
//   ... sys.nic(r).nic().open_context(...) ...
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "bulk_host.hpp"
#include "link.hpp"
#include "node.hpp"
#include "pause_check.hpp"
#include "syncfab/sm/fabric.hpp"

namespace syncfab::tb::system {

struct SystemConfig {
  unsigned delay = 4;  // cycles on every link, unless link_delay says otherwise
  // Delay of the link between two SM nodes (unset: `delay`).
  std::function<unsigned(sm::NodeId, sm::NodeId)> link_delay;
  // Backend of each SM node (unset: verilated RTL everywhere).
  std::function<Backend(sm::NodeId)> backend;
  // The HCAs that are bulk-traffic hosts instead of NICs (unset: none).
  std::function<bool(sm::NodeId)> bulk_host;
  // The longest packet on any link (a golden-model switch is built for it:
  // model_switch.hpp): 1 for barrier traffic, more with bulk flows.
  unsigned max_pkt_flits = 1;
  // Golden-model NICs with the data path (bulk sender, DCQCN; docs/nic/
  // dcqcn.md) next to the barrier engine, as the verilated nic_top has it.
  bool nic_data_path = false;
};

class SystemFabric {
 public:
  SystemFabric(TestContext& ctx, const sm::Fabric& smf, const SystemConfig& cfg = {});
  // Closes every NIC driver while the links still run, then stops them.
  ~SystemFabric();
  SystemFabric(const SystemFabric&) = delete;
  SystemFabric& operator=(const SystemFabric&) = delete;
  SystemFabric(SystemFabric&&) = delete;
  SystemFabric& operator=(SystemFabric&&) = delete;

  // Resets every node, starts the links, then brings up every switch's and
  // every NIC's driver (NODE_LID = the SM's LID) over its own bus.
  void start(const driver::NicOptions& nic_opts);

  [[nodiscard]] const sm::Fabric& sm() const { return smf_; }
  // The NICs' NACK retry delay (NicOptions as start() got them).
  [[nodiscard]] std::uint32_t retry_delay() const { return retry_delay_; }
  [[nodiscard]] unsigned nic_count() const { return static_cast<unsigned>(nics_.size()); }
  [[nodiscard]] NicNode& nic(unsigned rank) { return *nics_.at(rank); }
  [[nodiscard]] std::uint16_t nic_lid(unsigned rank) const;
  [[nodiscard]] std::vector<std::uint16_t> nic_lids() const;  // rank order
  // The SM's end node of NIC `rank`.
  [[nodiscard]] sm::NodeId nic_hca(unsigned rank) const { return nic_hca_.at(rank); }
  [[nodiscard]] unsigned host_count() const { return static_cast<unsigned>(hosts_.size()); }
  [[nodiscard]] BulkHost& host(unsigned h) { return *hosts_.at(h); }
  // The SM's end node of bulk host h.
  [[nodiscard]] sm::NodeId host_hca(unsigned h) const { return host_hca_.at(h); }
  [[nodiscard]] const Link& host_link(unsigned h) const { return *links_.at(*host_link_.at(h)); }
  // Every bulk host's flows done and nothing of theirs being sent.
  [[nodiscard]] bool hosts_quiet();
  [[nodiscard]] unsigned switch_count() const { return static_cast<unsigned>(switches_.size()); }
  [[nodiscard]] SwitchNode& sw(unsigned s) { return *switches_.at(s); }
  [[nodiscard]] const std::vector<std::unique_ptr<Link>>& links() const { return links_; }
  // The link on NIC `rank`'s port / on switch s's port p (none: unconnected).
  [[nodiscard]] const Link& nic_link(unsigned rank) const;
  [[nodiscard]] const Link* switch_link(unsigned s, unsigned port) const;
  // The same links to act on (Link::fail, Link::drop_next).
  [[nodiscard]] Link& nic_link(unsigned rank);
  [[nodiscard]] Link* switch_link(unsigned s, unsigned port);

  // Per NIC (rank order, after start()): the PFC pauses it had to honour.
  [[nodiscard]] const std::vector<NicPauseCheck>& pause_checks() const { return pause_checks_; }
  // Per bulk host and priority (host h, prio q at h * kNumPrio + q; after
  // start()): the PFC pauses it had to honour.
  [[nodiscard]] const std::vector<NicPauseCheck>& host_pause_checks() const {
    return host_pause_checks_;
  }
  // The PFC quantum every bulk host honours frames with, and its checks.
  void set_host_cycles_per_quantum(unsigned cpq);

  // Common start: every NIC keeps its driver's doorbell writes
  // (NicNode::hold_doorbells) until release_doorbells() sends them all from
  // the same clock edge, whose cycle (cycle()) it returns.
  void hold_doorbells();
  std::uint64_t release_doorbells();

  [[nodiscard]] Clock& clk();
  [[nodiscard]] std::uint64_t cycle();  // cycles since start()
  void idle_cycles(std::uint64_t n);
  // Every link empty (nothing on a wire, in a FIFO or half sent).
  [[nodiscard]] bool idle() const;
  // Called in every cycle once the links sampled it, with cycle(): an
  // observer (time series) that must not advance the simulation. An empty
  // function removes it.
  void set_cycle_hook(std::function<void(std::uint64_t)> hook) { cycle_hook_ = std::move(hook); }

 private:
  struct Attached {
    Node* node = nullptr;
    unsigned port = 0;
  };
  void check(const sm::Fabric& smf) const;
  Task<> run();

  TestContext& ctx_;
  const sm::Fabric& smf_;
  std::vector<std::unique_ptr<NicNode>> nics_;
  std::vector<std::unique_ptr<SwitchNode>> switches_;
  std::vector<std::unique_ptr<BulkHost>> hosts_;
  std::vector<sm::NodeId> nic_hca_;   // per NIC
  std::vector<sm::NodeId> host_hca_;  // per bulk host
  std::vector<Node*> nodes_;          // switches, then NICs, then bulk hosts
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<std::optional<unsigned>> nic_link_;                  // per NIC
  std::vector<std::optional<unsigned>> host_link_;                 // per bulk host
  std::vector<std::vector<std::optional<unsigned>>> switch_link_;  // per switch, port
  std::vector<Attached> unlinked_;
  std::vector<NicPauseCheck> host_pause_checks_;
  std::vector<NicPauseCheck> pause_checks_;  // ports with no link: they must never send
  std::uint64_t start_cycle_ = 0;
  std::uint32_t retry_delay_ = 0;
  bool nic_data_path_ = false;
  bool started_ = false;
  std::function<void(std::uint64_t)> cycle_hook_;
  TaskHandle engine_;
};

}  // namespace syncfab::tb::system

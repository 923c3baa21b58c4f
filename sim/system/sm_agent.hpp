// The subnet-manager agent attached to the system fabric like an HCA
// (docs/group-protocol.md section 3): sm::GroupAgent's software on a bulk
// host (its management datagrams), its tables written into the switches
// through their own drivers and read back. The harness calls poll() in its
// host loop, between simulated cycles, as it polls the NICs' drivers.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bulk_host.hpp"
#include "syncfab/sm/group_agent.hpp"
#include "syncfab/sm/mcg_protocol.hpp"
#include "syncfab/sm/minhop.hpp"
#include "system_fabric.hpp"

namespace syncfab::tb::system {

// MFT and combine entries of a group through every switch's driver (the
// SM's data port p is switch port p - 1), each read back.
class SwitchGroupProgrammer final : public sm::GroupProgrammer {
 public:
  explicit SwitchGroupProgrammer(SystemFabric& sys) : sys_(sys) {}
  void program(const sm::Group& group, const sm::McTree& tree, std::uint16_t epoch) override;
  void remove(sm::Lid mlid, const std::vector<sm::MftEntry>& entries) override;
  [[nodiscard]] std::size_t entries_written() const { return written_; }

 private:
  SystemFabric& sys_;
  std::size_t written_ = 0;
};

struct SmAgentOptions {
  unsigned prio = 3;               // the datagrams' priority (the NICs' traffic class)
  sm::McgConfig protocol;          // timeouts (microseconds of fabric time: 1 cycle = 1 ns)
  std::uint64_t tick_cycles = 64;  // McgProtocol::tick at least this often
};

class SmAgent {
 public:
  // `host`: the bulk host the agent runs on. The fabric must outlive it.
  SmAgent(SystemFabric& sys, unsigned host, SmAgentOptions options = {});

  // Takes every datagram the host received, answers, ticks the protocol.
  void poll();
  [[nodiscard]] std::uint16_t lid() const;
  [[nodiscard]] const sm::GroupAgent& agent() const { return agent_; }
  [[nodiscard]] const SwitchGroupProgrammer& programmer() const { return programmer_; }

 private:
  void send(const std::vector<sm::AgentDatagram>& out);
  [[nodiscard]] sm::McgTime now();

  SystemFabric& sys_;
  BulkHost& host_;
  SmAgentOptions opt_;
  sm::MinHop mh_;
  sm::FabricMcgRouter router_;
  SwitchGroupProgrammer programmer_;
  sm::GroupAgent agent_;
  std::uint64_t last_tick_ = 0;
};

}  // namespace syncfab::tb::system

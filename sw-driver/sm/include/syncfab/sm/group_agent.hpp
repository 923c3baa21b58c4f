#pragma once
// The subnet-manager agent of the group protocol over the fabric
// (docs/group-protocol.md): management datagrams (fmt::MgmtMsg) in, the
// FULB-MC paper's join/leave protocol (McgProtocol) in the middle, answers
// and the switches' programming out. Transport and switch access are the
// caller's: take() and tick() return the datagrams to send, and the tables
// go through a GroupProgrammer.
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/mcg_protocol.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

// Writes a group's tables into the switches (MFT and combine entries, each
// read back) or removes them. Throwing fails the group.
class GroupProgrammer {
 public:
  virtual ~GroupProgrammer() = default;
  virtual void program(const Group& group, const McTree& tree, std::uint16_t epoch) = 0;
  virtual void remove(Lid mlid, const std::vector<MftEntry>& entries) = 0;
};

struct AgentDatagram {
  Lid dst = 0;  // the LID it goes to
  fmt::MgmtMsg msg;
};

struct AgentCounters {
  std::uint64_t requests = 0;      // datagrams taken
  std::uint64_t bad_requests = 0;  // of which not a request (answered BAD_REQUEST)
  std::uint64_t unknown_sources = 0;
  std::uint64_t bad_members = 0;  // joins refused BAD_MEMBER
  std::uint64_t answers = 0;      // datagrams returned, READY notices included
  std::uint64_t groups_programmed = 0;
  std::uint64_t groups_removed = 0;
};

class GroupAgent {
 public:
  // All must outlive the agent.
  GroupAgent(const Fabric& fabric, McgRouter& router, GroupProgrammer& programmer,
             McgConfig config = {});

  // One datagram from `src` at `now`: the protocol's answer to it, then a
  // READY to every member of each group this made Ready.
  std::vector<AgentDatagram> take(Lid src, const fmt::MgmtMsg& msg, McgTime now);
  // Deadlines and routing at `now`: READY notices of groups made Ready.
  std::vector<AgentDatagram> tick(McgTime now);

  [[nodiscard]] const McgProtocol& protocol() const { return protocol_; }
  [[nodiscard]] const AgentCounters& counters() const { return counters_; }

 private:
  struct Members {
    std::map<NodeId, std::uint16_t> index;  // node -> member index
    std::set<std::uint16_t> taken;
    std::uint16_t epoch = 0;  // newest proposed
    bool any_epoch = false;
    Lid mlid = 0;
  };
  std::vector<AgentDatagram> apply_updates();
  [[nodiscard]] fmt::MgmtMsg ready(const Mgid& mgid, const Members& m, std::uint16_t txn) const;
  [[nodiscard]] static fmt::MgmtMsg state(const McgResponse& r, std::uint16_t txn);

  const Fabric& fabric_;
  GroupProgrammer& programmer_;
  McgProtocol protocol_;
  std::map<Mgid, Members> members_;
  AgentCounters counters_;
};

}  // namespace syncfab::sm

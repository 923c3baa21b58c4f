// The physical bound of a common-start barrier on a system fabric: what the
// wires and switches alone impose, with NICs that take no time at all.
// A NIC sends round i of its dissemination schedule only once it heard
// every sender of round i - 1, so NIC r ends round i no earlier than, over
// its senders s of round i, the moment s ended round i - 1 plus the wire
// time s -> r. The wire time of a path is, on a shortest path between the
// two NICs' switches, every link at the fabric's least delay and every
// switch at its least forwarding time: no routed path is faster.
#pragma once

#include <cstdint>
#include <span>

#include "syncfab/sm/fabric.hpp"

namespace syncfab::tb::system {

// switch_top's least forwarding latency, last flit in to first flit out
// (docs/switch-datapath.md "RTL and model timing").
inline constexpr std::uint64_t kSwitchForward = 3;

// A NIC's least times at the two ends of a group barrier
// (docs/nic/ge.md "Behaviour and timing"): an HDQ post written in cycle p
// puts its ARRIVE on the link from p + 5 (injection); a RELEASE taken in
// cycle r has its CQ entry written in r + 5 (ejection).
// tests/rtl/nic/nic_top_group_test.cpp asserts both on the verilated NIC.
inline constexpr std::uint64_t kNicInject = 5;
inline constexpr std::uint64_t kNicEject = 5;

// Cycles from the common post to the last NIC's last round, at fan-out k
// across every end node of `smf` (rank order: a fabric whose every HCA is a
// NIC, no bulk hosts), every link `link_delay`
// cycles (the least delay when they differ).
std::uint64_t barrier_bound(const sm::Fabric& smf, std::uint64_t link_delay, unsigned k);

// The physical bound of any barrier of a group (DESIGN section 5c): the
// longest wire time between two of its members (end nodes of `smf`), on a
// shortest path, every link `link_delay` cycles and every switch its least
// forwarding time, plus one NIC injection and one ejection -- the last
// member's post must at least reach the farthest member's CQ. 0 for fewer
// than two members.
std::uint64_t group_bound(const sm::Fabric& smf, std::span<const sm::NodeId> members,
                          std::uint64_t link_delay);

}  // namespace syncfab::tb::system

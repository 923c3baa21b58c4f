// The switch fabric built from, and programmed with, the subnet manager
// library (sw-driver/sm): the SM's fabric model is the topology, its
// unicast engines give the LFTs, its multicast engines the MFTs.
//
// Port numbering: an SM switch has the management port 0 and data ports
// 1..N (InfiniBand); switch_top's ports are 0..N-1. SM data port p is
// switch_top port p - 1 (hw_port/sm_port); an entry for SM port 0 (the
// switch's own LID) is not programmed, so such a LID drops as unrouted.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <vector>

#include "switch_fabric.hpp"
#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/multicast.hpp"
#include "syncfab/sm/port_groups.hpp"

namespace syncfab::tb::swfab {

// Throw for port 0 or a port past `ports` (the switch_top's port count:
// kPorts here, 16 for the system fabric's 16-port switches).
unsigned hw_port(sm::PortNum p, unsigned ports = kPorts);
sm::PortNum sm_port(unsigned hw, unsigned ports = kPorts);

// Calls fn(a, pa, b, pb) once per link of the SM fabric, from its lower
// (node, port) end, in node and port order.
void for_each_link(const sm::Fabric& smf,
                   const std::function<void(sm::NodeId, sm::PortNum, sm::NodeId, sm::PortNum)>& fn);

// Harness switch i = SM switch index i (its name), host j = SM end node j
// (fabric.hcas()[j], its name and the LID of its port 1); one link per SM
// link with delay(a, b) cycles (SM node ids of the two ends). Call on an
// empty Fabric, before start().
void instantiate(Fabric& f, const sm::Fabric& smf,
                 const std::function<unsigned(sm::NodeId, sm::NodeId)>& delay);

// The harness host of an SM end node (inverse of hcas()[j]).
unsigned host_of(const sm::Fabric& smf, sm::NodeId hca);

// Switch s's LFT as driver entries: every LID routed to a data port (of
// `ports`: hw_port's check).
std::vector<driver::LftEntry> lft_entries(const sm::Lft& lft, sm::SwitchIdx s,
                                          unsigned ports = kPorts);
// program_lft on every switch; returns the number of entries written.
std::size_t program_lfts(Fabric& f, const sm::Lft& lft);

// With port groups (sm::PortGroups, docs/switch-ecmp.md): switch s's groups
// as driver entries (members as switch_top ports), and its LFT with each
// entry that names a group written as a GROUP entry.
std::vector<driver::PortGroupEntry> group_entries(const sm::PortGroups& groups, sm::SwitchIdx s,
                                                  unsigned ports = kPorts);
std::vector<driver::LftEntry> lft_entries(const sm::Lft& lft, const sm::PortGroups& groups,
                                          sm::SwitchIdx s, unsigned ports = kPorts);
// Every switch: its groups first, then the LFT entries that name them.
std::size_t program_lfts(Fabric& f, const sm::Lft& lft, const sm::PortGroups& groups);

// Switch s's MFT: MLID -> switch_top port mask, from the trees' entries.
std::map<std::uint16_t, std::uint32_t> mft_masks(std::span<const sm::McTree> trees, sm::SwitchIdx s,
                                                 unsigned ports = kPorts);
// set_mft on every switch for every tree that has an entry there; returns
// the number of (switch, MLID) entries written.
std::size_t program_mfts(Fabric& f, std::span<const sm::McTree> trees);

}  // namespace syncfab::tb::swfab

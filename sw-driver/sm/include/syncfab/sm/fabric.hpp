#pragma once
// The fabric graph: switches (port 0 = management port, data ports 1..N as in
// IB), end nodes (HCAs with one or more ports) and symmetric links. Nodes and
// switches are integer ids into flat arrays (one slot per port, CSR offsets),
// so a 45,000-node fabric is a few MB and walks stay cache friendly.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::sm {

using NodeId = std::uint32_t;
using SwitchIdx = std::uint32_t;  // 0..switch_count()-1, dense
using PortNum = std::uint8_t;     // 1..254 data ports; 0 = switch management port
using Lid = std::uint16_t;
// A unicast destination (a switch or a connected end-node port) as the
// tables' column: equal to its LID where it has one, numbered on past the
// LID space where it has none, so a fabric larger than the LID space is
// still routed and checked (only lfts.dump needs real LIDs). 0 = none.
using Dest = std::uint32_t;

inline constexpr NodeId kNoNode = 0xFFFFFFFFu;
inline constexpr SwitchIdx kNoSwitch = 0xFFFFFFFFu;
// LID ranges: LID_NONE (0) is never assigned and multicast starts at the
// format spec's MLID_BASE (fmt::kMlidBase); 0xFFFF is IB's permissive LID,
// never a group's.
inline constexpr Lid kFirstUnicastLid = fmt::kLidNone + 1U;
inline constexpr Lid kLastUnicastLid = fmt::kMlidBase - 1U;
inline constexpr Lid kLastMulticastLid = 0xFFFE;
inline constexpr int kMaxPorts = 254;

// "0xC000": a LID as four upper-case hex digits, for messages.
std::string hex_lid(std::uint32_t lid);

enum class NodeType : std::uint8_t { kSwitch, kHca };

struct PortPeer {
  NodeId node = kNoNode;
  PortNum port = 0;
  [[nodiscard]] bool connected() const { return node != kNoNode; }
  friend bool operator==(const PortPeer&, const PortPeer&) = default;
};

// Where a unicast LID (or destination index) lives.
struct LidOwner {
  NodeId node = kNoNode;
  PortNum port = 0;
};

class Fabric {
 public:
  // guid 0 picks the next free one in ibsim's style (switches from 0x200000,
  // HCAs from 0x100000 reserving one GUID per port). The id identifies the
  // node and must be unique (ibnetdiscover's "S-<guid>", an ibsim name, a
  // generator's name); the description is a label that may repeat (real
  // fabrics give every switch of one model the same NodeDescription).
  NodeId add_node(NodeType type, std::string id, int num_ports, std::uint64_t guid = 0,
                  std::string description = {});
  // Links are symmetric: both ends are set. Throws FabricError if a port is out
  // of range or already used, or a port is 0.
  void connect(NodeId a, PortNum pa, NodeId b, PortNum pb);
  // Removes the link on node n's port p, both ends (a failed cable: the
  // subnet manager routes the fabric without it). Node ids, names, GUIDs and
  // LIDs stay; an HCA port keeps its LID even when it is left unconnected.
  // Returns the far end. Throws FabricError if the port is out of range or
  // not linked.
  PortPeer disconnect(NodeId n, PortNum p);
  // Gives every switch one destination index (its port 0) and every
  // connected HCA port one, in node order from 1, skipping those already set
  // with set_lid(). Indices up to the last LID (last_lid()) are the LIDs;
  // the ones past it are destinations without a LID. Throws FabricError
  // only when the index type runs out.
  void assign_lids();
  // Sets a LID read from a file; throws FabricError if taken or out of range.
  void set_lid(NodeId node, PortNum port, Lid lid);
  // Caps the unicast LID space at `last` (1..0xBFFF, the default): the
  // destinations whose index lies past it keep their index (the tables do
  // not change) but lose their LID. Throws FabricError naming a bad value.
  void limit_lids(Lid last);
  // Throws FabricError naming a node that the first switch cannot reach.
  void ensure_connected() const;

  std::size_t node_count() const { return type_.size(); }
  std::size_t switch_count() const { return switches_.size(); }
  std::size_t hca_count() const { return hcas_.size(); }
  NodeType type(NodeId n) const { return type_[n]; }
  bool is_switch(NodeId n) const { return type_[n] == NodeType::kSwitch; }
  // What outputs and messages call the node: its description where that is
  // unique in the fabric and no other node's id, "description (id)" where it
  // is not (or the id, should that text be another node's id), the id when
  // it has none. Names are unique and find() gives each one's node back.
  const std::string& name(NodeId n) const { return label_[n]; }
  const std::string& id(NodeId n) const { return id_[n]; }
  const std::string& description(NodeId n) const { return desc_[n]; }
  std::uint64_t guid(NodeId n) const { return guid_[n]; }
  // Switch ports share the node GUID; HCA port p has node GUID + p (ibsim).
  std::uint64_t port_guid(NodeId n, PortNum p) const {
    return is_switch(n) ? guid_[n] : guid_[n] + p;
  }
  int num_ports(NodeId n) const {
    return static_cast<int>(port_offset_[n + 1] - port_offset_[n]) - 1;
  }
  PortPeer peer(NodeId n, PortNum p) const { return peer_[port_offset_[n] + p]; }
  // A dense index over every (node, port) slot, for per-port arrays.
  std::size_t port_slot(NodeId n, PortNum p) const { return port_offset_[n] + p; }
  std::size_t port_slot_count() const { return peer_.size(); }
  // A node named by its id, its name(), a description only it has, or its
  // node GUID ("0x..." hex); nullopt if none or if a description repeats.
  std::optional<NodeId> find(std::string_view text) const;
  // As find(), but throws FabricError saying why: no such node, or a
  // description several nodes share (listing their ids).
  NodeId resolve(std::string_view text) const;

  // Switches and HCAs in creation order (generators create end nodes in rank
  // order: consecutive end nodes sit on neighbouring switches).
  std::span<const NodeId> switches() const { return switches_; }
  std::span<const NodeId> hcas() const { return hcas_; }
  NodeId switch_node(SwitchIdx s) const { return switches_[s]; }
  SwitchIdx switch_index(NodeId n) const { return switch_idx_[n]; }

  // Destination index of a switch (port ignored: port 0's) or of an HCA
  // port; 0 = none.
  Dest dest(NodeId n, PortNum p = 0) const {
    return dest_[port_offset_[n] + (is_switch(n) ? 0 : p)];
  }
  // One more than the highest destination index: the tables' column count.
  std::size_t dest_count() const { return dest_owner_.size(); }
  LidOwner dest_owner(Dest d) const { return d < dest_owner_.size() ? dest_owner_[d] : LidOwner{}; }
  // LID of a switch (port ignored: port 0's LID) or of an HCA port; 0 = none
  // (never assigned, or past the LID space).
  Lid lid(NodeId n, PortNum p = 0) const {
    const Dest d = dest(n, p);
    return d <= last_lid_ ? static_cast<Lid>(d) : Lid{0};
  }
  // The highest LID in use (0 when none).
  Lid max_lid() const { return max_lid_; }
  // The last LID the space offers (kLastUnicastLid unless limit_lids()).
  Lid last_lid() const { return last_lid_; }
  LidOwner lid_owner(Lid lid) const { return lid <= max_lid_ ? dest_owner_[lid] : LidOwner{}; }
  // Destinations past the LID space (no LID; lfts.dump cannot name them).
  std::size_t lidless_count() const;
  // Destinations with an index (switches and connected end-node ports).
  std::size_t destination_count() const;
  // The switch an end node hangs off (its first connected port's peer) or the
  // switch itself; kNoSwitch for an HCA without a switch neighbour.
  SwitchIdx attach_switch(NodeId n) const;
  // The port the node uses to reach attach_switch() (HCAs), 0 for a switch.
  PortNum attach_port(NodeId n) const;

 private:
  std::vector<NodeType> type_;
  void relabel(const std::string& description);
  void relabel_around(const std::string& text);

  std::vector<std::string> id_;
  std::vector<std::string> desc_;
  std::vector<std::string> label_;
  std::vector<std::uint64_t> guid_;
  std::vector<std::uint32_t> port_offset_{0};  // node n's slots: [off[n], off[n+1])
  std::vector<PortPeer> peer_;
  void recount_max_lid();
  std::vector<Dest> dest_;
  std::vector<LidOwner> dest_owner_{LidOwner{}};  // index = destination; 0 unused
  Lid last_lid_ = kLastUnicastLid;
  Lid max_lid_ = 0;
  std::vector<NodeId> switches_;
  std::vector<NodeId> hcas_;
  std::vector<SwitchIdx> switch_idx_;
  std::unordered_map<std::string, NodeId> by_id_;
  std::unordered_map<std::string, std::vector<NodeId>> by_desc_;
  std::unordered_map<std::uint64_t, NodeId> by_guid_;
  std::uint64_t next_switch_guid_ = 0x200000;
  std::uint64_t next_hca_guid_ = 0x100000;
};

}  // namespace syncfab::sm

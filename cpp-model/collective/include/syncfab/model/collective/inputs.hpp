// The event-driven fabric model's inputs (docs/collective-model.md): plain
// types of its own, so the model stands apart from the subnet manager and the
// driver (an adapter outside cpp-model fills them from an sm::Fabric and the
// SM's multicast trees).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace syncfab::model::collective {

using Cycle = std::uint64_t;

// Switches 0 .. switch_ports.size() - 1, switch s with ports 1 .. switch_ports[s];
// end nodes 0 .. nodes.size() - 1, each on one switch port. Every link is
// full duplex with a fixed delay: a flit that enters it in cycle t is taken at
// the far end in cycle t + delay.
struct Topology {
  struct SwitchLink {
    unsigned a = 0;
    unsigned port_a = 0;
    unsigned b = 0;
    unsigned port_b = 0;
    std::uint32_t delay = 4;
  };
  struct EndNode {
    unsigned sw = 0;
    unsigned port = 0;
    std::uint32_t delay = 4;
  };
  std::vector<unsigned> switch_ports;
  std::vector<SwitchLink> links;
  std::vector<EndNode> nodes;
};

// One switch of a group's tree: its port towards the root switch (none at
// the root) and its child ports (towards child switches and member end nodes).
struct TreeSwitch {
  unsigned sw = 0;
  std::optional<unsigned> parent;
  std::vector<unsigned> children;
};

struct GroupTree {
  std::vector<TreeSwitch> switches;  // any order, exactly one without a parent
};

// Ring mode of the switch-combined barrier on a torus (docs/group-barrier.md
// "Ring mode"): per switch, its member ports and per phase the ring geometry
// (plus: the port towards pos + 1, minus: towards pos - 1), whether it sends
// its own share and which ring positions' shares it waits for.
struct RingPhase {
  bool valid = false;  // the switch's ring of this phase carries shares
  unsigned plus = 0;
  unsigned minus = 0;
  unsigned pos = 0;
  unsigned len = 0;
  bool origin = false;
  std::uint32_t expect = 0;
};

struct RingSwitch {
  unsigned sw = 0;
  std::vector<unsigned> children;  // member ports (maybe none)
  std::vector<RingPhase> phases;   // GroupRings::phases of them
};

struct GroupRings {
  unsigned phases = 0;  // 1 .. kRingPhasesMax, the same on every switch
  std::vector<RingSwitch> switches;
};
inline constexpr unsigned kRingPhasesMax = 3;  // COMB_PHASES
inline constexpr unsigned kRingLenMax = 32;    // COMB_RING_MAX

enum class PacketKind : std::uint8_t {
  kNotify,
  kAck,
  kArrive,
  kRelease,
  kCombArrive,
  kCombRelease,
  kHostMessage,  // a software dissemination message
  kCombShare,    // ring mode: a switch's share of one phase, along a ring
};
inline constexpr std::size_t kPacketKinds = 8;
std::string_view to_string(PacketKind k);

// Cycle figures; docs/collective-model.md says where each default comes from.
struct Timing {
  // Switch: the last flit of a packet taken in cycle t, its first copy may
  // leave from t + switch_forward (engine idle); the switch's engine
  // spends engine_per_packet cycles on a packet plus engine_per_copy per
  // copy, engine_absorbed on a packet the combine unit absorbs; the i-th
  // copy of a packet leaves i × copy_spacing after the first (one read
  // port per input: 1; a shared read of a one-flit packet: 0); the combine
  // unit adds `combine` cycles to the copies it emits.
  std::uint32_t switch_forward = 3;
  std::uint32_t engine_per_packet = 1;
  std::uint32_t engine_per_copy = 0;
  std::uint32_t copy_spacing = 0;
  std::uint32_t engine_absorbed = 0;
  std::uint32_t combine = 0;
  std::array<std::uint32_t, kPacketKinds> flits{1, 1, 1, 1, 1, 1, 1, 1};
  // NIC: a descriptor posted in cycle p puts its first packet on the link in
  // p + nic_inject; the packet that completes a barrier taken in cycle r, the
  // CQ entry is written in r + nic_eject (the completion unit takes one
  // record at a time, nic_eject cycles each).
  std::uint32_t nic_inject = 3;
  std::uint32_t nic_eject = 8;
  // Multicast-release root: its last ARRIVE taken in r, RELEASE on the link
  // in r + root_turnaround; its own CQ entry root_eject after the RELEASE
  // went on the link.
  std::uint32_t root_turnaround = 1;
  std::uint32_t root_eject = 8;
  // Dissemination: the NOTIFY a round needs taken in r, the next round's
  // NOTIFY on the link in r + notify_turnaround; a NOTIFY taken in r, its
  // ACK on the link in r + ack_turnaround.
  std::uint32_t notify_turnaround = 2;
  std::uint32_t ack_turnaround = 1;
  // Software dissemination (host overheads of docs/bench-barrier.md): a host
  // spends o_send per message posted and o_poll per message noticed; a
  // message goes through the NICs like a one-packet descriptor (nic_inject
  // to the link, nic_eject from the link to the host's memory).
  std::uint32_t o_send = 18;
  std::uint32_t o_poll = 9;

  // The defaults are the golden models' (the cycle golden fabric's); rtl()
  // the verilated NIC's and switch's (docs/collective-model.md "Timing").
  static Timing golden() { return {}; }
  static Timing rtl();
};

// "golden" or "rtl"; std::invalid_argument naming the text.
Timing parse_timing(std::string_view text);

enum class BarrierKind : std::uint8_t { kComb, kMcast, kDissemination, kSoftware };

// How the switches combine a COMB barrier: up a tree and the release down
// it, or along a torus's rings (Group::rings).
enum class CombScheme : std::uint8_t { kTree, kRing };

struct BarrierSpec {
  BarrierKind kind = BarrierKind::kComb;
  unsigned k = 1;                         // fan-out of the (NIC or software) dissemination schedule
  CombScheme scheme = CombScheme::kTree;  // kComb only
};

// "comb", "ring" (comb in ring mode), "mcast", "diss2", "sw3";
// std::invalid_argument naming the text.
BarrierSpec parse_barrier_kind(std::string_view text);
std::string to_string(const BarrierSpec& spec);

// A group: its members (end nodes; member 0 is the multicast-release root,
// member i is rank i of the dissemination schedule), for comb and mcast its
// tree (for comb in ring mode its rings instead), and when its members
// first post.
struct Group {
  BarrierSpec spec;
  std::vector<unsigned> members;
  GroupTree tree;
  GroupRings rings;
  // Per member, the cycle of its first post (empty: every member in cycle 0).
  std::vector<Cycle> first_post;
};

}  // namespace syncfab::model::collective

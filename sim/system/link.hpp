// A full-duplex link between two node ports with a fixed delay in cycles that
// never loses a flit: a flit sent at cycle t is offered at the far end from
// t + delay on, and a flit the receiver does not take (rx_ready low) waits
// in that end's receive FIFO (its peak depth is reported). Each direction
// counts what entered it: flits, and packets by type (the header's
// fmt::PktType at a packet's first flit).
//
// Until fail() is called; then the link is a pulled cable (the ends are not
// told: a switch port keeps sending into it). Flits on the wire and every
// flit sent afterwards, in both directions, are lost, whole packets at a
// time: a packet whose first flit already reached the far end arrives whole
// (a node here cannot discard a truncated packet as a real receiver does on
// its CRC), and flits in a receive FIFO have crossed already. Each direction
// counts the lost flits and packets, and the link keeps every lost header.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "port.hpp"

namespace syncfab::tb::system {

// Packet kinds counted per direction.
enum class PktKind : std::uint8_t {
  kNotify,
  kAck,
  kNack,
  kPfc,
  kData,
  kArrive,  // group barriers (docs/group-barrier.md)
  kRelease,
  kCombArrive,
  kCombRelease,
  kCombShare,  // ring mode, switch to switch
  kMgmt,       // management datagrams (docs/group-protocol.md)
  kCnp,        // congestion notifications (docs/nic/dcqcn.md)
  kOther
};
inline constexpr std::size_t kPktKinds = 13;
const char* to_string(PktKind k);
PktKind kind_of(const Flit& header);

struct DirStats {
  std::uint64_t flits_in = 0;                      // flits that entered at the sender
  std::uint64_t flits_out = 0;                     // flits the receiver took
  std::array<std::uint64_t, kPktKinds> packets{};  // by kind, at their first flit
  std::size_t peak_fifo = 0;                       // deepest receive FIFO (flits)
  std::uint64_t rx_stall_cycles = 0;               // a flit waited for the receiver's rx_ready
  std::uint64_t lost_flits = 0;                    // flits a failed link lost
  std::array<std::uint64_t, kPktKinds> lost{};     // packets it lost, by kind (among `packets`)
  [[nodiscard]] std::uint64_t count(PktKind k) const {
    return packets.at(static_cast<std::size_t>(k));
  }
  [[nodiscard]] std::uint64_t count_lost(PktKind k) const {
    return lost.at(static_cast<std::size_t>(k));
  }
};

// A packet a failed link lost: its header, its direction and the cycle.
struct LostPacket {
  fmt::PktHdr hdr;
  PktKind kind = PktKind::kOther;
  bool ab = true;  // lost on a -> b (else b -> a)
  std::uint64_t cycle = 0;
};

// What happened on one direction in the cycle last sampled (for checks that
// follow a protocol across the link, e.g. NicPauseCheck).
struct DirEvents {
  std::optional<fmt::PktHdr> started;      // a packet's first flit entered: its header
  std::optional<fmt::PfcFrame> pfc_taken;  // the receiver took a PFC frame's last flit
};

// One end of a link: a node's port, named for messages ("leaf0:3").
struct LinkEnd {
  Port* port = nullptr;
  std::string name;
};

class Link {
 public:
  Link(const LinkEnd& a, const LinkEnd& b, unsigned delay_cycles);

  // Before the edge: flits due by `now` join the receive FIFOs, each FIFO's
  // head is offered to its port.
  void drive(std::uint64_t now);
  // After the nodes evaluated: taken flits leave the FIFOs, sent flits enter
  // the wire (due at now + delay). Throws TestFailure on a malformed stream
  // (a packet's first flit that is not a header).
  void sample(std::uint64_t now);

  // Nothing on the wire or in a FIFO, no packet half sent.
  [[nodiscard]] bool idle() const;

  // Pulls the cable at cycle `now` (between two cycles: outside drive() and
  // sample()). Throws std::logic_error if it failed already.
  void fail(std::uint64_t now);
  [[nodiscard]] bool failed() const { return failed_at_.has_value(); }
  [[nodiscard]] std::optional<std::uint64_t> failed_at() const { return failed_at_; }
  // Fault injection: the next `count` packets of `kind` that leave `from`
  // are lost whole on the wire (counted in lost_flits and lost(), as a
  // failed link's), the link otherwise intact. Adds to what is pending.
  void drop_next(const Port& from, PktKind kind, unsigned count = 1);
  // Every packet lost, in the order it was lost.
  [[nodiscard]] const std::vector<LostPacket>& lost() const { return lost_; }
  // "a.name <-> b.name", for messages.
  [[nodiscard]] std::string name() const;
  [[nodiscard]] const LinkEnd& a() const { return a_.from; }
  [[nodiscard]] const LinkEnd& b() const { return b_.from; }
  [[nodiscard]] unsigned delay() const { return delay_; }
  [[nodiscard]] const DirStats& ab() const { return a_.stats; }  // a -> b
  [[nodiscard]] const DirStats& ba() const { return b_.stats; }  // b -> a
  // The direction that leaves `port` (a -> b if it is a's), or enters it.
  [[nodiscard]] const DirStats& from(const Port& port) const;
  [[nodiscard]] const DirStats& to(const Port& port) const;
  // This cycle's events of the direction that leaves / enters `port`.
  [[nodiscard]] const DirEvents& events_from(const Port& port) const;
  [[nodiscard]] const DirEvents& events_to(const Port& port) const;

 private:
  struct Wire {
    std::uint64_t due = 0;
    LinkFlit flit;
  };
  // One direction, named after its sending end.
  struct Dir {
    LinkEnd from;
    LinkEnd to;
    std::deque<Wire> wire;
    std::deque<LinkFlit> fifo;
    bool offered = false;
    bool in_packet = false;
    bool arrived_mid = false;  // the flits that reached the FIFO end inside a packet
    bool keep_rest = false;    // after fail(): the packet being sent arrives whole
    std::vector<Flit> rx_cur;  // flits of the packet the receiver is taking
    DirStats stats;
    DirEvents events;
    std::array<unsigned, kPktKinds> drop{};  // drop_next(): packets of each kind still to lose
    bool dropping = false;                   // the packet being sent is being lost
  };
  [[nodiscard]] const Dir& dir_from(const Port& port) const;
  [[nodiscard]] Dir& dir_from(const Port& port);
  static void drive(Dir& d, std::uint64_t now);
  void sample(Dir& d, std::uint64_t now);
  void fail(Dir& d, std::uint64_t now);
  void lose(Dir& d, const LinkFlit& f, bool head, std::uint64_t now);

  Dir a_;  // a -> b
  Dir b_;  // b -> a
  unsigned delay_;
  std::optional<std::uint64_t> failed_at_;
  std::vector<LostPacket> lost_;
};

}  // namespace syncfab::tb::system

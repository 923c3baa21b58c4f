// The model's pending events, earliest first; events of one cycle in the
// order they were scheduled, so every run is deterministic.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "syncfab/model/collective/inputs.hpp"
#include "syncfab/model/collective/network.hpp"

namespace syncfab::model::collective {

struct Packet {
  PacketKind kind = PacketKind::kNotify;
  std::uint8_t round = 0;
  std::uint32_t group = 0;
  std::uint32_t src = 0;      // sender's rank in the group
  std::uint32_t dst = kNone;  // receiver's rank; kNone: to the group (multicast, combine)
  std::uint32_t epoch = 0;    // the group's barrier index
  std::uint32_t spread = 1;   // unicast routing's tie-break state (Network::route)
};

enum class EventType : std::uint8_t {
  kPost,      // a = group, b = rank
  kTx,        // a = directed link: the packet is ready to enter it
  kRxSwitch,  // a = switch, b = input port: the packet's last flit was taken
  kRxNode,    // a = end node: the packet's last flit was taken
  kNicKick,   // a = end node: its link is free, its arbiter picks the next packet
};

struct Event {
  Cycle t = 0;
  std::uint64_t seq = 0;
  EventType type = EventType::kPost;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  Packet pkt;
};

class EventQueue {
 public:
  void push(Event e) {
    e.seq = next_++;
    heap_.push(e);
  }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  [[nodiscard]] bool empty() const { return heap_.empty(); }

 private:
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.t != y.t ? x.t > y.t : x.seq > y.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_ = 0;
};

}  // namespace syncfab::model::collective

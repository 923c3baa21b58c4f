// The model's pending events, earliest first; events of one cycle in the
// order they were pushed, so every run is deterministic.
#pragma once

#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/model/collective/inputs.hpp"
#include "syncfab/model/collective/network.hpp"

namespace syncfab::model::collective {

struct Packet {
  PacketKind kind = PacketKind::kNotify;
  std::uint8_t round = 0;  // COMB_SHARE: the phase
  bool answer = false;     // COMB_SHARE: answers a switch still at an epoch the sender completed
  std::uint8_t ask = 0;    // COMB_SHARE: 0 first send; >= 1 sent again or a query (answered)
  std::uint32_t group = 0;
  std::uint32_t src = 0;      // sender's rank in the group; COMB_SHARE: the origin's position
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

// A bucket per cycle over the next kHorizon cycles (a ring), a heap for the
// events further ahead: events of one cycle leave in the order they were
// pushed, as a heap on (cycle, order pushed) would give them, without its
// log-time moves. A far event moves into its bucket as soon as its cycle is
// within the horizon, before any event of that cycle can be pushed straight
// into the bucket, so the order holds.
class EventQueue {
 public:
  EventQueue() : ring_(kHorizon) {}

  void push(Event e) {
    if (e.t < now_) {
      throw std::logic_error("event queue: an event for cycle " + std::to_string(e.t) +
                             " pushed in cycle " + std::to_string(now_));
    }
    e.seq = next_++;
    ++size_;
    if (e.t < now_ + kHorizon) {
      ring_[e.t % kHorizon].push_back(e);
    } else {
      far_.push(e);
    }
  }

  // The earliest event; the queue must not be empty.
  Event pop() {
    for (;;) {
      std::vector<Event>& b = ring_[now_ % kHorizon];
      if (head_ < b.size()) {
        --size_;
        return b[head_++];
      }
      // A busy cycle's bucket (a common start: every member at once) gives
      // its memory back rather than holding it in every bucket it visits.
      if (b.capacity() > kKeep) {
        std::vector<Event>().swap(b);
      } else {
        b.clear();
      }
      head_ = 0;
      ++now_;
      while (!far_.empty() && far_.top().t < now_ + kHorizon) {
        ring_[far_.top().t % kHorizon].push_back(far_.top());
        far_.pop();
      }
    }
  }

  [[nodiscard]] bool empty() const { return size_ == 0; }

 private:
  static constexpr Cycle kHorizon = 4096;
  static constexpr std::size_t kKeep = 256;
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.t != y.t ? x.t > y.t : x.seq > y.seq;
    }
  };
  std::vector<std::vector<Event>> ring_;
  std::priority_queue<Event, std::vector<Event>, Later> far_;
  Cycle now_ = 0;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::uint64_t next_ = 0;
};

}  // namespace syncfab::model::collective

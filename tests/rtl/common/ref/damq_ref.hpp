// Reference model of damq, from the interface spec only: one buffer of
// NumSlots shared by NumQueues FIFO queues. enq happens when enq_valid and a
// slot is free (judged before the edge: a slot freed by a dequeue in the same
// cycle is not usable); deq pops the head of deq_queue when that queue is not
// empty before the edge (no bypass of a same-cycle enqueue). Counts and flags
// are the state after the previous edge; deq_ready/deq_data follow
// deq_queue combinationally.
#pragma once

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

namespace syncfab::tb::ref {

class Damq {
 public:
  Damq(unsigned queues, unsigned slots, unsigned almost_full_slots)
      : q_(queues), slots_(slots), almost_(almost_full_slots) {
    if (queues == 0 || slots == 0) {
      throw std::invalid_argument("Damq: empty geometry");
    }
  }

  [[nodiscard]] unsigned queues() const noexcept { return static_cast<unsigned>(q_.size()); }
  [[nodiscard]] unsigned slots() const noexcept { return slots_; }
  [[nodiscard]] unsigned used() const noexcept { return used_; }
  [[nodiscard]] unsigned free_count() const noexcept { return slots_ - used_; }
  [[nodiscard]] bool full() const noexcept { return used_ == slots_; }
  [[nodiscard]] bool almost_full() const noexcept { return free_count() <= almost_; }
  [[nodiscard]] bool enq_ready() const noexcept { return !full(); }
  [[nodiscard]] unsigned count(unsigned queue) const {
    return static_cast<unsigned>(at(queue).size());
  }
  [[nodiscard]] bool empty(unsigned queue) const { return at(queue).empty(); }
  [[nodiscard]] bool deq_ready(unsigned queue) const { return !at(queue).empty(); }
  [[nodiscard]] std::uint64_t head(unsigned queue) const { return at(queue).front(); }
  [[nodiscard]] std::uint64_t empty_mask() const {
    std::uint64_t m = 0;
    for (unsigned i = 0; i < q_.size(); ++i) {
      m |= std::uint64_t{q_[i].empty()} << i;
    }
    return m;
  }

  struct Fired {
    bool enq;
    bool deq;
  };
  Fired edge(bool enq_valid, unsigned enq_queue, std::uint64_t enq_data, bool deq_valid,
             unsigned deq_queue) {
    const Fired f{enq_valid && enq_ready(), deq_valid && deq_ready(deq_queue)};
    if (f.enq) {
      at(enq_queue);  // range check before changing anything
    }
    if (f.deq) {
      q_[deq_queue].pop_front();
      --used_;
    }
    if (f.enq) {
      q_[enq_queue].push_back(enq_data);
      ++used_;
    }
    return f;
  }
  void reset() {
    for (auto& q : q_) {
      q.clear();
    }
    used_ = 0;
  }

 private:
  [[nodiscard]] const std::deque<std::uint64_t>& at(unsigned queue) const {
    if (queue >= q_.size()) {
      throw std::out_of_range("Damq: queue " + std::to_string(queue));
    }
    return q_[queue];
  }
  std::deque<std::uint64_t>& at(unsigned queue) {
    if (queue >= q_.size()) {
      throw std::out_of_range("Damq: queue " + std::to_string(queue));
    }
    return q_[queue];
  }

  std::vector<std::deque<std::uint64_t>> q_;
  unsigned slots_;
  unsigned almost_;
  unsigned used_ = 0;
};

}  // namespace syncfab::tb::ref

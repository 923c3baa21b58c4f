// Reference model of sync_fifo, written from the interface spec only:
// wready = !full, rvalid = !empty, rdata = head, no fall-through, a write to a
// full FIFO is refused even when a read happens in the same cycle; in a clear
// cycle neither handshake is offered and the FIFO is empty after the edge.
// Word is the data type (any copyable value: an integer, or an array of
// 32-bit words for a wide struct).
#pragma once

#include <cstdint>
#include <deque>
#include <stdexcept>

namespace syncfab::tb::ref {

template <class Word = std::uint64_t>
class SyncFifo {
 public:
  explicit SyncFifo(std::size_t depth) : depth_(depth) {
    if (depth == 0) {
      throw std::invalid_argument("SyncFifo: depth 0");
    }
  }

  // Outputs in the current cycle (state after the previous edge, and this
  // cycle's clear input).
  [[nodiscard]] bool wready(bool clr = false) const noexcept { return !clr && q_.size() < depth_; }
  [[nodiscard]] bool rvalid(bool clr = false) const noexcept { return !clr && !q_.empty(); }
  [[nodiscard]] const Word& rdata() const { return q_.front(); }
  [[nodiscard]] std::size_t count() const noexcept { return q_.size(); }
  [[nodiscard]] bool full() const noexcept { return q_.size() == depth_; }
  [[nodiscard]] bool empty() const noexcept { return q_.empty(); }

  struct Fired {
    bool write;
    bool read;
  };
  // The rising edge with these inputs; returns what happened.
  Fired edge(bool wvalid, const Word& wdata, bool rready, bool clr = false) {
    const Fired f{wvalid && wready(clr), rready && rvalid(clr)};
    if (clr) {
      q_.clear();
      return f;
    }
    if (f.read) {
      q_.pop_front();
    }
    if (f.write) {
      q_.push_back(wdata);
    }
    return f;
  }
  void reset() { q_.clear(); }

 private:
  std::size_t depth_;
  std::deque<Word> q_;
};

}  // namespace syncfab::tb::ref

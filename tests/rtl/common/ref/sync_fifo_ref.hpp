// Reference model of sync_fifo, written from the interface spec only:
// wready = !full, rvalid = !empty, rdata = head, no fall-through, a write to a
// full FIFO is refused even when a read happens in the same cycle.
#pragma once

#include <cstdint>
#include <deque>
#include <stdexcept>

namespace syncfab::tb::ref {

class SyncFifo {
 public:
  explicit SyncFifo(std::size_t depth) : depth_(depth) {
    if (depth == 0) {
      throw std::invalid_argument("SyncFifo: depth 0");
    }
  }

  // Outputs in the current cycle (state after the previous edge).
  [[nodiscard]] bool wready() const noexcept { return q_.size() < depth_; }
  [[nodiscard]] bool rvalid() const noexcept { return !q_.empty(); }
  [[nodiscard]] std::uint64_t rdata() const { return q_.front(); }
  [[nodiscard]] std::size_t count() const noexcept { return q_.size(); }
  [[nodiscard]] bool full() const noexcept { return q_.size() == depth_; }
  [[nodiscard]] bool empty() const noexcept { return q_.empty(); }

  struct Fired {
    bool write;
    bool read;
  };
  // The rising edge with these inputs; returns what happened.
  Fired edge(bool wvalid, std::uint64_t wdata, bool rready) {
    const Fired f{wvalid && wready(), rready && rvalid()};
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
  std::deque<std::uint64_t> q_;
};

}  // namespace syncfab::tb::ref

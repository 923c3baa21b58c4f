// The remote-request DAMQ: notifications parked for a descriptor that is not
// active yet (or a later epoch), one FIFO per context in one shared buffer of
// `capacity` entries. Parking is refused only when the shared buffer is full.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace syncfab::model {

struct ParkedNotify {
  std::uint16_t src = 0;
  std::uint16_t epoch = 0;
  std::uint8_t round = 0;

  friend bool operator==(const ParkedNotify&, const ParkedNotify&) = default;
};

class RequestDamq {
 public:
  RequestDamq(unsigned num_ctx, unsigned capacity);

  [[nodiscard]] unsigned capacity() const noexcept { return capacity_; }
  [[nodiscard]] unsigned used() const noexcept { return used_; }
  [[nodiscard]] bool full() const noexcept { return used_ >= capacity_; }
  [[nodiscard]] std::size_t depth(unsigned ctx) const { return queues_.at(ctx).size(); }
  [[nodiscard]] bool contains(unsigned ctx, const ParkedNotify& n) const;

  // False (and nothing stored) when the shared buffer is full.
  bool park(unsigned ctx, const ParkedNotify& n);

  // Removes, in arrival order, every entry of ctx for which take(entry) is
  // true; keeps the others in order.
  void drain(unsigned ctx, const std::function<bool(const ParkedNotify&)>& take);

  void clear();

 private:
  std::vector<std::deque<ParkedNotify>> queues_;
  unsigned capacity_;
  unsigned used_ = 0;
};

}  // namespace syncfab::model

// Barriers of every NIC of the incast, one after another, as an application
// would run them between phases: each rank posts its dissemination
// descriptor (HDQ, completion by a flag write, no CQ entry to consume) in the
// same cycle; the barrier is over when the last rank has completed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <syncfab/hw/device.hpp>
#include <syncfab/model/barrier_engine.hpp>

#include "incast.hpp"

namespace syncfab::sim::dcqcn {

class BarrierRun {
 public:
  // Rank r is engines[r]; every engine is configured here (NET_CFG.TC =
  // prio, then CTRL.ENABLE) and writes its completion flag at flag_addr.
  BarrierRun(std::span<model::BarrierEngine* const> engines, unsigned prio, unsigned fanout,
             hw::BusAddr flag_addr);

  // Before the engines step: notes a completed barrier, then posts the next
  // one (in the engines' current cycle) if may_post and none is running.
  void before_step(bool may_post);
  // After the engines stepped: notes the running barrier's completion.
  void poll();

  [[nodiscard]] bool running() const noexcept { return running_; }
  [[nodiscard]] std::uint64_t posted() const noexcept { return posted_; }
  [[nodiscard]] std::uint64_t failed() const noexcept { return failed_; }
  [[nodiscard]] const std::vector<BarrierRecord>& done() const noexcept { return done_; }

 private:
  void post();

  std::vector<model::BarrierEngine*> engines_;
  std::vector<std::uint16_t> lids_;
  unsigned fanout_;
  hw::BusAddr flag_addr_;
  bool running_ = false;
  std::uint64_t posted_at_ = 0;
  std::uint64_t posted_ = 0;
  std::uint64_t failed_ = 0;
  std::vector<BarrierRecord> done_;
};

}  // namespace syncfab::sim::dcqcn

// A clock for a node without a verilated model: the scheduler's clocks drive
// a pin, so a golden-model node owns one byte for its clock to toggle. Every
// node's clock has the system's period and phase (the fabric steps all of
// them from one coroutine on one of these clocks).
#pragma once

#include <cstdint>
#include <string>

#include "nic_top_bench.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::system {

class ModelClock {
 public:
  ModelClock(Sim& sim, const std::string& node)
      : clk_(sim.add_clock("model_clk_" + node, pin_, nic_top::kPeriod)) {}
  ModelClock(const ModelClock&) = delete;
  ModelClock& operator=(const ModelClock&) = delete;
  ModelClock(ModelClock&&) = delete;
  ModelClock& operator=(ModelClock&&) = delete;
  ~ModelClock() = default;

  [[nodiscard]] Clock& clk() { return clk_; }
  // One clock cycle of the whole simulation (every link and node moves):
  // what a model's Device does when its driver waits.
  void advance(Sim& sim) {
    sim.run([](Clock& c) -> Task<> { co_await RisingEdge(c); }(clk_), "model device wait");
  }

 private:
  std::uint8_t pin_ = 0;  // declared before clk_: the clock holds a reference to it
  Clock& clk_;
};

}  // namespace syncfab::tb::system

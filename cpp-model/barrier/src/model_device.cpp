#include "syncfab/model/model_device.hpp"

#include <stdexcept>

namespace syncfab::model {

ModelDevice::ModelDevice(BarrierEngine& engine, hw::DmaMemory& memory,
                         std::function<void()> advance, std::uint64_t ns_per_cycle)
    : engine_(&engine),
      memory_(&memory),
      advance_(std::move(advance)),
      ns_per_cycle_(ns_per_cycle) {
  if (!advance_) {
    throw std::invalid_argument("ModelDevice: no advance function");
  }
  if (ns_per_cycle_ == 0) {
    throw std::invalid_argument("ModelDevice: ns_per_cycle 0");
  }
}

bool ModelDevice::wait_interrupt(std::chrono::nanoseconds timeout) {
  const auto ns = timeout.count() < 0 ? 0 : static_cast<std::uint64_t>(timeout.count());
  const std::uint64_t cycles = ns / ns_per_cycle_;
  for (std::uint64_t i = 0; i < cycles && !engine_->irq(); ++i) {
    advance_();
  }
  return engine_->irq();
}

}  // namespace syncfab::model

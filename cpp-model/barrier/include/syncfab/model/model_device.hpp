// The golden model behind the hardware-access layer's Device interface, so
// driver code runs unchanged on it: CSR accesses go to the engine, DMA memory
// is the host memory the engine uses, and wait_interrupt() advances simulated time (one
// call of `advance` per clock: stepping the lone engine, or the whole fabric
// the engine sits in) until the interrupt line rises or the timeout passes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include <syncfab/hw/device.hpp>

#include "syncfab/model/barrier_engine.hpp"

namespace syncfab::model {

class ModelDevice final : public hw::Device {
 public:
  // advance: runs one clock of whatever contains the engine. ns_per_cycle: the
  // clock period that converts wait_interrupt()'s timeout into cycles.
  ModelDevice(BarrierEngine& engine, hw::DmaMemory& memory, std::function<void()> advance,
              std::uint64_t ns_per_cycle = 1);

  std::uint32_t read32(std::uint32_t offset) override { return engine_->csr_read(offset); }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    engine_->csr_write(offset, value);
  }
  hw::DmaMemory& dma() override { return *memory_; }
  bool wait_interrupt(std::chrono::nanoseconds timeout) override;

 private:
  BarrierEngine* engine_;
  hw::DmaMemory* memory_;
  std::function<void()> advance_;
  std::uint64_t ns_per_cycle_;
};

}  // namespace syncfab::model

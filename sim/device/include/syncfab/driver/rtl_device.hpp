// A Device backed by verilated RTL running under the tb/ harness: read32 and
// write32 are APB transfers on the model's CSR port, wait_interrupt watches
// its interrupt line in simulated time. Each call runs the simulator
// (Sim::run) until it is done, so unchanged synchronous driver code -- the
// identity check, the barrier API, the switch driver -- drives the RTL. Other harness tasks
// (network BFMs, monitors) keep running while it does.
//
// The model and its pins are the caller's: it builds the ApbMaster on the
// model's APB port and says how to read the interrupt line. DMA memory is a
// DmaMemory the caller also serves to the model's memory port (if it has one).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "syncfab/hw/device.hpp"
#include "syncfab/tb/apb.hpp"
#include "syncfab/tb/sim.hpp"

namespace syncfab::driver {

class RtlDevice final : public hw::Device {
 public:
  // csr_window_bytes: the size of the address window the CSR port decodes
  // (the register block answers PSLVERR inside it; beyond it the address
  // would alias, so those offsets are refused here as a bus error).
  // intr: current value of the interrupt line.
  RtlDevice(tb::Sim& sim, tb::Clock& clk, tb::ApbMaster& apb, std::function<bool()> intr,
            hw::DmaMemory& memory, std::uint32_t csr_window_bytes);

  std::uint32_t read32(std::uint32_t offset) override;
  void write32(std::uint32_t offset, std::uint32_t value) override;
  hw::DmaMemory& dma() override { return *memory_; }
  // Simulated time. Returns at the first clock edge where the line is high,
  // or false once `timeout` of simulated time has passed.
  bool wait_interrupt(std::chrono::nanoseconds timeout) override;

 private:
  void check_offset(std::uint32_t offset, const char* what) const;

  tb::Sim* sim_;
  tb::Clock* clk_;
  tb::ApbMaster* apb_;
  std::function<bool()> intr_;
  hw::DmaMemory* memory_;
  std::uint32_t window_;
};

}  // namespace syncfab::driver

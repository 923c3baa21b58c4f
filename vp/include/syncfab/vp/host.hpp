// A host CPU as a SystemC module: its SC_THREAD runs a program (the
// unchanged driver) on this module's hw::Device, which is TLM-2.0: register
// accesses are b_transport calls on the `csr` initiator socket, loosely
// timed (each annotates its delay into a tlm_quantumkeeper, which yields to
// the kernel once the global quantum is used up); host memory is reached
// through `mem` (DMI); wait_interrupt() waits on the `irq` line's rising
// edge with a timeout of simulated time. An error response to a register
// access throws hw::BusError naming the offset and the response, as the
// other backends do for a refused access.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <systemc>
#include <tlm>

#include <syncfab/hw/device.hpp>

#include "syncfab/vp/memory_port.hpp"

namespace syncfab::vp {

class Host final : public sc_core::sc_module, public hw::Device {
 public:
  SC_HAS_PROCESS(Host);
  using Program = std::function<void(Host&)>;

  // The program runs once, from time 0. What it throws ends it and is kept
  // in error(); on_done runs when it has ended either way.
  Host(const sc_core::sc_module_name& name, Program program, std::function<void()> on_done);

  tlm_utils::simple_initiator_socket<Host> csr;
  MemoryPort mem;  // bind mem.socket to host memory
  sc_core::sc_in<bool> irq;

  std::uint32_t read32(std::uint32_t offset) override;
  void write32(std::uint32_t offset, std::uint32_t value) override;
  hw::DmaMemory& dma() override { return mem; }
  bool wait_interrupt(std::chrono::nanoseconds timeout) override;

  // Device time: simulated time plus what this thread has run ahead of it.
  [[nodiscard]] std::chrono::nanoseconds now() const;
  // Lets `t` of simulated time pass on this thread (a host busy elsewhere).
  void compute(const sc_core::sc_time& t);
  // Test hook: sends t over the CSR socket as it is, with the quantum
  // keeper's timing; returns the response.
  tlm::tlm_response_status raw_csr(tlm::tlm_generic_payload& t);

  [[nodiscard]] bool done() const noexcept { return done_; }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }

 private:
  void run();
  void csr_access(tlm::tlm_command cmd, std::uint32_t offset, std::uint32_t& value);

  Program program_;
  std::function<void()> on_done_;
  tlm_utils::tlm_quantumkeeper qk_;
  bool done_ = false;
  std::string error_;
};

}  // namespace syncfab::vp

// A host CPU as a SystemC module: its SC_THREAD runs a program (the
// unchanged driver) on this module's hw::Device, which is TLM-2.0: register
// accesses are b_transport calls on the `csr` initiator socket, loosely
// timed (each annotates its delay into a tlm_quantumkeeper, which yields to
// the kernel once the global quantum is used up); host memory is reached
// through `mem` (DMI); wait_interrupt() waits on the `irq` line's rising
// edge with a timeout of simulated time. An error response to a register
// access throws hw::BusError naming the offset and the response, as the
// other backends do for a refused access.
//
// Polling without a wake-up per interval: once the host watches its NIC's
// DMA writes (watch_nic_writes) and the program has said when its current
// wait times out at the earliest (set_wait_deadline), a wait_interrupt()
// with no local time to sync (after a sync the NIC may have written what
// the driver has not read) whose line stays low sleeps on, slice after slice, until the NIC writes
// host memory, the line rises, or the next slice would end at or past that
// deadline. It then ends on the boundary of the slice in which the write
// fell: the time at which a driver polling once per slice would first have
// read it (a write at a boundary, made by the network's step in the first
// delta of that time, is before the poll there). In the slices it skipped
// the driver would have read unchanged memory and found its wait neither
// done nor timed out (a driver that does a register access or a shorter
// slice in between gets no longer waits: only the wait_interrupt() calls
// differ, the driver's poll_slices count among them; the quantum keeper is
// left as the last of the skipped calls would have left it).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
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

  // Before simulation starts: the event the NIC's DMA port notifies on
  // every write into this host's memory (MemoryPort::written).
  void watch_nic_writes(const sc_core::sc_event& written) { nic_wrote_ = &written; }
  // The device time before which the program's current wait cannot time
  // out (nullopt: unknown, every slice is waited out alone).
  void set_wait_deadline(std::optional<std::chrono::nanoseconds> deadline) { deadline_ = deadline; }

  [[nodiscard]] bool done() const noexcept { return done_; }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }

 private:
  void run();
  void csr_access(tlm::tlm_command cmd, std::uint32_t offset, std::uint32_t& value);

  Program program_;
  std::function<void()> on_done_;
  // The quantum keeper; reset_as_at(t) leaves it as a reset at time t would
  // have (its next sync point the global quantum's next boundary after t).
  class Keeper final : public tlm_utils::tlm_quantumkeeper {
   public:
    void reset_as_at(const sc_core::sc_time& t);
  };

  [[nodiscard]] bool wait_slices(const sc_core::sc_time& slice);

  Keeper qk_;
  const sc_core::sc_event* nic_wrote_ = nullptr;
  std::optional<std::chrono::nanoseconds> deadline_;
  bool done_ = false;
  std::string error_;
};

}  // namespace syncfab::vp

#include "syncfab/driver/rtl_device.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/hex.hpp"

namespace syncfab::driver {

namespace {

using hw::hex;

tb::Task<bool> watch_line(tb::Sim& sim, tb::Clock& clk, const std::function<bool()>& line,
                          tb::SimTime deadline) {
  // The previous wait may have returned in the ReadOnly phase of this very
  // step (a polling loop calls again without a CSR access in between): the
  // line is settled then, and awaiting ReadOnly again is not allowed.
  if (!sim.in_readonly()) {
    co_await tb::ReadOnly();
  }
  for (;;) {
    if (line()) {
      co_return true;
    }
    if (sim.now() >= deadline) {
      co_return false;
    }
    co_await tb::RisingEdge(clk);
    co_await tb::ReadOnly();
  }
}

}  // namespace

RtlDevice::RtlDevice(tb::Sim& sim, tb::Clock& clk, tb::ApbMaster& apb, std::function<bool()> intr,
                     hw::DmaMemory& memory, std::uint32_t csr_window_bytes)
    : sim_(&sim),
      clk_(&clk),
      apb_(&apb),
      intr_(std::move(intr)),
      memory_(&memory),
      window_(csr_window_bytes) {
  if (!intr_) {
    throw std::invalid_argument("RtlDevice: the interrupt line must be bound");
  }
  if (window_ == 0 || window_ % 4 != 0) {
    throw std::invalid_argument("RtlDevice: CSR window of " + std::to_string(window_) +
                                " bytes is not a non-zero multiple of 4");
  }
}

void RtlDevice::check_offset(std::uint32_t offset, const char* what) const {
  if (offset % 4 != 0 || offset >= window_) {
    throw hw::BusError(std::string("CSR ") + what + " at offset " + hex(offset) +
                       ": not a 32-bit aligned offset inside the " + std::to_string(window_) +
                       "-byte CSR window");
  }
}

std::uint32_t RtlDevice::read32(std::uint32_t offset) {
  check_offset(offset, "read");
  const tb::ApbResult r = sim_->run(apb_->read(offset), "RtlDevice::read32");
  if (r.error) {
    throw hw::BusError("CSR read at offset " + hex(offset) + ": the device answered PSLVERR");
  }
  return r.data;
}

void RtlDevice::write32(std::uint32_t offset, std::uint32_t value) {
  check_offset(offset, "write");
  const tb::ApbResult r = sim_->run(apb_->write(offset, value), "RtlDevice::write32");
  if (r.error) {
    throw hw::BusError("CSR write of " + hex(value) + " at offset " + hex(offset) +
                       ": the device answered PSLVERR");
  }
}

bool RtlDevice::wait_interrupt(std::chrono::nanoseconds timeout) {
  const auto ns = timeout.count() < 0 ? 0 : static_cast<std::uint64_t>(timeout.count());
  const tb::SimTime deadline = sim_->now() + tb::to_ps(ns, tb::Unit::ns);
  return sim_->run(watch_line(*sim_, *clk_, intr_, deadline), "RtlDevice::wait_interrupt");
}

}  // namespace syncfab::driver

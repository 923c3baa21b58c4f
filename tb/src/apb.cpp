#include "syncfab/tb/apb.hpp"

#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "syncfab/tb/check.hpp"

namespace syncfab::tb {

ApbMaster::ApbMaster(Clock& clk, ApbPins pins, std::uint32_t max_wait_cycles)
    : clk_(&clk), pins_(std::move(pins)), max_wait_(max_wait_cycles) {
  const bool complete = pins_.psel && pins_.penable && pins_.pwrite && pins_.paddr &&
                        pins_.pwdata && pins_.pstrb && pins_.prdata && pins_.pready &&
                        pins_.pslverr;
  if (!complete) {
    throw std::invalid_argument("ApbMaster: every APB pin must be bound");
  }
}

void ApbMaster::idle() {
  pins_.psel(false);
  pins_.penable(false);
}

Task<ApbResult> ApbMaster::write(std::uint32_t addr, std::uint32_t data, std::uint8_t strb) {
  return access(true, addr, data, strb);
}

Task<ApbResult> ApbMaster::read(std::uint32_t addr) { return access(false, addr, 0, 0); }

Task<ApbResult> ApbMaster::access(bool write, std::uint32_t addr, std::uint32_t data,
                                  std::uint8_t strb) {
  co_await lock_.acquire();
  LockGuard hold(lock_);
  // Inputs may not change in ReadOnly: start after the next edge.
  if (clk_->sim().in_readonly()) {
    co_await RisingEdge(*clk_);
  }

  // Setup phase.
  pins_.psel(true);
  pins_.penable(false);
  pins_.pwrite(write);
  pins_.paddr(addr);
  pins_.pwdata(write ? data : 0);
  pins_.pstrb(write ? strb : 0);
  co_await RisingEdge(*clk_);

  // Access phase: completes at the first edge where PREADY is high.
  pins_.penable(true);
  ApbResult r;
  for (std::uint32_t wait = 0;; ++wait) {
    co_await ReadOnly();
    const bool ready = pins_.pready();
    if (ready) {
      r.error = pins_.pslverr();
      if (!write) {
        r.data = pins_.prdata();
      }
    }
    co_await RisingEdge(*clk_);
    if (ready) {
      break;
    }
    if (wait >= max_wait_) {
      std::ostringstream os;
      os << "APB " << (write ? "write" : "read") << " to 0x" << std::hex << std::setw(8)
         << std::setfill('0') << addr << std::dec << ": PREADY stayed low for " << max_wait_
         << " cycles (at " << format_time(clk_->sim().now()) << ")";
      throw TestFailure(os.str());
    }
  }
  pins_.psel(false);
  pins_.penable(false);
  ++accesses_;
  co_return r;
}

}  // namespace syncfab::tb

// Errors of the hardware-access layer. Each message names what was wrong
// (which offset, which address, which value), so a failing run explains
// itself. Device backends (RTL, golden model, mock) throw them, and the driver
// lets them through.
#pragma once

#include <stdexcept>

namespace syncfab::hw {

// A register access the device refused: outside the register map, not
// 32-bit aligned, or answered with a bus error (APB PSLVERR).
class BusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A DMA access outside the memory the device can reach.
class DmaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace syncfab::hw

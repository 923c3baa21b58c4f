// Errors the driver adds to those of the hardware-access layer
// (syncfab/hw/errors.hpp: BusError, DmaError). Each message names what was
// wrong, so a failing run explains itself.
#pragma once

#include <stdexcept>

namespace syncfab::driver {

// The device is not the block (or not the register map version) this driver
// was built for.
class DeviceMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace syncfab::driver

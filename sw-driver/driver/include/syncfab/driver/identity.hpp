// The device identity check: the first words of the CSR block say which
// block it is (ID.MAGIC) and which register map version it implements
// (VERSION.MAJOR.MINOR). The driver only talks to a device whose map matches
// the header it was built with.
#pragma once

#include <cstdint>
#include <string>

#include "syncfab/driver/device.hpp"

namespace syncfab::driver {

struct Identity {
  std::uint32_t magic = 0;
  std::uint32_t major = 0;
  std::uint32_t minor = 0;

  friend bool operator==(const Identity&, const Identity&) = default;
};

// What this driver was built for (from the generated header).
Identity expected_identity() noexcept;

// Reads ID and VERSION from the device (no checks).
Identity read_identity(Device& device);

// "block type 'SFNC' (0x53464e43), register map version 1.0"
std::string describe(const Identity& id);

// Reads the device's identity and returns it if the block type and the major
// version are the ones this driver was built with (the minor version may
// differ: minor versions only add registers). Otherwise throws
// DeviceMismatch naming the expected and the found block type and version.
Identity check_identity(Device& device);

}  // namespace syncfab::driver

// The device identity check: the first words of the CSR block say which
// block it is (ID.MAGIC) and which register map version it implements
// (VERSION.MAJOR.MINOR). The driver only talks to a device whose map matches
// the header it was built with.
#pragma once

#include <cstdint>
#include <string>

#include "syncfab/hw/device.hpp"

namespace syncfab::driver {

struct Identity {
  std::uint32_t magic = 0;
  std::uint32_t major = 0;
  std::uint32_t minor = 0;

  friend bool operator==(const Identity&, const Identity&) = default;
};

// What this driver was built for (from the generated header).
Identity expected_identity() noexcept;

// Reads ID and VERSION from the device (no checks; the same two words in
// every syncfab register block).
Identity read_identity(hw::Device& device);

// "block type 'SFNC' (0x53464e43), register map version 1.0"
std::string describe(const Identity& id);

// Reads the device's identity and returns it if the block type and the major
// version are the ones this driver was built with (the minor version may
// differ: minor versions only add registers). Otherwise throws
// DeviceMismatch naming the expected and the found block type and version.
Identity check_identity(hw::Device& device);

// The same check for another block type (the switch): every syncfab block
// starts with ID at 0x000 and VERSION (MAJOR[31:16], MINOR[15:0]) at 0x004.
Identity check_identity(hw::Device& device, const Identity& want);

}  // namespace syncfab::driver

#include "syncfab/driver/identity.hpp"

#include <string>

#include "syncfab/driver/errors.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/hex.hpp"
#include "syncfab/hw/nic_regs.hpp"

namespace syncfab::driver {

namespace {

// The magic as the four characters it spells (most significant byte first),
// or dots where a byte is not printable ASCII.
std::string magic_text(std::uint32_t magic) {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) {
    const auto c = static_cast<char>((magic >> shift) & 0xffu);
    s += (c >= 0x20 && c < 0x7f) ? c : '.';
  }
  return s;
}

}  // namespace

Identity expected_identity() noexcept {
  return Identity{hw::nic::kMagic, hw::nic::kVersionMajor, hw::nic::kVersionMinor};
}

Identity read_identity(hw::Device& device) {
  const hw::Csr csr(device);
  const std::uint32_t version = csr.read(hw::nic::VERSION);
  return Identity{csr.read(hw::nic::ID_MAGIC), hw::nic::VERSION_MAJOR.get(version),
                  hw::nic::VERSION_MINOR.get(version)};
}

std::string describe(const Identity& id) {
  return "block type '" + magic_text(id.magic) + "' (" + hw::hex(id.magic) +
         "), register map version " + std::to_string(id.major) + "." + std::to_string(id.minor);
}

Identity check_identity(hw::Device& device) { return check_identity(device, expected_identity()); }

Identity check_identity(hw::Device& device, const Identity& want) {
  const Identity found = read_identity(device);
  const char* what = nullptr;
  if (found.magic != want.magic) {
    what = "wrong block type";
  } else if (found.major != want.major) {
    what = "incompatible register map (major version differs)";
  }
  if (what != nullptr) {
    throw DeviceMismatch("device mismatch: " + std::string(what) + ": this driver was built for " +
                         describe(want) + " (any " + std::to_string(want.major) +
                         ".x), the device is " + describe(found));
  }
  return found;
}

}  // namespace syncfab::driver

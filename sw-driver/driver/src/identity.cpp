#include "syncfab/driver/identity.hpp"

#include <string>

#include "hex.hpp"
#include "syncfab/driver/csr.hpp"
#include "syncfab/driver/errors.hpp"
#include "syncfab/driver/nic_regs.hpp"

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
  return Identity{nic::kMagic, nic::kVersionMajor, nic::kVersionMinor};
}

Identity read_identity(Device& device) {
  const Csr csr(device);
  const std::uint32_t version = csr.read(nic::VERSION);
  return Identity{csr.read(nic::ID_MAGIC), nic::VERSION_MAJOR.get(version),
                  nic::VERSION_MINOR.get(version)};
}

std::string describe(const Identity& id) {
  return "block type '" + magic_text(id.magic) + "' (" + detail::hex(id.magic) +
         "), register map version " + std::to_string(id.major) + "." + std::to_string(id.minor);
}

Identity check_identity(Device& device) { return check_identity(device, expected_identity()); }

Identity check_identity(Device& device, const Identity& want) {
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

#include "syncfab/vp/memory_target.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace syncfab::vp {

MemoryTarget::MemoryTarget(const sc_core::sc_module_name& name, std::uint64_t base,
                           std::size_t size)
    : sc_core::sc_module(name), socket("socket"), base_(base), bytes_(size) {
  if (size == 0 || base > std::numeric_limits<std::uint64_t>::max() - (size - 1)) {
    throw std::invalid_argument(std::string(this->name()) + ": region of " + std::to_string(size) +
                                " bytes at " + std::to_string(base) + " is empty or wraps the bus");
  }
  socket.register_b_transport(this, &MemoryTarget::b_transport);
  socket.register_get_direct_mem_ptr(this, &MemoryTarget::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &MemoryTarget::transport_dbg);
}

bool MemoryTarget::locate(tlm::tlm_generic_payload& t, std::size_t& offset) {
  const std::uint64_t a = t.get_address();
  const std::uint64_t len = t.get_data_length();
  if (a < base_ || len > bytes_.size() || a - base_ > bytes_.size() - len) {
    refuse(t, TlmError::kAddress, errors_, name(), "outside the memory");
    return false;
  }
  offset = static_cast<std::size_t>(a - base_);
  return true;
}

void MemoryTarget::b_transport(int /*id*/, tlm::tlm_generic_payload& t,
                               sc_core::sc_time& /*delay*/) {
  if (!t.is_read() && !t.is_write()) {
    refuse(t, TlmError::kCommand, errors_, name(), "only reads and writes");
    return;
  }
  if (t.get_streaming_width() < t.get_data_length()) {
    refuse(t, TlmError::kBurst, errors_, name(), "no streaming");
    return;
  }
  if (t.get_byte_enable_ptr() != nullptr) {
    refuse(t, TlmError::kByteEnable, errors_, name(), "no byte enables");
    return;
  }
  std::size_t off = 0;
  if (!locate(t, off)) {
    return;
  }
  if (t.is_read()) {
    std::memcpy(t.get_data_ptr(), &bytes_[off], t.get_data_length());
  } else {
    std::memcpy(&bytes_[off], t.get_data_ptr(), t.get_data_length());
  }
  t.set_dmi_allowed(true);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool MemoryTarget::get_direct_mem_ptr(int /*id*/, tlm::tlm_generic_payload& /*t*/,
                                      tlm::tlm_dmi& dmi) {
  dmi.set_dmi_ptr(bytes_.data());
  dmi.set_start_address(base_);
  dmi.set_end_address(base_ + bytes_.size() - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

unsigned MemoryTarget::transport_dbg(int /*id*/, tlm::tlm_generic_payload& t) {
  const std::uint64_t a = t.get_address();
  if (a < base_ || a - base_ >= bytes_.size()) {
    return 0;
  }
  const auto off = static_cast<std::size_t>(a - base_);
  const auto n =
      static_cast<unsigned>(std::min<std::uint64_t>(t.get_data_length(), bytes_.size() - off));
  if (t.is_read()) {
    std::memcpy(t.get_data_ptr(), &bytes_[off], n);
  } else if (t.is_write()) {
    std::memcpy(&bytes_[off], t.get_data_ptr(), n);
  }
  return n;
}

}  // namespace syncfab::vp

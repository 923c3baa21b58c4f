#include "syncfab/vp/memory_port.hpp"

#include <cstring>
#include <sstream>

#include <syncfab/hw/errors.hpp>

#include "syncfab/vp/tlm_check.hpp"

namespace syncfab::vp {

MemoryPort::MemoryPort(const sc_core::sc_module_name& name)
    : sc_core::sc_module(name), socket("socket") {
  socket.register_invalidate_direct_mem_ptr(this, &MemoryPort::invalidate);
}

void MemoryPort::read(hw::BusAddr addr, std::span<std::byte> out) const {
  access(tlm::TLM_READ_COMMAND, addr, reinterpret_cast<unsigned char*>(out.data()), out.size());
}

void MemoryPort::write(hw::BusAddr addr, std::span<const std::byte> data) {
  written_.notify();
  // A payload's data pointer is not const; a write command only reads it.
  access(tlm::TLM_WRITE_COMMAND, addr,
         const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(data.data())),
         data.size());
}

void MemoryPort::access(tlm::tlm_command cmd, hw::BusAddr addr, unsigned char* data,
                        std::size_t len) const {
  const bool is_read = cmd == tlm::TLM_READ_COMMAND;
  if (dmi_valid_ && len != 0 && addr >= dmi_.get_start_address() &&
      addr - dmi_.get_start_address() <= dmi_.get_end_address() - dmi_.get_start_address() &&
      len - 1 <= dmi_.get_end_address() - addr &&
      (is_read ? dmi_.is_read_allowed() : dmi_.is_write_allowed())) {
    unsigned char* p = dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address());
    if (is_read) {
      std::memcpy(data, p, len);
    } else {
      std::memcpy(p, data, len);
    }
    ++dmi_accesses_;
    return;
  }
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(static_cast<unsigned>(len));
  t.set_streaming_width(static_cast<unsigned>(len));
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(t, delay);
  ++transactions_;
  if (t.is_response_error()) {
    std::ostringstream s;
    s << name() << ": " << (is_read ? "read" : "write") << " of " << len << " bytes at 0x"
      << std::hex << addr << std::dec << ": " << to_string(t.get_response_status());
    throw hw::DmaError(s.str());
  }
  if (t.is_dmi_allowed() && !dmi_valid_) {
    tlm::tlm_generic_payload q;
    q.set_address(addr);
    q.set_command(cmd);
    dmi_.init();
    dmi_valid_ = socket->get_direct_mem_ptr(q, dmi_);
  }
}

void MemoryPort::invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (dmi_valid_ && start <= dmi_.get_end_address() && end >= dmi_.get_start_address()) {
    dmi_valid_ = false;
  }
}

}  // namespace syncfab::vp

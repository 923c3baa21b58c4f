// Host memory as a TLM-2.0 target: one region [base, base + size) that the
// host's CPU port and the NIC's DMA port both reach (a multi-passthrough
// socket: any number of initiators bind to it). Grants DMI on the whole
// region, so after the first access both sides copy bytes directly.
// Refuses, with the TLM error response and a count: a command other than
// read/write, streaming (streaming width below the data length), byte
// enables, and any byte outside the region.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "syncfab/vp/tlm_check.hpp"

namespace syncfab::vp {

class MemoryTarget final : public sc_core::sc_module {
 public:
  // std::invalid_argument if size is 0 or the region wraps the 64-bit bus.
  MemoryTarget(const sc_core::sc_module_name& name, std::uint64_t base, std::size_t size);

  tlm_utils::multi_passthrough_target_socket<MemoryTarget> socket;

  [[nodiscard]] std::uint64_t base() const noexcept { return base_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }
  [[nodiscard]] const TlmErrorCounts& errors() const noexcept { return errors_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& t);
  // Offset of t's bytes in bytes_, or refuses t and returns false.
  bool locate(tlm::tlm_generic_payload& t, std::size_t& offset);

  std::uint64_t base_;
  std::vector<unsigned char> bytes_;
  TlmErrorCounts errors_;
};

}  // namespace syncfab::vp

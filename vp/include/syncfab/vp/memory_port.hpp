// hw::DmaMemory over a TLM-2.0 initiator socket: what the NIC's DMA engine
// and the host's CPU see of host memory. Uses DMI once the target grants it
// (a byte copy per access), b_transport otherwise; an error response becomes
// hw::DmaError naming the access and the response, as every other backend's
// memory throws. The port takes no simulated time: the golden model counts
// its DMA cycles itself, and the host's loads and stores are not timed.
#pragma once

#include <cstdint>
#include <span>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <syncfab/hw/device.hpp>

namespace syncfab::vp {

class MemoryPort final : public sc_core::sc_module, public hw::DmaMemory {
 public:
  explicit MemoryPort(const sc_core::sc_module_name& name);

  // Mutable: reading memory is const to its users but is a transaction here.
  mutable tlm_utils::simple_initiator_socket<MemoryPort> socket;

  void read(hw::BusAddr addr, std::span<std::byte> out) const override;
  void write(hw::BusAddr addr, std::span<const std::byte> data) override;

  // Notified (immediately) by every write through this port, whatever its
  // outcome: what a host waiting for its NIC's DMA wakes on.
  [[nodiscard]] const sc_core::sc_event& written() const noexcept { return written_; }

  [[nodiscard]] std::uint64_t dmi_accesses() const noexcept { return dmi_accesses_; }
  [[nodiscard]] std::uint64_t transactions() const noexcept { return transactions_; }

 private:
  void access(tlm::tlm_command cmd, hw::BusAddr addr, unsigned char* data, std::size_t len) const;
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end);

  sc_core::sc_event written_;
  mutable tlm::tlm_dmi dmi_;
  mutable bool dmi_valid_ = false;
  mutable std::uint64_t dmi_accesses_ = 0;
  mutable std::uint64_t transactions_ = 0;
};

}  // namespace syncfab::vp

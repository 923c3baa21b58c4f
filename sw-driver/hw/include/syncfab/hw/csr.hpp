// Register access on a Device through the generated register maps
// (nic_regs.hpp, switch_regs.hpp): whole registers, single fields, 64-bit
// lo/hi pairs and the NIC's HDQ window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "syncfab/hw/device.hpp"
#include "syncfab/hw/nic_regs.hpp"

namespace syncfab::hw {

class Csr {
 public:
  struct FieldValue {
    Field field;
    std::uint32_t value;
  };

  explicit Csr(Device& device) noexcept : device_(&device) {}

  [[nodiscard]] Device& device() const noexcept { return *device_; }

  [[nodiscard]] std::uint32_t read(Reg reg) const { return device_->read32(reg.offset); }
  void write(Reg reg, std::uint32_t value) { device_->write32(reg.offset, value); }
  // One write of the whole register with the given fields set and every other
  // bit 0. std::invalid_argument if a field belongs to another register or a
  // value does not fit its field.
  void write(Reg reg, std::initializer_list<FieldValue> fields);

  [[nodiscard]] std::uint32_t read(const Field& field) const { return field.get(read(field.reg)); }
  // Read-modify-write of one field. Not for registers with write-1-to-clear
  // or pulse fields (INTR_STATUS, CTRL's pulses, HDQ_POST): writing back what
  // was read would clear or trigger them; use write(reg, {fields}) there.
  void modify(const Field& field, std::uint32_t value);

  // 64-bit value split over a _LO/_HI register pair (lo written first).
  [[nodiscard]] std::uint64_t read64(Reg lo, Reg hi) const;
  void write64(Reg lo, Reg hi, std::uint64_t value);

  // HDQ descriptor window, word by word. std::out_of_range naming the word
  // and the window size if the descriptor does not fit.
  void write_hdq_window(std::span<const std::uint32_t> words, std::size_t first_word = 0);
  [[nodiscard]] std::uint32_t read_hdq_window(std::size_t word) const;

 private:
  Device* device_;
};

}  // namespace syncfab::hw

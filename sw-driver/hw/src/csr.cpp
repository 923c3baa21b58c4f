#include "syncfab/hw/csr.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::hw {

void Csr::write(Reg reg, std::initializer_list<FieldValue> fields) {
  std::uint32_t v = 0;
  for (const auto& fv : fields) {
    if (fv.field.reg.offset != reg.offset) {
      throw std::invalid_argument("field " + std::string(fv.field.name) +
                                  " is not a field of register " + std::string(reg.name));
    }
    v |= fv.field.put(fv.value);
  }
  write(reg, v);
}

void Csr::modify(const Field& field, std::uint32_t value) {
  const std::uint32_t bits = field.put(value);
  const std::uint32_t old = read(field.reg);
  write(field.reg, (old & ~field.mask) | bits);
}

std::uint64_t Csr::read64(Reg lo, Reg hi) const {
  const std::uint64_t l = read(lo);
  const std::uint64_t h = read(hi);
  return (h << 32) | l;
}

void Csr::write64(Reg lo, Reg hi, std::uint64_t value) {
  write(lo, static_cast<std::uint32_t>(value));
  write(hi, static_cast<std::uint32_t>(value >> 32));
}

void Csr::write_hdq_window(std::span<const std::uint32_t> words, std::size_t first_word) {
  if (first_word > nic::kHdqWindowWords || words.size() > nic::kHdqWindowWords - first_word) {
    throw std::out_of_range("HDQ window: " + std::to_string(words.size()) + " words from word " +
                            std::to_string(first_word) + " do not fit the " +
                            std::to_string(nic::kHdqWindowWords) + "-word window");
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    device_->write32(static_cast<std::uint32_t>(nic::kHdqWindowOffset +
                                                (first_word + i) * sizeof(std::uint32_t)),
                     words[i]);
  }
}

std::uint32_t Csr::read_hdq_window(std::size_t word) const {
  if (word >= nic::kHdqWindowWords) {
    throw std::out_of_range("HDQ window: word " + std::to_string(word) + " is outside the " +
                            std::to_string(nic::kHdqWindowWords) + "-word window");
  }
  return device_->read32(
      static_cast<std::uint32_t>(nic::kHdqWindowOffset + word * sizeof(std::uint32_t)));
}

}  // namespace syncfab::hw

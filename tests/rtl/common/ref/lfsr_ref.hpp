// Reference model of lfsr, from the interface spec only: Galois, shifting
// right, next = (s >> 1) ^ (s[0] ? Mask : 0) with the spec's toggle-mask table;
// reset loads Seed; seed_valid loads seed_i (a zero seed loads Seed), taking
// priority over en; en steps once per cycle.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace syncfab::tb::ref {

// Index = width; 0 where the spec has no entry.
inline constexpr std::array<std::uint64_t, 33> kLfsrMasks = {
    0,         0,          0,          0x6,        0xC,       0x14,      0x30,
    0x60,      0xB8,       0x110,      0x240,      0x500,     0x829,     0x100D,
    0x2015,    0x6000,     0xD008,     0x12000,    0x20400,   0x40023,   0x90000,
    0x140000,  0x300000,   0x420000,   0xE10000,   0x1200000, 0x2000023, 0x4000013,
    0x9000000, 0x14000000, 0x20000029, 0x48000000, 0x80200003};

inline std::uint64_t lfsr_mask(unsigned width) {
  if (width >= kLfsrMasks.size() || kLfsrMasks[width] == 0) {
    throw std::invalid_argument("lfsr: no mask for width " + std::to_string(width));
  }
  return kLfsrMasks[width];
}

inline std::uint64_t lfsr_next(std::uint64_t s, std::uint64_t mask) {
  return (s >> 1) ^ ((s & 1U) != 0 ? mask : 0);
}

class Lfsr {
 public:
  Lfsr(unsigned width, std::uint64_t seed)
      : mask_(lfsr_mask(width)),
        all_(width == 64 ? ~0ULL : (1ULL << width) - 1),
        seed_(seed & all_) {
    state_ = seed_;
  }
  [[nodiscard]] std::uint64_t state() const noexcept { return state_; }
  void edge(bool en, bool seed_valid, std::uint64_t seed_in) {
    if (seed_valid) {
      const std::uint64_t s = seed_in & all_;
      state_ = s == 0 ? seed_ : s;
    } else if (en) {
      state_ = lfsr_next(state_, mask_);
    }
  }
  void reset() noexcept { state_ = seed_; }

 private:
  std::uint64_t mask_;
  std::uint64_t all_;
  std::uint64_t seed_;
  std::uint64_t state_;
};

}  // namespace syncfab::tb::ref

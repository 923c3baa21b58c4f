// Packed per-priority vectors ([NumPrio-1:0][W-1:0]) on Verilator ports, for
// the PFC co-simulation tests. Verilator maps a port to CData/SData/IData/
// QData up to 64 bits and to VlWide<N> (32-bit words, word 0 = bits 31:0)
// above, so the width decides the C++ type; these helpers hide which.
#pragma once

#include <verilated.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <type_traits>

namespace syncfab::tb::pfc {

inline std::uint64_t low_bits(unsigned n) {
  return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}

// Writes entry i of `v` into bits [i*width +: width] of `port` (all others 0).
template <class Port, class T>
void pack(Port& port, std::span<const T> v, unsigned width) {
  if constexpr (std::is_integral_v<Port>) {
    std::uint64_t out = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      out |= (static_cast<std::uint64_t>(v[i]) & low_bits(width)) << (i * width);
    }
    port = static_cast<Port>(out);
  } else {
    WData* w = port.data();
    std::fill(w, w + sizeof(Port) / sizeof(EData), EData{0});
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint64_t val = static_cast<std::uint64_t>(v[i]) & low_bits(width);
      for (unsigned b = 0; b < width;) {
        const std::size_t bit = i * width + b;
        const unsigned off = bit % 32;
        const unsigned n = std::min(width - b, 32U - off);
        w[bit / 32] |= static_cast<EData>(((val >> b) & low_bits(n)) << off);
        b += n;
      }
    }
  }
}

// Bits [i*width +: width] of `port`.
template <class Port>
std::uint64_t field(const Port& port, std::size_t i, unsigned width) {
  if constexpr (std::is_integral_v<Port>) {
    return (static_cast<std::uint64_t>(port) >> (i * width)) & low_bits(width);
  } else {
    const WData* w = port.data();
    std::uint64_t out = 0;
    for (unsigned b = 0; b < width;) {
      const std::size_t bit = i * width + b;
      const unsigned off = bit % 32;
      const unsigned n = std::min(width - b, 32U - off);
      out |= ((static_cast<std::uint64_t>(w[bit / 32]) >> off) & low_bits(n)) << b;
      b += n;
    }
    return out;
  }
}

// The random choices every PFC stimulus generator is built from; `all` is
// the mask of the block's NumPrio priorities.
class Picks {
 public:
  Picks(std::mt19937_64& rng, std::uint64_t all) : rng_(rng), all_(all) {}
  bool chance(unsigned one_in) { return pick(one_in) == 0; }
  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
  std::uint32_t any(std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng_);
  }
  std::uint64_t mask() { return rng_() & all_; }

 protected:
  std::mt19937_64& rng_;

 private:
  std::uint64_t all_;
};

}  // namespace syncfab::tb::pfc

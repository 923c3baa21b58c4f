// 3D torus of X x Y x Z switches, one NIC each; node n sits at
// (n mod X, (n / X) mod Y, n / (X*Y)). Dimension-order routing (X, then Y,
// then Z, each the shorter way round the ring) as in the paper's evaluation.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace syncfab::model {

class Torus3D {
 public:
  // std::invalid_argument if a dimension is 0.
  Torus3D(unsigned x, unsigned y, unsigned z);

  [[nodiscard]] unsigned nodes() const noexcept { return dims_[0] * dims_[1] * dims_[2]; }
  [[nodiscard]] std::array<unsigned, 3> coords(unsigned node) const;
  [[nodiscard]] unsigned node_at(const std::array<unsigned, 3>& c) const;
  // The switches a packet visits from a to b under dimension-order routing,
  // a first, b last.
  [[nodiscard]] std::vector<unsigned> route(unsigned a, unsigned b) const;
  // Links crossed from a to b (route length - 1).
  [[nodiscard]] unsigned hops(unsigned a, unsigned b) const;
  // Largest hops() over all pairs.
  [[nodiscard]] unsigned diameter() const noexcept;

 private:
  std::array<unsigned, 3> dims_;
};

}  // namespace syncfab::model

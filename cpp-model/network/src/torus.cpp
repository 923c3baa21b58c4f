#include "syncfab/model/torus.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::model {

Torus3D::Torus3D(unsigned x, unsigned y, unsigned z) : dims_{x, y, z} {
  if (x == 0 || y == 0 || z == 0) {
    throw std::invalid_argument("torus " + std::to_string(x) + "x" + std::to_string(y) + "x" +
                                std::to_string(z) + ": every dimension must be at least 1");
  }
}

std::array<unsigned, 3> Torus3D::coords(unsigned node) const {
  if (node >= nodes()) {
    throw std::out_of_range("torus node " + std::to_string(node) + " of " +
                            std::to_string(nodes()));
  }
  return {node % dims_[0], (node / dims_[0]) % dims_[1], node / (dims_[0] * dims_[1])};
}

unsigned Torus3D::node_at(const std::array<unsigned, 3>& c) const {
  return c[0] + dims_[0] * (c[1] + dims_[1] * c[2]);
}

std::vector<unsigned> Torus3D::route(unsigned a, unsigned b) const {
  auto cur = coords(a);
  const auto dst = coords(b);
  std::vector<unsigned> path{a};
  for (unsigned d = 0; d < 3; ++d) {
    const unsigned n = dims_[d];
    const unsigned fwd = (dst[d] + n - cur[d]) % n;  // steps going +
    const bool plus = fwd <= n - fwd;                // ties go +
    while (cur[d] != dst[d]) {
      cur[d] = plus ? (cur[d] + 1) % n : (cur[d] + n - 1) % n;
      path.push_back(node_at(cur));
    }
  }
  return path;
}

unsigned Torus3D::hops(unsigned a, unsigned b) const {
  const auto ca = coords(a);
  const auto cb = coords(b);
  unsigned h = 0;
  for (unsigned d = 0; d < 3; ++d) {
    const unsigned fwd = (cb[d] + dims_[d] - ca[d]) % dims_[d];
    h += std::min(fwd, dims_[d] - fwd);
  }
  return h;
}

unsigned Torus3D::diameter() const noexcept { return dims_[0] / 2 + dims_[1] / 2 + dims_[2] / 2; }

}  // namespace syncfab::model

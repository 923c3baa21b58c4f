#include <array>
#include <exception>
#include <thread>
#include <vector>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/unicast.hpp"
#include "unicast_common.hpp"

namespace syncfab::sm {

namespace {
constexpr int kUnset = -1;

PortNum plus_port(int d) { return static_cast<PortNum>(2 * d + 1); }
PortNum minus_port(int d) { return static_cast<PortNum>(2 * d + 2); }

// The switch at the far end of port p of switch s, or kNoSwitch.
SwitchIdx step(const Fabric& f, SwitchIdx s, PortNum p) {
  const NodeId node = f.switch_node(s);
  if (p > f.num_ports(node)) {
    return kNoSwitch;
  }
  const PortPeer o = f.peer(node, p);
  return o.connected() && f.is_switch(o.node) ? f.switch_index(o.node) : kNoSwitch;
}
}  // namespace

TorusLayout torus_layout(const Fabric& f) {
  const std::size_t n = f.switch_count();
  if (n == 0) {
    throw FabricError("torus layout: no switches");
  }
  TorusLayout t;
  for (int d = 0; d < 3; ++d) {
    SwitchIdx s = 0;
    int len = 0;
    do {
      s = step(f, s, plus_port(d));
      ++len;
    } while (s != kNoSwitch && s != 0 && len <= static_cast<int>(n));
    t.dims[d] = s == 0 ? len : 1;
  }
  if (static_cast<std::size_t>(t.dims[0]) * t.dims[1] * t.dims[2] != n) {
    throw FabricError("torus layout: rings of " + std::to_string(t.dims[0]) + "x" +
                      std::to_string(t.dims[1]) + "x" + std::to_string(t.dims[2]) +
                      " from the first switch do not cover the " + std::to_string(n) + " switches");
  }
  t.coord.assign(n, {kUnset, kUnset, kUnset});
  t.coord[0] = {0, 0, 0};
  std::vector<SwitchIdx> queue{0};
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const SwitchIdx s = queue[head];
    for (int d = 0; d < 3; ++d) {
      if (t.dims[d] == 1) {
        continue;
      }
      for (int dir : {1, -1}) {
        const SwitchIdx u = step(f, s, dir == 1 ? plus_port(d) : minus_port(d));
        auto c = t.coord[s];
        c[d] = (c[d] + dir + t.dims[d]) % t.dims[d];
        if (u == kNoSwitch) {
          throw FabricError("torus layout: \"" + f.name(f.switch_node(s)) +
                            "\" has no link on port " +
                            std::to_string(dir == 1 ? plus_port(d) : minus_port(d)));
        }
        if (t.coord[u][0] == kUnset) {
          t.coord[u] = c;
          queue.push_back(u);
        } else if (t.coord[u] != c) {
          throw FabricError("torus layout: \"" + f.name(f.switch_node(u)) +
                            "\" reached at two different coordinates");
        }
      }
    }
  }
  if (queue.size() != n) {
    throw FabricError("torus layout: only " + std::to_string(queue.size()) + " of " +
                      std::to_string(n) + " switches reached");
  }
  return t;
}

Lft route_dor(const Fabric& f, const TorusLayout& layout) {
  Lft lft(f);
  const std::size_t n = f.switch_count();
  const detail::LidsBySwitch by = detail::lids_by_switch(f);
  // Source switch outermost: the table is stored per switch, so each row is
  // computed in a buffer and written front to back (destination outermost
  // strides a row per entry and made this 20 times slower on the
  // 12,000-switch torus).
  // toward[d][a * k + b]: the port from coordinate a to b on a ring of
  // dimension d (0 when a == b), looked up instead of a modulo per pair.
  std::array<std::vector<PortNum>, 3> toward;
  for (int d = 0; d < 3; ++d) {
    const int k = layout.dims[d];
    toward[d].assign(static_cast<std::size_t>(k) * k, 0);
    for (int a = 0; a < k; ++a) {
      for (int b = 0; b < k; ++b) {
        const int ahead = (b - a + k) % k;
        toward[d][a * k + b] = a == b ? 0 : (2 * ahead <= k ? plus_port(d) : minus_port(d));
      }
    }
  }
  auto rows = [&](SwitchIdx first, SwitchIdx last) {
    std::vector<PortNum> row(lft.dest_count(), kNoRoute);
    for (SwitchIdx s = first; s < last; ++s) {
      const auto& sc = layout.coord[s];
      for (SwitchIdx t = 0; t < n; ++t) {
        if (s == t) {
          continue;
        }
        const auto& tc = layout.coord[t];
        PortNum p = 0;
        for (int d = 0; p == 0; ++d) {
          p = toward[d][sc[d] * layout.dims[d] + tc[d]];
        }
        for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
          row[by.lids[i]] = p;
        }
      }
      for (std::uint32_t i = by.offset[s]; i < by.offset[s + 1]; ++i) {
        row[by.lids[i]] = kNoRoute;  // route_local's, below
      }
      lft.set_row(s, row);
      detail::route_local(f, s, by, lft);
    }
  };
  // Two threads on large tori, each on its own rows. The split row starts
  // on a byte boundary (an even row when rows have an odd entry count), so
  // no table byte is written by both.
  constexpr std::size_t kThreadSwitches = 1000;
  if (n >= kThreadSwitches && std::thread::hardware_concurrency() >= 2) {
    const auto half = static_cast<SwitchIdx>(n / 2 & ~std::size_t{1});
    std::exception_ptr error;
    {
      std::jthread other([&] {
        try {
          rows(half, static_cast<SwitchIdx>(n));
        } catch (...) {
          error = std::current_exception();
        }
      });
      rows(0, half);
    }
    if (error) {
      std::rethrow_exception(error);
    }
  } else {
    rows(0, static_cast<SwitchIdx>(n));
  }
  return lft;
}

VlAssignment dor_dateline_vls(const TorusLayout& layout) {
  // Taking port p at switch s crosses dimension d's dateline when it is the
  // wrap link of that ring.
  auto crosses = [layout](SwitchIdx s, PortNum p) {
    if (p < 1 || p > 6) {
      return false;
    }
    const int d = (p - 1) / 2;
    const int c = layout.coord[s][d];
    return (p % 2 == 1) ? c == layout.dims[d] - 1 : c == 0;
  };
  VlAssignment v;
  v.lanes = 2;
  v.first_ignores_dst = true;
  v.next_ignores_dst = true;
  v.first = [crosses](SwitchIdx src, Dest, PortNum out) -> std::uint8_t {
    return crosses(src, out) ? 1 : 0;
  };
  v.next = [crosses](SwitchIdx at, PortNum in, PortNum out, std::uint8_t vl, Dest) -> std::uint8_t {
    const bool same_dim = in >= 1 && in <= 6 && (in - 1) / 2 == (out - 1) / 2;
    if (crosses(at, out)) {
      return 1;
    }
    return same_dim ? vl : 0;
  };
  return v;
}

}  // namespace syncfab::sm

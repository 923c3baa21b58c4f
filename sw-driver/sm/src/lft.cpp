#include "syncfab/sm/lft.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <new>
#include <ostream>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {

namespace {
int max_switch_ports(const Fabric& f) {
  int m = 0;
  for (NodeId n : f.switches()) {
    m = std::max(m, f.num_ports(n));
  }
  return m;
}
}  // namespace

Lft::Lft(const Fabric& fabric)
    : fabric_(fabric), dests_(fabric.dest_count()), nibbles_(max_switch_ports(fabric) < 15) {
  const std::size_t entries = fabric.switch_count() * dests_;
  const std::size_t bytes = nibbles_ ? (entries + 1) / 2 : entries;
  // 0xF in a nibble and 0xFF in a byte both read back as kNoRoute.
  try {
    table_.assign(bytes, 0xFF);
  } catch (const std::bad_alloc&) {
    throw FabricError("LFT: " + std::to_string(fabric.switch_count()) + " switches x " +
                      std::to_string(dests_) + " destinations need " + std::to_string(bytes) +
                      " bytes, more than this machine gives");
  }
  ports_.reserve(fabric.switch_count());
  for (NodeId n : fabric.switches()) {
    ports_.push_back(static_cast<std::uint8_t>(fabric.num_ports(n)));
  }
}

void Lft::fail_set(SwitchIdx s, Dest d, PortNum port) const {
  if (s >= fabric_.switch_count() || d >= dests_) {
    throw FabricError("LFT: switch " + std::to_string(s) + " destination " + std::to_string(d) +
                      " out of range");
  }
  throw FabricError("LFT: port " + std::to_string(port) + " out of range on \"" +
                    fabric_.name(fabric_.switch_node(s)) + "\"");
}

void Lft::set_row(SwitchIdx s, std::span<const PortNum> row) {
  if (s >= fabric_.switch_count() || row.size() != dests_) {
    throw FabricError("LFT: row of switch " + std::to_string(s) + " with " +
                      std::to_string(row.size()) + " entries (" + std::to_string(dests_) + ")");
  }
  for (std::size_t d = 0; d < dests_; ++d) {
    if (row[d] != kNoRoute && row[d] > ports_[s]) {
      throw FabricError("LFT: port " + std::to_string(row[d]) + " out of range on \"" +
                        fabric_.name(fabric_.switch_node(s)) + "\"");
    }
  }
  const std::size_t first = static_cast<std::size_t>(s) * dests_;
  if (!nibbles_) {
    std::copy(row.begin(), row.end(), table_.begin() + static_cast<std::ptrdiff_t>(first));
    return;
  }
  std::size_t d = 0;
  auto nibble = [](PortNum p) { return static_cast<std::uint8_t>(p == kNoRoute ? 0xF : p); };
  if ((first & 1U) != 0 && dests_ > 0) {
    table_[first / 2] =
        static_cast<std::uint8_t>((table_[first / 2] & 0x0FU) | (nibble(row[0]) << 4U));
    d = 1;
  }
  for (; d + 1 < dests_; d += 2) {
    table_[(first + d) / 2] =
        static_cast<std::uint8_t>(nibble(row[d]) | (nibble(row[d + 1]) << 4U));
  }
  if (d < dests_) {
    const std::size_t i = first + d;
    table_[i / 2] = static_cast<std::uint8_t>((table_[i / 2] & 0xF0U) | nibble(row[d]));
  }
}

std::vector<SwitchIdx> walk(const Lft& lft, SwitchIdx s, Dest d) {
  const Fabric& f = lft.fabric();
  const LidOwner owner = f.dest_owner(d);
  if (owner.node == kNoNode) {
    return {};
  }
  std::vector<SwitchIdx> path{s};
  while (path.size() <= f.switch_count()) {
    const NodeId node = f.switch_node(path.back());
    const PortNum p = lft.get(path.back(), d);
    if (p == kNoRoute) {
      return {};
    }
    if (p == 0) {
      return owner.node == node ? path : std::vector<SwitchIdx>{};
    }
    const PortPeer o = f.peer(node, p);
    if (!o.connected()) {
      return {};
    }
    if (!f.is_switch(o.node)) {
      return o.node == owner.node && o.port == owner.port ? path : std::vector<SwitchIdx>{};
    }
    path.push_back(f.switch_index(o.node));
  }
  return {};  // more hops than switches: a forwarding loop
}

std::string check_shortest(const MinHop& mh, const Lft& lft,
                           const std::vector<SwitchIdx>& sources) {
  const Fabric& f = lft.fabric();
  std::vector<SwitchIdx> all;
  if (sources.empty()) {
    all.resize(f.switch_count());
    for (SwitchIdx s = 0; s < all.size(); ++s) {
      all[s] = s;
    }
  }
  const std::vector<SwitchIdx>& srcs = sources.empty() ? all : sources;
  for (SwitchIdx s : srcs) {
    const NodeId node = f.switch_node(s);
    for (std::size_t l = 1; l < lft.dest_count(); ++l) {
      const auto d = static_cast<Dest>(l);
      if (f.dest_owner(d).node == kNoNode) {
        continue;
      }
      const std::uint8_t best = mh.hops(s, d);
      const PortNum p = lft.get(s, d);
      auto fail = [&](const std::string& what) {
        return "switch \"" + f.name(node) + "\" " + (d <= f.last_lid() ? "LID " : "destination ") +
               std::to_string(d) + " port " + std::to_string(p) + ": " + what;
      };
      if (best == kUnreachable) {
        continue;
      }
      if (p == kNoRoute) {
        return fail("no route");
      }
      if (best == 0) {
        if (p != 0) {
          return fail("own LID not routed to port 0");
        }
        continue;
      }
      const std::uint8_t via = p == 0 ? kUnreachable : mh.hops_via(s, p, d);
      if (via != best) {
        return fail(std::to_string(via) + " hops via this port, " + std::to_string(best) +
                    " via the best");
      }
    }
  }
  return {};
}

LftBalance lft_balance(const MinHop& mh, const Lft& lft) {
  const Fabric& f = lft.fabric();
  const std::size_t n = f.switch_count();
  // Level = distance to the nearest switch with an end node.
  std::vector<char> has_hca(n, 0);
  for (NodeId h : f.hcas()) {
    const SwitchIdx s = f.attach_switch(h);
    if (s != kNoSwitch) {
      has_hca[s] = 1;
    }
  }
  std::vector<std::uint8_t> level(n, kUnreachable);
  for (SwitchIdx s = 0; s < n; ++s) {
    for (SwitchIdx t = 0; t < n; ++t) {
      if (has_hca[t] != 0) {
        level[s] = std::min(level[s], mh.distance(s, t));
      }
    }
  }
  LftBalance b;
  std::uint64_t total = 0;
  std::size_t ports = 0;
  std::vector<std::uint32_t> count;
  for (SwitchIdx s = 0; s < n; ++s) {
    const NodeId node = f.switch_node(s);
    count.assign(static_cast<std::size_t>(f.num_ports(node)) + 1, 0);
    for (std::size_t l = 1; l < lft.dest_count(); ++l) {
      if (f.dest_owner(static_cast<Dest>(l)).node == kNoNode) {
        continue;
      }
      const PortNum p = lft.get(s, static_cast<Dest>(l));
      if (p == kNoRoute) {
        ++b.unrouted;
      } else {
        ++count[p];
      }
    }
    bool any_up = false;
    for (int p = 1; p <= f.num_ports(node); ++p) {
      const PortPeer o = f.peer(node, static_cast<PortNum>(p));
      any_up = any_up ||
               (o.connected() && f.is_switch(o.node) && level[f.switch_index(o.node)] > level[s]);
    }
    std::uint32_t lo = UINT32_MAX, hi = 0;
    for (int p = 1; p <= f.num_ports(node); ++p) {
      const PortPeer o = f.peer(node, static_cast<PortNum>(p));
      if (!o.connected() || !f.is_switch(o.node)) {
        continue;
      }
      b.max_port_lids = std::max(b.max_port_lids, count[p]);
      total += count[p];
      ++ports;
      if (!any_up || level[f.switch_index(o.node)] > level[s]) {
        lo = std::min(lo, count[p]);
        hi = std::max(hi, count[p]);
      }
    }
    if (hi >= lo && lo != UINT32_MAX) {
      b.max_spread = std::max(b.max_spread, hi - lo);
    }
  }
  b.mean_port_lids = ports == 0 ? 0 : static_cast<double>(total) / static_cast<double>(ports);
  return b;
}

void write_lfts_dump(std::ostream& out, const Lft& lft) {
  const Fabric& f = lft.fabric();
  if (const std::size_t lidless = f.lidless_count(); lidless != 0) {
    throw FabricError("lfts.dump needs a LID per destination: " + std::to_string(lidless) + " of " +
                      std::to_string(f.destination_count()) +
                      " destinations have none (the LID space ends at " + hex_lid(f.last_lid()) +
                      ")");
  }
  const auto max_lid = static_cast<unsigned>(lft.dest_count() - 1);
  char buf[512];
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    const NodeId node = f.switch_node(s);
    std::snprintf(buf, sizeof buf, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64 " ('",
                  max_lid, static_cast<unsigned>(f.lid(node)), f.guid(node));
    out << buf << f.name(node) << "'):\n";
    for (unsigned l = 0; l <= max_lid; ++l) {
      const PortNum p = lft.get(s, static_cast<Dest>(l));
      // OpenSM skips entries at or above its port count (unrouted = 0xFF).
      if (l == 0 || p == kNoRoute) {
        continue;
      }
      const LidOwner o = f.dest_owner(static_cast<Dest>(l));
      std::snprintf(buf, sizeof buf, "0x%04x %03u # ", l, static_cast<unsigned>(p));
      out << buf;
      if (o.node == kNoNode) {
        out << "unknown node and type\n";
        continue;
      }
      std::snprintf(buf, sizeof buf, "%s portguid 0x%016" PRIx64 ": '",
                    f.is_switch(o.node) ? "Switch" : "Channel Adapter",
                    f.port_guid(o.node, o.port));
      out << buf << f.name(o.node) << "'\n";
    }
    out << max_lid << " lids dumped\n";
  }
}

void write_guid2lid(std::ostream& out, const Fabric& f) {
  char buf[64];
  for (unsigned l = 1; l <= f.max_lid(); ++l) {
    const LidOwner o = f.dest_owner(static_cast<Dest>(l));
    if (o.node == kNoNode) {
      continue;
    }
    std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n",
                  f.port_guid(o.node, o.port), l, l);
    out << buf;
  }
}

}  // namespace syncfab::sm

#include "switch_fabric_sm.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace syncfab::tb::swfab {

unsigned hw_port(sm::PortNum p, unsigned ports) {
  if (p == 0 || p > ports) {
    throw std::invalid_argument("SM port " + std::to_string(p) +
                                " has no switch_top port (data ports 1.." + std::to_string(ports) +
                                ")");
  }
  return p - 1U;
}

sm::PortNum sm_port(unsigned hw, unsigned ports) {
  if (hw >= ports) {
    throw std::invalid_argument("switch_top port " + std::to_string(hw) + " out of range");
  }
  return static_cast<sm::PortNum>(hw + 1);
}

unsigned host_of(const sm::Fabric& smf, sm::NodeId hca) {
  const auto hcas = smf.hcas();
  for (std::size_t j = 0; j < hcas.size(); ++j) {
    if (hcas[j] == hca) {
      return static_cast<unsigned>(j);
    }
  }
  throw std::invalid_argument("SM node " + std::to_string(hca) + " is not an end node");
}

void instantiate(Fabric& f, const sm::Fabric& smf,
                 const std::function<unsigned(sm::NodeId, sm::NodeId)>& delay) {
  if (f.switch_count() != 0 || f.host_count() != 0) {
    throw std::logic_error("instantiate: the harness fabric is not empty");
  }
  // The switches and NICs address end nodes by 16-bit LIDs: a fabric past
  // the LID space (sw-driver/sm, "Past the LID space") cannot be modelled.
  if (smf.lidless_count() != 0) {
    throw std::invalid_argument("SM fabric: " + std::to_string(smf.lidless_count()) + " of " +
                                std::to_string(smf.destination_count()) +
                                " destinations have no LID; the hardware model needs one each");
  }
  for (sm::SwitchIdx s = 0; s < smf.switch_count(); ++s) {
    const sm::NodeId n = smf.switch_node(s);
    if (smf.num_ports(n) > static_cast<int>(kPorts)) {
      throw std::invalid_argument("SM switch " + smf.name(n) + " has " +
                                  std::to_string(smf.num_ports(n)) + " ports; switch_top has " +
                                  std::to_string(kPorts));
    }
    f.add_switch(smf.name(n));
  }
  for (const sm::NodeId h : smf.hcas()) {
    f.add_host(smf.name(h), smf.lid(h, 1));
  }
  const auto end_of = [&](sm::NodeId n, sm::PortNum p) {
    return smf.is_switch(n) ? switch_end(smf.switch_index(n), hw_port(p))
                            : host_end(host_of(smf, n));
  };
  for_each_link(smf, [&](sm::NodeId a, sm::PortNum pa, sm::NodeId b, sm::PortNum pb) {
    for (const auto& [n, p] : {std::pair{a, pa}, std::pair{b, pb}}) {
      if (!smf.is_switch(n) && p != 1) {
        throw std::invalid_argument("SM end node " + smf.name(n) +
                                    " uses a port other than 1; hosts have one port");
      }
    }
    f.connect(end_of(a, pa), end_of(b, pb), delay(a, b));
  });
}

void for_each_link(
    const sm::Fabric& smf,
    const std::function<void(sm::NodeId, sm::PortNum, sm::NodeId, sm::PortNum)>& fn) {
  for (sm::NodeId n = 0; n < smf.node_count(); ++n) {
    for (int p = 1; p <= smf.num_ports(n); ++p) {
      const sm::PortPeer peer = smf.peer(n, static_cast<sm::PortNum>(p));
      if (!peer.connected() || peer.node < n || (peer.node == n && peer.port < p)) {
        continue;
      }
      fn(n, static_cast<sm::PortNum>(p), peer.node, peer.port);
    }
  }
}

std::vector<driver::LftEntry> lft_entries(const sm::Lft& lft, sm::SwitchIdx s, unsigned ports) {
  std::vector<driver::LftEntry> out;
  for (std::size_t d = 1; d < lft.dest_count(); ++d) {
    const sm::PortNum p = lft.get(s, static_cast<sm::Lid>(d));
    if (p == 0 || p == sm::kNoRoute) {
      continue;
    }
    out.push_back(driver::LftEntry{static_cast<std::uint16_t>(d),
                                   static_cast<std::uint8_t>(hw_port(p, ports))});
  }
  return out;
}

std::size_t program_lfts(Fabric& f, const sm::Lft& lft) {
  std::size_t n = 0;
  f.program_all([&](unsigned s, driver::Switch& d) {
    const auto entries = lft_entries(lft, s);
    d.program_lft(entries);
    n += entries.size();
  });
  return n;
}

std::vector<driver::PortGroupEntry> group_entries(const sm::PortGroups& groups, sm::SwitchIdx s,
                                                  unsigned ports) {
  std::vector<driver::PortGroupEntry> out;
  for (std::size_t g = 0; g < groups.group_count(s); ++g) {
    std::uint32_t mask = 0;
    for (const sm::PortNum p : groups.members(s, static_cast<int>(g))) {
      mask |= 1U << hw_port(p, ports);
    }
    out.push_back(driver::PortGroupEntry{static_cast<unsigned>(g), mask});
  }
  return out;
}

std::vector<driver::LftEntry> lft_entries(const sm::Lft& lft, const sm::PortGroups& groups,
                                          sm::SwitchIdx s, unsigned ports) {
  std::vector<driver::LftEntry> out = lft_entries(lft, s, ports);
  for (driver::LftEntry& e : out) {
    if (const int g = groups.group(s, e.lid); g >= 0) {
      e.port = static_cast<std::uint8_t>(g);
      e.group = true;
    }
  }
  return out;
}

std::size_t program_lfts(Fabric& f, const sm::Lft& lft, const sm::PortGroups& groups) {
  std::size_t n = 0;
  f.program_all([&](unsigned s, driver::Switch& d) {
    d.program_port_groups(group_entries(groups, s));
    const auto entries = lft_entries(lft, groups, s);
    d.program_lft(entries);
    n += entries.size();
  });
  return n;
}

std::map<std::uint16_t, std::uint32_t> mft_masks(std::span<const sm::McTree> trees, sm::SwitchIdx s,
                                                 unsigned ports) {
  std::map<std::uint16_t, std::uint32_t> masks;
  for (const sm::McTree& t : trees) {
    for (const sm::MftEntry& e : t.entries) {
      if (e.sw == s) {
        masks[t.mlid] |= 1U << hw_port(e.port, ports);
      }
    }
  }
  return masks;
}

std::size_t program_mfts(Fabric& f, std::span<const sm::McTree> trees) {
  std::size_t n = 0;
  f.program_all([&](unsigned s, driver::Switch& d) {
    for (const auto& [mlid, mask] : mft_masks(trees, s)) {
      d.set_mft(mlid, mask);
      ++n;
    }
  });
  return n;
}

}  // namespace syncfab::tb::swfab

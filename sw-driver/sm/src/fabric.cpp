#include "syncfab/sm/fabric.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {

namespace {
std::string port_text(const Fabric& f, NodeId n, int p) {
  return "\"" + f.name(n) + "\" port " + std::to_string(p);
}
}  // namespace

NodeId Fabric::add_node(NodeType type, std::string name, int num_ports, std::uint64_t guid,
                        std::string description) {
  if (num_ports < 1 || num_ports > kMaxPorts) {
    throw FabricError("node \"" + name + "\": " + std::to_string(num_ports) +
                      " ports (must be 1.." + std::to_string(kMaxPorts) + ")");
  }
  if (name.empty()) {
    throw FabricError("node with an empty id");
  }
  if (by_id_.count(name) != 0) {
    throw FabricError("duplicate node id \"" + name + "\"");
  }
  const bool sw = type == NodeType::kSwitch;
  if (guid == 0) {
    std::uint64_t& next = sw ? next_switch_guid_ : next_hca_guid_;
    while (by_guid_.count(next) != 0) {
      ++next;
    }
    guid = next;
  }
  if (by_guid_.count(guid) != 0) {
    throw FabricError("node \"" + name + "\": GUID already used by \"" + id_[by_guid_[guid]] +
                      "\"");
  }
  // Keep the automatic sequence clear of explicit GUIDs and of HCA port GUIDs.
  if (sw) {
    next_switch_guid_ = std::max(next_switch_guid_, guid + 1);
  } else {
    next_hca_guid_ = std::max(next_hca_guid_, guid + static_cast<std::uint64_t>(num_ports) + 1);
  }
  const auto id = static_cast<NodeId>(type_.size());
  type_.push_back(type);
  by_id_.emplace(name, id);
  by_guid_.emplace(guid, id);
  label_.push_back(description.empty() ? name : description);
  id_.push_back(std::move(name));
  desc_.push_back(std::move(description));
  if (!desc_[id].empty()) {
    by_desc_[desc_[id]].push_back(id);
    relabel_around(desc_[id]);
  }
  relabel_around(id_[id]);
  guid_.push_back(guid);
  port_offset_.push_back(port_offset_.back() + static_cast<std::uint32_t>(num_ports) + 1);
  peer_.resize(port_offset_.back());
  dest_.resize(port_offset_.back(), 0);
  if (sw) {
    switch_idx_.push_back(static_cast<SwitchIdx>(switches_.size()));
    switches_.push_back(id);
  } else {
    switch_idx_.push_back(kNoSwitch);
    hcas_.push_back(id);
  }
  return id;
}

void Fabric::connect(NodeId a, PortNum pa, NodeId b, PortNum pb) {
  auto check = [&](NodeId n, PortNum p) {
    if (n >= node_count()) {
      throw FabricError("connect: no node " + std::to_string(n));
    }
    if (p == 0 || p > num_ports(n)) {
      throw FabricError("connect: " + port_text(*this, n, p) + " out of range 1.." +
                        std::to_string(num_ports(n)));
    }
    if (peer(n, p).connected()) {
      const PortPeer o = peer(n, p);
      throw FabricError("connect: " + port_text(*this, n, p) + " already linked to " +
                        port_text(*this, o.node, o.port));
    }
  };
  check(a, pa);
  check(b, pb);
  if (a == b && pa == pb) {
    throw FabricError("connect: " + port_text(*this, a, pa) + " to itself");
  }
  peer_[port_offset_[a] + pa] = PortPeer{b, pb};
  peer_[port_offset_[b] + pb] = PortPeer{a, pa};
}

PortPeer Fabric::disconnect(NodeId n, PortNum p) {
  if (n >= node_count()) {
    throw FabricError("disconnect: no node " + std::to_string(n));
  }
  if (p == 0 || p > num_ports(n)) {
    throw FabricError("disconnect: " + port_text(*this, n, p) + " out of range 1.." +
                      std::to_string(num_ports(n)));
  }
  const PortPeer o = peer(n, p);
  if (!o.connected()) {
    throw FabricError("disconnect: " + port_text(*this, n, p) + " is not linked");
  }
  peer_[port_offset_[n] + p] = PortPeer{};
  peer_[port_offset_[o.node] + o.port] = PortPeer{};
  return o;
}

std::string hex_lid(std::uint32_t lid) {
  std::array<char, 12> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%04X", lid);
  return buf.data();
}

void Fabric::set_lid(NodeId node, PortNum port, Lid lid) {
  if (lid < kFirstUnicastLid || lid > kLastUnicastLid) {
    throw FabricError("LID " + std::to_string(lid) + " of " + port_text(*this, node, port) +
                      " is not a unicast LID (" + std::to_string(kFirstUnicastLid) + ".." +
                      hex_lid(kLastUnicastLid) + ")");
  }
  const PortNum slot = is_switch(node) ? 0 : port;
  if (dest_owner_.size() <= lid) {
    dest_owner_.resize(lid + 1u);
  }
  const LidOwner o = dest_owner_[lid];
  if (o.node != kNoNode && !(o.node == node && o.port == slot)) {
    throw FabricError("LID " + std::to_string(lid) + " of " + port_text(*this, node, port) +
                      " already belongs to " + port_text(*this, o.node, o.port));
  }
  dest_[port_offset_[node] + slot] = lid;
  dest_owner_[lid] = LidOwner{node, slot};
  if (lid <= last_lid_ && lid > max_lid_) {
    max_lid_ = lid;
  }
}

void Fabric::limit_lids(Lid last) {
  if (last < kFirstUnicastLid || last > kLastUnicastLid) {
    throw FabricError("last LID " + std::to_string(last) + " out of range " +
                      std::to_string(kFirstUnicastLid) + ".." + std::to_string(kLastUnicastLid) +
                      " (" + hex_lid(kLastUnicastLid) + ")");
  }
  last_lid_ = last;
  recount_max_lid();
}

void Fabric::recount_max_lid() {
  std::size_t l = std::min<std::size_t>(dest_owner_.size() - 1, last_lid_);
  while (l > 0 && dest_owner_[l].node == kNoNode) {
    --l;
  }
  max_lid_ = static_cast<Lid>(l);
}

std::size_t Fabric::lidless_count() const {
  std::size_t n = 0;
  for (std::size_t d = static_cast<std::size_t>(last_lid_) + 1; d < dest_owner_.size(); ++d) {
    n += dest_owner_[d].node != kNoNode ? 1 : 0;
  }
  return n;
}

std::size_t Fabric::destination_count() const {
  return static_cast<std::size_t>(std::count_if(
      dest_owner_.begin(), dest_owner_.end(), [](const LidOwner& o) { return o.node != kNoNode; }));
}

void Fabric::assign_lids() {
  // The index type bounds the destinations; a fabric this large cannot be
  // built anyway (node ids and port slots are 32-bit), but say so if it is.
  constexpr Dest kLastDest = 0xFFFFFFFEu;
  Dest next = kFirstUnicastLid;
  auto take = [&](NodeId n, PortNum p) {
    if (dest(n, p) != 0) {
      return;
    }
    while (next < dest_owner_.size() && dest_owner_[next].node != kNoNode) {
      ++next;
    }
    if (next > kLastDest) {
      throw FabricError("destination index space (1.." + std::to_string(kLastDest) +
                        ") exhausted at " + port_text(*this, n, p));
    }
    if (dest_owner_.size() <= next) {
      dest_owner_.resize(static_cast<std::size_t>(next) + 1);
    }
    dest_[port_offset_[n] + p] = next;
    dest_owner_[next] = LidOwner{n, p};
  };
  for (NodeId n = 0; n < node_count(); ++n) {
    if (is_switch(n)) {
      take(n, 0);
    } else {
      for (int p = 1; p <= num_ports(n); ++p) {
        if (peer(n, static_cast<PortNum>(p)).connected()) {
          take(n, static_cast<PortNum>(p));
        }
      }
    }
  }
  recount_max_lid();
}

// Labels and ids share one namespace, so that a name always finds its node
// (find() tries ids, then descriptions, then "description (id)"): a
// description that is another node's id is disambiguated like a repeated
// one, and a "description (id)" that is some node's id or description, or
// whose id itself holds " (", falls back to the node's own id (ids are
// unique).
void Fabric::relabel(const std::string& description) {
  const std::vector<NodeId>& same = by_desc_.at(description);
  const auto owner = by_id_.find(description);
  const bool plain = same.size() == 1 && (owner == by_id_.end() || owner->second == same.front());
  for (const NodeId n : same) {
    if (plain) {
      label_[n] = description;
      continue;
    }
    std::string label = description + " (" + id_[n] + ")";
    const bool taken = by_id_.count(label) != 0 || by_desc_.count(label) != 0 ||
                       id_[n].find(" (") != std::string::npos;
    label_[n] = taken ? id_[n] : std::move(label);
  }
}

// A new id or description may be the text other nodes are labelled with: a
// description, or the "description (id)" of a disambiguated one.
void Fabric::relabel_around(const std::string& text) {
  if (by_desc_.count(text) != 0) {
    relabel(text);
  }
  if (const auto open = text.rfind(" ("); open != std::string::npos && text.back() == ')') {
    if (const std::string d = text.substr(0, open); by_desc_.count(d) != 0) {
      relabel(d);
    }
  }
}

std::optional<NodeId> Fabric::find(std::string_view text) const {
  const std::string key(text);
  if (const auto it = by_id_.find(key); it != by_id_.end()) {
    return it->second;
  }
  if (const auto it = by_desc_.find(key); it != by_desc_.end()) {
    return it->second.size() == 1 ? std::optional<NodeId>(it->second.front()) : std::nullopt;
  }
  // "description (id)", the name() of a node whose description repeats.
  if (const auto open = key.rfind(" ("); open != std::string::npos && key.back() == ')') {
    const auto it = by_id_.find(key.substr(open + 2, key.size() - open - 3));
    if (it != by_id_.end() && label_[it->second] == key) {
      return it->second;
    }
  }
  if (key.size() > 2 && key[0] == '0' && (key[1] == 'x' || key[1] == 'X')) {
    std::uint64_t v = 0;
    const char* b = key.data() + 2;
    const char* e = key.data() + key.size();
    const auto [p, ec] = std::from_chars(b, e, v, 16);
    if (ec == std::errc{} && p == e) {
      if (const auto it = by_guid_.find(v); it != by_guid_.end()) {
        return it->second;
      }
    }
  }
  return std::nullopt;
}

NodeId Fabric::resolve(std::string_view text) const {
  if (const auto n = find(text)) {
    return *n;
  }
  const auto it = by_desc_.find(std::string(text));
  if (it == by_desc_.end()) {
    throw FabricError("unknown node \"" + printable(text) + "\"");
  }
  std::string ids;
  for (std::size_t i = 0; i < it->second.size() && i < 4; ++i) {
    ids += (i == 0 ? "" : ", ") + id_[it->second[i]];
  }
  if (it->second.size() > 4) {
    ids += ", ...";
  }
  throw FabricError("node description \"" + printable(text) + "\" is shared by " +
                    std::to_string(it->second.size()) + " nodes (" + ids +
                    "): name one by its id or GUID");
}

SwitchIdx Fabric::attach_switch(NodeId n) const {
  if (is_switch(n)) {
    return switch_idx_[n];
  }
  const PortNum p = attach_port(n);
  return p == 0 ? kNoSwitch : switch_idx_[peer(n, p).node];
}

PortNum Fabric::attach_port(NodeId n) const {
  if (is_switch(n)) {
    return 0;
  }
  for (int p = 1; p <= num_ports(n); ++p) {
    const PortPeer o = peer(n, static_cast<PortNum>(p));
    if (o.connected() && is_switch(o.node)) {
      return static_cast<PortNum>(p);
    }
  }
  return 0;
}

void Fabric::ensure_connected() const {
  if (node_count() == 0) {
    throw FabricError("empty fabric");
  }
  std::vector<char> seen(node_count(), 0);
  const NodeId start = switches_.empty() ? 0 : switches_[0];
  std::vector<NodeId> stack{start};
  seen[start] = 1;
  std::size_t reached = 1;
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    // HCAs do not forward, but a link still joins their switch to them; a
    // fabric is connected when every node is reachable over switches.
    if (!is_switch(n) && n != start) {
      continue;
    }
    for (int p = 1; p <= num_ports(n); ++p) {
      const PortPeer o = peer(n, static_cast<PortNum>(p));
      if (o.connected() && !seen[o.node]) {
        seen[o.node] = 1;
        ++reached;
        stack.push_back(o.node);
      }
    }
  }
  if (reached != node_count()) {
    const auto it = std::find(seen.begin(), seen.end(), 0);
    const auto lost = static_cast<NodeId>(it - seen.begin());
    throw FabricError("disconnected fabric: \"" + name(lost) + "\" cannot be reached from \"" +
                      name(start) + "\" (" + std::to_string(node_count() - reached) + " of " +
                      std::to_string(node_count()) + " nodes unreachable)");
  }
}

}  // namespace syncfab::sm

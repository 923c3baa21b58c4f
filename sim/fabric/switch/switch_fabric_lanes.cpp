#include "switch_fabric_lanes.hpp"

#include <array>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "switch_fabric_sm.hpp"

namespace syncfab::tb::swfab {

namespace {

constexpr std::uint8_t kNoLane = 0xFF;

// One lane change request at a switch: a packet on lane `from` entering by
// SM port `in` and leaving by `out` must leave on lane `to`.
struct Step {
  sm::PortNum in = 0;
  sm::PortNum out = 0;
  std::uint8_t from = 0;
  std::uint8_t to = 0;
};

std::string sw_name(const sm::Fabric& smf, sm::SwitchIdx s) {
  return "switch " + smf.name(smf.switch_node(s));
}

std::string step_text(const Step& st) {
  return "lane " + std::to_string(st.from) + " -> " + std::to_string(st.to) + " from port " +
         std::to_string(st.in) + " to port " + std::to_string(st.out);
}

bool to_switch(const sm::Fabric& smf, sm::NodeId at, sm::PortNum out) {
  if (out == 0 || out == sm::kNoRoute) {
    return false;
  }
  const sm::PortPeer p = smf.peer(at, out);
  return p.connected() && smf.is_switch(p.node);
}

// The hook-flow remap of one switch from its lane changes: the port group is
// the ports of the changes, the map their lanes; every other step between
// two ports of the group must then keep its lane.
driver::RemapConfig solve_remap(const sm::Fabric& smf, sm::SwitchIdx s,
                                const std::vector<Step>& steps,
                                std::span<const unsigned> lane_prio) {
  std::uint32_t group = 0;  // switch_top ports
  const auto in_group = [&group](const Step& st) {
    return ((group >> hw_port(st.in)) & 1U) != 0 && ((group >> hw_port(st.out)) & 1U) != 0;
  };
  std::array<std::optional<Step>, fmt::kNumPrio> change{};
  for (const Step& st : steps) {
    if (st.from == st.to) {
      continue;
    }
    group |= (1U << hw_port(st.in)) | (1U << hw_port(st.out));
    auto& c = change.at(st.from);
    if (c && c->to != st.to) {
      throw std::invalid_argument(sw_name(smf, s) + ": " + step_text(*c) + " and " + step_text(st) +
                                  ": the hook-flow remap has one new priority per priority");
    }
    c = st;
  }
  driver::RemapConfig rc{};
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    rc.map.at(p) = driver::RemapEntry{static_cast<std::uint8_t>(p), lane_dscp(p)};
  }
  if (group == 0) {
    return rc;
  }
  for (const Step& st : steps) {
    if (!in_group(st)) {
      continue;
    }
    const auto& c = change.at(st.from);
    const std::uint8_t got = c ? c->to : st.from;
    if (got != st.to) {
      throw std::invalid_argument(
          sw_name(smf, s) + ": " + step_text(st) + " but " + step_text(*c) +
          ": both pairs of ports are in the remap's port group, which cannot tell them apart");
    }
  }
  rc.enable = true;
  rc.uplink_mask = static_cast<std::uint8_t>(group);
  for (std::size_t a = 0; a < change.size(); ++a) {
    if (change[a]) {
      const unsigned to = lane_prio[change[a]->to];
      rc.map.at(lane_prio[a]) = driver::RemapEntry{static_cast<std::uint8_t>(to), lane_dscp(to)};
    }
  }
  return rc;
}

}  // namespace

std::uint8_t lane_dscp(unsigned prio) { return static_cast<std::uint8_t>(prio << 3U); }

std::uint8_t LanePlan::prio_mask() const {
  std::uint8_t m = 0;
  for (const unsigned p : lane_prio_) {
    m = static_cast<std::uint8_t>(m | (1U << p));
  }
  return m;
}

std::vector<sm::SwitchIdx> LanePlan::remap_switches() const {
  std::vector<sm::SwitchIdx> out;
  for (std::size_t s = 0; s < remap_.size(); ++s) {
    if (remap_[s].enable) {
      out.push_back(static_cast<sm::SwitchIdx>(s));
    }
  }
  return out;
}

unsigned LanePlan::prio(sm::SwitchIdx src, sm::Lid dst) const {
  if (src >= remap_.size() || dst >= lid_count_) {
    throw std::invalid_argument("lane plan: no entry for switch " + std::to_string(src) + ", LID " +
                                sm::hex_lid(dst));
  }
  const std::uint8_t lane = first_[src * lid_count_ + dst];
  return lane_prio_.at(lane == kNoLane ? 0 : lane);
}

unsigned LanePlan::host_prio(const sm::Fabric& smf, unsigned host, sm::Lid dst) const {
  const auto hcas = smf.hcas();
  if (host >= hcas.size()) {
    throw std::invalid_argument("lane plan: host " + std::to_string(host) + " of " +
                                std::to_string(hcas.size()));
  }
  return prio(smf.attach_switch(hcas[host]), dst);
}

sm::VlAssignment LanePlan::realised() const {
  std::array<std::uint8_t, fmt::kNumPrio> lane_of{};
  lane_of.fill(kNoLane);
  for (std::size_t l = 0; l < lane_prio_.size(); ++l) {
    lane_of.at(lane_prio_[l]) = static_cast<std::uint8_t>(l);
  }
  sm::VlAssignment v;
  v.lanes = lanes();
  v.first = [first = first_, n = lid_count_](sm::SwitchIdx src, sm::Lid dst,
                                             sm::PortNum) -> std::uint8_t {
    const std::uint8_t l = first[src * n + dst];
    return l == kNoLane ? 0 : l;
  };
  v.next = [remap = remap_, lane_prio = lane_prio_, lane_of](sm::SwitchIdx at, sm::PortNum in,
                                                             sm::PortNum out, std::uint8_t vl,
                                                             sm::Lid) -> std::uint8_t {
    const driver::RemapConfig& rc = remap.at(at);
    const unsigned p = lane_prio.at(vl);
    const bool hook = rc.enable && ((rc.uplink_mask >> hw_port(in)) & 1U) != 0 &&
                      ((rc.uplink_mask >> hw_port(out)) & 1U) != 0;
    const unsigned q = hook ? rc.map.at(p).prio : p;
    if (lane_of.at(q) == kNoLane) {
      throw std::invalid_argument("switch " + std::to_string(at) + " remaps priority " +
                                  std::to_string(p) + " to " + std::to_string(q) +
                                  ", which carries no lane");
    }
    return lane_of.at(q);
  };
  return v;
}

LanePlan plan_lanes(const sm::Lft& lft, const sm::VlAssignment& vls,
                    std::span<const unsigned> lane_prio) {
  const sm::Fabric& smf = lft.fabric();
  if (vls.lanes < 1 || static_cast<std::size_t>(vls.lanes) > lane_prio.size()) {
    throw std::invalid_argument("lane plan: " + std::to_string(vls.lanes) + " lanes, " +
                                std::to_string(lane_prio.size()) +
                                " priorities to carry them (one priority per lane, at most " +
                                std::to_string(fmt::kNumPrio) + ")");
  }
  std::uint32_t used = 0;
  for (const unsigned p : lane_prio.first(static_cast<std::size_t>(vls.lanes))) {
    if (p >= fmt::kNumPrio || ((used >> p) & 1U) != 0) {
      throw std::invalid_argument(
          "lane plan: priority " + std::to_string(p) +
          (p >= fmt::kNumPrio ? " out of range (0.." + std::to_string(fmt::kNumPrio - 1) + ")"
                              : " given to two lanes"));
    }
    used |= 1U << p;
  }
  LanePlan plan;
  plan.lane_prio_.assign(lane_prio.begin(), lane_prio.begin() + vls.lanes);
  const std::size_t n_sw = smf.switch_count();
  plan.lid_count_ = lft.dest_count();
  plan.first_.assign(n_sw * plan.lid_count_, kNoLane);

  const auto lane = [&](std::uint8_t v, const char* what) {
    if (v >= vls.lanes) {
      throw std::invalid_argument("lane plan: the assignment's " + std::string(what) +
                                  " gives lane " + std::to_string(v) + " of " +
                                  std::to_string(vls.lanes));
    }
    return v;
  };
  std::vector<char> source(n_sw, 0);
  for (const sm::NodeId h : smf.hcas()) {
    if (const sm::SwitchIdx s = smf.attach_switch(h); s != sm::kNoSwitch) {
      source[s] = 1;
    }
  }
  // Per switch: (in, out, lane) -> lane out, the same for every destination
  // (the remap does not look at the destination).
  std::vector<std::map<std::tuple<sm::PortNum, sm::PortNum, std::uint8_t>, std::uint8_t>> seen(
      n_sw);
  for (sm::SwitchIdx s = 0; s < n_sw; ++s) {
    if (source[s] == 0) {
      continue;
    }
    for (std::size_t l = 1; l < plan.lid_count_; ++l) {
      const auto d = static_cast<sm::Lid>(l);
      if (smf.lid_owner(d).node == sm::kNoNode) {
        continue;
      }
      sm::NodeId at = smf.switch_node(s);
      sm::PortNum out = lft.get(s, d);
      if (!to_switch(smf, at, out)) {
        continue;
      }
      std::uint8_t v = vls.first ? lane(vls.first(s, d, out), "first") : 0;
      plan.first_[s * plan.lid_count_ + l] = v;
      for (std::size_t hops = 0;; ++hops) {
        if (hops > n_sw) {
          throw std::invalid_argument("lane plan: the tables loop for LID " + sm::hex_lid(d));
        }
        const sm::PortPeer hop = smf.peer(at, out);
        const sm::SwitchIdx ns = smf.switch_index(hop.node);
        const sm::PortNum q = lft.get(ns, d);
        if (!to_switch(smf, hop.node, q)) {
          break;
        }
        const std::uint8_t w = vls.next ? lane(vls.next(ns, hop.port, q, v, d), "next") : v;
        const auto [it, fresh] = seen[ns].try_emplace({hop.port, q, v}, w);
        if (!fresh && it->second != w) {
          throw std::invalid_argument(
              sw_name(smf, ns) + ": lane " + std::to_string(v) + " from port " +
              std::to_string(hop.port) + " to port " + std::to_string(q) + " becomes lane " +
              std::to_string(it->second) + " or " + std::to_string(w) + " by destination (LID " +
              sm::hex_lid(d) + "); the remap cannot see destinations");
        }
        at = hop.node;
        out = q;
        v = w;
      }
    }
  }
  plan.remap_.resize(n_sw);
  for (sm::SwitchIdx s = 0; s < n_sw; ++s) {
    std::vector<Step> steps;
    for (const auto& [key, to] : seen[s]) {
      steps.push_back(Step{std::get<0>(key), std::get<1>(key), std::get<2>(key), to});
    }
    plan.remap_[s] = solve_remap(smf, s, steps, plan.lane_prio_);
  }
  return plan;
}

void program_lanes(Fabric& f, const LanePlan& plan, const driver::PfcTiming& timing,
                   const driver::PfcPriority& lossless, unsigned max_pkt_flits) {
  if (f.switch_count() != plan.switch_count()) {
    throw std::invalid_argument("program_lanes: a plan for " + std::to_string(plan.switch_count()) +
                                " switches, the fabric has " + std::to_string(f.switch_count()));
  }
  driver::PfcPortConfig cfg{};
  for (const unsigned p : plan.lane_prio()) {
    cfg.at(p) = lossless;
  }
  f.configure_pfc_all(timing, cfg, max_pkt_flits);
  f.program_all([&](unsigned s, driver::Switch& d) {
    if (plan.remap(s).enable) {
      d.configure_remap(plan.remap(s));
    }
  });
}

}  // namespace syncfab::tb::swfab

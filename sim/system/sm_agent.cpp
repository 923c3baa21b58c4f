#include "sm_agent.hpp"

#include <map>
#include <stdexcept>
#include <string>

#include "switch_fabric_sm.hpp"
#include "syncfab/sm/combine.hpp"

namespace syncfab::tb::system {

void SwitchGroupProgrammer::program(const sm::Group& group, const sm::McTree& tree,
                                    std::uint16_t epoch) {
  std::map<sm::SwitchIdx, std::uint32_t> masks;
  for (const sm::MftEntry& e : tree.entries) {
    masks[e.sw] |= 1U << swfab::hw_port(e.port, sys_.sw(e.sw).port_count());
  }
  for (const auto& [s, mask] : masks) {
    driver::Switch& d = sys_.sw(s).driver();
    d.set_mft(tree.mlid, mask);
    if (d.mft(tree.mlid) != mask) {
      throw std::runtime_error(sys_.sw(s).name() + ": MFT MLID " + sm::hex_lid(tree.mlid) +
                               " does not read back");
    }
    ++written_;
  }
  for (const sm::CombineNode& c : sm::combine_tree(sys_.sm(), group, tree)) {
    const unsigned ports = sys_.sw(c.sw).port_count();
    driver::CombineEntry e;
    for (const sm::PortNum p : c.children) {
      e.children |= 1U << swfab::hw_port(p, ports);
    }
    e.root = c.root;
    e.parent = c.root ? 0U : swfab::hw_port(c.parent, ports);
    e.epoch = epoch;
    sys_.sw(c.sw).driver().set_combine(tree.mlid, e);  // reads it back
    ++written_;
  }
}

void SwitchGroupProgrammer::remove(sm::Lid mlid, const std::vector<sm::MftEntry>& entries) {
  std::map<sm::SwitchIdx, bool> switches;
  for (const sm::MftEntry& e : entries) {
    switches[e.sw] = true;
  }
  for (const auto& [s, unused] : switches) {
    driver::Switch& d = sys_.sw(s).driver();
    d.clear_combine(mlid);
    d.clear_mft(mlid);
  }
}

SmAgent::SmAgent(SystemFabric& sys, unsigned host, SmAgentOptions options)
    : sys_(sys),
      host_(sys.host(host)),
      opt_(options),
      mh_(sys.sm()),
      router_(mh_, sm::route_fulb_mc, true),
      programmer_(sys),
      agent_(sys.sm(), router_, programmer_, options.protocol) {}

std::uint16_t SmAgent::lid() const { return host_.lid(); }

sm::McgTime SmAgent::now() {
  // One cycle is one nanosecond of fabric time.
  return sm::McgTime(sys_.cycle() / 1000);
}

void SmAgent::send(const std::vector<sm::AgentDatagram>& out) {
  for (const sm::AgentDatagram& d : out) {
    host_.send_datagram(d.dst, d.msg, opt_.prio);
  }
}

void SmAgent::poll() {
  while (auto d = host_.take_datagram()) {
    send(agent_.take(d->first, d->second, now()));
  }
  if (sys_.cycle() >= last_tick_ + opt_.tick_cycles) {
    last_tick_ = sys_.cycle();
    send(agent_.tick(now()));
  }
}

}  // namespace syncfab::tb::system

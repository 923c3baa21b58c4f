#include "combine_program.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "switch_fabric_sm.hpp"
#include "syncfab/sm/combine.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::tb::system {

std::size_t program_combine(SystemFabric& sys, std::span<const sm::Group> groups,
                            std::span<const sm::McTree> trees,
                            std::span<const std::uint16_t> epochs) {
  if (groups.size() != trees.size() || epochs.size() != trees.size()) {
    throw std::invalid_argument("program_combine: " + std::to_string(groups.size()) + " groups, " +
                                std::to_string(trees.size()) + " trees and " +
                                std::to_string(epochs.size()) + " epochs");
  }
  std::size_t n = 0;
  for (std::size_t g = 0; g < trees.size(); ++g) {
    const std::vector<sm::CombineNode> nodes = sm::combine_tree(sys.sm(), groups[g], trees[g]);
    for (const sm::CombineNode& c : nodes) {
      const unsigned ports = sys.sw(c.sw).port_count();
      driver::CombineEntry e;
      for (const sm::PortNum p : c.children) {
        e.children |= 1U << swfab::hw_port(p, ports);
      }
      e.root = c.root;
      e.parent = c.root ? 0U : swfab::hw_port(c.parent, ports);
      e.epoch = epochs[g];
      try {
        sys.sw(c.sw).driver().set_combine(trees[g].mlid, e);
      } catch (const std::invalid_argument& ex) {
        throw std::invalid_argument("group " + std::to_string(g) + " at switch " +
                                    sys.sw(c.sw).name() + ": " + ex.what());
      }
      ++n;
    }
  }
  return n;
}

std::size_t program_ring_combine(SystemFabric& sys, std::span<const sm::Group> groups,
                                 std::span<const sm::McTree> trees,
                                 std::span<const std::uint16_t> epochs) {
  if (groups.size() != trees.size() || epochs.size() != trees.size()) {
    throw std::invalid_argument("program_ring_combine: " + std::to_string(groups.size()) +
                                " groups, " + std::to_string(trees.size()) + " trees and " +
                                std::to_string(epochs.size()) + " epochs");
  }
  const sm::TorusLayout layout = sm::torus_layout(sys.sm());
  std::size_t n = 0;
  for (std::size_t g = 0; g < trees.size(); ++g) {
    for (const sm::RingCombineNode& c : sm::combine_rings(sys.sm(), layout, groups[g])) {
      const unsigned ports = sys.sw(c.sw).port_count();
      driver::RingCombineEntry e;
      for (const sm::PortNum p : c.children) {
        e.children |= 1U << swfab::hw_port(p, ports);
      }
      e.phases = static_cast<unsigned>(c.phases);
      for (std::size_t d = 0; d < e.phase.size(); ++d) {
        const sm::RingPhase& r = c.phase[d];
        if (!r.valid) {
          continue;
        }
        e.phase[d] = driver::RingPhaseEntry{.valid = true,
                                            .plus = swfab::hw_port(r.plus, ports),
                                            .minus = swfab::hw_port(r.minus, ports),
                                            .pos = static_cast<unsigned>(r.pos),
                                            .len = static_cast<unsigned>(r.len),
                                            .origin = r.origin,
                                            .expect = r.expect};
      }
      e.epoch = epochs[g];
      try {
        sys.sw(c.sw).driver().set_ring_combine(trees[g].mlid, e);
      } catch (const std::invalid_argument& ex) {
        throw std::invalid_argument("group " + std::to_string(g) + " (ring mode) at switch " +
                                    sys.sw(c.sw).name() + ": " + ex.what());
      }
      ++n;
    }
  }
  return n;
}

}  // namespace syncfab::tb::system

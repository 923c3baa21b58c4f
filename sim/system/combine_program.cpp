#include "combine_program.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "switch_fabric_sm.hpp"
#include "syncfab/sm/combine.hpp"

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

}  // namespace syncfab::tb::system

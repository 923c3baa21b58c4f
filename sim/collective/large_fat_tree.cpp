#include "large_fat_tree.hpp"

#include <stdexcept>
#include <string_view>

#include "syncfab/sm/generators.hpp"

namespace syncfab::tb::collective {

namespace {

int value(std::string_view spec, std::string_view key) {
  const std::string k = std::string(key) + "=";
  const auto at = spec.find(k);
  if (at == std::string_view::npos) {
    throw std::invalid_argument("fabric '" + std::string(spec) + "': no " + std::string(key));
  }
  const auto v = spec.substr(at + k.size());
  const auto end = v.find(',');
  try {
    return std::stoi(std::string(v.substr(0, end)));
  } catch (const std::exception&) {
    throw std::invalid_argument("fabric '" + std::string(spec) + "': bad " + std::string(key));
  }
}

}  // namespace

sm::Fabric make_any_fabric(const std::string& spec) {
  constexpr std::string_view kLarge = "xfattree:";
  if (spec.rfind(kLarge, 0) == 0) {
    sm::FatTreeSpec s;
    s.ports = value(spec, "ports");
    s.levels = value(spec, "levels");
    s.lids = false;
    return sm::make_fat_tree(s);
  }
  constexpr std::string_view kLargeTorus = "xtorus:";
  if (spec.rfind(kLargeTorus, 0) == 0) {
    sm::TorusSpec s;
    s.x = value(spec, "x");
    s.y = value(spec, "y");
    s.z = value(spec, "z");
    s.nodes_per_switch = value(spec, "nodes");
    s.lids = false;
    return sm::make_torus(s);
  }
  return sm::make_fabric(spec);
}

}  // namespace syncfab::tb::collective

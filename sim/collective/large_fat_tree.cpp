#include "large_fat_tree.hpp"

#include <stdexcept>
#include <string_view>
#include <vector>

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

// As sm::make_fat_tree: the extended generalised fat tree XGFT(n; m,..,m,2m;
// 1,m,..,m), the same switch order, ports and end-node order.
sm::Fabric fat_tree_without_lids(int ports, int levels) {
  if (ports < 2 || ports % 2 != 0 || ports > sm::kMaxPorts || levels < 1 || levels > 6) {
    throw std::invalid_argument("xfattree: ports " + std::to_string(ports) + ", levels " +
                                std::to_string(levels) + " (even ports 2.." +
                                std::to_string(sm::kMaxPorts) + ", levels 1..6)");
  }
  const int n = levels;
  const int m = ports / 2;
  std::vector<long> mj(n + 2, m);
  std::vector<long> wj(n + 2, m);
  mj[n] = 2L * m;
  wj[1] = 1;
  wj[n + 1] = 0;
  auto radix = [&](int level, int j) { return j > level ? mj[j] : wj[j]; };
  std::vector<long> count(n + 1, 1);
  for (int i = 0; i <= n; ++i) {
    for (int j = 1; j <= n; ++j) {
      count[i] *= radix(i, j);
    }
  }
  sm::Fabric f;
  std::vector<std::vector<sm::NodeId>> ids(n + 1);
  for (int i = 1; i <= n; ++i) {
    const int sw_ports = static_cast<int>(mj[i] + wj[i + 1]);
    for (long k = 0; k < count[i]; ++k) {
      ids[i].push_back(f.add_node(sm::NodeType::kSwitch,
                                  "sw-l" + std::to_string(i) + "-" + std::to_string(k), sw_ports));
    }
  }
  for (long k = 0; k < count[0]; ++k) {
    ids[0].push_back(f.add_node(sm::NodeType::kHca, "node-" + std::to_string(k), 1));
  }
  std::vector<long> digit(n + 1);
  for (int i = 0; i < n; ++i) {
    for (long k = 0; k < count[i]; ++k) {
      long rest = k;
      for (int j = 1; j <= n; ++j) {
        digit[j] = rest % radix(i, j);
        rest /= radix(i, j);
      }
      const long child_index = digit[i + 1];
      for (long b = 0; b < wj[i + 1]; ++b) {
        digit[i + 1] = b;
        long parent = 0;
        for (int j = n; j >= 1; --j) {
          parent = parent * radix(i + 1, j) + digit[j];
        }
        const int up_port = i == 0 ? 1 : static_cast<int>(mj[i] + b + 1);
        f.connect(ids[i][k], static_cast<sm::PortNum>(up_port),
                  ids[i + 1][static_cast<std::size_t>(parent)],
                  static_cast<sm::PortNum>(child_index + 1));
      }
    }
  }
  return f;
}

}  // namespace

sm::Fabric make_any_fabric(const std::string& spec) {
  constexpr std::string_view kLarge = "xfattree:";
  if (spec.rfind(kLarge, 0) == 0) {
    return fat_tree_without_lids(value(spec, "ports"), value(spec, "levels"));
  }
  return sm::make_fabric(spec);
}

}  // namespace syncfab::tb::collective

#include "syncfab/sm/generators.hpp"

#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) {
    throw FabricError(what);
  }
}

PortNum port(int p) { return static_cast<PortNum>(p); }

// Past the LID space the destinations without a LID are still routed (only
// lfts.dump needs LIDs). What bounds a generated fabric is checked before
// anything is built rather than after allocating millions of nodes: its
// node ids and destination indices (32-bit) and, when it is to be routed,
// its unicast tables: switches x destinations entries of a byte or half a
// byte, at most 2^34 (16 GiB; the 100,000-node dragonfly needs 0.8 GiB).
void require_ids(const std::string& what, long long hcas, long long switches, bool tables = true) {
  constexpr long long kMaxNodes = (1LL << 31) - 1;
  require(hcas + switches <= kMaxNodes, what + ": " + std::to_string(hcas) + " end nodes and " +
                                            std::to_string(switches) + " switches exceed the " +
                                            std::to_string(kMaxNodes) + " nodes a fabric holds");
  constexpr long double kMaxEntries = 17179869184.0L;  // 2^34
  const long double entries =
      static_cast<long double>(switches) * static_cast<long double>(hcas + switches);
  require(!tables || entries <= kMaxEntries,
          what + ": " + std::to_string(hcas) + " end nodes and " + std::to_string(switches) +
              " switches need unicast tables of " + std::to_string(switches) + " x " +
              std::to_string(hcas + switches) + " entries, past the 2^34 a routing run may hold");
}

// a * b + c as an index, widened before the arithmetic.
std::size_t idx(int a, int b, int c) {
  return static_cast<std::size_t>(a) * static_cast<std::size_t>(b) + static_cast<std::size_t>(c);
}

}  // namespace

Fabric make_fat_tree(const FatTreeSpec& spec) {
  require(spec.ports >= 2 && spec.ports % 2 == 0 && spec.ports <= kMaxPorts,
          "fat tree: ports must be even and 2.." + std::to_string(kMaxPorts));
  require(spec.levels >= 1 && spec.levels <= 6, "fat tree: levels must be 1..6");
  // As the extended generalised fat tree XGFT(n; m,..,m,2m; 1,m,..,m): a node
  // at level i is a digit string, digits j > i are child indices a_j < m_j and
  // digits j <= i are parent indices b_j < w_j; its parents replace digit i+1.
  const int n = spec.levels;
  const int m = spec.ports / 2;
  std::vector<long> mj(n + 2, m), wj(n + 2, m);
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
  // Below 2^63 even for 6 levels of 254-port switches.
  long long total = 0;
  for (int i = 0; i <= n; ++i) {
    total += count[i];
  }
  require_ids("fat tree", count[0], total - count[0], spec.lids);

  Fabric f;
  std::vector<std::vector<NodeId>> ids(n + 1);
  for (int i = 1; i <= n; ++i) {
    const int ports = static_cast<int>(mj[i] + wj[i + 1]);
    for (long k = 0; k < count[i]; ++k) {
      ids[i].push_back(f.add_node(NodeType::kSwitch,
                                  "sw-l" + std::to_string(i) + "-" + std::to_string(k), ports));
    }
  }
  for (long k = 0; k < count[0]; ++k) {
    ids[0].push_back(f.add_node(NodeType::kHca, "node-" + std::to_string(k), 1));
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
        f.connect(ids[i][k], port(up_port), ids[i + 1][parent],
                  port(static_cast<int>(child_index + 1)));
      }
    }
  }
  if (spec.lids) {
    f.assign_lids();
  }
  return f;
}

PrunedFatTreeSpec bluelight_spec() { return PrunedFatTreeSpec{}; }

PrunedFatTreeSpec taihulight_spec() {
  PrunedFatTreeSpec s;
  s.pods = 80;
  s.tops_per_plane = 8;
  s.paths = 2;
  return s;
}

Fabric make_pruned_fat_tree(const PrunedFatTreeSpec& s) {
  require(s.pods >= 1 && s.leaves_per_pod >= 1 && s.nodes_per_leaf >= 1 && s.l2_per_pod >= 1 &&
              s.tops_per_plane >= 1 && s.paths >= 1,
          "pruned fat tree: every parameter must be at least 1");
  // Widened: each parameter may be anything up to INT_MAX here.
  const long long leaf_ports = 0LL + s.nodes_per_leaf + s.l2_per_pod;
  const long long l2_ports = s.leaves_per_pod + 1LL * s.tops_per_plane * s.paths;
  const long long top_ports = 1LL * s.pods * s.paths;
  for (long long p : {leaf_ports, l2_ports, top_ports}) {
    require(p <= kMaxPorts, "pruned fat tree: a switch would need " + std::to_string(p) +
                                " ports (max " + std::to_string(kMaxPorts) + ")");
  }
  // Every parameter is below kMaxPorts now, so none of these overflow.
  require_ids(
      "pruned fat tree", 1LL * s.pods * s.leaves_per_pod * s.nodes_per_leaf,
      1LL * s.pods * (s.leaves_per_pod + s.l2_per_pod) + 1LL * s.l2_per_pod * s.tops_per_plane);
  Fabric f;
  std::vector<NodeId> leaf, l2, top;
  for (int q = 0; q < s.pods; ++q) {
    const std::string pod = "pod" + std::to_string(q);
    for (int l = 0; l < s.leaves_per_pod; ++l) {
      leaf.push_back(f.add_node(NodeType::kSwitch, pod + "-leaf" + std::to_string(l),
                                static_cast<int>(leaf_ports)));
    }
    for (int j = 0; j < s.l2_per_pod; ++j) {
      l2.push_back(f.add_node(NodeType::kSwitch, pod + "-l2-" + std::to_string(j),
                              static_cast<int>(l2_ports)));
    }
  }
  for (int t = 0; t < s.l2_per_pod * s.tops_per_plane; ++t) {
    top.push_back(
        f.add_node(NodeType::kSwitch, "top" + std::to_string(t), static_cast<int>(top_ports)));
  }
  for (int q = 0; q < s.pods; ++q) {
    for (int l = 0; l < s.leaves_per_pod; ++l) {
      const NodeId lf = leaf[idx(q, s.leaves_per_pod, l)];
      for (int e = 0; e < s.nodes_per_leaf; ++e) {
        const int rank = (q * s.leaves_per_pod + l) * s.nodes_per_leaf + e;
        const NodeId h = f.add_node(NodeType::kHca, "node-" + std::to_string(rank), 1);
        f.connect(h, 1, lf, port(e + 1));
      }
      for (int j = 0; j < s.l2_per_pod; ++j) {
        f.connect(lf, port(s.nodes_per_leaf + j + 1), l2[idx(q, s.l2_per_pod, j)], port(l + 1));
      }
    }
    for (int j = 0; j < s.l2_per_pod; ++j) {
      for (int t = 0; t < s.tops_per_plane; ++t) {
        for (int k = 0; k < s.paths; ++k) {
          f.connect(l2[idx(q, s.l2_per_pod, j)], port(s.leaves_per_pod + t * s.paths + k + 1),
                    top[idx(j, s.tops_per_plane, t)], port(q * s.paths + k + 1));
        }
      }
    }
  }
  f.assign_lids();
  return f;
}

Fabric make_torus(const TorusSpec& s) {
  require(s.x >= 1 && s.y >= 1 && s.z >= 1, "torus: dimensions must be at least 1");
  require(s.nodes_per_switch >= 0 && s.nodes_per_switch <= kMaxPorts - 6,
          "torus: nodes per switch must be 0.." + std::to_string(kMaxPorts - 6));
  // Node ids are 32-bit; the product is checked before it can overflow.
  constexpr long long kMaxSwitches = 1LL << 31;
  require(s.x <= kMaxSwitches / s.y && 1LL * s.x * s.y <= kMaxSwitches / s.z &&
              1LL * s.x * s.y * s.z * (1 + s.nodes_per_switch) <= kMaxSwitches,
          "torus: " + std::to_string(s.x) + "x" + std::to_string(s.y) + "x" + std::to_string(s.z) +
              " switches with " + std::to_string(s.nodes_per_switch) +
              " end nodes each exceed 2^31 nodes");
  require_ids("torus", 1LL * s.x * s.y * s.z * s.nodes_per_switch, 1LL * s.x * s.y * s.z, s.lids);
  const int dims[3] = {s.x, s.y, s.z};
  Fabric f;
  const long n = static_cast<long>(s.x) * s.y * s.z;
  std::vector<NodeId> sw(static_cast<std::size_t>(n));
  for (long k = 0; k < n; ++k) {
    const long x = k % s.x, y = k / s.x % s.y, z = k / s.x / s.y;
    sw[static_cast<std::size_t>(k)] =
        f.add_node(NodeType::kSwitch,
                   "sw-" + std::to_string(x) + "-" + std::to_string(y) + "-" + std::to_string(z),
                   6 + s.nodes_per_switch);
  }
  for (long k = 0; k < n; ++k) {
    const long c[3] = {k % s.x, k / s.x % s.y, k / s.x / s.y};
    for (int d = 0; d < 3; ++d) {
      if (dims[d] == 1) {
        continue;
      }
      long nc[3] = {c[0], c[1], c[2]};
      nc[d] = (c[d] + 1) % dims[d];
      const long nk = nc[0] + s.x * (nc[1] + static_cast<long>(s.y) * nc[2]);
      f.connect(sw[static_cast<std::size_t>(k)], port(2 * d + 1), sw[static_cast<std::size_t>(nk)],
                port(2 * d + 2));
    }
    for (int e = 0; e < s.nodes_per_switch; ++e) {
      const NodeId h = f.add_node(NodeType::kHca,
                                  "node-" + std::to_string(c[0]) + "-" + std::to_string(c[1]) +
                                      "-" + std::to_string(c[2]) + "-" + std::to_string(e),
                                  1);
      f.connect(h, 1, sw[static_cast<std::size_t>(k)], port(7 + e));
    }
  }
  if (s.lids) {
    f.assign_lids();
  }
  return f;
}

Fabric make_dragonfly(const DragonflySpec& s) {
  require(s.a >= 1 && s.p >= 0 && s.h >= 1, "dragonfly: need a >= 1, p >= 0, h >= 1");
  const long long wide_ports = 0LL + s.p + s.a - 1 + s.h;
  require(wide_ports <= kMaxPorts, "dragonfly: a switch would need " + std::to_string(wide_ports) +
                                       " ports (max " + std::to_string(kMaxPorts) + ")");
  const int ports = static_cast<int>(wide_ports);
  const int groups = s.a * s.h + 1;  // a and h are below kMaxPorts now
  require_ids("dragonfly", 1LL * groups * s.a * s.p, 1LL * groups * s.a);
  Fabric f;
  std::vector<NodeId> sw;
  for (int g = 0; g < groups; ++g) {
    for (int k = 0; k < s.a; ++k) {
      sw.push_back(f.add_node(NodeType::kSwitch,
                              "g" + std::to_string(g) + "-sw" + std::to_string(k), ports));
    }
  }
  auto at = [&](int g, int k) { return sw[idx(g, s.a, k)]; };
  for (int g = 0; g < groups; ++g) {
    for (int k = 0; k < s.a; ++k) {
      for (int e = 0; e < s.p; ++e) {
        const NodeId h = f.add_node(
            NodeType::kHca,
            "g" + std::to_string(g) + "-sw" + std::to_string(k) + "-n" + std::to_string(e), 1);
        f.connect(h, 1, at(g, k), port(e + 1));
      }
      for (int t = k + 1; t < s.a; ++t) {
        f.connect(at(g, k), port(s.p + 1 + (t - 1)), at(g, t), port(s.p + 1 + k));
      }
    }
    // Global channel j of group g (switch j/h, its global port j%h) reaches
    // group (g+j+1) mod groups, which sees it as channel a*h-1-j.
    for (int j = 0; j < s.a * s.h; ++j) {
      const int tg = (g + j + 1) % groups;
      if (tg < g) {
        continue;
      }
      const int tj = s.a * s.h - 1 - j;
      f.connect(at(g, j / s.h), port(s.p + s.a + j % s.h), at(tg, tj / s.h),
                port(s.p + s.a + tj % s.h));
    }
  }
  f.assign_lids();
  return f;
}

namespace {

std::map<std::string, int> parse_keys(std::string_view kind, std::string_view args,
                                      std::initializer_list<std::string_view> allowed) {
  std::map<std::string, int> out;
  while (!args.empty()) {
    const auto comma = args.find(',');
    const std::string_view item = args.substr(0, comma);
    args = comma == std::string_view::npos ? std::string_view{} : args.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      std::string msg(kind);
      msg += ": expected key=value, got \"";
      msg += item;
      msg += '"';
      throw FabricError(msg);
    }
    const std::string key(item.substr(0, eq));
    const std::string_view val = item.substr(eq + 1);
    bool known = false;
    for (auto a : allowed) {
      known = known || a == key;
    }
    if (!known) {
      std::string msg(kind);
      msg += ": unknown key \"";
      msg += key;
      msg += "\" (known: ";
      for (auto a : allowed) {
        if (a != *allowed.begin()) {
          msg += ", ";
        }
        msg += a;
      }
      msg += ')';
      throw FabricError(msg);
    }
    int v = 0;
    const auto [ptr, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (ec != std::errc{} || ptr != val.data() + val.size()) {
      throw FabricError(std::string(kind) + ": " + key + "=\"" + std::string(val) +
                        "\" is not an integer");
    }
    out[key] = v;
  }
  return out;
}

}  // namespace

Fabric make_fabric(std::string_view spec) {
  const auto colon = spec.find(':');
  const std::string_view kind = spec.substr(0, colon);
  const std::string_view args =
      colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
  if (kind == "fattree") {
    auto k = parse_keys(kind, args, {"ports", "levels"});
    FatTreeSpec s;
    if (k.count("ports")) {
      s.ports = k["ports"];
    }
    if (k.count("levels")) {
      s.levels = k["levels"];
    }
    return make_fat_tree(s);
  }
  if (kind == "pruned") {
    auto k = parse_keys(kind, args, {"paths", "pods", "leaves", "nodes", "l2", "tops"});
    PrunedFatTreeSpec s = bluelight_spec();
    if (k.count("paths")) {
      if (k["paths"] == 2) {
        s = taihulight_spec();
      }
      s.paths = k["paths"];
    }
    if (k.count("pods")) {
      s.pods = k["pods"];
    }
    if (k.count("leaves")) {
      s.leaves_per_pod = k["leaves"];
    }
    if (k.count("nodes")) {
      s.nodes_per_leaf = k["nodes"];
    }
    if (k.count("l2")) {
      s.l2_per_pod = k["l2"];
    }
    if (k.count("tops")) {
      s.tops_per_plane = k["tops"];
    }
    return make_pruned_fat_tree(s);
  }
  if (kind == "torus") {
    auto k = parse_keys(kind, args, {"x", "y", "z", "nodes"});
    TorusSpec s;
    if (k.count("x")) {
      s.x = k["x"];
    }
    if (k.count("y")) {
      s.y = k["y"];
    }
    if (k.count("z")) {
      s.z = k["z"];
    }
    if (k.count("nodes")) {
      s.nodes_per_switch = k["nodes"];
    }
    return make_torus(s);
  }
  if (kind == "dragonfly") {
    auto k = parse_keys(kind, args, {"a", "p", "h"});
    DragonflySpec s;
    if (k.count("a")) {
      s.a = k["a"];
    }
    if (k.count("p")) {
      s.p = k["p"];
    }
    if (k.count("h")) {
      s.h = k["h"];
    }
    return make_dragonfly(s);
  }
  throw FabricError("unknown fabric kind \"" + std::string(kind) +
                    "\" (known: fattree, pruned, torus, dragonfly)");
}

}  // namespace syncfab::sm

// Test helper: generate a fabric into a net file, or read a net file and print
// its min-hop data as JSON, so that an independent oracle (networkx, in
// scripts/sm/) can check both.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/net_format.hpp"

namespace {
int run(int argc, char** argv) {
  using namespace syncfab::sm;
  CLI::App app{"syncfab subnet-manager fabric helper"};
  app.require_subcommand(1);
  std::string spec, net, out;
  auto* gen = app.add_subcommand("generate", "write a generated fabric as a net file");
  gen->add_option("spec", spec, "generator spec, e.g. torus:x=3,y=3,z=2,nodes=1")->required();
  gen->add_option("net", out, "output net file")->required();
  auto* hops = app.add_subcommand("minhop", "print switch distances and per-port hops as JSON");
  hops->add_option("net", net, "net file")->required()->check(CLI::ExistingFile);
  auto* info = app.add_subcommand("info", "read a net file and print its size");
  info->add_option("net", net, "net file")->required()->check(CLI::ExistingFile);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    if (*gen) {
      write_net_file(out, make_fabric(spec));
      return 0;
    }
    const Fabric f = read_net_file(net);
    if (*info) {
      f.ensure_connected();
      std::cout << f.switch_count() << " switches, " << f.hca_count() << " end nodes, max LID "
                << f.max_lid() << "\n";
      return 0;
    }
    const MinHop mh(f);
    // {"switches": [names], "dist": [[..]], "hops": {"sw": {"port": {"dest": h}}}}
    nlohmann::json j;
    for (NodeId s : f.switches()) {
      j["switches"].push_back(f.name(s));
    }
    for (SwitchIdx a = 0; a < f.switch_count(); ++a) {
      nlohmann::json row = nlohmann::json::array();
      for (SwitchIdx b = 0; b < f.switch_count(); ++b) {
        row.push_back(mh.distance(a, b));
      }
      j["dist"].push_back(row);
    }
    for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
      const NodeId node = f.switch_node(s);
      for (int p = 0; p <= f.num_ports(node); ++p) {
        for (Lid d = 1; d <= f.max_lid(); ++d) {
          const LidOwner o = f.lid_owner(d);
          if (o.node == kNoNode) {
            continue;
          }
          const auto h = p == 0 ? mh.hops(s, d) : mh.hops_via(s, static_cast<PortNum>(p), d);
          if (h == kUnreachable) {
            continue;
          }
          j["hops"][f.name(node)][std::to_string(p)][f.name(o.node)] = h;
        }
      }
    }
    std::cout << j.dump() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "sm_fabric_tool: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "unknown error\n");
  }
  return 1;
}

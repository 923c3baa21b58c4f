// Scenario: multicast across a two-level fat tree of verilated 8-port
// switches with MFTs computed by the subnet manager (docs/switch-scenarios.md).
//
// The fabric is the SM's 8-port 2-tree (make_fat_tree{ports 8, levels 2}):
// 8 leaves (ports 0-3 hosts, 4-7 up), 4 top switches (ports 0-7 down), 32
// hosts. Groups come from the SM's pattern generator (random groups, or the
// rows and columns of a 4 x 8 grid with --param pattern=1), MLIDs from 0xC000; trees from a
// multicast engine (FULB-MC; MINIHOP-MC in the second test), LFTs from UPDN.
// Every member sends packets to its group's MLID on a lossless priority.
#include <algorithm>
#include <iostream>
#include <map>

#include "delivery_check.hpp"
#include "scenario_util.hpp"
#include "switch_fabric.hpp"
#include "switch_fabric_sm.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::tb::swfab {
namespace {

namespace drv = syncfab::driver;
using K = fmt::SwCounter;

constexpr unsigned kPrio = 3;

Task<> multicast_scenario(TestContext& ctx, const std::string& engine) {
  const auto groups_n = static_cast<int>(ctx.param("groups", 6));
  const auto group_size = static_cast<int>(ctx.param("group_size", 5));
  const auto pattern = ctx.param("pattern", 0);  // 0 random, 1 grid rows (4 x 8)
  const auto pkts = static_cast<std::uint64_t>(ctx.param("pkts", 6));  // per member
  const auto len = static_cast<unsigned>(ctx.param("len", 8));
  const auto rate_pct = static_cast<unsigned>(ctx.param("rate_pct", 25));
  const auto delay = static_cast<unsigned>(ctx.param("delay", 6));
  const drv::PfcTiming timing{8, 64};

  const sm::Fabric smf = sm::make_fat_tree(sm::FatTreeSpec{8, 2});
  Fabric f(ctx);
  instantiate(f, smf, [&](sm::NodeId, sm::NodeId) { return delay; });
  f.start();

  sm::PatternSpec ps;
  if (pattern == 0) {
    ps.kind = sm::PatternSpec::Kind::kRandom;
    ps.count = groups_n;
    ps.size = group_size;
    ps.seed = ctx.seed();
  } else {
    ps.kind = sm::PatternSpec::Kind::kGrid2D;
    ps.dims[0] = 4;
    ps.dims[1] = 8;
    ps.placement = sm::Placement::kUnaware;
    ps.seed = ctx.seed();
  }
  const sm::GroupSet gs = sm::make_groups(smf, ps);
  TB_CHECK(!gs.groups.empty() && gs.groups.size() <= kMftEntries)
      << gs.groups.size() << " groups; the MFT has " << kMftEntries << " entries";

  const sm::MinHop mh(smf);
  const sm::Lft lft = sm::route_updn(mh, sm::updn_ranking(mh));
  program_lfts(f, lft);
  sm::McLoad load(smf);
  const std::vector<sm::McTree> trees = sm::find_mc_engine(engine).route_all(mh, gs.groups, load);
  for (std::size_t g = 0; g < trees.size(); ++g) {
    const std::string why = sm::check_tree(mh, gs.groups[g], trees[g]);
    TB_CHECK(why.empty()) << engine << " tree of group " << g << ": " << why;
  }
  const std::size_t mft_entries = program_mfts(f, trees);
  drv::PfcPortConfig pfc{};
  pfc[kPrio] = drv::PfcPriority{true, 64, 32, 32};
  f.configure_pfc_all(timing, pfc, len);
  drv::SchedConfig sched{};
  sched.weight.fill(static_cast<std::uint8_t>(len));
  configure_sched_all(f, sched);
  f.enable_all();
  const std::uint64_t programmed = f.cycle();

  // Every member sends to its group; receivers = the other members.
  std::vector<unsigned> flows;
  std::map<unsigned, std::vector<unsigned>> rx_of;
  std::map<std::uint16_t, std::vector<unsigned>> members_of;  // MLID -> hosts
  const std::uint64_t t0 = f.cycle() + 20;
  for (const sm::Group& g : gs.groups) {
    std::vector<unsigned> hosts;
    for (const sm::NodeId n : g.members) {
      hosts.push_back(host_of(smf, n));
    }
    members_of[g.mlid] = hosts;
    for (const unsigned h : hosts) {
      FlowSpec s;
      s.dst_lid = g.mlid;
      s.prio = kPrio;
      s.len_flits = len;
      s.count = pkts;
      s.rate = rate_pct / 100.0;
      s.start_cycle = t0;
      const unsigned id = f.add_flow(h, s);
      flows.push_back(id);
      for (const unsigned r : hosts) {
        if (r != h) {
          rx_of[id].push_back(r);
        }
      }
    }
  }

  const std::uint64_t budget = 200'000;
  const bool idle = f.run_until_idle(budget, 50);
  const SpeedStats speed = f.speed();
  const CounterSnapshot snap = f.dump_counters(std::cout);
  std::cout << "counters written to " << f.write_counters_file(snap).string() << '\n';
  TB_CHECK(idle) << "traffic did not drain in " << budget << " cycles";

  // Every other member exactly once, in order; non-members and the sender none.
  const DeliveryReport rep = check_delivery(
      f, flows, [&](unsigned fl) { return rx_of[fl]; }, [](unsigned) { return false; });
  TB_CHECK(rep.ok()) << engine << ": " << rep;
  std::uint64_t drops = 0;
  for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
    drops += drops_at(snap, q);
  }
  TB_CHECK_EQ(drops, 0U);
  const std::string links = counters_match_links(snap, f);
  TB_CHECK(links.empty()) << links;

  // The copies each switch made = its MFT mask minus the input port, per
  // MLID, from the link counters: out of port o, as many packets of m as
  // came in on the mask's other ports (and none where o is not in the mask).
  std::uint64_t copies = 0;
  std::size_t checked = 0;
  for (unsigned s = 0; s < f.switch_count(); ++s) {
    const auto masks = mft_masks(trees, s);
    for (const auto& entry : members_of) {
      const std::uint16_t mlid = entry.first;
      const auto it = masks.find(mlid);
      const std::uint32_t mask = it == masks.end() ? 0U : it->second;
      const auto in_count = [&](unsigned p) -> std::uint64_t {
        if (!f.link_at(switch_end(s, p))) {
          return 0;
        }
        const auto& m = f.sent_to(switch_end(s, p)).packets_by_dst;
        const auto j = m.find(mlid);
        return j == m.end() ? 0 : j->second;
      };
      for (unsigned o = 0; o < kPorts; ++o) {
        if (!f.link_at(switch_end(s, o))) {
          continue;
        }
        std::uint64_t expect = 0;
        if ((mask >> o & 1U) != 0) {
          for (unsigned i = 0; i < kPorts; ++i) {
            expect += i != o ? in_count(i) : 0;
          }
        }
        const auto& out = f.sent_by(switch_end(s, o)).packets_by_dst;
        const auto j = out.find(mlid);
        const std::uint64_t got = j == out.end() ? 0 : j->second;
        TB_CHECK_EQ(got, expect) << f.switch_name(s) << " port " << o << " MLID 0x" << std::hex
                                 << mlid << std::dec << " (mask 0x" << std::hex << mask << ")";
        copies += got;
        ++checked;
      }
    }
  }
  std::uint64_t host_copies = 0;
  for (const unsigned fl : flows) {
    host_copies += f.flow(fl).sent * rx_of[fl].size();
  }

  std::size_t sizes = 0;
  for (const auto& g : gs.groups) {
    sizes += g.members.size();
  }
  const std::uint64_t pause_tx = snap.total(K::kPauseTx, kPrio);
  Summary sum_block("switch_fabric.multicast (" + engine + "), seed " + std::to_string(ctx.seed()));
  sum_block.add("fabric", "SM fattree:ports=8,levels=2 (12 switches, 32 hosts), UPDN LFTs, " +
                              std::to_string(delay) + "-cycle links");
  sum_block.add("groups",
                std::to_string(gs.groups.size()) + " (" +
                    (pattern == 0 ? "random" : "grid2d 4x8: rows and columns, unaware placement") +
                    "), " + std::to_string(sizes) + " members");
  sum_block.add("MFT entries programmed (switch, MLID)", std::to_string(mft_entries));
  sum_block.add("copies expected at hosts / packets sent",
                std::to_string(rep.expected) + " copies from " +
                    std::to_string(flows.size() * pkts) + " packets");
  sum_block.add("copies delivered / lost / dup / unexpected",
                std::to_string(rep.delivered) + " / " + std::to_string(rep.lost) + " / " +
                    std::to_string(rep.duplicates) + " / " + std::to_string(rep.unexpected));
  sum_block.add("host copies (flows x receivers)", std::to_string(host_copies));
  sum_block.add(
      "switch copies checked against MFT masks",
      std::to_string(copies) + " over " + std::to_string(checked) + " (switch, port, MLID)");
  sum_block.add("drops (all kinds)", std::to_string(drops));
  sum_block.add("PAUSE_TX prio 3", std::to_string(pause_tx));
  sum_block.add("fabric cycles (reset + programming through the driver / total)",
                std::to_string(programmed) + " / " + std::to_string(speed.cycles));
  sum_block.add("speed (fabric cycles/s, switch-cycles/s)",
                fixed(speed.cycles_per_s(), 0) + ", " + fixed(speed.switch_cycles_per_s(), 0));
  sum_block.print(std::cout);
  co_return;
}

}  // namespace

SYNCFAB_TEST(switch_fabric, multicast_two_level) { co_await multicast_scenario(ctx, "FULB-MC"); }

SYNCFAB_TEST(switch_fabric, multicast_two_level_minihop) {
  co_await multicast_scenario(ctx, "MINIHOP-MC");
}

}  // namespace syncfab::tb::swfab

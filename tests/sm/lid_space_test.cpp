// Fabrics past the unicast LID space: the tables are keyed by destination
// index, so a fabric whose LID space is capped (Fabric::limit_lids, the
// route tool's --max-lid) is routed by every unicast engine exactly as the
// same fabric with enough LIDs, index for index; only lfts.dump refuses it.
#include <gtest/gtest.h>

#include <ostream>
#include <sstream>
#include <string>

#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/generators.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/unicast.hpp"
#include "syncfab/sm/unicast_engines.hpp"

namespace syncfab::sm {
namespace {

std::string error_of(const auto& fn) {
  try {
    fn();
  } catch (const FabricError& e) {
    return e.what();
  }
  return "no error";
}

TEST(LidSpace, LimitKeepsIndicesAndDropsLidsPastIt) {
  Fabric f = make_fabric("fattree:ports=8,levels=3");  // 80 switches, 128 end nodes
  ASSERT_EQ(f.destination_count(), 208U);
  EXPECT_EQ(f.max_lid(), 208U);
  EXPECT_EQ(f.lidless_count(), 0U);
  const NodeId h = f.hcas().back();
  const Dest d = f.dest(h, 1);
  EXPECT_EQ(d, 208U);
  f.limit_lids(150);
  EXPECT_EQ(f.last_lid(), 150U);
  EXPECT_EQ(f.max_lid(), 150U);
  EXPECT_EQ(f.lidless_count(), 58U);
  EXPECT_EQ(f.destination_count(), 208U);
  EXPECT_EQ(f.dest_count(), 209U);
  EXPECT_EQ(f.dest(h, 1), d);
  EXPECT_EQ(f.lid(h, 1), 0U);
  EXPECT_EQ(f.dest_owner(d).node, h);
  EXPECT_EQ(f.lid_owner(151).node, kNoNode);
  EXPECT_EQ(f.lid_owner(150).node, f.dest_owner(150).node);
  EXPECT_NE(error_of([&] { f.limit_lids(0); }).find("last LID 0 out of range"), std::string::npos);
  EXPECT_NE(error_of([&] { f.limit_lids(0xC000); }).find("49152"), std::string::npos);
  f.limit_lids(kLastUnicastLid);
  EXPECT_EQ(f.lidless_count(), 0U);
  EXPECT_EQ(f.lid(h, 1), 208U);
}

struct Case {
  const char* spec;
  const char* engine;
  Lid last_lid;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.spec << " " << c.engine << " --max-lid " << c.last_lid;
}

// Every unicast engine on a fabric with all LIDs and on the same fabric
// whose LID space ends well before its destinations do.
class PastTheLidSpace : public ::testing::TestWithParam<Case> {};

TEST_P(PastTheLidSpace, RoutesAsWithEnoughLidsAndChecks) {
  const Case c = GetParam();
  const Fabric full = make_fabric(c.spec);
  Fabric capped = make_fabric(c.spec);
  capped.limit_lids(c.last_lid);
  ASSERT_GT(capped.lidless_count(), 0U);
  const MinHop mh_full(full);
  const MinHop mh_capped(capped);
  UnicastRouting a, b;
  route_unicast(c.engine, mh_full, a);
  route_unicast(c.engine, mh_capped, b);
  ASSERT_EQ(a.lft->dest_count(), b.lft->dest_count());
  ASSERT_EQ(b.lft->dest_count(), capped.destination_count() + 1);
  for (SwitchIdx s = 0; s < capped.switch_count(); ++s) {
    for (Dest d = 1; d < b.lft->dest_count(); ++d) {
      ASSERT_EQ(a.lft->get(s, d), b.lft->get(s, d)) << "switch " << s << " destination " << d;
    }
  }
  // Every destination, those without a LID included, is reached from every
  // switch with an end node, by a shortest path where the engine promises one.
  const bool shortest = std::string(c.engine) == "minhop" || std::string(c.engine) == "dor" ||
                        std::string(c.engine) == "lash";
  for (NodeId h : capped.hcas()) {
    const SwitchIdx s = capped.attach_switch(h);
    for (Dest d = 1; d < b.lft->dest_count(); ++d) {
      const auto path = walk(*b.lft, s, d);
      ASSERT_FALSE(path.empty()) << capped.name(h) << " -> destination " << d;
      if (shortest) {
        const std::size_t hops =
            path.size() - 1 + (capped.is_switch(capped.dest_owner(d).node) ? 0 : 1);
        ASSERT_EQ(hops, mh_capped.hops(s, d)) << capped.name(h) << " -> destination " << d;
      }
    }
  }
  if (shortest) {
    EXPECT_EQ(check_shortest(mh_capped, *b.lft), "");
  }
  // The credit-loop check where the engine promises deadlock freedom; MINHOP
  // does not (the dragonfly has cycles), and finds the same as with LIDs.
  const CreditLoopReport r = check_credit_loops(*b.lft, b.vls);
  if (b.promises_acyclic) {
    EXPECT_TRUE(r.acyclic) << r.describe(capped);
  } else {
    EXPECT_EQ(r.acyclic, check_credit_loops(*a.lft, a.vls).acyclic);
  }
  // lfts.dump names every destination by its LID: refused with the count.
  std::ostringstream dump;
  const std::string why = error_of([&] { write_lfts_dump(dump, *b.lft); });
  const std::string count = std::to_string(capped.lidless_count()) + " of " +
                            std::to_string(capped.destination_count()) + " destinations have none";
  EXPECT_NE(why.find(count), std::string::npos) << why;
  std::ostringstream ok;
  write_lfts_dump(ok, *a.lft);
  EXPECT_FALSE(ok.str().empty());
}

INSTANTIATE_TEST_SUITE_P(Engines, PastTheLidSpace,
                         ::testing::Values(Case{"fattree:ports=8,levels=3", "ftree", 150},
                                           Case{"fattree:ports=8,levels=3", "updn", 100},
                                           Case{"fattree:ports=8,levels=3", "minhop", 90},
                                           Case{"fattree:ports=8,levels=3", "lash", 120},
                                           Case{"torus:x=4,y=3,z=3,nodes=2", "dor", 60},
                                           Case{"torus:x=4,y=3,z=3,nodes=2", "lash", 40},
                                           Case{"dragonfly:a=4,p=2,h=2", "updn", 70},
                                           Case{"dragonfly:a=4,p=2,h=2", "minhop", 30},
                                           Case{"dragonfly:a=4,p=2,h=2", "ftree", 50}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name =
                               std::string(info.param.engine) + "_" + std::to_string(info.index);
                           return name;
                         });

// Indices past 16 bits: a torus of 17 x 16 switches with 248 end nodes each
// has 67,728 destinations, so no index may be narrowed to a LID's width.
TEST(LidSpace, IndicesPastSixteenBitsRouteAndCheck) {
  const Fabric f = make_fabric("torus:x=17,y=16,z=1,nodes=248");
  ASSERT_EQ(f.destination_count(), 17U * 16U * 249U);
  ASSERT_GT(f.dest_count(), 0x10000U);
  const MinHop mh(f);
  UnicastRouting r;
  route_unicast("dor", mh, r);
  EXPECT_EQ(check_shortest(mh, *r.lft), "");
  const CreditLoopReport report = check_credit_loops(*r.lft, r.vls);
  EXPECT_TRUE(report.acyclic) << report.describe(f);
  // The last end nodes (indices past 0xFFFF) reached from every switch.
  const NodeId last = f.hcas().back();
  const Dest d = f.dest(last, 1);
  EXPECT_EQ(d, f.destination_count());
  EXPECT_EQ(f.lid(last, 1), 0U);
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    ASSERT_FALSE(walk(*r.lft, s, d).empty()) << "switch " << s;
    ASSERT_FALSE(walk(*r.lft, s, d - 0x10000U + 1U).empty()) << "switch " << s;
  }
}

}  // namespace
}  // namespace syncfab::sm

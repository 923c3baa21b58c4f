// switch_top in its 8-port build (vl_switch_top8: NumPorts 8, BufCells 256,
// LftEntries 1024, MftEntries 256) on the bench of switch_top_test.cpp: the
// cases that need more than four ports.
#include <Vswitch_top.h>
#include <Vswitch_top___024root.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "switch_top_bench.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_top_bench;

static_assert(kPorts == 8, "built with SF_SWITCH_TOP8 against vl_switch_top8");

namespace {

// Samples the enqueue engine every cycle (its flattened public signals,
// read in ReadOnly): the cycle and the copies of each packet it takes.
struct EngineLog {
  std::vector<std::pair<std::uint64_t, unsigned>> taken;  // (cycle, copy mask)
};

Task<> watch_engine(Bench& b, EngineLog& log) {
  for (;;) {
    co_await ReadOnly();
    const Vswitch_top___024root& r = *b.dut.rootp;
    if (r.switch_top__DOT__eng_active != 0) {
      log.taken.emplace_back(b.clk.cycles(), r.switch_top__DOT__eng_mask);
    }
    co_await RisingEdge(b.clk);
  }
}

}  // namespace

// A one-flit multicast from input 0 to the seven other ports and a unicast
// from input 1 to port 0, complete in the same cycle on an idle switch with
// every tx ready (datapath "Enqueue", rate): the engine takes the multicast
// with its seven copies in one cycle and the unicast in the next, which
// leaves 3 + 1 cycles after its last flit (a lone one-flit packet's 3; an
// engine of one copy per cycle made it 3 + 7). The seven copies are queued
// together and share one read of the packet's one cell (datapath "Egress",
// shared read): every copy leaves 3 cycles after the last flit in (one copy
// per cycle from the read port made the last 9). The slot's reference count
// falls by seven at once: input 0's buffer is whole again.
SYNCFAB_TEST(switch_top8, multicast_seven_copies) {
  Bench b(ctx);
  co_await b.reset();
  EngineLog eng;
  ctx.sim().start_soon(watch_engine(b, eng), "engine watch");
  auto& sw = b.sw();
  sw.set_mft(0xC001, 0xFE);
  sw.set_lft(0x20, 0);
  sw.enable(true);
  const Packet mc = make_packet(Hdr{.len = 1, .dst = 0xC001, .prio = 3, .flow = 1});
  const Packet uc = make_packet(Hdr{.len = 1, .dst = 0x20, .prio = 3, .flow = 2});
  b.send(0, mc);
  b.send(1, uc);
  co_await b.drain(50);
  const std::uint64_t t = b.rx_last_cycle[0].at(0);
  TB_CHECK_EQ(b.rx_last_cycle[1].at(0), t) << "both complete in the same cycle";
  TB_CHECK_EQ(eng.taken.size(), 2U) << "one engine cycle per packet";
  TB_CHECK_EQ(eng.taken.at(0).second, 0xFEU) << "the multicast's seven copies in one cycle";
  TB_CHECK_EQ(eng.taken.at(1).second, 0x01U) << "the unicast";
  TB_CHECK_EQ(eng.taken.at(1).first, eng.taken.at(0).first + 1) << "in the next cycle";
  TB_CHECK_EQ(b.out[0].size(), 1U);
  check_copy(b.out[0][0], uc, 3, 0, 0, "unicast");
  TB_CHECK_EQ(b.out[0][0].first_cycle - t, 4U) << "the unicast";
  std::vector<std::uint64_t> first;
  for (unsigned o = 1; o < kPorts; ++o) {
    TB_CHECK_EQ(b.out[o].size(), 1U) << "port " << o;
    check_copy(b.out[o][0], mc, 3, 0, 0, "multicast copy on port " + std::to_string(o));
    first.push_back(b.out[o][0].first_cycle);
  }
  std::sort(first.begin(), first.end());
  TB_CHECK_EQ(first.front() - t, 3U) << "the first copy";
  TB_CHECK_EQ(first.back() - t, 3U) << "the last copy: all seven share one read";
  TB_CHECK_EQ(
      unsigned{
          b.dut.rootp->switch_top__DOT__gen_ingress__BRA__0__KET____DOT__u_ingress__DOT__free_q},
      kBufCells)
      << "input 0's buffer free again";
  std::cout << "switch_top8.multicast_seven_copies: last rx flit to first tx flit: first copy "
            << first.front() - t << ", last copy " << first.back() - t << ", unicast from another "
            << "input in the same cycle " << b.out[0][0].first_cycle - t << " cycles\n";
}

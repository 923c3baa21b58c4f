// switch_top under the unchanged switch driver (driver::Switch on RtlDevice
// over the APB port). Expected results are worked out by hand from
// docs/switch-datapath.md, docs/switch-egress.md, docs/switch-pfc.md and
// docs/switch-driver.md; the rule is named next to each check.
//
// Parameters of the verilated model (rtl/switch/CMakeLists.txt):
// NumPorts 4, BufCells 128, LftEntries 64, MftEntries 16.
#include <Vswitch_top.h>
#include <Vswitch_top___024root.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "switch_top_bench.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/driver/switch.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/model/wred_ecn.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_top_bench;
namespace drv = syncfab::driver;
namespace fmt = syncfab::fmt;
namespace model = syncfab::model;
namespace r = syncfab::hw::switch_regs;

// Identity and build parameters through the driver; one unicast packet from
// port 0 to port 2 (LFT), unchanged; RX at (0, prio), TX at (2, prio).
SYNCFAB_TEST(switch_top, unicast_forward) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  TB_CHECK_EQ(sw.info().ports, kPorts);
  TB_CHECK_EQ(sw.info().prios, 8U);
  TB_CHECK_EQ(sw.info().buf_cells, kBufCells);
  TB_CHECK_EQ(sw.info().lft_entries, kLftEntries);
  TB_CHECK_EQ(sw.info().mft_entries, kMftEntries);
  sw.set_lft(0x10, 2);
  TB_CHECK(sw.lft(0x10) == std::optional<unsigned>(2));
  TB_CHECK(!sw.lft(0x11).has_value());
  sw.enable(true);
  const Packet p =
      make_packet(Hdr{.len = 3, .dst = 0x10, .src = 5, .prio = 1, .ecn = 2, .dscp = 7, .flow = 1});
  b.send(0, p);
  co_await b.drain();
  TB_CHECK_EQ(b.out[2].size(), 1U);
  check_copy(b.out[2][0], p, 1, 2, 7, "unicast copy");
  for (unsigned o : {0U, 1U, 3U}) {
    TB_CHECK(b.out[o].empty()) << "port " << o;
  }
  TB_CHECK_EQ(b.count(0, 1, K::kRx), 1U);
  TB_CHECK_EQ(b.count(2, 1, K::kTx), 1U);
  TB_CHECK_EQ(b.count(2, 0, K::kTx), 0U);
  std::cout << "switch_top.unicast_forward: last rx flit to first tx flit "
            << b.out[2][0].first_cycle - b.rx_last_cycle[0][0] << " cycles\n";
}

// Lookup misses (datapath "Lookup"): an unprogrammed LID, a LID past the LFT
// (64 entries), an unprogrammed MLID and one past the MFT: each dropped,
// DROP_NO_ROUTE at (input, prio); nothing leaves.
SYNCFAB_TEST(switch_top, no_route_drop) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x10, 2);
  sw.enable(true);
  b.send(1, make_packet(Hdr{.len = 2, .dst = 0x11, .prio = 3, .flow = 1}));
  b.send(1, make_packet(Hdr{.len = 2, .dst = 100, .prio = 3, .flow = 2}));
  b.send(1, make_packet(Hdr{.len = 1, .dst = 0xC000, .prio = 4, .flow = 3}));
  b.send(1, make_packet(Hdr{.len = 1, .dst = 0xC000 + 20, .prio = 4, .flow = 4}));
  b.send(1, make_packet(Hdr{.len = 2, .dst = 0x10, .prio = 3, .flow = 5}));
  co_await b.drain();
  TB_CHECK_EQ(b.count(1, 3, K::kDropNoRoute), 2U);
  TB_CHECK_EQ(b.count(1, 4, K::kDropNoRoute), 2U);
  TB_CHECK_EQ(b.count(1, 3, K::kRx), 3U);
  TB_CHECK_EQ(b.out[2].size(), 1U) << "the routed packet after the misses";
  TB_CHECK_EQ(parse(b.out[2][0].flits[0]).flow, 5U);
}

// Unknown pkt_type: DROP_BAD_PKT and INTR_STATUS.BAD_PKT (bit 3); the port
// keeps working.
SYNCFAB_TEST(switch_top, bad_pkt_type) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x10, 3);
  sw.enable(true);
  TB_CHECK_EQ(sw.interrupt_status() & 0x8U, 0U);
  b.send(0, make_packet(Hdr{.type = 0x0F, .len = 2, .dst = 0x10, .prio = 2, .flow = 1}));
  b.send(0, make_packet(Hdr{.type = 0x00, .len = 1, .dst = 0x10, .prio = 2, .flow = 2}));
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x10, .prio = 2, .flow = 3}));
  co_await b.drain();
  TB_CHECK_EQ(b.count(0, 2, K::kDropBadPkt), 2U);
  TB_CHECK_EQ(sw.interrupt_status() & 0x8U, 0x8U);
  TB_CHECK_EQ(b.out[3].size(), 1U);
  TB_CHECK_EQ(parse(b.out[3][0].flits[0]).flow, 3U);
}

// Length check (datapath "Store and forward"): shorter and longer than
// len_flits are dropped as DROP_BAD_PKT, their cells freed; a good packet after
// each passes. A one-flit packet that claims 3 flits is short too.
SYNCFAB_TEST(switch_top, wrong_length) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x10, 1);
  sw.enable(true);
  b.send(2, make_packet(Hdr{.len = 4, .dst = 0x10, .prio = 5, .flow = 1}, 2));
  b.send(2, make_packet(Hdr{.len = 2, .dst = 0x10, .prio = 5, .flow = 2}));
  b.send(2, make_packet(Hdr{.len = 2, .dst = 0x10, .prio = 5, .flow = 3}, 5));
  b.send(2, make_packet(Hdr{.len = 3, .dst = 0x10, .prio = 5, .flow = 4}, 1));
  b.send(2, make_packet(Hdr{.len = 3, .dst = 0x10, .prio = 5, .flow = 5}));
  // A full buffer's worth of good packets afterwards: no cell was leaked.
  for (unsigned k = 0; k < 40; ++k) {
    b.send(2, make_packet(Hdr{.len = 4, .dst = 0x10, .prio = 5, .flow = 100 + k}));
  }
  co_await b.drain();
  TB_CHECK_EQ(b.count(2, 5, K::kDropBadPkt), 3U);
  TB_CHECK_EQ(b.count(2, 5, K::kRx), 45U);
  TB_CHECK_EQ(b.out[1].size(), 42U);
  TB_CHECK_EQ(parse(b.out[1][0].flits[0]).flow, 2U);
  TB_CHECK_EQ(parse(b.out[1][1].flits[0]).flow, 5U);
}

// CTRL.ENABLE = 0 (reset value): every packet dropped, DROP_DISABLED.
SYNCFAB_TEST(switch_top, disabled_drop) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x10, 1);
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x10, .prio = 6, .flow = 1}));
  b.send(0, make_packet(Hdr{.type = 0x0F, .len = 2, .dst = 0x10, .prio = 6, .flow = 2}));
  co_await b.drain();
  TB_CHECK_EQ(b.count(0, 6, K::kDropDisabled), 2U) << "ENABLE is checked first";
  TB_CHECK_EQ(b.count(0, 6, K::kDropBadPkt), 0U);
  TB_CHECK(b.out[1].empty());
}

// Multicast (datapath "Lookup", "Enqueue"): MFT mask 0b1111 from input 1 ->
// copies on 0, 2, 3 and none on 1; a mask that is only the input -> miss.
SYNCFAB_TEST(switch_top, multicast_mask_minus_input) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_mft(0xC001, 0xF);
  sw.set_mft(0xC002, 0x2);
  TB_CHECK(sw.mft(0xC001) == std::optional<std::uint32_t>(0xF));
  sw.enable(true);
  const Packet p = make_packet(Hdr{.len = 5, .dst = 0xC001, .prio = 2, .ecn = 1, .flow = 9});
  b.send(1, p);
  b.send(1, make_packet(Hdr{.len = 1, .dst = 0xC002, .prio = 2, .flow = 10}));
  co_await b.drain();
  for (unsigned o : {0U, 2U, 3U}) {
    TB_CHECK_EQ(b.out[o].size(), 1U) << "port " << o;
    check_copy(b.out[o][0], p, 2, 1, 0, "multicast copy on port " + std::to_string(o));
    TB_CHECK_EQ(b.count(o, 2, K::kTx), 1U);
  }
  TB_CHECK(b.out[1].empty());
  TB_CHECK_EQ(b.count(1, 2, K::kDropNoRoute), 1U);
  TB_CHECK_EQ(b.count(1, 2, K::kRx), 2U);
}

// Order per (input, output, priority): 30 packets of random lengths from
// two inputs to one output, with tx backpressure; each input's sequence
// arrives in order.
SYNCFAB_TEST(switch_top, order_per_flow) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x20, 3);
  sw.enable(true);
  // Inputs at half rate, the output at 0.7: the backlog stays well inside
  // the 128-cell buffers, so nothing is refused (checked below).
  b.tx_stall = 0.3;
  b.rx_gap = 0.5;
  std::uniform_int_distribution<unsigned> len(1, 8);
  for (unsigned k = 0; k < 30; ++k) {
    b.send(0, make_packet(Hdr{.len = static_cast<std::uint8_t>(len(ctx.rng())),
                              .dst = 0x20,
                              .src = 0,
                              .prio = 4,
                              .flow = 1000 + k}));
    b.send(1, make_packet(Hdr{.len = static_cast<std::uint8_t>(len(ctx.rng())),
                              .dst = 0x20,
                              .src = 1,
                              .prio = 4,
                              .flow = 2000 + k}));
  }
  co_await b.drain(2000);
  TB_CHECK_EQ(b.count(0, 4, K::kDropBuf) + b.count(1, 4, K::kDropBuf), 0U);
  TB_CHECK_EQ(b.out[3].size(), 60U);
  std::array<std::uint32_t, 2> next{1000, 2000};
  for (const auto& r : b.out[3]) {
    const Hdr h = parse(r.flits[0]);
    TB_CHECK_EQ(h.flow, next[h.src]) << "input " << h.src;
    ++next[h.src];
  }
}

// Strict priority (SP_MASK bit 7) before WDRR, then WDRR shares by weight
// (docs/switch-egress.md). Output 3 is held while queues fill.
SYNCFAB_TEST(switch_top, strict_priority_and_wdrr) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x30, 3);
  drv::SchedConfig sc{};
  sc.sp_mask = 0x80;
  sc.weight = {2, 6, 1, 1, 1, 1, 1, 1};
  sw.configure_scheduler(3, sc);
  sw.enable(true);
  b.hold_tx(3, true);
  // The first packet is matched at once and waits on the held link.
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x30, .prio = 0, .flow = 1}));
  for (unsigned k = 0; k < 12; ++k) {
    b.send(0, make_packet(Hdr{.len = 2, .dst = 0x30, .prio = 0, .flow = 10 + k}));
    b.send(1, make_packet(Hdr{.len = 2, .dst = 0x30, .prio = 1, .flow = 30 + k}));
  }
  for (unsigned k = 0; k < 3; ++k) {
    b.send(2, make_packet(Hdr{.len = 2, .dst = 0x30, .prio = 7, .flow = 50 + k}));
  }
  co_await b.drain(50);
  b.hold_tx(3, false);
  co_await ClockCycles(b.clk, 300);
  TB_CHECK_EQ(b.out[3].size(), 28U);
  TB_CHECK_EQ(parse(b.out[3][0].flits[0]).flow, 1U);
  for (unsigned k = 1; k <= 3; ++k) {
    TB_CHECK_EQ(parse(b.out[3][k].flits[0]).prio, 7U) << "SP queue 7 first, packet " << k;
  }
  // WDRR with weights 2 and 6 flits, 2-flit packets: 1 packet of queue 0
  // per 3 of queue 1 once both are credited. In the 16 packets after the SP
  // ones queue 1 has 12 +- 1 (the first round may start on either queue).
  unsigned q1 = 0;
  for (unsigned k = 4; k < 20; ++k) {
    q1 += parse(b.out[3][k].flits[0]).prio == 1 ? 1U : 0U;
  }
  TB_CHECK(q1 >= 11 && q1 <= 13) << "queue 1 got " << q1 << " of 16";
}

// A received pause (pfc_rx, docs/switch-pfc.md) stops that priority's egress
// queue for quanta x CYC_PER_QUANTUM cycles; another priority keeps going.
SYNCFAB_TEST(switch_top, pause_received_stops_queue) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_pfc_timing(drv::PfcTiming{8, 64});
  sw.configure_pfc(2, lossless_on(1, 20, 10, 100), kLink);
  sw.set_lft(0x24, 2);
  sw.enable(true);
  b.send(2, pfc_pause(1, 100));
  co_await ClockCycles(b.clk, 5);
  const std::uint64_t paused = b.clk.cycles();
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x24, .prio = 1, .flow = 1}));
  b.send(1, make_packet(Hdr{.len = 2, .dst = 0x24, .prio = 0, .flow = 2}));
  co_await ClockCycles(b.clk, 400);
  TB_CHECK_EQ(b.out[2].size(), 1U) << "only priority 0 passes during the pause";
  TB_CHECK_EQ(parse(b.out[2][0].flits[0]).prio, 0U);
  co_await ClockCycles(b.clk, 600);
  TB_CHECK_EQ(b.out[2].size(), 2U);
  const std::uint64_t left = b.out[2][1].first_cycle;
  TB_CHECK(left >= paused + 800 - 10 && left <= paused + 800 + 20)
      << "priority 1 left " << left - paused << " cycles after the pause (800 expected)";
  TB_CHECK_EQ(b.count(2, 1, K::kPauseRx), 1U);
  TB_CHECK(b.pfc_out[2].empty() && b.out[0].empty());
}

// Malformed PFC frames (datapath "Ports and packets"): three flits, two
// flits with len_flits 3, one flit: none is honoured (priority 1 of output
// 2 keeps going), each is DROP_BAD_PKT at prio 0 and none is RX. len_flits
// 0 (datapath "Ingress" 1): checked after the lookup, so an unrouted one is
// DROP_NO_ROUTE and a routed one DROP_BAD_PKT at its last flit, nothing
// stored; a good packet after them passes.
SYNCFAB_TEST(switch_top, malformed_pfc_and_len0) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_pfc_timing(drv::PfcTiming{8, 64});
  sw.configure_pfc(2, lossless_on(1, 20, 10, 100), kLink);
  sw.set_lft(0x24, 2);
  sw.enable(true);
  Packet longer = pfc_pause(1, 100);
  longer.push_back(longer[1]);
  const Packet badlen = pfc_pause(1, 100, 3);
  Packet single = pfc_pause(1, 100);
  single.pop_back();
  b.send(2, longer);
  b.send(2, badlen);
  b.send(2, single);
  b.send(3, make_packet(Hdr{.len = 0, .dst = 0x25, .prio = 4, .flow = 10}, 2));
  b.send(3, make_packet(Hdr{.len = 0, .dst = 0x24, .prio = 4, .flow = 11}, 1));
  b.send(3, make_packet(Hdr{.len = 0, .dst = 0x24, .prio = 4, .flow = 12}, 3));
  co_await ClockCycles(b.clk, 20);
  const std::uint64_t sent = b.clk.cycles();
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x24, .prio = 1, .flow = 1}));
  b.send(3, make_packet(Hdr{.len = 2, .dst = 0x24, .prio = 4, .flow = 2}));
  co_await ClockCycles(b.clk, 100);
  TB_CHECK_EQ(b.out[2].size(), 2U) << "no malformed frame paused priority 1";
  const auto p1 = std::find_if(b.out[2].begin(), b.out[2].end(),
                               [](const RxPacket& r) { return parse(r.flits[0]).flow == 1; });
  TB_CHECK(p1 != b.out[2].end() && p1->first_cycle < sent + 30) << "priority 1 was held";
  TB_CHECK_EQ(b.count(2, 0, K::kDropBadPkt), 3U) << "three malformed frames";
  TB_CHECK_EQ(b.count(2, 0, K::kRx), 0U) << "a PFC frame is not a packet";
  TB_CHECK_EQ(b.count(2, 1, K::kPauseRx), 0U);
  TB_CHECK_EQ(b.count(3, 4, K::kDropNoRoute), 1U) << "len_flits 0, unrouted";
  TB_CHECK_EQ(b.count(3, 4, K::kDropBadPkt), 2U) << "len_flits 0, routed";
  TB_CHECK_EQ(b.count(3, 4, K::kRx), 4U);
  TB_CHECK_EQ(parse(b.out[2][0].flits[0]).flow + parse(b.out[2][1].flits[0]).flow, 3U)
      << "flows 1 and 2 left output 2";
}

// PFC watchdog (docs/switch-pfc.md) on a queue held paused by its peer:
// detection after WD_DETECT_TIME cycles of continuous XOFF, then RECOVER for
// WD_RECOVER_TIME cycles in which the queue ignores the pause. Drop mode:
// its copies are read out and discarded (DROP_WD); send mode: they leave.
// Pause at cycle f (quanta 1000 x 8 cycles, far longer than the test):
// XOFF from f+1, detect in f+50, RECOVER f+51 .. f+350, detect again in f+400.
static Task<> watchdog_case(Bench& b, bool drop_mode) {
  auto& sw = b.sw();
  sw.set_pfc_timing(drv::PfcTiming{8, 64});
  sw.configure_pfc(2, lossless_on(1, 20, 10, 100), kLink);
  sw.configure_watchdog(drv::WatchdogConfig{50, 300, 100'000, 0});
  sw.configure_watchdog_port(2, drv::WatchdogPort{0x02, drop_mode});
  sw.set_lft(0x24, 2);
  sw.enable(true);
  b.send(2, pfc_pause(1, 1000));
  co_await b.drain(0);
  const std::uint64_t f = b.rx_last_cycle[2][0];
  while (b.clk.cycles() < f + 100) {
    co_await RisingEdge(b.clk);
  }
  const auto st = sw.watchdog_state(2);
  TB_CHECK(st[1] == fmt::WdState::kRecover) << "queue 1 recovering after the detection";
  TB_CHECK(st[0] == fmt::WdState::kMonitor);
  TB_CHECK_EQ(b.count(2, 1, K::kWdDetect), 1U);
  TB_CHECK_EQ(sw.interrupt_status() & 0x1U, 0x1U) << "INTR_STATUS.WD_DETECT";
  for (unsigned k = 0; k < 3; ++k) {
    b.send(0, make_packet(Hdr{.len = 3, .dst = 0x24, .prio = 1, .flow = 1 + k}));
  }
  co_await b.drain(60);
  TB_CHECK(b.clk.cycles() < f + 350) << "the copies are handled inside the recovery period";
  if (drop_mode) {
    TB_CHECK(b.out[2].empty()) << "drop mode: nothing leaves";
    TB_CHECK_EQ(b.count(2, 1, K::kDropWd), 3U);
    TB_CHECK_EQ(b.count(2, 1, K::kTx), 0U);
  } else {
    TB_CHECK_EQ(b.out[2].size(), 3U) << "send mode: the pause is ignored";
    TB_CHECK_EQ(b.count(2, 1, K::kTx), 3U);
    TB_CHECK_EQ(b.count(2, 1, K::kDropWd), 0U);
  }
  while (b.clk.cycles() < f + 420) {
    co_await RisingEdge(b.clk);
  }
  TB_CHECK_EQ(b.count(2, 1, K::kWdRecover), 1U);
  TB_CHECK_EQ(b.count(2, 1, K::kWdDetect), 2U) << "a new round after the recovery";
}

SYNCFAB_TEST(switch_top, watchdog_drop_mode) {
  Bench b(ctx);
  co_await b.reset();
  co_await watchdog_case(b, true);
}

SYNCFAB_TEST(switch_top, watchdog_ignore_mode) {
  Bench b(ctx);
  co_await b.reset();
  co_await watchdog_case(b, false);
}

// A queue the watchdog has DISABLED is not lossless for WRED (datapath
// "Enqueue", docs/switch-pfc.md pfc_off_o). Queue 1 of output 2 is
// lossless, WRED selects from queue length 1, output 2's tx is held. Limit
// 1: detect in f+20, RECOVER to f+50, the second detection (f+70) disables.
// Not-ECT copies pass while it is monitored, one is DROP_WRED while it is
// DISABLED, and after the re-enable they pass again.
SYNCFAB_TEST(switch_top, watchdog_disabled_queue_not_lossless) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_pfc_timing(drv::PfcTiming{8, 64});
  sw.configure_pfc(2, lossless_on(1, 20, 10, 100), kLink);
  sw.configure_watchdog(drv::WatchdogConfig{20, 30, 100'000, 1});
  sw.configure_watchdog_port(2, drv::WatchdogPort{0x02, false});
  sw.configure_wred(2, 1, drv::WredQueue{true, 0, 1, 0});
  sw.set_lft(0x24, 2);
  sw.enable(true);
  b.hold_tx(2, true);
  b.send(2, pfc_pause(1, 1000));
  co_await b.drain(0);
  const std::uint64_t f = b.rx_last_cycle[2][0];
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x24, .prio = 1, .flow = 1}));
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x24, .prio = 1, .flow = 2}));
  co_await b.drain(5);
  TB_CHECK(b.clk.cycles() < f + 20) << "both enqueued while the queue is monitored";
  TB_CHECK_EQ(b.count(2, 1, K::kDropWred), 0U) << "lossless: a selected Not-ECT copy passes";
  while (b.clk.cycles() < f + 100) {
    co_await RisingEdge(b.clk);
  }
  TB_CHECK(sw.watchdog_state(2)[1] == fmt::WdState::kDisabled);
  TB_CHECK_EQ(b.count(2, 1, K::kWdDisable), 1U);
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x24, .prio = 1, .flow = 3}));
  co_await b.drain(10);
  TB_CHECK_EQ(b.count(2, 1, K::kDropWred), 1U) << "DISABLED: not lossless, Not-ECT dropped";
  sw.reenable_pfc(2, 0x02);
  TB_CHECK(sw.watchdog_state(2)[1] == fmt::WdState::kMonitor);
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x24, .prio = 1, .flow = 4}));
  co_await b.drain(10);
  TB_CHECK_EQ(b.count(2, 1, K::kDropWred), 1U) << "re-enabled: lossless again";
  b.hold_tx(2, false);
  co_await ClockCycles(b.clk, 300);
  TB_CHECK_EQ(b.out[2].size(), 3U);
  std::vector<std::uint32_t> flows;
  for (const RxPacket& r : b.out[2]) {
    flows.push_back(parse(r.flits[0]).flow);
  }
  TB_CHECK((flows == std::vector<std::uint32_t>{1, 2, 4})) << "flows 1, 2, 4 in order";
}

// Occupancy over XOFF sends a pause frame on that port's tx within
// 1 + max packet + 2 cycles (datapath "What the co-simulation checks"),
// class bit and quanta as programmed; falling below XON sends a resume.
SYNCFAB_TEST(switch_top, xoff_sends_pause) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_pfc_timing(drv::PfcTiming{8, 200});
  sw.configure_pfc(0, lossless_on(1, 8, 4, 50), kLink);
  sw.set_lft(0x25, 2);
  sw.set_lft(0x26, 0);
  sw.enable(true);
  b.hold_tx(2, true);
  // Port 0's own tx is busy with an 8-flit packet from port 3 when the
  // crossing happens, so the frame must wait for its end (never inside it).
  b.send(3, make_packet(Hdr{.len = 8, .dst = 0x26, .prio = 0, .flow = 7}));
  for (unsigned k = 0; k < 3; ++k) {
    b.send(0, make_packet(Hdr{.len = 4, .dst = 0x25, .prio = 1, .flow = 1 + k}));
  }
  co_await b.drain(40);
  // The 8th cell (last flit of the second packet) is the crossing.
  TB_CHECK_EQ(b.pfc_out[0].size(), 1U);
  const RxPacket& f = b.pfc_out[0][0];
  TB_CHECK_EQ(f.flits.size(), 2U);
  TB_CHECK_EQ(unsigned{pfc_of(f.flits).class_enable()}, 0x02U) << "class enable";
  TB_CHECK_EQ(pfc_of(f.flits).quanta(1), 50U) << "quanta of priority 1";
  const std::uint64_t crossing = b.rx_last_cycle[0][1];
  TB_CHECK(f.first_cycle <= crossing + 1 + 8 + 2)
      << "pause " << f.first_cycle - crossing << " cycles after the crossing";
  std::cout << "switch_top.xoff_sends_pause: pause frame " << f.first_cycle - crossing
            << " cycles after the XOFF crossing\n";
  TB_CHECK_EQ(b.count(0, 1, K::kPauseTx), 1U);
  b.hold_tx(2, false);
  co_await ClockCycles(b.clk, 100);
  TB_CHECK_EQ(b.out[2].size(), 3U);
  TB_CHECK_EQ(b.pfc_out[0].size(), 2U);
  TB_CHECK_EQ(pfc_of(b.pfc_out[0][1].flits).quanta(1), 0U) << "resume: quanta 0";
  TB_CHECK_EQ(b.count(0, 1, K::kResumeTx), 1U);
}

// Hook-flow remap (datapath "Enqueue"): uplinks 2 and 3; REMAP[1] = prio 5,
// DSCP 9. Uplink to uplink is remapped (TX at the new queue), downlink to
// uplink is not.
SYNCFAB_TEST(switch_top, remap_uplink_to_uplink) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  drv::RemapConfig rc{};
  rc.enable = true;
  rc.uplink_mask = 0x0C;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    rc.map[p] = drv::RemapEntry{static_cast<std::uint8_t>(p), 0};
  }
  rc.map[1] = drv::RemapEntry{5, 9};
  sw.configure_remap(rc);
  sw.set_lft(0x27, 3);
  sw.enable(true);
  const Packet up = make_packet(Hdr{.len = 3, .dst = 0x27, .prio = 1, .dscp = 4, .flow = 1});
  const Packet down = make_packet(Hdr{.len = 3, .dst = 0x27, .prio = 1, .dscp = 4, .flow = 2});
  b.send(2, up);
  co_await b.drain(50);
  b.send(0, down);
  co_await b.drain(50);
  TB_CHECK_EQ(b.out[3].size(), 2U);
  check_copy(b.out[3][0], up, 5, 0, 9, "hook flow");
  check_copy(b.out[3][1], down, 1, 0, 4, "downlink flow");
  TB_CHECK_EQ(b.count(3, 5, K::kTx), 1U);
  TB_CHECK_EQ(b.count(3, 1, K::kTx), 1U);
  TB_CHECK_EQ(b.count(2, 1, K::kRx), 1U) << "RX at the arrival priority";
}

// WRED/ECN at enqueue with the (o, q) queue length (docs/switch-egress.md):
// Kmin 2, Kmax 4 cells, Pmax 255, output held. Queue lengths seen by the
// copies 2..5 (2-flit packets; copy 1 is streaming, out of the queue):
// 0, 2 (= Kmin: never), 4 (>= Kmax: mark), 6 (mark); then a Not-ECT
// packet at 8 is dropped (lossy).
SYNCFAB_TEST(switch_top, wred_mark_above_kmax) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.configure_wred(3, 0, drv::WredQueue{true, 2, 4, 255});
  sw.set_lft(0x28, 3);
  sw.enable(true);
  b.hold_tx(3, true);
  for (unsigned k = 0; k < 5; ++k) {
    b.send(0, make_packet(Hdr{.len = 2, .dst = 0x28, .prio = 0, .ecn = 2, .flow = 1 + k}));
  }
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x28, .prio = 0, .ecn = 0, .flow = 6}));
  co_await b.drain(50);
  b.hold_tx(3, false);
  co_await ClockCycles(b.clk, 100);
  TB_CHECK_EQ(b.out[3].size(), 5U);
  const std::array<std::uint8_t, 5> ecn{2, 2, 2, 3, 3};
  for (unsigned k = 0; k < 5; ++k) {
    TB_CHECK_EQ(parse(b.out[3][k].flits[0]).ecn, ecn[k]) << "copy " << k + 1;
  }
  TB_CHECK_EQ(b.count(3, 0, K::kEcnMark), 2U);
  TB_CHECK_EQ(b.count(3, 0, K::kDropWred), 1U);
}

// Enqueue rate (datapath "Enqueue", rate): one packet per cycle switch-wide
// with all of its copies. Input 0's multicast to outputs 1-3 and input 1's
// unicast to output 0 complete in the same cycle on an idle switch: the
// engine takes input 0's packet first (round robin from input 0 after
// reset), its three copies at once, and input 1's in the next cycle, so the
// unicast leaves one cycle after a lone one-flit packet would (3 + 1; an
// engine of one copy per cycle made it 3 + 3). The multicast's copies, all
// queued in one cycle, share one read of its one cell (datapath "Egress",
// shared read): all three leave 3 cycles after the last flit in.
SYNCFAB_TEST(switch_top, two_inputs_one_cycle_two_engine_cycles) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_mft(0xC001, 0xE);
  sw.set_lft(0x20, 0);
  sw.enable(true);
  const Packet mc = make_packet(Hdr{.len = 1, .dst = 0xC001, .prio = 1, .flow = 1});
  const Packet uc = make_packet(Hdr{.len = 1, .dst = 0x20, .prio = 1, .flow = 2});
  b.send(0, mc);
  b.send(1, uc);
  co_await b.drain(50);
  const std::uint64_t t = b.rx_last_cycle[0].at(0);
  TB_CHECK_EQ(b.rx_last_cycle[1].at(0), t) << "both complete in the same cycle";
  TB_CHECK_EQ(b.out[0].size(), 1U);
  check_copy(b.out[0][0], uc, 1, 0, 0, "unicast");
  TB_CHECK_EQ(b.out[0][0].first_cycle - t, 4U) << "the unicast: taken in the engine's second cycle";
  std::vector<std::uint64_t> first;
  for (unsigned o = 1; o < kPorts; ++o) {
    TB_CHECK_EQ(b.out[o].size(), 1U) << "port " << o;
    check_copy(b.out[o][0], mc, 1, 0, 0, "multicast copy on port " + std::to_string(o));
    first.push_back(b.out[o][0].first_cycle);
  }
  std::sort(first.begin(), first.end());
  TB_CHECK_EQ(first.front() - t, 3U) << "the multicast's first copy";
  TB_CHECK_EQ(first.back(), first.front()) << "a one-flit packet's copies leave together";
  std::cout << "switch_top.two_inputs_one_cycle_two_engine_cycles: unicast "
            << b.out[0][0].first_cycle - t << ", multicast copies " << first.front() - t << ".."
            << first.back() - t << " cycles after the last rx flit\n";
}

// Input 0's buffer and reference counts, read through the model's probes.
namespace {
unsigned free_cells(Bench& b, unsigned in) {
  auto& r = *b.dut.rootp;
  switch (in) {
    case 0:
      return r.switch_top__DOT__gen_ingress__BRA__0__KET____DOT__u_ingress__DOT__free_q;
    case 1:
      return r.switch_top__DOT__gen_ingress__BRA__1__KET____DOT__u_ingress__DOT__free_q;
    case 2:
      return r.switch_top__DOT__gen_ingress__BRA__2__KET____DOT__u_ingress__DOT__free_q;
    default:
      return r.switch_top__DOT__gen_ingress__BRA__3__KET____DOT__u_ingress__DOT__free_q;
  }
}
// WDRR weights of 8 flits on outputs 1-3: a copy of up to 8 flits is
// granted without credit-only cycles (the reset weight is 1).
void full_weights(drv::Switch& sw) {
  drv::SchedConfig sc{};
  sc.weight.fill(8);
  for (unsigned o = 1; o < kPorts; ++o) {
    sw.configure_scheduler(o, sc);
  }
}
}  // namespace

// Shared read (datapath "Egress"), one sharer's tx not ready: a one-flit
// multicast from input 0 to outputs 1-3 with output 2 held. All three
// outputs are free and offer it, so all three are matched in one cycle;
// outputs 1 and 3 send at t + 3, output 2 keeps its copy (the cell it
// reads is the packet's only one) and sends it alone when its tx is
// released, input 0's read port taken until then: a unicast from input 0
// to output 1 queued behind the multicast waits for it. The last copy's
// end returns the packet's cells: input 0's buffer is whole again.
SYNCFAB_TEST(switch_top, shared_read_tx_not_ready) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_mft(0xC001, 0xE);
  sw.set_lft(0x21, 1);
  sw.enable(true);
  b.hold_tx(2, true);
  const Packet mc = make_packet(Hdr{.len = 1, .dst = 0xC001, .prio = 2, .flow = 1});
  const Packet uc = make_packet(Hdr{.len = 1, .dst = 0x21, .prio = 2, .flow = 2});
  b.send(0, mc);
  b.send(0, uc);
  co_await ClockCycles(b.clk, 20);
  const std::uint64_t t = b.rx_last_cycle[0].at(0);
  TB_CHECK_EQ(b.out[1].size(), 1U) << "output 1: the multicast copy only, the unicast waits";
  TB_CHECK_EQ(b.out[3].size(), 1U);
  TB_CHECK(b.out[2].empty()) << "output 2 is held";
  TB_CHECK_EQ(b.out[1].at(0).first_cycle - t, 3U);
  TB_CHECK_EQ(b.out[3].at(0).first_cycle - t, 3U);
  TB_CHECK(free_cells(b, 0) < kBufCells) << "the multicast's cell is still held for output 2";
  const std::uint64_t release = b.clk.cycles();
  b.hold_tx(2, false);
  co_await b.drain(50);
  TB_CHECK_EQ(b.out[2].size(), 1U);
  check_copy(b.out[2].at(0), mc, 2, 0, 0, "output 2's copy");
  TB_CHECK(b.out[2].at(0).first_cycle >= release) << "sent once its tx is ready";
  TB_CHECK_EQ(b.out[1].size(), 2U);
  check_copy(b.out[1].at(1), uc, 2, 0, 0, "the unicast");
  TB_CHECK_EQ(b.out[1].at(1).first_cycle, b.out[2].at(0).first_cycle + 1)
      << "the unicast reads input 0 after output 2's copy";
  for (unsigned o = 1; o < kPorts; ++o) {
    TB_CHECK_EQ(b.count(o, 2, K::kTx), o == 1 ? 2U : 1U) << "port " << o;
  }
  TB_CHECK_EQ(free_cells(b, 0), kBufCells) << "input 0's buffer free again";
  std::cout << "switch_top.shared_read_tx_not_ready: outputs 1, 3 at "
            << b.out[1].at(0).first_cycle - t << " cycles, output 2 "
            << b.out[2].at(0).first_cycle - release << " cycles after its release\n";
}

// A two-flit multicast does not share (datapath "Egress", shared read: one
// flit only): its three copies leave from input 0's read port one after the
// other, back to back, the first 3 cycles after the last flit in.
SYNCFAB_TEST(switch_top, two_flit_multicast_one_copy_at_a_time) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_mft(0xC001, 0xE);
  full_weights(sw);
  sw.enable(true);
  const Packet mc = make_packet(Hdr{.len = 2, .dst = 0xC001, .prio = 4, .flow = 1});
  b.send(0, mc);
  co_await b.drain(50);
  const std::uint64_t t = b.rx_last_cycle[0].at(0);
  std::vector<std::uint64_t> first;
  for (unsigned o = 1; o < kPorts; ++o) {
    TB_CHECK_EQ(b.out[o].size(), 1U) << "port " << o;
    check_copy(b.out[o].at(0), mc, 4, 0, 0, "copy on port " + std::to_string(o));
    first.push_back(b.out[o].at(0).first_cycle);
  }
  std::sort(first.begin(), first.end());
  TB_CHECK_EQ(first.front() - t, 3U);
  for (std::size_t k = 1; k < first.size(); ++k) {
    TB_CHECK_EQ(first[k], first[k - 1] + 2)
        << "copy " << k << ": after the previous copy's 2 flits";
  }
  TB_CHECK_EQ(free_cells(b, 0), kBufCells) << "input 0's buffer free again";
}

// A shared read and a unicast of another input in one matching cycle. Input
// 0 streams an 8-flit unicast to output 2 (output 2's round robin on queue 1
// then starts from input 1); meanwhile input 0's one-flit multicast to 1-3
// and input 1's one-flit unicast to 2 are queued. In the cycle the 8-flit
// packet's last flit leaves, outputs 1 and 3 share input 0's read of the
// multicast and output 2 takes input 1's unicast: the three leave in the
// same cycle; output 2's multicast copy follows, alone, the next cycle. Both
// inputs' buffers are whole again at the end.
SYNCFAB_TEST(switch_top, shared_read_beside_unicast) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_mft(0xC001, 0xE);
  sw.set_lft(0x22, 2);
  full_weights(sw);
  sw.enable(true);
  const Packet big = make_packet(Hdr{.len = 8, .dst = 0x22, .prio = 1, .flow = 1});
  const Packet mc = make_packet(Hdr{.len = 1, .dst = 0xC001, .prio = 1, .flow = 2});
  const Packet uc = make_packet(Hdr{.len = 1, .dst = 0x22, .prio = 1, .flow = 3});
  b.send(0, big);
  b.send(0, mc);
  co_await ClockCycles(b.clk, 10);
  b.send(1, uc);
  co_await b.drain(50);
  TB_CHECK_EQ(b.out[1].size(), 1U);
  TB_CHECK_EQ(b.out[3].size(), 1U);
  TB_CHECK_EQ(b.out[2].size(), 3U);
  check_copy(b.out[2].at(0), big, 1, 0, 0, "the 8-flit unicast");
  check_copy(b.out[2].at(1), uc, 1, 0, 0, "input 1's unicast");
  check_copy(b.out[2].at(2), mc, 1, 0, 0, "output 2's multicast copy");
  check_copy(b.out[1].at(0), mc, 1, 0, 0, "output 1's multicast copy");
  check_copy(b.out[3].at(0), mc, 1, 0, 0, "output 3's multicast copy");
  const std::uint64_t m = b.out[2].at(0).last_cycle + 1;  // the cycle after the matching
  TB_CHECK(b.rx_last_cycle[1].at(0) + 3 < m) << "the unicast was queued before the matching";
  TB_CHECK_EQ(b.out[1].at(0).first_cycle, m) << "shared read, output 1";
  TB_CHECK_EQ(b.out[3].at(0).first_cycle, m) << "shared read, output 3";
  TB_CHECK_EQ(b.out[2].at(1).first_cycle, m) << "input 1's unicast on output 2, same cycle";
  TB_CHECK_EQ(b.out[2].at(2).first_cycle, m + 1) << "output 2's copy, alone, next";
  TB_CHECK_EQ(free_cells(b, 0), kBufCells) << "input 0's buffer free again";
  TB_CHECK_EQ(free_cells(b, 1), kBufCells) << "input 1's buffer free again";
}

// WRED decisions of one multicast's copies, all taken in one cycle
// (datapath "Enqueue", rate): decided as if one after the other in
// increasing output order, the copy to output o using the LFSR state the
// copies below it left. Outputs 1-3 are paused on priority 1 (so every copy
// waits in its VOQ and each (o, 1) holds 2k cells when packet k is taken),
// WRED Kmin 0, Kmax 16, Pmax 255 on each; eight 2-flit ECT(0) multicasts
// from input 0. The marks must be those of the golden model's WredEcn
// stepped once per copy in that order from reset (model-computed), which
// here differ from a shared state per packet.
SYNCFAB_TEST(switch_top, wred_chained_copies) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr unsigned kQ = 1;
  constexpr unsigned kPkts = 8;
  constexpr std::uint16_t kMlid = 0xC001;
  const drv::WredQueue wq{true, 0, 16, 255};
  sw.set_pfc_timing(drv::PfcTiming{8, 64});
  for (unsigned o = 1; o < kPorts; ++o) {
    sw.configure_pfc(o, lossless_on(kQ, 40, 20, 40), kLink);
    sw.configure_wred(o, kQ, wq);
  }
  sw.set_mft(kMlid, 0xE);
  sw.enable(true);
  for (unsigned o = 1; o < kPorts; ++o) {
    b.send(o, pfc_pause(kQ, 200));
  }
  co_await ClockCycles(b.clk, 10);
  for (unsigned k = 0; k < kPkts; ++k) {
    b.send(0, make_packet(Hdr{.len = 2, .dst = kMlid, .prio = kQ, .ecn = 2, .flow = 1 + k}));
  }
  co_await b.drain(1800);

  // The golden model's decisions: one LFSR, stepped once per copy, copies
  // in increasing output order; and, to show the case tells them apart, the
  // marks of a shared state per packet.
  model::WredEcn chained;
  model::WredEcn shared;
  const model::WredConfig cfg{true, wq.kmin, wq.kmax, wq.pmax};
  std::array<std::array<bool, kPkts>, kPorts> mark{};
  bool differs = false;
  for (unsigned k = 0; k < kPkts; ++k) {
    const model::WredPacket pkt{2 * k, fmt::Ecn::kEct0, true};
    const bool shared_mark = shared.decide(pkt, cfg).mark;
    for (unsigned o = 1; o < kPorts; ++o) {
      mark[o][k] = chained.enqueue(pkt, cfg).mark;
      differs = differs || mark[o][k] != shared_mark;
      shared.clock(true);
    }
  }
  TB_CHECK(differs) << "the case does not tell a chained LFSR from a shared one";
  for (unsigned o = 1; o < kPorts; ++o) {
    TB_CHECK_EQ(b.out[o].size(), std::size_t{kPkts}) << "port " << o;
    unsigned marks = 0;
    for (unsigned k = 0; k < kPkts; ++k) {
      const Hdr h = parse(b.out[o].at(k).flits.at(0));
      TB_CHECK_EQ(h.flow, 1 + k) << "port " << o << " copy " << k;
      TB_CHECK_EQ(unsigned{h.ecn}, mark[o][k] ? 3U : 2U)
          << "port " << o << " packet " << k << " (queue " << 2 * k << " cells)";
      marks += mark[o][k] ? 1 : 0;
    }
    TB_CHECK_EQ(b.count(o, kQ, K::kEcnMark), marks) << "port " << o;
  }
}

// A multicast whose every copy WRED drops (Kmax 0 = Kmin: always selected;
// Not-ECT, lossy) gets no reference: its cells are freed in the cycle the
// engine takes it (datapath "Enqueue", rate), one DROP_WRED per output.
SYNCFAB_TEST(switch_top, wred_drop_all_copies_frees_cells) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  for (unsigned o = 1; o < kPorts; ++o) {
    sw.configure_wred(o, 0, drv::WredQueue{true, 0, 0, 0});
  }
  sw.set_mft(0xC001, 0xE);
  sw.enable(true);
  b.send(0, make_packet(Hdr{.len = 3, .dst = 0xC001, .prio = 0, .ecn = 0, .flow = 1}));
  co_await b.drain(50);
  for (unsigned o = 1; o < kPorts; ++o) {
    TB_CHECK(b.out[o].empty()) << "port " << o;
    TB_CHECK_EQ(b.count(o, 0, K::kDropWred), 1U) << "port " << o;
  }
  TB_CHECK_EQ(b.count(0, 0, K::kRx), 1U);
  TB_CHECK_EQ(
      unsigned{
          b.dut.rootp->switch_top__DOT__gen_ingress__BRA__0__KET____DOT__u_ingress__DOT__free_q},
      kBufCells)
      << "input 0's buffer free again";
}

// LOSSY_LIMIT (datapath "Admission"): configure_pfc on port 0 with lossless
// priority 1 (XOFF 40, headroom 40) writes 128 - 80 = 48. With output 3
// held, six lossy 8-flit packets (48 cells) are admitted, the seventh is
// DROP_BUF; a lossless packet after it is admitted.
SYNCFAB_TEST(switch_top, lossy_limit_drop_buf) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_pfc_timing(drv::PfcTiming{8, 64});
  sw.configure_pfc(0, lossless_on(1, 40, 20, 100), kLink);
  TB_CHECK_EQ(drv::required_headroom(kLink), 40U);
  sw.set_lft(0x28, 3);
  sw.enable(true);
  b.hold_tx(3, true);
  for (unsigned k = 0; k < 7; ++k) {
    b.send(0, make_packet(Hdr{.len = 8, .dst = 0x28, .prio = 0, .flow = 1 + k}));
  }
  b.send(0, make_packet(Hdr{.len = 8, .dst = 0x28, .prio = 1, .flow = 100}));
  co_await b.drain(50);
  TB_CHECK_EQ(b.count(0, 0, K::kDropBuf), 1U);
  TB_CHECK_EQ(b.count(0, 1, K::kDropBuf), 0U);
  b.hold_tx(3, false);
  co_await ClockCycles(b.clk, 200);
  TB_CHECK_EQ(b.out[3].size(), 7U);
  // Lossy flows 1..6 in order; the lossless one somewhere between (the
  // scheduler orders the two queues).
  std::uint32_t next = 1;
  bool lossless_seen = false;
  for (const auto& r : b.out[3]) {
    const Hdr h = parse(r.flits[0]);
    if (h.flow == 100) {
      lossless_seen = true;
    } else {
      TB_CHECK_EQ(h.flow, next);
      ++next;
    }
  }
  TB_CHECK(lossless_seen && next == 7);
}

// Line rate (datapath "switch_top RTL", matching): an output is matched in
// the cycle its copy's last flit leaves, so the next copy's header leaves the
// cycle after, with no idle cycle. Output 2 held while three copies wait:
// A (3 flits) and B (2) from input 0, C (4) from input 1, one queue with an
// 8-flit quantum (no credit-only cycle). A is matched at once and holds
// input 0's read port; after the release the three leave in 3 + 2 + 4 = 9
// consecutive cycles, whichever of B and C goes second (input 0 is matched
// again in the cycle A's last flit is read, like any other input).
SYNCFAB_TEST(switch_top, back_to_back_one_output) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x31, 2);
  drv::SchedConfig sc{};
  sc.weight.fill(8);
  sw.configure_scheduler(2, sc);
  sw.enable(true);
  b.hold_tx(2, true);
  b.send(0, make_packet(Hdr{.len = 3, .dst = 0x31, .prio = 1, .flow = 1}));
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x31, .prio = 1, .flow = 2}));
  b.send(1, make_packet(Hdr{.len = 4, .dst = 0x31, .prio = 1, .flow = 3}));
  co_await b.drain(30);
  b.hold_tx(2, false);
  co_await ClockCycles(b.clk, 40);
  TB_CHECK_EQ(b.out[2].size(), 3U);
  TB_CHECK_EQ(parse(b.out[2][0].flits[0]).flow, 1U) << "A was matched before the hold ended";
  for (std::size_t k = 1; k < 3; ++k) {
    TB_CHECK_EQ(b.out[2][k].first_cycle, b.out[2][k - 1].last_cycle + 1)
        << "copy " << k << " starts right after copy " << k - 1;
  }
  TB_CHECK_EQ(b.out[2][2].last_cycle - b.out[2][0].first_cycle + 1, 9U) << "9 flits, 9 cycles";
  TB_CHECK_EQ(b.count(2, 1, K::kTx), 3U);
}

// One input, two outputs: input 0's copy A (4 flits) to output 2 is matched
// and held on output 2's tx; its copy B (3 flits) to output 3 waits for the
// read port (one per input). After output 2's release, output 3 is matched
// in the cycle A's last flit is read: B's header leaves the next cycle.
SYNCFAB_TEST(switch_top, back_to_back_one_input_two_outputs) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x32, 2);
  sw.set_lft(0x33, 3);
  drv::SchedConfig sc{};
  sc.weight.fill(8);
  sw.configure_scheduler(2, sc);
  sw.configure_scheduler(3, sc);
  sw.enable(true);
  b.hold_tx(2, true);
  b.send(0, make_packet(Hdr{.len = 4, .dst = 0x32, .prio = 0, .flow = 1}));
  b.send(0, make_packet(Hdr{.len = 3, .dst = 0x33, .prio = 0, .flow = 2}));
  co_await b.drain(30);
  TB_CHECK(b.out[3].empty()) << "B waits for input 0's read port";
  b.hold_tx(2, false);
  co_await ClockCycles(b.clk, 30);
  TB_CHECK_EQ(b.out[2].size(), 1U);
  TB_CHECK_EQ(b.out[3].size(), 1U);
  TB_CHECK_EQ(b.out[3][0].first_cycle, b.out[2][0].last_cycle + 1)
      << "B's header follows A's last flit with no idle read cycle";
  TB_CHECK_EQ(b.out[3][0].last_cycle - b.out[2][0].first_cycle + 1, 7U) << "4 + 3 flits";
}

// A pause frame between two packets (datapath "Egress": frames go between
// packets, before the next data copy, never inside one). Output 0 is held
// with P1 (4 flits, from input 3) matched and P2 (4 flits) waiting; output 2
// is held so that input 0's lossless priority 1 crosses XOFF (8 cells) and
// port 0's pfc_tx has a frame waiting. After output 0's release: P1, the
// frame, P2, each starting the cycle after the previous one's last flit,
// 4 + 2 + 4 = 10 cycles in all.
SYNCFAB_TEST(switch_top, pause_frame_between_packets) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_pfc_timing(drv::PfcTiming{8, 200});
  sw.configure_pfc(0, lossless_on(1, 8, 4, 50), kLink);
  sw.set_lft(0x25, 2);
  sw.set_lft(0x26, 0);
  drv::SchedConfig sc{};
  sc.weight.fill(8);
  sw.configure_scheduler(0, sc);
  sw.enable(true);
  b.hold_tx(0, true);
  b.hold_tx(2, true);
  b.send(3, make_packet(Hdr{.len = 4, .dst = 0x26, .prio = 0, .flow = 1}));
  b.send(3, make_packet(Hdr{.len = 4, .dst = 0x26, .prio = 0, .flow = 2}));
  for (unsigned k = 0; k < 3; ++k) {
    b.send(0, make_packet(Hdr{.len = 4, .dst = 0x25, .prio = 1, .flow = 10 + k}));
  }
  co_await b.drain(30);
  TB_CHECK(b.pfc_out[0].empty() && b.out[0].empty());
  TB_CHECK_EQ(b.count(0, 1, K::kPauseTx), 0U) << "PAUSE_TX counts at the frame's handshake";
  b.hold_tx(0, false);
  co_await ClockCycles(b.clk, 30);
  TB_CHECK_EQ(b.out[0].size(), 2U);
  TB_CHECK_EQ(b.pfc_out[0].size(), 1U);
  const RxPacket& p1 = b.out[0][0];
  const RxPacket& fr = b.pfc_out[0][0];
  const RxPacket& p2 = b.out[0][1];
  TB_CHECK_EQ(parse(p1.flits[0]).flow, 1U);
  TB_CHECK_EQ(fr.first_cycle, p1.last_cycle + 1) << "the frame right after P1, before P2";
  TB_CHECK_EQ(p2.first_cycle, fr.last_cycle + 1) << "P2 right after the frame";
  TB_CHECK_EQ(p2.last_cycle - p1.first_cycle + 1, 10U);
  TB_CHECK_EQ(unsigned{pfc_of(fr.flits).class_enable()}, 0x02U)
      << "class enable: a pause of priority 1";
  TB_CHECK_EQ(b.count(0, 1, K::kPauseTx), 1U);
}

// A CSR access outside the map (or to a read-only register) -> PSLVERR.
SYNCFAB_TEST(switch_top, csr_outside_map_pslverr) {
  Bench b(ctx);
  co_await b.reset();
  const ApbResult r1 = co_await b.apb.read(0x600);
  TB_CHECK(r1.error) << "read past the map";
  const ApbResult r2 = co_await b.apb.write(0x7FC, 1);
  TB_CHECK(r2.error) << "write past the map";
  const ApbResult r3 = co_await b.apb.write(0x000, 1);
  TB_CHECK(r3.error) << "write to ID (read-only)";
  const ApbResult r4 = co_await b.apb.read(0x000);
  TB_CHECK(!r4.error);
  TB_CHECK_EQ(r4.data, 0x53465357U);
}

// An unaligned CSR address is a bus error, as for the NIC
// (docs/switch-datapath.md, structure): PSLVERR for reads and writes at each
// byte offset past a register, PRDATA 0, and nothing written (SCRATCH keeps
// its value, CTRL.ENABLE stays 0, the table command starts nothing).
SYNCFAB_TEST(switch_top, csr_unaligned_pslverr) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  const auto scratch = static_cast<std::uint32_t>(ctx.rng()());
  TB_CHECK(!(co_await b.apb.write(r::SCRATCH.offset, scratch)).error);
  for (const std::uint32_t reg : {r::SCRATCH.offset, r::CTRL.offset, r::TBL_CMD.offset}) {
    for (std::uint32_t lsb = 1; lsb < 4; ++lsb) {
      const std::uint32_t a = reg + lsb;
      const ApbResult w = co_await b.apb.write(a, 0xFFFF'FFFFU);
      TB_CHECK(w.error) << "unaligned write of offset " << a << " did not answer PSLVERR";
      const ApbResult rd = co_await b.apb.read(a);
      TB_CHECK(rd.error) << "unaligned read of offset " << a << " did not answer PSLVERR";
      TB_CHECK_EQ(rd.data, 0U) << "unaligned read of offset " << a << ": PRDATA";
    }
  }
  const ApbResult s = co_await b.apb.read(r::SCRATCH.offset);
  TB_CHECK(!s.error);
  TB_CHECK_EQ(s.data, scratch) << "SCRATCH written unaligned";
  const ApbResult c = co_await b.apb.read(r::CTRL.offset);
  TB_CHECK_EQ(c.data & r::CTRL_ENABLE.mask, 0U) << "CTRL.ENABLE written unaligned";
  TB_CHECK_EQ(sw.interrupt_status(), 0U) << "an unaligned TBL_CMD started a table access";
}

// CTRL.CNT_CLEAR (docs/switch-driver.md, counters): every counter of every
// port goes to 0 at once, ENABLE is kept, and counting goes on after it.
SYNCFAB_TEST(switch_top, counters_clear) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x30, 1);
  sw.enable(true);
  // Data to port 1 from every other port, and one unrouted packet each.
  for (unsigned in = 0; in < kPorts; ++in) {
    if (in != 1) {
      b.send(in, make_packet(Hdr{.len = 2, .dst = 0x30, .prio = 3, .flow = in}));
    }
    b.send(in, make_packet(Hdr{.len = 1, .dst = 0x31, .prio = 5, .flow = 10 + in}));
  }
  co_await b.drain(100);
  for (unsigned in = 0; in < kPorts; ++in) {
    TB_CHECK_EQ(b.count(in, 3, K::kRx), in != 1 ? 1U : 0U) << "RX before the clear, port " << in;
    TB_CHECK_EQ(b.count(in, 5, K::kDropNoRoute), 1U) << "DROP_NO_ROUTE before, port " << in;
  }
  TB_CHECK_EQ(b.count(1, 3, K::kTx), kPorts - 1) << "TX before the clear";
  sw.clear_counters();
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(b.count(p, 3, K::kRx), 0U) << "RX after the clear, port " << p;
    TB_CHECK_EQ(b.count(p, 5, K::kDropNoRoute), 0U) << "DROP_NO_ROUTE after, port " << p;
    TB_CHECK_EQ(b.count(p, 3, K::kTx), 0U) << "TX after the clear, port " << p;
  }
  b.send(2, make_packet(Hdr{.len = 3, .dst = 0x30, .prio = 3, .flow = 99}));
  co_await b.drain(100);
  TB_CHECK_EQ(b.count(2, 3, K::kRx), 1U) << "ENABLE kept: the next packet passes and counts";
  TB_CHECK_EQ(b.count(1, 3, K::kTx), 1U);
  TB_CHECK_EQ(b.out[1].size(), kPorts);
}

// Random smoke: random unicast / multicast / unrouted / bad packets from every
// port with backpressure and gaps; conservation: every packet is either
// counted dropped at ingress or leaves as exactly its expected copies, in
// order per (input, output, priority); RX and TX counters agree.
SYNCFAB_TEST(switch_top, random_conservation) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  for (unsigned lid = 1; lid <= 8; ++lid) {
    sw.set_lft(static_cast<std::uint16_t>(lid), lid % kPorts);
  }
  sw.set_mft(0xC003, 0xF);
  sw.set_mft(0xC004, 0x5);
  // Quanta of 8 flits >= the largest packet: the scheduler loses no output
  // cycle to credit-only rounds (docs/switch-egress.md, model decisions).
  drv::SchedConfig sc{};
  sc.weight.fill(8);
  for (unsigned p = 0; p < kPorts; ++p) {
    sw.configure_scheduler(p, sc);
  }
  sw.enable(true);
  auto& rng = ctx.rng();
  b.tx_stall = 0.2;
  b.rx_gap = 0.1;
  const auto n = static_cast<unsigned>(ctx.param("packets", 300));
  std::uniform_int_distribution<unsigned> pick(0, 99);
  std::uniform_int_distribution<unsigned> len(1, 6);
  std::uniform_int_distribution<unsigned> prio(0, 7);
  std::uniform_int_distribution<unsigned> lid(1, 8);
  // expected[(in, out, prio)] = flow ids in order
  std::map<std::tuple<unsigned, unsigned, unsigned>, std::deque<std::uint32_t>> expected;
  std::map<std::uint32_t, Packet> sent;
  unsigned dropped = 0;
  unsigned copies = 0;
  for (unsigned k = 0; k < n; ++k) {
    const unsigned in = k % kPorts;
    Hdr h{.len = static_cast<std::uint8_t>(len(rng)),
          .src = static_cast<std::uint16_t>(in),
          .prio = static_cast<std::uint8_t>(prio(rng)),
          .ecn = 1,
          .flow = 10'000 + k};
    const unsigned r = pick(rng);
    unsigned mask = 0;
    if (r < 70) {
      h.dst = static_cast<std::uint16_t>(lid(rng));
      mask = 1U << (h.dst % kPorts);
    } else if (r < 85) {
      h.dst = (r & 1U) ? 0xC003 : 0xC004;
      mask = ((r & 1U) ? 0xFU : 0x5U) & ~(1U << in);
    } else if (r < 92) {
      h.dst = 40;  // unprogrammed
    } else {
      h.dst = 1;
      h.type = 0x0F;  // unknown type
    }
    if (mask == 0) {
      ++dropped;
    }
    for (unsigned o = 0; o < kPorts; ++o) {
      if ((mask >> o) & 1U) {
        expected[{in, o, h.prio}].push_back(h.flow);
        ++copies;
      }
    }
    const Packet p = make_packet(h);
    sent[h.flow] = p;
    b.send(in, p);
  }
  co_await b.drain(1500);
  // A lossy packet may be refused at ingress when its buffer is full
  // (DROP_BUF): all its copies are then missing. Copies that leave are in
  // order per (input, output, priority); an expected copy may be skipped only
  // for such a packet.
  unsigned got = 0;
  std::map<std::uint32_t, unsigned> left;  // flow -> copies that left
  std::map<std::uint32_t, unsigned> skipped;
  for (unsigned o = 0; o < kPorts; ++o) {
    for (const auto& rp : b.out[o]) {
      const Hdr h = parse(rp.flits[0]);
      auto& q = expected[{h.src, o, h.prio}];
      while (!q.empty() && q.front() != h.flow) {
        ++skipped[q.front()];
        q.pop_front();
      }
      TB_CHECK(!q.empty()) << "unexpected or out-of-order packet " << h.flow << " on port " << o;
      q.pop_front();
      check_copy(rp, sent[h.flow], h.prio, 1, 0, "copy of " + std::to_string(h.flow));
      ++left[h.flow];
      ++got;
    }
  }
  for (auto& [key, q] : expected) {
    for (std::uint32_t f : q) {
      ++skipped[f];
    }
  }
  for (const auto& [f, k] : skipped) {
    TB_CHECK(left.find(f) == left.end()) << "packet " << f << " left on some ports only";
  }
  dropped += static_cast<unsigned>(skipped.size());
  std::uint32_t rx = 0, tx = 0, drops = 0;
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      rx += b.count(p, q, K::kRx);
      tx += b.count(p, q, K::kTx);
      drops += b.count(p, q, K::kDropNoRoute) + b.count(p, q, K::kDropBadPkt) +
               b.count(p, q, K::kDropBuf) + b.count(p, q, K::kDropDisabled);
    }
  }
  TB_CHECK_EQ(rx, n);
  TB_CHECK_EQ(tx, got);
  TB_CHECK_EQ(drops, dropped) << skipped.size() << " packets never left (DROP_BUF expected)";
  std::cout << "switch_top.random_conservation: " << n << " packets, " << got << " of " << copies
            << " copies left, " << dropped << " dropped at ingress (" << skipped.size()
            << " DROP_BUF), " << b.clk.cycles() << " cycles\n";
}

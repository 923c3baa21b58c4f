// The co-simulation's stimulus mixes (switch_cosim_scenarios.hpp).
#include "switch_cosim_scenarios.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/regs/switch_csr.h"

namespace syncfab::tb::switch_cosim {
namespace {

namespace drv = syncfab::driver;
namespace fmt = syncfab::fmt;

constexpr std::size_t kFlitBytes = syncfab::model::kFlitBytes;
constexpr unsigned kPfcFrameFlits = syncfab::model::kPfcFrameFlits;

struct Mix {
  unsigned packets = 400;
  unsigned max_len = 8;
  unsigned unicast = 100;   // % of data packets to a programmed LID
  unsigned multicast = 0;   // % to a programmed MLID; the rest to `misses`
  unsigned bad_type = 0;    // % with a type that is not DATA..CNP
  unsigned bad_len = 0;     // % with a flit count other than len_flits
  unsigned pfc_frames = 0;  // % of PFC frames (10 % of them one flit long)
  unsigned pfc_long = 0;    // % of the PFC frames three flits long
  unsigned pfc_badlen = 0;  // % of the PFC frames with len_flits 3 (two flits)
  bool len0 = false;        // bad lengths include len_flits 0
  unsigned gap_max = 6;     // idle cycles between packets of an input: 0..gap_max
  std::vector<unsigned> prios{0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<std::uint16_t> lids;   // destinations (programmed ones)
  std::vector<std::uint16_t> mlids;  // programmed MLIDs
  std::vector<std::uint16_t> misses{0x0030, 0x0031, 0x0045, 0xC00A, 0xC003, 0xC020};
  unsigned incast_to = 0;  // non-zero: this LID for every data packet of prio incast_prio
  unsigned incast_prio = 0;
  std::vector<unsigned> ins;  // inputs that send (empty: every input)
  std::uint64_t start = 0;    // the first cycle a packet of this mix may start
};

// Appends the packets of `mx` to `st` (flow labels: their stimulus indices).
void add_traffic(std::mt19937_64& rng, const Mix& mx, Stimulus& st) {
  std::uniform_int_distribution<unsigned> pct(0, 99);
  std::array<std::uint64_t, kPorts> t{};
  t.fill(mx.start);
  const auto any = [&rng](const auto& v) {
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
  };
  for (unsigned n = 0; n < mx.packets; ++n) {
    StimPacket sp;
    sp.in =
        mx.ins.empty() ? std::uniform_int_distribution<unsigned>(0, kPorts - 1)(rng) : any(mx.ins);
    t[sp.in] += std::uniform_int_distribution<unsigned>(0, mx.gap_max)(rng);
    sp.not_before = t[sp.in];
    const std::size_t id = st.pkts.size();
    if (pct(rng) < mx.pfc_frames) {
      sp.pfc = true;
      fmt::PfcFrame f;
      f.set_pkt_type(fmt::PktType::kPfc).set_len_flits(2);
      f.set_class_enable(
          static_cast<std::uint8_t>(std::uniform_int_distribution<unsigned>(1, 255)(rng)));
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        f.set_quanta(q, static_cast<std::uint16_t>(pct(rng) < 30 ? 0 : pct(rng) % 20));
      }
      Flit a{};
      Flit b{};
      std::copy_n(f.bytes().begin(), kFlitBytes, a.begin());
      std::copy_n(f.bytes().begin() + kFlitBytes, kFlitBytes, b.begin());
      sp.flits = {a, b};
      // Malformed frames (DROP_BAD_PKT, never RX, never honoured): 10 % one
      // flit; pfc_long % three flits; pfc_badlen % two flits with len_flits 3.
      const unsigned bad = pct(rng);
      if (bad < 10) {
        sp.flits.pop_back();
      } else if (bad < 10 + mx.pfc_long) {
        sp.flits.push_back(b);
      } else if (bad < 10 + mx.pfc_long + mx.pfc_badlen) {
        f.set_len_flits(3);
        std::copy_n(f.bytes().begin(), kFlitBytes, sp.flits[0].begin());
      }
      st.pkts.push_back(std::move(sp));
      continue;
    }
    fmt::PktHdr h;
    const unsigned len = std::uniform_int_distribution<unsigned>(1, mx.max_len)(rng);
    h.set_pkt_type(fmt::PktType::kData);
    const unsigned r = pct(rng);
    const unsigned cut1 = mx.unicast;
    const unsigned cut2 = cut1 + mx.multicast;
    std::uint16_t dst = any(mx.lids);
    if (r >= cut1 && r < cut2 && !mx.mlids.empty()) {
      dst = any(mx.mlids);
    }
    if (r >= cut2) {
      dst = any(mx.misses);
    }
    const unsigned prio = any(mx.prios);
    if (mx.incast_to != 0 && prio == mx.incast_prio) {
      dst = static_cast<std::uint16_t>(mx.incast_to);
    }
    if (pct(rng) < mx.bad_type) {
      static constexpr std::array<std::uint8_t, 4> kBad{0x00, 0x0D, 0x0F, 0xFF};
      h.set_pkt_type(static_cast<fmt::PktType>(any(kBad)));
    } else if (pct(rng) < 20) {
      h.set_pkt_type(static_cast<fmt::PktType>(std::uniform_int_distribution<unsigned>(2, 5)(rng)));
    }
    // A bad length: len_flits other than the flit count (0 too when len0:
    // checked only at the last flit, after the lookup and admission); never
    // more flits on the wire than the link's largest packet, which the
    // headroom the driver computed assumes.
    const unsigned flits = len;
    h.set_len_flits(static_cast<std::uint8_t>(
        pct(rng) < mx.bad_len
            ? std::uniform_int_distribution<unsigned>(mx.len0 ? 0U : 1U, mx.max_len)(rng)
            : len));
    h.set_dst_lid(dst)
        .set_src_lid(static_cast<std::uint16_t>(0x100 + sp.in))
        .set_prio(static_cast<std::uint8_t>(prio))
        .set_ecn(static_cast<fmt::Ecn>(pct(rng) % 4))
        .set_dscp(static_cast<std::uint8_t>(pct(rng) % 64))
        .set_flow_label(static_cast<std::uint32_t>(id));
    sp.prio = prio;
    sp.flits.push_back(h.bytes());
    for (unsigned f = 1; f < flits; ++f) {
      Flit x{};
      for (std::uint8_t& b : x) {
        b = static_cast<std::uint8_t>(rng());
      }
      x[0] = static_cast<std::uint8_t>(id);
      x[1] = static_cast<std::uint8_t>(id >> 8);
      x[2] = static_cast<std::uint8_t>(f);
      sp.flits.push_back(x);
    }
    t[sp.in] += sp.flits.size();
    st.pkts.push_back(std::move(sp));
  }
}

Stimulus make_stimulus(std::mt19937_64& rng, const Mix& mx, double rx_gap, double tx_stall) {
  Stimulus st;
  st.rx_gap = rx_gap;
  st.tx_stall = tx_stall;
  add_traffic(rng, mx, st);
  return st;
}

// LFT: LIDs 1..12 -> port lid % 4 (some back to their own port); 0x30, 0x31,
// 0x45 (past the 64-entry table) unprogrammed. MFT: 0xC000 all ports,
// 0xC001 {1, 2}, 0xC002 {0} (from port 0 an empty set), 0xC005 {0, 3};
// 0xC003, 0xC00A unprogrammed, 0xC020 past the 16-entry table.
Setup base_setup() {
  Setup s;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    s.lft.push_back(drv::LftEntry{lid, static_cast<std::uint8_t>(lid % kPorts)});
  }
  for (unsigned p = 0; p < kPorts; ++p) {
    s.sched[p].sp_mask = 0;
    s.sched[p].weight = {4, 4, 4, 4, 4, 4, 4, 4};
  }
  return s;
}

void add_multicast(Setup& s) {
  s.mft = {{0xC000, 0xF}, {0xC001, 0x6}, {0xC002, 0x1}, {0xC005, 0x9}};
}

// PFC on priorities 3 and 5 of every port: link 4 cycles, packets <= 8
// flits, headroom 2*4 + 2*8 + 4 = 28 cells; XOFF 16 + 28 twice = 88 <= 128,
// LOSSY_LIMIT 40. Refresh 64 + 8 + 3 < quanta 20 x 8.
void add_pfc(Setup& s) {
  s.timing = drv::PfcTiming{8, 64};
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q : {3U, 5U}) {
      s.pfc[p][q] = drv::PfcPriority{true, 16, 8, 20};
    }
  }
}

// WRED on lossy queues 0 and 2 of every port and on lossless queue 5 of
// ports 1 and 3 (marks only); SP on queue 7; WDRR weights differ per port;
// hook flows between uplinks 2 and 3: prio 1 -> 2 (DSCP 17), 3 -> 5 (DSCP 33),
// 0 keeps its queue with DSCP 5.
void add_wred_sched_remap(Setup& s) {
  for (unsigned p = 0; p < kPorts; ++p) {
    s.wred[p][0] = drv::WredQueue{true, 4, 24, 128};
    s.wred[p][2] = drv::WredQueue{true, 2, 12, 255};
    if (p % 2 == 1) {
      s.wred[p][5] = drv::WredQueue{true, 6, 30, 200};
    }
    s.sched[p].sp_mask = 0x80;
    s.sched[p].weight = {static_cast<std::uint8_t>(2 + p), 8, 3, 6, 1, 4, 5, 1};
  }
  s.remap.enable = true;
  s.remap.uplink_mask = 0x0C;
  for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
    s.remap.map[q] =
        drv::RemapEntry{static_cast<std::uint8_t>(q), static_cast<std::uint8_t>(40 + q)};
  }
  s.remap.map[0] = drv::RemapEntry{0, 5};
  s.remap.map[1] = drv::RemapEntry{2, 17};
  s.remap.map[3] = drv::RemapEntry{5, 33};
}

// A peer that pauses queue `prio` of port `port` and does not resume: a
// pause of `quanta` every `period` cycles in [from, to), then (so that both
// runs end with the watchdog at rest) one resume.
void add_pause_storm(Stimulus& st, unsigned port, unsigned prio, std::uint16_t quanta,
                     std::uint64_t period, std::uint64_t from, std::uint64_t to) {
  const auto frame = [&](std::uint64_t at, std::uint16_t q) {
    fmt::PfcFrame f;
    f.set_pkt_type(fmt::PktType::kPfc).set_len_flits(2);
    f.set_class_enable(static_cast<std::uint8_t>(1U << prio)).set_quanta(prio, q);
    StimPacket sp;
    sp.in = port;
    sp.pfc = true;
    sp.not_before = at;
    sp.flits.resize(kPfcFrameFlits);
    std::copy_n(f.bytes().begin(), kFlitBytes, sp.flits[0].begin());
    std::copy_n(f.bytes().begin() + kFlitBytes, kFlitBytes, sp.flits[1].begin());
    st.pkts.push_back(std::move(sp));
  };
  for (std::uint64_t t = from; t < to; t += period) {
    frame(t, quanta);
  }
  frame(to, 0);
}

}  // namespace

Scenario unicast_smoke(TestContext& ctx, unsigned packets) {
  Setup s = base_setup();
  Mix mx;
  mx.packets = packets;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    mx.lids.push_back(lid);
  }
  Stimulus st = make_stimulus(ctx.rng(), mx, 0.0, 0.0);
  return Scenario{std::move(s), std::move(st)};
}

Scenario port_groups(TestContext& ctx, unsigned packets) {
  Setup s = base_setup();
  s.groups = {drv::PortGroupEntry{0, 0b1110}, drv::PortGroupEntry{1, 0b1111},
              drv::PortGroupEntry{fmt::kPortGroups - 1, 0b0101}};
  Mix mx;
  mx.packets = packets;
  for (std::uint16_t lid = 1; lid <= 4; ++lid) {
    mx.lids.push_back(lid);
  }
  const std::array<unsigned, 3> kGroups{0, 1, fmt::kPortGroups - 1};
  for (std::uint16_t lid = 20; lid < 26; ++lid) {
    s.lft.push_back(drv::LftEntry{lid, static_cast<std::uint8_t>(kGroups[lid % 3]), true});
    mx.lids.push_back(lid);
    mx.lids.push_back(lid);
  }
  mx.unicast = 95;
  mx.gap_max = 4;
  Stimulus st = make_stimulus(ctx.rng(), mx, 0.0, 0.0);
  st.port_up = {{150, ~(1U << 2)}, {400, ~((1U << 2) | (1U << 1))}, {650, 0xFFFF'FFFFU}};
  return Scenario{std::move(s), std::move(st)};
}

Scenario random_mix(TestContext& ctx, unsigned packets) {
  Setup s = base_setup();
  add_multicast(s);
  add_pfc(s);
  add_wred_sched_remap(s);
  Mix mx;
  mx.packets = packets;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    mx.lids.push_back(lid);
  }
  mx.mlids = {0xC000, 0xC001, 0xC002, 0xC005};
  mx.unicast = 75;
  mx.multicast = 15;
  mx.bad_type = 4;
  mx.bad_len = 5;
  mx.pfc_frames = 2;
  mx.pfc_long = static_cast<unsigned>(ctx.param("pfc_long", 15));
  mx.pfc_badlen = static_cast<unsigned>(ctx.param("pfc_badlen", 15));
  mx.len0 = ctx.param("len0", 1) != 0;
  mx.gap_max = 6;
  Stimulus st =
      make_stimulus(ctx.rng(), mx, 0.1, static_cast<double>(ctx.param("stall_pct", 20)) / 100);
  return Scenario{std::move(s), std::move(st)};
}

Scenario lossless_full_load(TestContext& ctx, unsigned packets) {
  Setup s = base_setup();
  add_pfc(s);
  Mix mx;
  mx.packets = packets;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    mx.lids.push_back(lid);
  }
  mx.prios = {3, 3, 3, 5, 5, 0, 1};
  mx.incast_to = 2;
  mx.incast_prio = 3;
  mx.gap_max = 0;
  Stimulus st =
      make_stimulus(ctx.rng(), mx, 0.0, static_cast<double>(ctx.param("stall_pct", 30)) / 100);
  return Scenario{std::move(s), std::move(st)};
}

// Peers that never resume (pause refreshed every 100 cycles, 50 quanta x 8 =
// 400 cycles): queue 3 of port 0 (drop mode, no WRED: DROP_WD), queue 5 of
// port 1 (ignore mode, WRED from queue length 1: marks only while lossless;
// once the limit DISABLES it, Not-ECT copies are DROP_WRED), queue 3 of
// port 2 (ignore mode). Detect 150, recover 200, window 3000, limit 2: the
// third deadlock in a window disables. Two ENABLE = 0 windows: DROP_DISABLED
// at the input.
Scenario watchdog_and_disable(TestContext& ctx, unsigned packets) {
  Setup s = base_setup();
  add_multicast(s);
  add_pfc(s);
  add_wred_sched_remap(s);
  s.wd = drv::WatchdogConfig{150, 200, 3000, 2};
  s.wd_port[0] = drv::WatchdogPort{1U << 3, true};
  s.wd_port[1] = drv::WatchdogPort{1U << 5, false};
  s.wd_port[2] = drv::WatchdogPort{1U << 3, false};
  // WRED on queue 5 of port 1 from queue length 1: while lossless it only
  // marks; once the watchdog DISABLES the queue, Not-ECT copies drop.
  s.wred[1][5] = drv::WredQueue{true, 1, 4, 255};
  for (unsigned o = 0; o < kPorts; ++o) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      TB_CHECK(!(s.wd_drops(o, q) && s.wred_on(o, q)))
          << "a queue with both DROP_WD and DROP_WRED would make a missing copy ambiguous";
    }
  }
  Mix mx;
  mx.packets = packets;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    mx.lids.push_back(lid);
  }
  mx.mlids = {0xC000, 0xC001, 0xC002, 0xC005};
  mx.unicast = 80;
  mx.multicast = 15;
  mx.bad_type = 2;
  mx.bad_len = 3;
  mx.pfc_frames = 1;
  mx.pfc_long = 15;
  mx.pfc_badlen = 15;
  mx.len0 = true;
  mx.gap_max = 6;
  Stimulus st = make_stimulus(ctx.rng(), mx, 0.1, 0.2);
  add_pause_storm(st, 0, 3, 50, 100, 100, 900);
  add_pause_storm(st, 1, 5, 50, 100, 100, 2000);
  add_pause_storm(st, 2, 3, 50, 100, 1200, 2400);
  st.disabled = {{600, 800}, {1800, 1950}};
  return Scenario{std::move(s), std::move(st)};
}

Scenario overload(TestContext& ctx, unsigned packets) {
  Setup s = base_setup();
  Mix mx;
  mx.packets = packets;
  mx.max_len = 3;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    mx.lids.push_back(lid);
  }
  mx.prios = {0, 0, 0, 1};
  mx.incast_to = 2;
  mx.incast_prio = 0;
  mx.gap_max = 0;
  Stimulus st = make_stimulus(ctx.rng(), mx, 0.0, 0.8);
  return Scenario{std::move(s), std::move(st)};
}

Scenario release_storm(TestContext& ctx, unsigned packets) {
  Setup s = base_setup();
  for (unsigned p = 0; p < kPorts; ++p) {
    s.wred[p][0] = drv::WredQueue{true, 0, 0, 0};
    s.wred[p][1] = drv::WredQueue{true, 0, 0, 0};
  }
  Mix mx;
  mx.packets = packets;
  mx.max_len = 4;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    mx.lids.push_back(lid);
  }
  mx.prios = {0, 1};
  mx.bad_len = 60;
  mx.gap_max = 0;
  Stimulus st = make_stimulus(ctx.rng(), mx, 0.0, 0.0);
  return Scenario{std::move(s), std::move(st)};
}

Scenario wred_after_disable(TestContext& ctx, unsigned packets) {
  Setup s = base_setup();
  add_pfc(s);
  s.wd = drv::WatchdogConfig{20, 20, 3000, 1};
  s.wd_port[1] = drv::WatchdogPort{1U << 5, false};
  s.wred[1][5] = drv::WredQueue{true, 0, 0, 0};
  Mix mx;
  mx.packets = packets;
  mx.lids = {1, 5, 9};  // port 1
  mx.prios = {5};
  mx.gap_max = 2;
  Stimulus st = make_stimulus(ctx.rng(), mx, 0.0, 0.0);
  add_pause_storm(st, 1, 5, 50, 100, 0, 1500);
  return Scenario{std::move(s), std::move(st)};
}

namespace {

constexpr std::uint32_t kEcnCtrl = offsetof(switch_csr_t, ECN_DYN_CTRL);
constexpr std::uint32_t kEcnTarget = offsetof(switch_csr_t, ECN_DYN_TARGET);
constexpr std::uint32_t kEcnPmax = offsetof(switch_csr_t, ECN_DYN_PMAX);
constexpr std::uint32_t kEcnK = offsetof(switch_csr_t, ECN_DYN_K);
constexpr std::uint32_t kEcnState = offsetof(switch_csr_t, ECN_DYN_STATE);

constexpr std::uint32_t ecn_ctrl(unsigned en, unsigned win, unsigned fan_sh) {
  return (en << SWITCH_CSR__ECN_DYN_CTRL__EN_bp) | (win << SWITCH_CSR__ECN_DYN_CTRL__WIN_bp) |
         (fan_sh << SWITCH_CSR__ECN_DYN_CTRL__FAN_SH_bp);
}
constexpr std::uint32_t ecn_pmax(unsigned plo, unsigned phi, unsigned pup, unsigned pdn) {
  return (plo << SWITCH_CSR__ECN_DYN_PMAX__PLO_bp) | (phi << SWITCH_CSR__ECN_DYN_PMAX__PHI_bp) |
         (pup << SWITCH_CSR__ECN_DYN_PMAX__PUP_bp) | (pdn << SWITCH_CSR__ECN_DYN_PMAX__PDN_bp);
}

// CNT_SEL, ECN_DYN_K, ECN_DYN_STATE for every port and kEcnSweepQueues.
void add_status_sweep(Stimulus& st, std::uint64_t at) {
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q : kEcnSweepQueues) {
      st.csr.push_back(
          CsrOp{at, hw::switch_regs::CNT_SEL.offset,
                (p << SWITCH_CSR__CNT_SEL__PORT_bp) | (q << SWITCH_CSR__CNT_SEL__PRIO_bp), false});
      st.csr.push_back(CsrOp{at, kEcnK, 0, true});
      st.csr.push_back(CsrOp{at, kEcnState, 0, true});
    }
  }
}

}  // namespace

Scenario ecn_dynamic(TestContext& ctx, unsigned scale) {
  Setup s = base_setup();
  add_pfc(s);
  for (unsigned p = 0; p < kPorts; ++p) {
    s.wred[p][0] = drv::WredQueue{true, 16, 48, 64};
    s.wred[p][1] = drv::WredQueue{true, 8, 24, 128};
    s.wred[p][3] = drv::WredQueue{true, 12, 40, 96};  // lossless: marks only
  }
  auto& rng = ctx.rng();
  const std::uint64_t ph = 150ULL * scale;  // one phase
  Stimulus st;
  st.probe_ecn = true;
  // Lossy incast to output 2 (LIDs 2, 6) on queues 0 and 1, lossless to
  // output 1 (LIDs 1, 5) on queue 3, per phase: the inputs that send and
  // the idle cycles between their packets.
  struct Phase {
    std::vector<unsigned> lossy_ins;
    std::vector<unsigned> lossless_ins;
    unsigned gap_max;
  };
  // Phases 6 and 7 are idle (the paused lossless traffic drains); phase 8
  // is one light lossless input under short pauses.
  const std::array<Phase, 9> phases{{{{0}, {0}, 3},
                                     {{0, 1}, {0, 3}, 1},
                                     {{0, 1, 2, 3}, {0, 2, 3}, 0},
                                     {{3}, {0}, 12},
                                     {{0, 1, 2, 3}, {1, 3}, 1},
                                     {{1}, {2}, 16},
                                     {{}, {}, 0},
                                     {{}, {}, 0},
                                     {{}, {2}, 16}}};
  for (std::size_t k = 0; k < phases.size(); ++k) {
    const Phase& f = phases[k];
    Mix lossy;
    lossy.start = k * ph;
    lossy.ins = f.lossy_ins;
    lossy.lids = {2, 6};
    lossy.prios = {0, 1};
    lossy.max_len = 4;
    lossy.gap_max = f.gap_max;
    // Half the phase's cycles of each input (2.5 flits and gap_max / 2
    // idle cycles a packet), the lossless mix the other half.
    lossy.packets = static_cast<unsigned>(ph * lossy.ins.size() / (5ULL + f.gap_max));
    add_traffic(rng, lossy, st);
    Mix ll = lossy;
    ll.ins = f.lossless_ins;
    ll.lids = {1, 5};
    ll.prios = {3};
    ll.packets = static_cast<unsigned>(ph * ll.ins.size() / (5ULL + f.gap_max));
    add_traffic(rng, ll, st);
  }
  // Background: a little of everything to every output.
  Mix bg;
  for (std::uint16_t lid = 1; lid <= 12; ++lid) {
    bg.lids.push_back(lid);
  }
  bg.prios = {0, 1, 3, 4};
  bg.gap_max = 80;
  bg.packets = static_cast<unsigned>(ph / 2);
  add_traffic(rng, bg, st);
  // The peer of port 1 pauses queue 3 in phases 2 and 3 (quanta 6 x 8
  // cycles, refreshed every 60): output 1's queue 3 grows while paused,
  // then runs empty with the pause in the window.
  add_pause_storm(st, 1, 3, 6, 60, 2 * ph, 4 * ph);
  // Short pauses (8 cycles, every 20) under the light load of phase 8,
  // after the congestion before raised P: windows that ran empty with an
  // input sending, a pause in most of them holding P.
  add_pause_storm(st, 1, 3, 1, 20, 8 * ph, 9 * ph);
  // The registers, at seeded cycles around fixed points of the phases.
  const auto at = [&rng, ph](double where) {
    const auto base = static_cast<std::uint64_t>(where * static_cast<double>(ph));
    return base + std::uniform_int_distribution<std::uint64_t>(0, 40)(rng);
  };
  const auto w = [&st](std::uint64_t c, std::uint32_t off, std::uint32_t v) {
    st.csr.push_back(CsrOp{c, off, v, false});
  };
  w(0, kEcnTarget, 12);
  w(0, kEcnPmax, ecn_pmax(8, 200, 24, 8));
  w(0, kEcnCtrl, ecn_ctrl(0x0B, 5, 0));
  w(at(0.4), kEcnCtrl, ecn_ctrl(0xFF, 3, 0));  // refused: WIN 3
  add_status_sweep(st, at(0.6));
  w(at(1.3), kEcnCtrl, ecn_ctrl(0x0B, 4, 0));    // WIN mid-window
  w(at(1.6), kEcnPmax, ecn_pmax(20, 10, 1, 1));  // refused: PLO > PHI
  w(at(1.8), kEcnPmax, ecn_pmax(16, 160, 16, 12));
  w(at(2.0), kEcnK, 0x00100010);  // refused: read-only
  add_status_sweep(st, at(2.3));
  w(at(2.9), kEcnCtrl, ecn_ctrl(0x09, 4, 0));  // queue 1 off
  w(at(3.1), kEcnTarget, 20);
  // A static threshold change while the law is on: port 2 queue 0
  // (Kmin 12, Kmax 40), WRED_P of queues 0..3 of port 2.
  w(at(3.3), hw::switch_regs::port_reg(2, hw::switch_regs::PortReg::kWredK, 0).offset,
    (12U << SWITCH_CSR__PORTX__WRED_KX__KMIN_bp) | (40U << SWITCH_CSR__PORTX__WRED_KX__KMAX_bp));
  w(at(3.5), hw::switch_regs::port_reg(2, hw::switch_regs::PortReg::kWredP, 0).offset,
    (100U << SWITCH_CSR__PORTX__WRED_PX__P0_bp) | (128U << SWITCH_CSR__PORTX__WRED_PX__P1_bp) |
        (96U << SWITCH_CSR__PORTX__WRED_PX__P3_bp));
  add_status_sweep(st, at(3.8));
  w(at(4.2), kEcnCtrl, ecn_ctrl(0x0B, 6, 1));    // queue 1 on again, FAN_SH 1, WIN 6
  w(at(4.5), kEcnPmax, ecn_pmax(255, 0, 0, 0));  // refused
  w(at(4.7), kEcnCtrl, ecn_ctrl(0x0B, 21, 0));   // refused: WIN 21
  w(at(5.0), kEcnCtrl, ecn_ctrl(0x0B, 4, 0));
  w(at(5.2), kEcnPmax, ecn_pmax(0, 255, 32, 4));
  add_status_sweep(st, at(6.5));
  add_status_sweep(st, at(9.5));  // after the traffic: the end state
  return Scenario{std::move(s), std::move(st)};
}

}  // namespace syncfab::tb::switch_cosim

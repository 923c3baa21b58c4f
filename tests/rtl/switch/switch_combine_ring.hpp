// Helpers of the ring-mode tests of the combine unit (docs/group-barrier.md
// section 9) on either switch shape (switch_combine_ring_test.cpp on the
// 8-port switch, switch_combine_ring4_test.cpp on the 4-port one): raw TBL_*
// writes for the combine and ring tables, COMB_* packets with every field the
// ring rules read, and checks of what the unit made.
#pragma once

#include <Vswitch_top.h>
#include <Vswitch_top___024root.h>

#include <array>
#include <cstdint>
#include <string>

#include "switch_top_bench.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::switch_combine_ring {

using namespace syncfab::tb::switch_top_bench;
namespace swr = syncfab::hw::switch_regs;

constexpr unsigned kTblChildren = 2;
constexpr unsigned kTblCtrl = 3;
constexpr unsigned kTblRing = 4;
constexpr unsigned kTblExpect = 5;
constexpr std::uint8_t kCombArrive = static_cast<std::uint8_t>(fmt::PktType::kCombArrive);
constexpr std::uint8_t kCombRelease = static_cast<std::uint8_t>(fmt::PktType::kCombRelease);
constexpr std::uint8_t kCombShare = static_cast<std::uint8_t>(fmt::PktType::kCombShare);
constexpr std::uint32_t kIntrTblError = 1U << 4;
constexpr std::uint16_t kMlid = 0xC001;
constexpr std::uint16_t kE = 10;
constexpr std::uint8_t kPrio = 2;

inline void tbl_write(Bench& b, unsigned table, unsigned index, std::uint32_t data) {
  hw::Csr csr(b.dev);
  csr.write(swr::TBL_ADDR, {{swr::TBL_ADDR_INDEX, index}, {swr::TBL_ADDR_TABLE, table}});
  csr.write(swr::TBL_WDATA, data);
  csr.write(swr::TBL_CMD, {{swr::TBL_CMD_WRITE, 1}});
}

inline std::uint32_t tbl_read(Bench& b, unsigned table, unsigned index) {
  hw::Csr csr(b.dev);
  csr.write(swr::TBL_ADDR, {{swr::TBL_ADDR_INDEX, index}, {swr::TBL_ADDR_TABLE, table}});
  csr.write(swr::TBL_CMD, {{swr::TBL_CMD_READ, 1}});
  return csr.read(swr::TBL_RDATA);
}

// The control word in ring mode (switch_csr.rdl, TBL_WDATA): EPOCH[23:8],
// PHASES[25:24], RING[29], VALID[31].
constexpr std::uint32_t ring_ctrl(bool valid, unsigned phases, std::uint16_t epoch) {
  return (valid ? 1U << 31 : 0U) | (1U << 29) | ((phases & 3U) << 24) | (std::uint32_t{epoch} << 8);
}

struct Geo {
  bool valid = true;
  bool origin = false;
  unsigned plus = 0;
  unsigned minus = 0;
  unsigned pos = 0;
  unsigned len = 0;
  std::uint32_t expect = 0;
};

// Ring geometry word: PLUS[7:0], MINUS[15:8], POS[20:16], LEN[26:21],
// ORIGIN[30], VALID[31].
constexpr std::uint32_t geo_word(const Geo& g) {
  return (g.valid ? 1U << 31 : 0U) | (g.origin ? 1U << 30 : 0U) | ((g.len & 0x3FU) << 21) |
         ((g.pos & 0x1FU) << 16) | ((g.minus & 0xFFU) << 8) | (g.plus & 0xFFU);
}

struct RingEntry {
  std::uint16_t mlid = kMlid;
  std::uint32_t children = 0;
  unsigned phases = 0;
  std::array<Geo, 3> geo{};
  std::uint16_t epoch = 0;
};

// The driver's order: MFT (members only), children, ring words, control word.
inline void program_ring(Bench& b, const RingEntry& x) {
  const unsigned idx = x.mlid - fmt::kMlidBase;
  if (x.children != 0) {
    b.sw().set_mft(x.mlid, x.children);
  }
  tbl_write(b, kTblChildren, idx, x.children);
  for (unsigned d = 0; d < 3; ++d) {
    tbl_write(b, kTblRing, idx * 4 + d, geo_word(x.geo.at(d)));
    tbl_write(b, kTblExpect, idx * 4 + d, x.geo.at(d).expect);
  }
  tbl_write(b, kTblCtrl, idx, ring_ctrl(true, x.phases, x.epoch));
}

inline std::uint16_t epoch_of(Bench& b, std::uint16_t mlid) {
  return static_cast<std::uint16_t>((tbl_read(b, kTblCtrl, mlid - fmt::kMlidBase) >> 8) & 0xFFFFU);
}

// A COMB packet with every field the ring rules read.
struct P {
  std::uint8_t type = kCombArrive;
  std::uint16_t mlid = kMlid;
  std::uint16_t epoch = kE;
  unsigned round = 0;
  unsigned member = 0;
  bool answer = false;
  std::uint8_t ask = 0;
  std::uint8_t prio = kPrio;
  std::uint32_t flow = 0;
  std::uint16_t src = 0x21;
  std::uint8_t len = 1;
};

inline fmt::PktHdr hdr_of(const P& p) {
  fmt::PktHdr h;
  h.set_pkt_type(static_cast<fmt::PktType>(p.type))
      .set_len_flits(p.len)
      .set_dst_lid(p.mlid)
      .set_src_lid(p.src)
      .set_prio(p.prio)
      .set_ecn(static_cast<fmt::Ecn>(1))
      .set_dscp(9)
      .set_flow_label(p.flow)
      .set_ctx(3)
      .set_epoch(p.epoch)
      .set_round(static_cast<std::uint8_t>(p.round))
      .set_member(static_cast<std::uint16_t>(p.member))
      .set_answer(p.answer)
      .set_ask(p.ask);
  return h;
}

inline Packet pkt(const P& p) {
  Packet out{flit_of(hdr_of(p).bytes())};
  for (unsigned k = 1; k < p.len; ++k) {
    out.push_back(Flit{p.flow, k, 0, 0});
  }
  return out;
}

inline Packet arrive(std::uint16_t e, std::uint32_t flow) {
  return pkt(P{.type = kCombArrive, .epoch = e, .flow = flow});
}
inline Packet share(std::uint16_t e, unsigned d, unsigned o, std::uint32_t flow,
                    bool answer = false, std::uint8_t ask = 0) {
  return pkt(P{.type = kCombShare,
               .epoch = e,
               .round = d,
               .member = o,
               .answer = answer,
               .ask = ask,
               .flow = flow});
}

// A share of another MLID's entry.
inline Packet share_for(std::uint16_t mlid, std::uint16_t e, unsigned d, unsigned o,
                        std::uint8_t ask, std::uint32_t flow) {
  return pkt(P{.type = kCombShare,
               .mlid = mlid,
               .epoch = e,
               .round = d,
               .member = o,
               .ask = ask,
               .flow = flow});
}

inline fmt::PktHdr got_hdr(const RxPacket& g) { return fmt::PktHdr(bytes_of(g.flits.at(0))); }

// What the unit made: one flit, src_lid 0, the processed packet's ctx, prio,
// dscp, ecn and flow label (section 9.3), and the given type and fields.
// check_made_for: the same for another MLID's entry.
inline void check_made_for(std::uint16_t mlid, const RxPacket& got, std::uint8_t type,
                           std::uint16_t epoch, unsigned round, unsigned member, bool answer,
                           std::uint32_t flow, const std::string& what, std::uint8_t ask = 0) {
  TB_CHECK_EQ(got.flits.size(), 1U) << what;
  const fmt::PktHdr h = got_hdr(got);
  P want{.type = type,
         .mlid = mlid,
         .epoch = epoch,
         .round = round,
         .member = member,
         .answer = answer,
         .ask = ask,
         .flow = flow,
         .src = 0};
  TB_CHECK(got.flits.at(0) == flit_of(hdr_of(want).bytes()))
      << what << ": header differs (type " << static_cast<unsigned>(h.pkt_type()) << ", epoch "
      << h.epoch() << ", round " << unsigned{h.round()} << ", member " << h.member() << ", answer "
      << h.answer() << ", ask " << unsigned{h.ask()} << ", src " << h.src_lid() << ", flow "
      << h.flow_label() << ")";
}
inline void check_made(const RxPacket& got, std::uint8_t type, std::uint16_t epoch, unsigned round,
                       unsigned member, bool answer, std::uint32_t flow, const std::string& what,
                       std::uint8_t ask = 0) {
  check_made_for(kMlid, got, type, epoch, round, member, answer, flow, what, ask);
}

// Free cells of every input buffer (the ingress's free_q, read from the
// model's root): a test ends with every cell back.
template <class Root>
std::array<unsigned, kPorts> free_cells_of(const Root& rt) {
  std::array<unsigned, kPorts> f{
      rt.switch_top__DOT__gen_ingress__BRA__0__KET____DOT__u_ingress__DOT__free_q,
      rt.switch_top__DOT__gen_ingress__BRA__1__KET____DOT__u_ingress__DOT__free_q,
      rt.switch_top__DOT__gen_ingress__BRA__2__KET____DOT__u_ingress__DOT__free_q,
      rt.switch_top__DOT__gen_ingress__BRA__3__KET____DOT__u_ingress__DOT__free_q};
  if constexpr (kPorts == 8) {
    f[4] = rt.switch_top__DOT__gen_ingress__BRA__4__KET____DOT__u_ingress__DOT__free_q;
    f[5] = rt.switch_top__DOT__gen_ingress__BRA__5__KET____DOT__u_ingress__DOT__free_q;
    f[6] = rt.switch_top__DOT__gen_ingress__BRA__6__KET____DOT__u_ingress__DOT__free_q;
    f[7] = rt.switch_top__DOT__gen_ingress__BRA__7__KET____DOT__u_ingress__DOT__free_q;
  }
  return f;
}
inline std::array<unsigned, kPorts> free_cells(Bench& b) { return free_cells_of(*b.dut.rootp); }

inline void check_no_cell_held(Bench& b, const std::string& what) {
  const auto f = free_cells(b);
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(f.at(p), kBufCells) << what << ": input " << p << " still holds cells";
  }
}

// Output counts, to see what one step adds.
struct Marks {
  std::array<std::size_t, kPorts> n{};
};
inline Marks mark(const Bench& b) {
  Marks m;
  for (unsigned p = 0; p < kPorts; ++p) {
    m.n.at(p) = b.out.at(p).size();
  }
  return m;
}
// The ports that got exactly one packet since `m` (and none got more).
inline std::uint32_t new_ports(const Bench& b, const Marks& m, const std::string& what) {
  std::uint32_t mask = 0;
  for (unsigned p = 0; p < kPorts; ++p) {
    const std::size_t k = b.out.at(p).size() - m.n.at(p);
    TB_CHECK(k <= 1) << what << ": port " << p << " got " << k << " packets";
    if (k == 1) {
      mask |= 1U << p;
    }
  }
  return mask;
}

inline std::uint32_t drops(Bench& b) {
  std::uint32_t n = 0;
  for (unsigned p = 0; p < kPorts; ++p) {
    n += b.count(p, kPrio, K::kDropNoRoute);
  }
  return n;
}

}  // namespace syncfab::tb::switch_combine_ring

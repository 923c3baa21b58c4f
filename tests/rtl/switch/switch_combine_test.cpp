// The switch's combine unit (rtl/switch/switch_combine.sv) and the new
// packet types on the whole switch (4 ports, 16 MFT entries), under the
// unchanged switch driver plus raw TBL_* accesses for the combine tables.
// Expected results are worked out by hand from docs/group-barrier.md
// sections 5 and 6; the rule is named next to each check.
#include <Vswitch_top.h>
#include <Vswitch_top___024root.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "switch_top_bench.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_top_bench;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace fmt = syncfab::fmt;
namespace r = syncfab::hw::switch_regs;

namespace {

constexpr unsigned kTblChildren = 2;
constexpr unsigned kTblCtrl = 3;
constexpr std::uint8_t kArrive = static_cast<std::uint8_t>(fmt::PktType::kArrive);
constexpr std::uint8_t kRelease = static_cast<std::uint8_t>(fmt::PktType::kRelease);
constexpr std::uint8_t kCombArrive = static_cast<std::uint8_t>(fmt::PktType::kCombArrive);
constexpr std::uint8_t kCombRelease = static_cast<std::uint8_t>(fmt::PktType::kCombRelease);
constexpr std::uint32_t kIntrTblError = 1U << 4;

void tbl_write(Bench& b, unsigned table, unsigned index, std::uint32_t data) {
  hw::Csr csr(b.dev);
  csr.write(r::TBL_ADDR, {{r::TBL_ADDR_INDEX, index}, {r::TBL_ADDR_TABLE, table}});
  csr.write(r::TBL_WDATA, data);
  csr.write(r::TBL_CMD, {{r::TBL_CMD_WRITE, 1}});
}

std::uint32_t tbl_read(Bench& b, unsigned table, unsigned index) {
  hw::Csr csr(b.dev);
  csr.write(r::TBL_ADDR, {{r::TBL_ADDR_INDEX, index}, {r::TBL_ADDR_TABLE, table}});
  csr.write(r::TBL_CMD, {{r::TBL_CMD_READ, 1}});
  return csr.read(r::TBL_RDATA);
}

// The control word (switch_csr.rdl, TBL_WDATA): PARENT[7:0], EPOCH[23:8],
// ROOT[30], VALID[31].
constexpr std::uint32_t ctrl_word(bool valid, bool root, unsigned parent, std::uint16_t epoch) {
  return (valid ? 1U << 31 : 0U) | (root ? 1U << 30 : 0U) | (std::uint32_t{epoch} << 8) |
         (parent & 0xFFU);
}

// A group on MLID `mlid`: MFT mask = children (+ the parent port), the
// children, then the control word (the driver's order).
void program_group(Bench& b, std::uint16_t mlid, std::uint32_t children, bool root, unsigned parent,
                   std::uint16_t epoch) {
  const unsigned idx = mlid - fmt::kMlidBase;
  b.sw().set_mft(mlid, root ? children : children | (1U << parent));
  tbl_write(b, kTblChildren, idx, children);
  tbl_write(b, kTblCtrl, idx, ctrl_word(true, root, parent, epoch));
}

std::uint16_t epoch_of(Bench& b, std::uint16_t mlid) {
  return static_cast<std::uint16_t>((tbl_read(b, kTblCtrl, mlid - fmt::kMlidBase) >> 8) & 0xFFFFU);
}

Packet comb(std::uint8_t type, std::uint16_t mlid, std::uint16_t epoch, std::uint8_t prio = 2,
            std::uint32_t flow = 0, std::uint16_t src = 0x21) {
  return make_packet(Hdr{.type = type,
                         .len = 1,
                         .dst = mlid,
                         .src = src,
                         .prio = prio,
                         .ecn = 1,
                         .dscp = 9,
                         .flow = flow,
                         .ctx = 3,
                         .epoch = epoch});
}

// A copy the combine unit made from `sent`: type `type`, src_lid 0, every
// other field as received.
void check_made(const RxPacket& got, const Packet& sent, std::uint8_t type,
                const std::string& what) {
  TB_CHECK_EQ(got.flits.size(), 1U) << what;
  Hdr h = parse(sent.at(0));
  h.type = type;
  h.src = 0;
  const Hdr g = parse(got.flits.at(0));
  TB_CHECK(got.flits[0] == hdr_flit(h))
      << what << ": header differs (type " << unsigned{g.type} << ", src " << g.src << ", epoch "
      << g.epoch << ", ctx " << unsigned{g.ctx} << ", dst " << g.dst << ")";
}

// Free cells of every input buffer (the ingress's free_q).
std::array<unsigned, kPorts> free_cells(Bench& b) {
  const Vswitch_top___024root& rt = *b.dut.rootp;
  return {rt.switch_top__DOT__gen_ingress__BRA__0__KET____DOT__u_ingress__DOT__free_q,
          rt.switch_top__DOT__gen_ingress__BRA__1__KET____DOT__u_ingress__DOT__free_q,
          rt.switch_top__DOT__gen_ingress__BRA__2__KET____DOT__u_ingress__DOT__free_q,
          rt.switch_top__DOT__gen_ingress__BRA__3__KET____DOT__u_ingress__DOT__free_q};
}

void check_no_cell_held(Bench& b, const std::string& what) {
  const auto f = free_cells(b);
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(f.at(p), kBufCells) << what << ": input " << p << " still holds cells";
  }
}

std::size_t total_out(const Bench& b) {
  std::size_t n = 0;
  for (const auto& o : b.out) {
    n += o.size();
  }
  return n;
}

}  // namespace

// VERSION.MINOR 3 (2 added these tables, 3 ring mode); TABLE 2 and 3
// (switch_csr.rdl): children and control read back; an
// unprogrammed control word reads 0; an index past the MFT raises TBL_ERROR;
// the epoch read is the one the entry waits for now (a root release
// advances it).
SYNCFAB_TEST(switch_combine, table_readback) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  TB_CHECK((hw::Csr(b.dev).read(r::VERSION) & 0xFFFFU) >= 3U) << "VERSION.MINOR 3: ring mode";
  TB_CHECK_EQ(tbl_read(b, kTblCtrl, 4), 0U) << "unprogrammed";
  tbl_write(b, kTblChildren, 4, 0x6);
  tbl_write(b, kTblCtrl, 4, ctrl_word(true, false, 0, 0xBEEF));
  TB_CHECK_EQ(tbl_read(b, kTblChildren, 4), 0x6U);
  TB_CHECK_EQ(tbl_read(b, kTblCtrl, 4), ctrl_word(true, false, 0, 0xBEEF));
  tbl_write(b, kTblCtrl, 5, ctrl_word(true, true, 0, 0xFFFF));
  TB_CHECK_EQ(tbl_read(b, kTblCtrl, 5), ctrl_word(true, true, 0, 0xFFFF));
  tbl_write(b, kTblCtrl, 5, ctrl_word(false, true, 0, 7));
  TB_CHECK_EQ(tbl_read(b, kTblCtrl, 5), 0U) << "VALID 0 reads as unprogrammed";
  TB_CHECK_EQ(sw.interrupt_status() & kIntrTblError, 0U);
  tbl_write(b, kTblCtrl, kMftEntries, ctrl_word(true, true, 0, 1));
  TB_CHECK_EQ(sw.interrupt_status() & kIntrTblError, kIntrTblError) << "index past the MFT";
  sw.clear_interrupts(kIntrTblError);
  (void)tbl_read(b, kTblChildren, kMftEntries + 3);
  TB_CHECK_EQ(sw.interrupt_status() & kIntrTblError, kIntrTblError) << "read past the MFT";
  // The MFT itself is untouched by the combine tables.
  sw.set_mft(0xC004, 0x7);
  TB_CHECK(sw.mft(0xC004) == std::optional<std::uint32_t>(0x7));
  TB_CHECK_EQ(tbl_read(b, kTblChildren, 4), 0x6U);
  // A root entry on 0xC002 with one child at epoch 0xFFFF: its release
  // wraps the epoch to 0.
  program_group(b, 0xC002, 0x1, true, 0, 0xFFFF);
  sw.enable(true);
  b.send(0, comb(kCombArrive, 0xC002, 0xFFFF));
  co_await b.drain();
  TB_CHECK_EQ(b.out[0].size(), 1U);
  TB_CHECK_EQ(epoch_of(b, 0xC002), 0U) << "E advances mod 2^16";
  TB_CHECK_EQ(tbl_read(b, kTblCtrl, 2), ctrl_word(true, true, 0, 0));
}

// A root entry (children 0, 1, 2): the first two arrivals are absorbed; the
// last makes a COMB_RELEASE to every child, the last sender included; E
// advances; the next epoch works the same with another arrival order.
SYNCFAB_TEST(switch_combine, root_combine) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr std::uint16_t kMlid = 0xC001;
  program_group(b, kMlid, 0x7, true, 0, 5);
  sw.enable(true);
  b.send(0, comb(kCombArrive, kMlid, 5, 2, 1));
  b.send(1, comb(kCombArrive, kMlid, 5, 2, 2));
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 0U) << "absorbed while children are missing";
  TB_CHECK_EQ(epoch_of(b, kMlid), 5U);
  const Packet last = comb(kCombArrive, kMlid, 5, 2, 3);
  b.send(2, last);
  co_await b.drain();
  for (unsigned o : {0U, 1U, 2U}) {
    TB_CHECK_EQ(b.out[o].size(), 1U) << "port " << o;
    check_made(b.out[o][0], last, kCombRelease, "release on port " + std::to_string(o));
    TB_CHECK_EQ(b.count(o, 2, K::kTx), 1U);
  }
  TB_CHECK(b.out[3].empty());
  std::cout << "switch_combine.root_combine: last arrival's last rx flit to the third copy's first "
               "tx flit "
            << b.out[2][0].first_cycle - b.rx_last_cycle[2].back() << " cycles\n";
  TB_CHECK_EQ(epoch_of(b, kMlid), 6U);
  TB_CHECK_EQ(b.count(2, 2, K::kRx), 1U);
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(b.count(p, 2, K::kDropNoRoute), 0U) << "port " << p;
  }
  // Epoch 6, arrivals 2, 0, 1 (the last one from port 1).
  b.send(2, comb(kCombArrive, kMlid, 6, 2, 4));
  co_await b.drain();
  b.send(0, comb(kCombArrive, kMlid, 6, 2, 5));
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 3U);
  const Packet last6 = comb(kCombArrive, kMlid, 6, 2, 6);
  b.send(1, last6);
  co_await b.drain();
  for (unsigned o : {0U, 1U, 2U}) {
    TB_CHECK_EQ(b.out[o].size(), 2U) << "port " << o;
    check_made(b.out[o][1], last6, kCombRelease, "epoch 6 release on port " + std::to_string(o));
  }
  TB_CHECK_EQ(epoch_of(b, kMlid), 7U);
  check_no_cell_held(b, "root combine");
}

// A non-root entry (children 0, 1, parent 3): both in -> one COMB_ARRIVE to
// the parent; the parent's release -> E + 1 and a copy to each child; a
// release from a child -> drop; a re-sent release (E - 1) from the parent ->
// to the children again; a release of another epoch -> drop.
SYNCFAB_TEST(switch_combine, non_root) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr std::uint16_t kMlid = 0xC003;
  program_group(b, kMlid, 0x3, false, 3, 10);
  sw.enable(true);
  b.send(0, comb(kCombArrive, kMlid, 10, 4, 1));
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 0U);
  const Packet a1 = comb(kCombArrive, kMlid, 10, 4, 2);
  b.send(1, a1);
  co_await b.drain();
  TB_CHECK_EQ(b.out[3].size(), 1U) << "one arrival up for the subtree";
  check_made(b.out[3][0], a1, kCombArrive, "arrival to the parent");
  TB_CHECK_EQ(total_out(b), 1U);
  TB_CHECK_EQ(epoch_of(b, kMlid), 10U) << "a non-root advances on the release only";
  const Packet rel = comb(kCombRelease, kMlid, 10, 4, 3, 0);
  b.send(3, rel);
  co_await b.drain();
  for (unsigned o : {0U, 1U}) {
    TB_CHECK_EQ(b.out[o].size(), 1U) << "port " << o;
    check_made(b.out[o][0], rel, kCombRelease, "release to child " + std::to_string(o));
  }
  TB_CHECK_EQ(b.out[3].size(), 1U) << "nothing back to the parent";
  TB_CHECK_EQ(epoch_of(b, kMlid), 11U);
  // A release from a child: drop at (0, 4).
  b.send(0, comb(kCombRelease, kMlid, 11, 4, 4, 0));
  co_await b.drain();
  TB_CHECK_EQ(b.count(0, 4, K::kDropNoRoute), 1U);
  TB_CHECK_EQ(total_out(b), 3U);
  // A re-sent release of epoch 10 from the parent: to every child again.
  const Packet again = comb(kCombRelease, kMlid, 10, 4, 5, 0);
  b.send(3, again);
  co_await b.drain();
  for (unsigned o : {0U, 1U}) {
    TB_CHECK_EQ(b.out[o].size(), 2U) << "port " << o;
    check_made(b.out[o][1], again, kCombRelease, "re-sent release on " + std::to_string(o));
  }
  TB_CHECK_EQ(epoch_of(b, kMlid), 11U);
  // The release of epoch 11 before the children are in, and of epoch 12:
  // drops at (3, 4).
  b.send(3, comb(kCombRelease, kMlid, 11, 4, 6, 0));
  b.send(3, comb(kCombRelease, kMlid, 12, 4, 7, 0));
  co_await b.drain();
  TB_CHECK_EQ(b.count(3, 4, K::kDropNoRoute), 2U);
  TB_CHECK_EQ(total_out(b), 5U);
  check_no_cell_held(b, "non-root");
}

// Duplicates: at a non-root, a second arrival from the same child is
// absorbed while a child is missing, and re-forwarded to the parent once the
// entry waits for its release; at a root a duplicate is absorbed.
SYNCFAB_TEST(switch_combine, duplicates) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr std::uint16_t kMlid = 0xC005;
  constexpr std::uint16_t kRoot = 0xC006;
  program_group(b, kMlid, 0x6, false, 0, 40);
  program_group(b, kRoot, 0x3, true, 0, 7);
  sw.enable(true);
  b.send(1, comb(kCombArrive, kMlid, 40, 1, 1));
  b.send(1, comb(kCombArrive, kMlid, 40, 1, 2));
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 0U) << "duplicate absorbed while port 2 is missing";
  b.send(2, comb(kCombArrive, kMlid, 40, 1, 3));
  co_await b.drain();
  TB_CHECK_EQ(b.out[0].size(), 1U);
  const Packet dup = comb(kCombArrive, kMlid, 40, 1, 4);
  b.send(1, dup);
  b.send(2, comb(kCombArrive, kMlid, 40, 1, 5));
  co_await b.drain();
  TB_CHECK_EQ(b.out[0].size(), 3U) << "each re-send climbs while the entry waits";
  check_made(b.out[0][1], dup, kCombArrive, "re-forwarded arrival");
  TB_CHECK_EQ(total_out(b), 3U);
  // Root: port 0 in, port 0 again -> absorbed.
  b.send(0, comb(kCombArrive, kRoot, 7, 1, 6));
  b.send(0, comb(kCombArrive, kRoot, 7, 1, 7));
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 3U);
  TB_CHECK_EQ(epoch_of(b, kRoot), 7U);
  b.send(1, comb(kCombArrive, kRoot, 7, 1, 8));
  co_await b.drain();
  TB_CHECK_EQ(b.out[0].size(), 4U);
  TB_CHECK_EQ(b.out[1].size(), 1U);
  TB_CHECK_EQ(epoch_of(b, kRoot), 8U);
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(b.count(p, 1, K::kDropNoRoute), 0U) << "duplicates are not drops, port " << p;
  }
  check_no_cell_held(b, "duplicates");
}

// A child that missed release e re-sends COMB_ARRIVE(e) after E advanced:
// COMB_RELEASE(e) on its port only (root and non-root). Any other epoch
// is dropped.
SYNCFAB_TEST(switch_combine, missed_release_resent_one_port) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr std::uint16_t kRoot = 0xC007;
  constexpr std::uint16_t kMid = 0xC008;
  program_group(b, kRoot, 0xF, true, 0, 0);
  program_group(b, kMid, 0x7, false, 3, 20);
  sw.enable(true);
  for (unsigned p = 0; p < kPorts; ++p) {
    b.send(p, comb(kCombArrive, kRoot, 0, 5, p));
  }
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 4U);
  TB_CHECK_EQ(epoch_of(b, kRoot), 1U);
  const Packet late = comb(kCombArrive, kRoot, 0, 5, 9);
  b.send(2, late);
  co_await b.drain();
  TB_CHECK_EQ(b.out[2].size(), 2U);
  check_made(b.out[2][1], late, kCombRelease, "re-sent release");
  TB_CHECK_EQ(total_out(b), 5U) << "on that port only";
  TB_CHECK_EQ(epoch_of(b, kRoot), 1U);
  // Epochs E + 1 and E - 2: drops at (1, 5).
  b.send(1, comb(kCombArrive, kRoot, 2, 5, 10));
  b.send(1, comb(kCombArrive, kRoot, 0xFFFF, 5, 11));
  co_await b.drain();
  TB_CHECK_EQ(b.count(1, 5, K::kDropNoRoute), 2U);
  // Non-root: all in, released by the parent, then a child re-sends.
  for (unsigned p = 0; p < 3; ++p) {
    b.send(p, comb(kCombArrive, kMid, 20, 5, 20 + p));
  }
  co_await b.drain();
  b.send(3, comb(kCombRelease, kMid, 20, 5, 30, 0));
  co_await b.drain();
  TB_CHECK_EQ(epoch_of(b, kMid), 21U);
  const std::size_t before = total_out(b);
  const Packet late_mid = comb(kCombArrive, kMid, 20, 5, 31);
  b.send(1, late_mid);
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), before + 1);
  check_made(b.out[1].back(), late_mid, kCombRelease, "non-root re-sent release");
  check_no_cell_held(b, "missed release");
}

// Refused COMB packets, each DROP_NO_ROUTE at (input, prio), none leaving,
// their cells freed: an entry whose MFT mask differs from its children
// (root) or misses the parent (non-root), a non-root whose parent is a child,
// no combine entry (MFT valid), no MFT entry (combine valid), an MLID past
// the MFT, a unicast dst_lid (LFT programmed), an arrival from a port not in
// children, a release at a root.
SYNCFAB_TEST(switch_combine, refused_no_route) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x10, 2);
  // 0xC001: root, children 0-1, MFT 0-2.
  sw.set_mft(0xC001, 0x7);
  tbl_write(b, kTblChildren, 1, 0x3);
  tbl_write(b, kTblCtrl, 1, ctrl_word(true, true, 0, 1));
  // 0xC002: non-root, children 0-1, parent 3, MFT without the parent.
  sw.set_mft(0xC002, 0x3);
  tbl_write(b, kTblChildren, 2, 0x3);
  tbl_write(b, kTblCtrl, 2, ctrl_word(true, false, 3, 1));
  // 0xC003: non-root whose parent 1 is a child.
  sw.set_mft(0xC003, 0x3);
  tbl_write(b, kTblChildren, 3, 0x3);
  tbl_write(b, kTblCtrl, 3, ctrl_word(true, false, 1, 1));
  // 0xC004: MFT only. 0xC005: combine entry only.
  sw.set_mft(0xC004, 0x3);
  tbl_write(b, kTblChildren, 5, 0x3);
  tbl_write(b, kTblCtrl, 5, ctrl_word(true, true, 0, 1));
  // 0xC006: a good root with children 0, 1 (MFT 0-1).
  program_group(b, 0xC006, 0x3, true, 0, 1);
  // 0xC007: a non-root whose parent is past the ports.
  sw.set_mft(0xC007, 0x3);
  tbl_write(b, kTblChildren, 7, 0x3);
  tbl_write(b, kTblCtrl, 7, ctrl_word(true, false, 9, 1));
  sw.enable(true);
  const std::vector<std::uint16_t> bad_dst{0xC001, 0xC002, 0xC003,      0xC004,
                                           0xC005, 0xC007, 0xC000 + 20, 0x10};
  for (std::uint16_t d : bad_dst) {
    b.send(0, comb(kCombArrive, d, 1, 6, d));
    b.send(0, comb(kCombRelease, d, 1, 7, d));
  }
  b.send(2, comb(kCombArrive, 0xC006, 1, 6, 100));   // not a child
  b.send(1, comb(kCombRelease, 0xC006, 1, 6, 101));  // a release at a root
  b.send(1, comb(kCombRelease, 0xC006, 0, 6, 102));  // ... even of E - 1
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 0U);
  TB_CHECK_EQ(b.count(0, 6, K::kDropNoRoute), bad_dst.size());
  TB_CHECK_EQ(b.count(0, 7, K::kDropNoRoute), bad_dst.size());
  TB_CHECK_EQ(b.count(2, 6, K::kDropNoRoute), 1U);
  TB_CHECK_EQ(b.count(1, 6, K::kDropNoRoute), 2U);
  TB_CHECK_EQ(b.count(0, 6, K::kRx), bad_dst.size());
  TB_CHECK_EQ(epoch_of(b, 0xC006), 1U);
  check_no_cell_held(b, "refused");
  // The entry still works.
  b.send(0, comb(kCombArrive, 0xC006, 1, 6, 103));
  b.send(1, comb(kCombArrive, 0xC006, 1, 6, 104));
  co_await b.drain();
  TB_CHECK_EQ(b.out[0].size(), 1U);
  TB_CHECK_EQ(b.out[1].size(), 1U);
}

// A combine drop at the engine and a lookup miss at the same input's header
// in one cycle name one counter (DROP_NO_ROUTE, input, prio): both count.
// Many refused COMB packets and unrouted unicast ones interleave on one
// input; every one is counted and the buffers end empty.
SYNCFAB_TEST(switch_combine, drop_counts_add_up) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.enable(true);
  constexpr unsigned kN = 40;
  for (unsigned k = 0; k < kN; ++k) {
    b.send(1, comb(kCombArrive, 0xC009, 1, 3, k));
    b.send(1, make_packet(Hdr{.len = 1, .dst = 0x33, .prio = 3, .flow = 1000 + k}));
    b.send(2, comb(kCombRelease, 0xC009, 1, 3, 2000 + k));
  }
  co_await b.drain();
  TB_CHECK_EQ(b.count(1, 3, K::kDropNoRoute), 2 * kN);
  TB_CHECK_EQ(b.count(2, 3, K::kDropNoRoute), kN);
  TB_CHECK_EQ(b.count(1, 3, K::kRx), 2 * kN);
  check_no_cell_held(b, "drops");
}

// Absorbed packets free their cells: many arrivals absorbed (first
// arrivals and duplicates) leave every input buffer empty, and a full
// buffer's worth of traffic passes afterwards.
SYNCFAB_TEST(switch_combine, absorbed_free_cells) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr std::uint16_t kMlid = 0xC00A;
  program_group(b, kMlid, 0xF, true, 0, 100);
  sw.set_lft(0x12, 3);
  sw.enable(true);
  for (unsigned k = 0; k < 200; ++k) {
    b.send(k % 3, comb(kCombArrive, kMlid, 100, 0, k));
  }
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 0U);
  TB_CHECK_EQ(b.count(0, 0, K::kRx), 67U);
  check_no_cell_held(b, "absorbed");
  for (unsigned k = 0; k < 40; ++k) {
    b.send(0, make_packet(Hdr{.len = 4, .dst = 0x12, .prio = 0, .flow = 500 + k}));
  }
  co_await b.drain();
  TB_CHECK_EQ(b.out[3].size(), 40U);
  TB_CHECK_EQ(b.count(0, 0, K::kDropBuf), 0U);
  check_no_cell_held(b, "after traffic");
}

// ARRIVE and RELEASE are plain packets (section 6): ARRIVE unicast by the
// LFT; RELEASE multicast by the MFT (not back to its input) or unicast;
// unchanged (src_lid kept), like DATA. The latency of a plain multicast and
// of a COMB release on the same ports is printed.
SYNCFAB_TEST(switch_combine, arrive_release_forwarded) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  sw.set_lft(0x10, 2);
  sw.set_mft(0xC001, 0xF);
  sw.enable(true);
  const Packet arr = make_packet(Hdr{.type = kArrive,
                                     .len = 1,
                                     .dst = 0x10,
                                     .src = 5,
                                     .prio = 3,
                                     .flow = 1,
                                     .ctx = 2,
                                     .epoch = 9});
  const Packet rel_mc = make_packet(Hdr{.type = kRelease,
                                        .len = 1,
                                        .dst = 0xC001,
                                        .src = 6,
                                        .prio = 3,
                                        .flow = 2,
                                        .ctx = 2,
                                        .epoch = 9});
  const Packet rel_uc = make_packet(Hdr{.type = kRelease,
                                        .len = 1,
                                        .dst = 0x10,
                                        .src = 6,
                                        .prio = 3,
                                        .flow = 3,
                                        .ctx = 2,
                                        .epoch = 9});
  b.send(0, arr);
  co_await b.drain();
  TB_CHECK_EQ(b.out[2].size(), 1U);
  check_copy(b.out[2][0], arr, 3, 0, 0, "ARRIVE");
  b.send(1, rel_mc);
  co_await b.drain();
  for (unsigned o : {0U, 2U, 3U}) {
    TB_CHECK_EQ(b.out[o].size(), o == 2 ? 2U : 1U) << "port " << o;
    check_copy(b.out[o].back(), rel_mc, 3, 0, 0, "RELEASE multicast on " + std::to_string(o));
  }
  TB_CHECK(b.out[1].empty()) << "not back to the input";
  // The multicast's copies are queued in one engine cycle and, one flit
  // long, share one read of its cell (datapath "Egress", shared read): all
  // leave in the same cycle.
  std::uint64_t mc_first = ~std::uint64_t{0};
  for (unsigned o : {0U, 2U, 3U}) {
    mc_first = std::min(mc_first, b.out[o].back().first_cycle);
  }
  for (unsigned o : {0U, 2U, 3U}) {
    TB_CHECK_EQ(b.out[o].back().first_cycle, mc_first) << "RELEASE copy on " << o;
  }
  const std::uint64_t mc_lat = mc_first - b.rx_last_cycle[1].back();
  b.send(3, rel_uc);
  co_await b.drain();
  TB_CHECK_EQ(b.out[2].size(), 3U);
  check_copy(b.out[2][2], rel_uc, 3, 0, 0, "RELEASE unicast");
  TB_CHECK_EQ(b.count(0, 3, K::kDropBadPkt) + b.count(1, 3, K::kDropBadPkt), 0U);
  // The same shape through the combine unit: a root with one child (port 1)
  // releasing to port 1; the release from input 1 to output 1 versus the
  // multicast from input 1 to output 0.
  program_group(b, 0xC002, 0x2, true, 0, 0);
  b.send(1, comb(kCombArrive, 0xC002, 0, 3, 4));
  co_await b.drain();
  TB_CHECK_EQ(b.out[1].size(), 1U);
  const std::uint64_t cb_lat = b.out[1][0].first_cycle - b.rx_last_cycle[1].back();
  std::cout << "switch_combine.arrive_release_forwarded: last rx flit to first tx flit: multicast "
            << mc_lat << " cycles, COMB release " << cb_lat << " cycles\n";
  TB_CHECK_EQ(cb_lat, mc_lat) << "the combine unit adds no cycle";
}

namespace {

// The packet counters (RX .. ECN_MARK) of every port at `prio`.
std::vector<std::uint32_t> packet_counters(Bench& b, unsigned prio) {
  std::vector<std::uint32_t> c;
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned k = 0; k <= static_cast<unsigned>(K::kEcnMark); ++k) {
      c.push_back(b.count(p, prio, static_cast<K>(k)));
    }
  }
  return c;
}

// The packet sent among `sent` whose flow label `got` carries.
const Packet& sent_by_flow(const std::vector<Packet>& sent, const RxPacket& got) {
  const std::uint32_t flow = parse(got.flits.at(0)).flow;
  for (const Packet& p : sent) {
    if (parse(p.at(0)).flow == flow) {
      return p;
    }
  }
  throw std::runtime_error("no packet sent with flow label " + std::to_string(flow));
}

}  // namespace

// The children's arrivals of one group that reach the switch in the same
// cycle are decided in one engine cycle (docs/switch-datapath.md, "Combine
// unit", partners): the arrival up (non-root) and the first release copy
// (root) leave when a lone arrival's would, 3 cycles after the last flit in
// on an idle switch, made from one of the arrivals; every packet counter
// moves as it does when the same arrivals come one at a time.
SYNCFAB_TEST(switch_combine, simultaneous_arrivals) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr unsigned kPrio = 2;
  constexpr std::uint16_t kLoneUp = 0xC001;    // non-root, child 0, parent 3
  constexpr std::uint16_t kLoneRoot = 0xC002;  // root, child 1
  constexpr std::uint16_t kUp = 0xC003;        // non-root, children 0-2, parent 3
  constexpr std::uint16_t kRoot = 0xC004;      // root, children 0-3
  constexpr std::uint16_t kUpSeq = 0xC005;     // as kUp and kRoot, one at a time
  constexpr std::uint16_t kRootSeq = 0xC006;
  program_group(b, kLoneUp, 0x1, false, 3, 1);
  program_group(b, kLoneRoot, 0x2, true, 0, 1);
  program_group(b, kUp, 0x7, false, 3, 1);
  program_group(b, kRoot, 0xF, true, 0, 1);
  program_group(b, kUpSeq, 0x7, false, 3, 1);
  program_group(b, kRootSeq, 0xF, true, 0, 1);
  sw.enable(true);
  b.send(0, comb(kCombArrive, kLoneUp, 1, kPrio, 1));
  co_await b.drain();
  TB_CHECK_EQ(b.out[3].size(), 1U);
  const std::uint64_t lone_up = b.out[3][0].first_cycle - b.rx_last_cycle[0].back();
  TB_CHECK_EQ(lone_up, 3U) << "a lone arrival up";
  b.send(1, comb(kCombArrive, kLoneRoot, 1, kPrio, 2));
  co_await b.drain();
  TB_CHECK_EQ(b.out[1].size(), 1U);
  const std::uint64_t lone_root = b.out[1][0].first_cycle - b.rx_last_cycle[1].back();
  TB_CHECK_EQ(lone_root, 3U) << "a lone arrival's release";
  const std::vector<std::uint32_t> c0 = packet_counters(b, kPrio);

  // Three children of a non-root in one cycle: one arrival up.
  std::vector<Packet> up;
  for (unsigned p = 0; p < 3; ++p) {
    up.push_back(comb(kCombArrive, kUp, 1, kPrio, 10 + p));
    b.send(p, up.back());
  }
  co_await b.drain();
  TB_CHECK_EQ(b.rx_last_cycle[0].back(), b.rx_last_cycle[2].back()) << "in the same cycle";
  TB_CHECK_EQ(b.rx_last_cycle[1].back(), b.rx_last_cycle[2].back()) << "in the same cycle";
  TB_CHECK_EQ(b.out[3].size(), 2U) << "one arrival up for the three";
  check_made(b.out[3][1], sent_by_flow(up, b.out[3][1]), kCombArrive, "arrival up");
  TB_CHECK_EQ(b.out[3][1].first_cycle - b.rx_last_cycle[0].back(), lone_up)
      << "decided as a lone arrival";
  TB_CHECK_EQ(epoch_of(b, kUp), 1U);

  // Four children of a root in one cycle: a release to each.
  std::vector<Packet> root;
  for (unsigned p = 0; p < kPorts; ++p) {
    root.push_back(comb(kCombArrive, kRoot, 1, kPrio, 20 + p));
    b.send(p, root.back());
  }
  co_await b.drain();
  std::uint64_t first = ~std::uint64_t{0};
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(b.rx_last_cycle[p].back(), b.rx_last_cycle[0].back()) << "in the same cycle";
    TB_CHECK(!b.out[p].empty()) << "port " << p;
    const RxPacket& got = b.out[p].back();
    check_made(got, sent_by_flow(root, got), kCombRelease, "release on " + std::to_string(p));
    TB_CHECK_EQ(parse(got.flits.at(0)).flow, parse(b.out[0].back().flits.at(0)).flow)
        << "every copy made from the same arrival";
    first = std::min(first, got.first_cycle);
  }
  TB_CHECK_EQ(first - b.rx_last_cycle[0].back(), lone_root) << "first release copy";
  // The four copies are queued in the one engine cycle and, one flit long,
  // share one read of their input's cell: all four leave together.
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(b.out[p].back().first_cycle, first) << "release copy on " << p;
  }
  TB_CHECK_EQ(epoch_of(b, kRoot), 2U);
  const std::vector<std::uint32_t> c1 = packet_counters(b, kPrio);

  // The same arrivals one at a time, on entries of the same shape.
  for (unsigned p = 0; p < 3; ++p) {
    b.send(p, comb(kCombArrive, kUpSeq, 1, kPrio, 30 + p));
    co_await b.drain(30);
  }
  for (unsigned p = 0; p < kPorts; ++p) {
    b.send(p, comb(kCombArrive, kRootSeq, 1, kPrio, 40 + p));
    co_await b.drain(30);
  }
  co_await b.drain();
  const std::vector<std::uint32_t> c2 = packet_counters(b, kPrio);
  for (std::size_t k = 0; k < c0.size(); ++k) {
    TB_CHECK_EQ(c1[k] - c0[k], c2[k] - c1[k])
        << "counter kind " << k % (static_cast<unsigned>(K::kEcnMark) + 1) << " of port "
        << k / (static_cast<unsigned>(K::kEcnMark) + 1) << ": together vs one at a time";
  }
  TB_CHECK_EQ(epoch_of(b, kRootSeq), 2U);
  check_no_cell_held(b, "simultaneous arrivals");
}

// Only the right pending heads are absorbed with the engine's arrival: a
// duplicate, an arrival of another MLID and an E - 1 re-send pending in the
// same cycle each get their own decision, as one at a time.
SYNCFAB_TEST(switch_combine, partners_mixed) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr unsigned kPrio = 5;
  constexpr std::uint16_t kUp = 0xC001;     // non-root, children 0-2, parent 3
  constexpr std::uint16_t kRoot = 0xC002;   // root, children 0-3
  constexpr std::uint16_t kOther = 0xC003;  // root, child 2
  program_group(b, kUp, 0x7, false, 3, 5);
  program_group(b, kRoot, 0xF, true, 0, 8);
  program_group(b, kOther, 0x4, true, 0, 8);
  sw.enable(true);
  // Port 0 in; then, in one cycle, port 0 again (a duplicate) and ports 1
  // and 2. The engine's round robin starts at port 1 (after port 0's
  // packet): port 1 is taken with port 2 as its partner and goes up; the
  // duplicate, not a partner, comes next, finds the entry waiting for its
  // release and climbs again (absorbed with the others, it would not).
  b.send(0, comb(kCombArrive, kUp, 5, kPrio, 1));
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 0U);
  const Packet dup = comb(kCombArrive, kUp, 5, kPrio, 2);
  const std::vector<Packet> fresh{comb(kCombArrive, kUp, 5, kPrio, 3),
                                  comb(kCombArrive, kUp, 5, kPrio, 4)};
  b.send(0, dup);
  b.send(1, fresh[0]);
  b.send(2, fresh[1]);
  co_await b.drain();
  TB_CHECK_EQ(b.rx_last_cycle[0].back(), b.rx_last_cycle[1].back()) << "in the same cycle";
  TB_CHECK_EQ(b.out[3].size(), 2U) << "the arrival up and the duplicate's re-send";
  check_made(b.out[3][0], sent_by_flow(fresh, b.out[3][0]), kCombArrive, "arrival up");
  check_made(b.out[3][1], dup, kCombArrive, "duplicate climbs again");
  TB_CHECK_EQ(total_out(b), 2U);

  // Root: ports 0 and 1 arrive for epoch 8, port 2 for another MLID, port 3
  // re-sends epoch 7, all in one cycle. Ports 0 and 1 are in; port 2 gets
  // the other group's release; port 3 gets release 7 again, on its port only.
  const Packet other = comb(kCombArrive, kOther, 8, kPrio, 10);
  const Packet late = comb(kCombArrive, kRoot, 7, kPrio, 11);
  b.send(0, comb(kCombArrive, kRoot, 8, kPrio, 12));
  b.send(1, comb(kCombArrive, kRoot, 8, kPrio, 13));
  b.send(2, other);
  b.send(3, late);
  co_await b.drain();
  TB_CHECK_EQ(b.rx_last_cycle[2].back(), b.rx_last_cycle[3].back()) << "in the same cycle";
  TB_CHECK_EQ(b.out[2].size(), 1U);
  check_made(b.out[2][0], other, kCombRelease, "the other group's release");
  TB_CHECK_EQ(b.out[3].size(), 3U);
  check_made(b.out[3][2], late, kCombRelease, "release 7 re-sent");
  TB_CHECK_EQ(total_out(b), 4U);
  TB_CHECK_EQ(epoch_of(b, kRoot), 8U) << "ports 2 and 3 not in yet";
  TB_CHECK_EQ(epoch_of(b, kOther), 9U);
  b.send(2, comb(kCombArrive, kRoot, 8, kPrio, 14));
  co_await b.drain();
  TB_CHECK_EQ(total_out(b), 4U) << "port 3 still missing";
  const Packet last = comb(kCombArrive, kRoot, 8, kPrio, 15);
  b.send(3, last);
  co_await b.drain();
  for (unsigned p = 0; p < kPorts; ++p) {
    check_made(b.out[p].back(), last, kCombRelease, "release 8 on " + std::to_string(p));
  }
  TB_CHECK_EQ(total_out(b), 8U);
  TB_CHECK_EQ(epoch_of(b, kRoot), 9U);
  for (unsigned p = 0; p < kPorts; ++p) {
    TB_CHECK_EQ(b.count(p, kPrio, K::kDropNoRoute), 0U) << "port " << p;
  }
  check_no_cell_held(b, "mixed partners");
}

// A lossless priority (PFC on every port) carries a switch-combined barrier
// unchanged next to lossless DATA on the same priority and outputs, with
// random tx stalls: every release delivered once per port in epoch order,
// nothing dropped, the data in order.
SYNCFAB_TEST(switch_combine, lossless_priority) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  constexpr unsigned kPrio = 3;
  constexpr unsigned kEpochs = 6;
  sw.set_pfc_timing(drv::PfcTiming{8, 64});
  for (unsigned p = 0; p < kPorts; ++p) {
    sw.configure_pfc(p, lossless_on(kPrio, 20, 10, 100), kLink);
  }
  constexpr std::uint16_t kMlid = 0xC00B;
  program_group(b, kMlid, 0xF, true, 0, 30);
  sw.set_lft(0x12, 2);
  sw.enable(true);
  b.tx_stall = 0.3;
  unsigned data = 0;
  for (std::uint16_t e = 30; e < 30 + kEpochs; ++e) {
    for (unsigned p = 0; p < kPorts; ++p) {
      b.send(p, comb(kCombArrive, kMlid, e, kPrio, (e * 16U) + p));
      if (p != 2) {
        b.send(p, make_packet(Hdr{.len = 4, .dst = 0x12, .prio = kPrio, .flow = 5000 + data++}));
      }
    }
    co_await b.drain(200);
  }
  co_await b.drain(500);
  for (unsigned p = 0; p < kPorts; ++p) {
    std::vector<std::uint16_t> epochs;
    for (const RxPacket& rp : b.out[p]) {
      const Hdr h = parse(rp.flits.at(0));
      if (h.type == kCombRelease) {
        TB_CHECK_EQ(unsigned{h.prio}, kPrio);
        TB_CHECK_EQ(h.src, 0U);
        epochs.push_back(h.epoch);
      }
    }
    TB_CHECK_EQ(epochs.size(), kEpochs) << "port " << p;
    for (unsigned k = 0; k < epochs.size(); ++k) {
      TB_CHECK_EQ(epochs[k], 30U + k) << "releases in epoch order on port " << p;
    }
    TB_CHECK_EQ(b.count(p, kPrio, K::kDropBuf), 0U);
    TB_CHECK_EQ(b.count(p, kPrio, K::kDropNoRoute), 0U);
  }
  TB_CHECK_EQ(b.out[2].size(), kEpochs + data) << "every data packet delivered";
  TB_CHECK_EQ(epoch_of(b, kMlid), 30U + kEpochs);
  check_no_cell_held(b, "lossless");
}

namespace {

// Section 5 as the random test predicts it, one packet at a time.
struct RefEntry {
  bool valid = false;
  bool root = false;
  unsigned parent = 0;
  std::uint32_t children = 0;
  std::uint32_t mft = 0;  // 0: no MFT entry
  std::uint16_t epoch = 0;
  std::uint32_t arrived = 0;
};

struct RefOut {
  std::uint32_t mask = 0;
  bool release = false;
  bool drop = false;
};

constexpr RefOut kRefDrop{0, false, true};

std::uint32_t parent_bit(const RefEntry& x) { return x.parent < kPorts ? 1U << x.parent : 0U; }

RefOut ref_arrive(RefEntry& x, unsigned in, std::uint16_t e) {
  const std::uint32_t bit = 1U << in;
  const auto prev = static_cast<std::uint16_t>(x.epoch - 1);
  if ((x.children & bit) == 0 || (e != x.epoch && e != prev)) {
    return kRefDrop;
  }
  if (e == prev) {
    return RefOut{bit, true, false};  // the child missed release e
  }
  if ((x.arrived & bit) != 0) {  // a re-send: climbs while the entry waits
    return RefOut{x.arrived == x.children && !x.root ? parent_bit(x) : 0U, false, false};
  }
  x.arrived |= bit;
  if (x.arrived != x.children) {
    return RefOut{};
  }
  if (!x.root) {
    return RefOut{parent_bit(x), false, false};
  }
  x.epoch = static_cast<std::uint16_t>(x.epoch + 1);
  x.arrived = 0;
  return RefOut{x.children, true, false};
}

RefOut ref_release(RefEntry& x, unsigned in, std::uint16_t e) {
  const auto prev = static_cast<std::uint16_t>(x.epoch - 1);
  const bool advance = e == x.epoch && x.arrived == x.children;
  if (x.root || in != x.parent || !(advance || e == prev)) {
    return kRefDrop;
  }
  if (advance) {
    x.epoch = static_cast<std::uint16_t>(x.epoch + 1);
    x.arrived = 0;
  }
  return RefOut{x.children, true, false};
}

RefOut ref_decide(RefEntry& x, unsigned in, bool arrive, std::uint16_t e) {
  const std::uint32_t par = parent_bit(x);
  const bool consistent =
      x.valid && x.mft != 0 &&
      (x.root ? x.mft == x.children
              : par != 0 && (x.children & par) == 0 && x.mft == (x.children | par));
  if (!consistent) {
    return kRefDrop;
  }
  return arrive ? ref_arrive(x, in, e) : ref_release(x, in, e);
}

}  // namespace

// Seeded random COMB traffic, one packet at a time, on root, non-root,
// inconsistent and missing entries (epochs near the wrap), each packet's
// copies, type, epoch and DROP_NO_ROUTE checked against section 5 as
// ref_decide reads it; every entry's epoch read back at the end; no cell
// held. --param packets (default 400).
SYNCFAB_TEST(switch_combine, random_against_spec) {
  const auto n = static_cast<unsigned>(ctx.param("packets", 400));
  std::cout << "  replay: --test switch_combine.random_against_spec --seed " << ctx.seed() << "\n";
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  auto& rng = ctx.rng();
  std::uniform_int_distribution<unsigned> u16(0, 0xFFFF);
  std::array<RefEntry, 6> ref{};
  // 1: root of all ports; 2: non-root, children 0-2, parent 3; 3: non-root,
  // children 0 and 2, parent 1; 4: root of 1-2; 5: inconsistent; 6: none.
  ref[0] = RefEntry{true, true, 0, 0xF, 0xF};
  ref[1] = RefEntry{true, false, 3, 0x7, 0xF};
  ref[2] = RefEntry{true, false, 1, 0x5, 0x7};
  ref[3] = RefEntry{true, true, 0, 0x6, 0x6};
  ref[4] = RefEntry{true, true, 0, 0x3, 0x7};
  ref[5] = RefEntry{false, true, 0, 0x3, 0x3};
  for (unsigned k = 0; k < ref.size(); ++k) {
    RefEntry& x = ref.at(k);
    // Half the entries start next to the wrap.
    x.epoch = static_cast<std::uint16_t>(k % 2 == 0 ? 0xFFFE : u16(rng));
    const auto mlid = static_cast<std::uint16_t>(fmt::kMlidBase + 1 + k);
    sw.set_mft(mlid, x.mft);
    tbl_write(b, kTblChildren, 1 + k, x.children);
    tbl_write(b, kTblCtrl, 1 + k, ctrl_word(x.valid, x.root, x.parent, x.epoch));
  }
  sw.enable(true);
  std::uniform_int_distribution<unsigned> pick_entry(0, ref.size() - 1);
  std::uniform_int_distribution<unsigned> pick_port(0, kPorts - 1);
  std::uniform_int_distribution<unsigned> pick_prio(0, 7);
  std::uniform_int_distribution<int> pick_delta(-2, 3);
  std::uniform_int_distribution<unsigned> pct(0, 99);
  unsigned made = 0;
  unsigned drops = 0;
  for (unsigned k = 0; k < n; ++k) {
    const unsigned ei = pick_entry(rng);
    RefEntry& x = ref.at(ei);
    const bool arrive = pct(rng) < 75;
    // A release mostly from the parent, an arrival mostly from a child.
    unsigned in = pick_port(rng);
    if (!arrive && pct(rng) < 70) {
      in = x.parent;
    }
    while (arrive && ((x.children >> in) & 1U) == 0 && pct(rng) < 70) {
      in = pick_port(rng);
    }
    const int v = pick_delta(rng);
    const int d = v <= 0 ? v : (v == 3 ? 1 : 0);  // -2, -1, 0 (half), +1
    const auto e = static_cast<std::uint16_t>(x.epoch + d);
    const auto prio = static_cast<std::uint8_t>(pick_prio(rng));
    const auto mlid = static_cast<std::uint16_t>(fmt::kMlidBase + 1 + ei);
    const std::uint32_t drops_before = b.count(in, prio, K::kDropNoRoute);
    std::array<std::size_t, kPorts> before{};
    for (unsigned p = 0; p < kPorts; ++p) {
      before.at(p) = b.out.at(p).size();
    }
    const Packet pk = comb(arrive ? kCombArrive : kCombRelease, mlid, e, prio, k);
    const RefOut want = ref_decide(x, in, arrive, e);
    b.send(in, pk);
    co_await b.drain(30);
    const std::string what = "packet " + std::to_string(k) + " (" +
                             (arrive ? "arrive" : "release") + " mlid " + std::to_string(mlid) +
                             " in " + std::to_string(in) + " epoch " + std::to_string(e) + ")";
    for (unsigned p = 0; p < kPorts; ++p) {
      const std::size_t got = b.out.at(p).size() - before.at(p);
      const bool expect = ((want.mask >> p) & 1U) != 0;
      TB_CHECK_EQ(got, expect ? 1U : 0U) << what << ", port " << p;
      if (expect) {
        check_made(b.out.at(p).back(), pk, want.release ? kCombRelease : kCombArrive,
                   what + ", port " + std::to_string(p));
        ++made;
      }
    }
    TB_CHECK_EQ(b.count(in, prio, K::kDropNoRoute) - drops_before, want.drop ? 1U : 0U) << what;
    drops += want.drop ? 1U : 0U;
  }
  for (unsigned k = 0; k < ref.size(); ++k) {
    if (ref.at(k).valid) {
      TB_CHECK_EQ(epoch_of(b, static_cast<std::uint16_t>(fmt::kMlidBase + 1 + k)), ref.at(k).epoch)
          << "entry " << 1 + k;
    }
  }
  check_no_cell_held(b, "random");
  std::cout << "  " << n << " packets: " << made << " copies made, " << drops << " refused\n";
}

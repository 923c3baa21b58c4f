// Port groups (ECMP / LAG, docs/switch-ecmp.md) on the whole switch: the
// 4-port build of rtl/switch/CMakeLists.txt under RtlDevice, the group table
// and PORT_UP written through the registers, expected output ports worked
// out from the spec's member choice with the test's own CRC-16 below.
//
// Parameters of the verilated model: NumPorts 4, BufCells 128,
// LftEntries 64, MftEntries 16; PORT_GROUPS from the format spec.
#include <Vswitch_top.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string_view>
#include <vector>

#include "switch_top_bench.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/device.hpp"
#include "syncfab/hw/reg_field.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/regs/switch_csr.h"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::switch_top_bench;
namespace fmt = syncfab::fmt;
namespace hw = syncfab::hw;
namespace r = syncfab::hw::switch_regs;

namespace {

// Tables and entry bits of docs/switch-ecmp.md section 1.
constexpr unsigned kTableLft = 0;
constexpr unsigned kTableGroups = 6;
constexpr std::uint32_t kValid = 1U << 31;
constexpr std::uint32_t kGroup = 1U << 30;
constexpr std::uint32_t kPortUpOff = offsetof(switch_csr_t, PORT_UP);
constexpr std::uint32_t kGroupSkipsOff = offsetof(switch_csr_t, GROUP_SKIPS);
constexpr std::uint32_t kTblError = 1U << SWITCH_CSR__INTR_STATUS__TBL_ERROR_bp;

// CRC-16/CCITT-FALSE, bit by bit: polynomial 0x1021, initial 0xFFFF, no
// reflection, no final XOR.
std::uint16_t crc16(std::initializer_list<std::uint8_t> bytes) {
  std::uint16_t crc = 0xFFFF;
  for (const std::uint8_t b : bytes) {
    crc ^= static_cast<std::uint16_t>(b << 8);
    for (int k = 0; k < 8; ++k) {
      crc = (crc & 0x8000U) != 0 ? static_cast<std::uint16_t>((crc << 1) ^ 0x1021U)
                                 : static_cast<std::uint16_t>(crc << 1);
    }
  }
  return crc;
}

std::uint16_t flow_hash(std::uint16_t src, std::uint16_t dst, std::uint32_t flow) {
  auto byte = [](std::uint32_t v, unsigned sh) { return static_cast<std::uint8_t>(v >> sh); };
  return crc16({byte(src, 8), byte(src, 0), byte(dst, 8), byte(dst, 0), byte(flow & 0xF'FFFFU, 16),
                byte(flow, 8), byte(flow, 0)});
}

// The member a packet takes (section 2): -1 for a miss.
int member(std::uint32_t mask, std::uint32_t port_up, unsigned in, const Hdr& h) {
  const std::uint32_t live = mask & port_up & ~(1U << in) & ((1U << kPorts) - 1);
  const auto n = static_cast<unsigned>(std::popcount(live));
  if (n == 0) {
    return -1;
  }
  const unsigned j = (static_cast<unsigned>(flow_hash(h.src, h.dst, h.flow)) * n) >> 16;
  unsigned seen = 0;
  for (unsigned p = 0; p < kPorts; ++p) {
    if ((live >> p & 1U) != 0 && seen++ == j) {
      return static_cast<int>(p);
    }
  }
  return -1;
}

void table_write(hw::Device& dev, unsigned table, unsigned index, std::uint32_t data) {
  hw::Csr csr(dev);
  csr.write(r::TBL_ADDR, {{r::TBL_ADDR_INDEX, index}, {r::TBL_ADDR_TABLE, table}});
  csr.write(r::TBL_WDATA, data);
  csr.write(r::TBL_CMD, {{r::TBL_CMD_WRITE, 1}});
}

std::uint32_t table_read(hw::Device& dev, unsigned table, unsigned index) {
  hw::Csr csr(dev);
  csr.write(r::TBL_ADDR, {{r::TBL_ADDR_INDEX, index}, {r::TBL_ADDR_TABLE, table}});
  csr.write(r::TBL_CMD, {{r::TBL_CMD_READ, 1}});
  return csr.read(r::TBL_RDATA);
}

void set_group(Bench& b, unsigned g, std::uint32_t mask) {
  table_write(b.dev, kTableGroups, g, kValid | mask);
}
void lft_group(Bench& b, std::uint16_t lid, unsigned g) {
  table_write(b.dev, kTableLft, lid, kValid | kGroup | g);
}

// Where every packet sent went: output port per flow label (the tests give
// each packet a distinct label within a flow via epoch).
struct Seen {
  std::map<std::uint32_t, std::set<unsigned>> ports;         // flow -> outputs
  std::map<std::uint32_t, std::vector<std::uint16_t>> seqs;  // flow -> epochs in order
  std::size_t total = 0;
};
Seen collect(const Bench& b) {
  Seen s;
  for (unsigned o = 0; o < kPorts; ++o) {
    for (const RxPacket& p : b.out[o]) {
      const Hdr h = parse(p.flits[0]);
      s.ports[h.flow].insert(o);
      s.seqs[h.flow].push_back(h.epoch);
      ++s.total;
    }
  }
  return s;
}

}  // namespace

// The test's hash against the spec's check value and example (the RTL checks
// the same two values statically, rtl/switch/switch_tables.sv).
SYNCFAB_TEST(switch_groups, hash_check_values) {
  TB_CHECK_EQ(crc16({'1', '2', '3', '4', '5', '6', '7', '8', '9'}), 0x29B1U);
  TB_CHECK_EQ(flow_hash(0x0001, 0x0002, 0x00003), 0x6965U);
  TB_CHECK_EQ((0x6965U * 3U) >> 16, 1U);
  co_return;
}

// The spec's example on the switch: src 1, dst 2, flow 3 entering on port 0
// of group {1, 2, 3} takes the second live member, port 2; a GROUP 0 entry
// is unchanged; entries read back with GROUP and the group's mask.
SYNCFAB_TEST(switch_groups, spec_example) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  set_group(b, 5, 0b1110);
  lft_group(b, 0x0002, 5);
  sw.set_lft(0x0010, 3);
  TB_CHECK_EQ(table_read(b.dev, kTableLft, 0x0002), kValid | kGroup | 5U);
  TB_CHECK_EQ(table_read(b.dev, kTableGroups, 5), kValid | 0b1110U);
  TB_CHECK_EQ(table_read(b.dev, kTableGroups, 4), 0U) << "an unwritten group reads 0";
  sw.enable(true);
  const Packet p = make_packet(Hdr{.len = 2, .dst = 0x0002, .src = 0x0001, .prio = 1, .flow = 3});
  b.send(0, p);
  b.send(0, make_packet(Hdr{.len = 1, .dst = 0x0010, .src = 0x0001, .flow = 3}));
  co_await b.drain();
  TB_CHECK_EQ(b.out[2].size(), 1U) << "h = 0x6965, n = 3: j = 1, port 2";
  TB_CHECK(b.out[1].empty() && b.out[0].empty());
  if (!b.out[2].empty()) {
    check_copy(b.out[2][0], p, 1, 0, 0, "group copy");
  }
  TB_CHECK_EQ(b.out[3].size(), 1U) << "a GROUP 0 entry names its port";
  TB_CHECK_EQ(b.dev.read32(kGroupSkipsOff), 0U);
}

// Random flows into a group of three members from port 0 and of two from
// port 3 (group {0, 1, 2, 3}: the input is never a member): every packet
// leaves on the member the spec gives, every member carries some flow, a
// flow stays on one member and in order.
SYNCFAB_TEST(switch_groups, flows_spread) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  set_group(b, 0, 0b1110);
  set_group(b, 63, 0b1111);
  lft_group(b, 0x20, 0);
  lft_group(b, 0x21, 63);
  sw.enable(true);
  auto& rng = ctx.rng();
  constexpr unsigned kMinFlows = 24;
  constexpr unsigned kMaxFlows = 200;
  constexpr unsigned kPerFlow = 4;
  constexpr std::array<std::uint32_t, 2> kMask{0b1110U, 0b1111U};
  struct Flow {
    unsigned in;
    Hdr h;
  };
  // Random flows, alternately from port 0 and port 3, at least kMinFlows and
  // until the spec's choice puts some flow on every member of both groups
  // (the check below is that the switch agrees with that choice).
  std::vector<Flow> flows;
  std::array<std::uint32_t, 2> covered{};
  while (flows.size() < kMinFlows ||
         ((covered[0] != kMask[0] || covered[1] != (kMask[1] & ~(1U << 3))) &&
          flows.size() < kMaxFlows)) {
    const auto side = static_cast<unsigned>(flows.size() % 2);
    const auto f = static_cast<unsigned>(flows.size());
    Hdr h{.len = static_cast<std::uint8_t>(1 + rng() % 3),
          .dst = static_cast<std::uint16_t>(side == 0 ? 0x20 : 0x21),
          .src = static_cast<std::uint16_t>(rng() % 0x10000),
          .prio = static_cast<std::uint8_t>(rng() % 8),
          .flow = static_cast<std::uint32_t>(f << 12 | (rng() % 0x1000))};
    const unsigned in = side == 0 ? 0U : 3U;
    covered[side] |= 1U << member(kMask[side], 0xFFFF'FFFFU, in, h);
    flows.push_back(Flow{in, h});
  }
  TB_CHECK(flows.size() < kMaxFlows) << "the spec's choice never reached some member";
  const std::size_t n_flows = flows.size();
  for (unsigned k = 0; k < kPerFlow; ++k) {
    for (Flow& f : flows) {
      f.h.epoch = static_cast<std::uint16_t>(k);
      b.send(f.in, make_packet(f.h));
    }
  }
  co_await b.drain();
  const Seen s = collect(b);
  TB_CHECK_EQ(s.total, n_flows * kPerFlow);
  std::array<unsigned, kPorts> used{};
  for (const Flow& f : flows) {
    const int want = member(kMask[f.in == 0 ? 0 : 1], 0xFFFF'FFFFU, f.in, f.h);
    const auto it = s.ports.find(f.h.flow);
    TB_CHECK(it != s.ports.end()) << "flow " << f.h.flow << " never left";
    if (it == s.ports.end()) {
      continue;
    }
    TB_CHECK_EQ(it->second.size(), 1U) << "flow " << f.h.flow << " on several members";
    TB_CHECK_EQ(static_cast<int>(*it->second.begin()), want) << "flow " << f.h.flow;
    ++used.at(*it->second.begin());
    const auto& seq = s.seqs.at(f.h.flow);
    for (std::size_t k = 0; k < seq.size(); ++k) {
      TB_CHECK_EQ(seq[k], k) << "flow " << f.h.flow << " reordered";
    }
  }
  for (unsigned o = 0; o < kPorts; ++o) {
    TB_CHECK(used[o] > 0) << "no flow on member " << o;
  }
  std::cout << "switch_groups.flows_spread: flows per port " << used[0] << " " << used[1] << " "
            << used[2] << " " << used[3] << "\n";
}

// PORT_UP (sections 1 and 2): with port 2 out of service, group {1, 2, 3}
// from port 0 uses ports 1 and 3 only (n = 2), each packet counted once in
// GROUP_SKIPS; from port 2 itself the group's other members are in
// service, so nothing is skipped; a GROUP 0 entry naming port 2 still
// reaches it. CTRL.CNT_CLEAR clears GROUP_SKIPS; with port 2 back the
// choice is the three-member one again.
SYNCFAB_TEST(switch_groups, port_up_skip) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  set_group(b, 1, 0b1110);
  lft_group(b, 0x30, 1);
  sw.set_lft(0x31, 2);
  TB_CHECK_EQ(b.dev.read32(kPortUpOff), 0xFFFF'FFFFU) << "PORT_UP reset";
  b.dev.write32(kPortUpOff, ~(1U << 2));
  TB_CHECK_EQ(b.dev.read32(kPortUpOff), ~(1U << 2));
  sw.enable(true);
  auto& rng = ctx.rng();
  constexpr unsigned kN = 30;
  std::vector<Hdr> sent;
  for (unsigned k = 0; k < kN; ++k) {
    const Hdr h{.len = 2, .dst = 0x30, .src = static_cast<std::uint16_t>(rng()), .flow = k};
    sent.push_back(h);
    b.send(0, make_packet(h));
  }
  b.send(2, make_packet(Hdr{.len = 1, .dst = 0x30, .src = 7, .flow = 100}));
  b.send(1, make_packet(Hdr{.len = 1, .dst = 0x31, .src = 7, .flow = 101}));
  co_await b.drain();
  const Seen s = collect(b);
  TB_CHECK_EQ(s.total, std::size_t{kN} + 2);
  for (const Hdr& h : sent) {
    const int want = member(0b1110, ~(1U << 2), 0, h);
    TB_CHECK(want == 1 || want == 3);
    TB_CHECK(s.ports.count(h.flow) == 1 &&
             *s.ports.at(h.flow).begin() == static_cast<unsigned>(want))
        << "flow " << h.flow;
  }
  TB_CHECK(s.ports.count(100) == 1 && *s.ports.at(100).begin() != 2U);
  TB_CHECK(s.ports.count(101) == 1 && *s.ports.at(101).begin() == 2U) << "GROUP 0 ignores PORT_UP";
  TB_CHECK_EQ(b.dev.read32(kGroupSkipsOff), kN) << "one count per packet of port 0";
  sw.clear_counters();
  TB_CHECK_EQ(b.dev.read32(kGroupSkipsOff), 0U) << "CNT_CLEAR";
  b.dev.write32(kPortUpOff, 0xFFFF'FFFFU);
  for (auto& o : b.out) {
    o.clear();
  }
  for (const Hdr& h : sent) {
    b.send(0, make_packet(h));
  }
  co_await b.drain();
  const Seen s2 = collect(b);
  for (const Hdr& h : sent) {
    const int want = member(0b1110, 0xFFFF'FFFFU, 0, h);
    TB_CHECK(s2.ports.count(h.flow) == 1 &&
             *s2.ports.at(h.flow).begin() == static_cast<unsigned>(want))
        << "flow " << h.flow << " with every member up";
  }
  TB_CHECK_EQ(b.dev.read32(kGroupSkipsOff), 0U);
}

// Misses (section 2): a group with no live member (every member down;
// counted in GROUP_SKIPS), a group whose only member is the input (not a
// skip), a group not written, a group written with VALID 0, a group index
// at PORT_GROUPS: each DROP_NO_ROUTE at (input, prio); a routed packet after
// them passes. With CTRL.ENABLE 0 nothing reaches the lookup: no skip.
SYNCFAB_TEST(switch_groups, misses) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  set_group(b, 2, 0b0110);
  set_group(b, 3, 0b0001);
  table_write(b.dev, kTableGroups, 4, 0b1110);  // VALID 0
  lft_group(b, 0x28, 2);
  lft_group(b, 0x29, 3);
  lft_group(b, 0x2A, 9);
  lft_group(b, 0x2B, 4);
  lft_group(b, 0x2C, fmt::kPortGroups);
  sw.set_lft(0x2D, 3);
  TB_CHECK_EQ(table_read(b.dev, kTableGroups, 4), 0U) << "VALID 0 reads 0";
  TB_CHECK_EQ(table_read(b.dev, kTableLft, 0x2C), kValid | kGroup | fmt::kPortGroups);
  b.dev.write32(kPortUpOff, ~0b0110U);
  // Disabled: dropped before the lookup.
  b.send(0, make_packet(Hdr{.len = 1, .dst = 0x28, .prio = 2, .flow = 1}));
  co_await b.drain();
  TB_CHECK_EQ(b.count(0, 2, K::kDropDisabled), 1U);
  TB_CHECK_EQ(b.dev.read32(kGroupSkipsOff), 0U) << "disabled: no lookup, no skip";
  sw.enable(true);
  for (std::uint16_t lid = 0x28; lid <= 0x2C; ++lid) {
    b.send(0, make_packet(Hdr{.len = 2, .dst = lid, .prio = 2, .flow = lid}));
  }
  b.send(0, make_packet(Hdr{.len = 2, .dst = 0x2D, .prio = 2, .flow = 0x2D}));
  co_await b.drain();
  TB_CHECK_EQ(b.count(0, 2, K::kDropNoRoute), 5U);
  TB_CHECK_EQ(b.count(0, 2, K::kRx), 7U) << "the six and the one dropped while disabled";
  TB_CHECK_EQ(b.out[3].size(), 1U);
  TB_CHECK(b.out[0].empty() && b.out[1].empty() && b.out[2].empty());
  TB_CHECK_EQ(b.dev.read32(kGroupSkipsOff), 1U) << "only the group with members down";
  TB_CHECK_EQ(sw.interrupt_status() & kTblError, 0U);
}

// Table index past PORT_GROUPS (section 1): a write and a read raise
// INTR_STATUS.TBL_ERROR and do nothing (the last group keeps its entry,
// TBL_RDATA keeps the last good read).
SYNCFAB_TEST(switch_groups, index_past_table) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  const unsigned last = fmt::kPortGroups - 1;
  set_group(b, last, 0b1010);
  TB_CHECK_EQ(table_read(b.dev, kTableGroups, last), kValid | 0b1010U);
  TB_CHECK_EQ(sw.interrupt_status() & kTblError, 0U);
  table_write(b.dev, kTableGroups, fmt::kPortGroups, kValid | 0b0101U);
  TB_CHECK_EQ(sw.interrupt_status() & kTblError, kTblError) << "write past the table";
  sw.clear_interrupts(kTblError);
  TB_CHECK_EQ(sw.interrupt_status() & kTblError, 0U);
  TB_CHECK_EQ(table_read(b.dev, kTableGroups, fmt::kPortGroups), kValid | 0b1010U)
      << "a read past the table leaves TBL_RDATA";
  TB_CHECK_EQ(sw.interrupt_status() & kTblError, kTblError) << "read past the table";
  TB_CHECK_EQ(table_read(b.dev, kTableGroups, last), kValid | 0b1010U);
  TB_CHECK_EQ(table_read(b.dev, kTableGroups, 0), 0U) << "index wrapped onto group 0";
}

// GROUP_SKIPS counts packets of several inputs in one cycle: four inputs
// each send one-flit packets to a group with a member down, all at once.
SYNCFAB_TEST(switch_groups, skips_same_cycle) {
  Bench b(ctx);
  co_await b.reset();
  auto& sw = b.sw();
  set_group(b, 7, 0b1111);
  lft_group(b, 0x38, 7);
  b.dev.write32(kPortUpOff, ~0b0001U);
  sw.enable(true);
  constexpr unsigned kEach = 8;
  for (unsigned k = 0; k < kEach; ++k) {
    for (unsigned in = 0; in < kPorts; ++in) {
      b.send(in, make_packet(
                     Hdr{.len = 1, .dst = 0x38, .src = static_cast<std::uint16_t>(in), .flow = k}));
    }
  }
  co_await b.drain();
  // Input 0 is the member that is down: its packets skip no other member.
  TB_CHECK_EQ(b.dev.read32(kGroupSkipsOff), (kPorts - 1) * kEach);
  TB_CHECK(b.out[0].empty()) << "port 0 is down for the group";
  std::size_t total = 0;
  for (unsigned o = 0; o < kPorts; ++o) {
    total += b.out[o].size();
  }
  TB_CHECK_EQ(total, std::size_t{kPorts} * kEach);
}

// The bench of the whole-switch tests (switch_top_test.cpp,
// switch_combine_test.cpp, switch_top8_test.cpp): switch_top (Vswitch_top,
// the 4-port build of rtl/switch/CMakeLists.txt, or the 8-port one) under the
// unchanged switch driver on RtlDevice, a BFM per port, and the header
// helpers the checks use.
#pragma once

#include <Vswitch_top.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/driver/switch.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::switch_top_bench {

// The shape of the model the test links: the 4-port build (vl_switch_top),
// or with SF_SWITCH_TOP8 defined the 8-port one (vl_switch_top8).
#ifdef SF_SWITCH_TOP8
constexpr unsigned kPorts = 8;
constexpr unsigned kBufCells = 256;
constexpr unsigned kLftEntries = 1024;
constexpr unsigned kMftEntries = 256;
#else
constexpr unsigned kPorts = 4;
constexpr unsigned kBufCells = 128;
constexpr unsigned kLftEntries = 64;
constexpr unsigned kMftEntries = 16;
#endif
constexpr SimTime kPeriod = 10'000;  // 10 ns
constexpr std::uint32_t kCsrWindow = 4096;

// A flit as the stream BFM carries it: the FLIT_BITS of one beat in 32-bit
// words, byte i of the format image in bits 8*(i%4) of word i/4.
constexpr std::size_t kFlitBytes = fmt::kFlitBits / 8;
using Flit = std::array<std::uint32_t, kFlitBytes / 4>;
using FlitBytes = std::array<std::uint8_t, kFlitBytes>;
using Packet = std::vector<Flit>;
static_assert(fmt::PktHdr::kSizeBytes == kFlitBytes, "the header is one flit");
constexpr std::size_t kPfcFrameFlits = fmt::PfcFrame::kSizeBytes / kFlitBytes;

inline Flit flit_of(std::span<const std::uint8_t, kFlitBytes> b) {
  Flit f{};
  for (std::size_t i = 0; i < kFlitBytes; ++i) {
    f[i / 4] |= static_cast<std::uint32_t>(b[i]) << (8 * (i % 4));
  }
  return f;
}

inline FlitBytes bytes_of(const Flit& f) {
  FlitBytes b{};
  for (std::size_t i = 0; i < kFlitBytes; ++i) {
    b[i] = static_cast<std::uint8_t>(f[i / 4] >> (8 * (i % 4)));
  }
  return b;
}

// Header fields the tests set (pkt_hdr, rtl/spec/formats.toml).
struct Hdr {
  std::uint8_t type = static_cast<std::uint8_t>(fmt::PktType::kData);
  std::uint8_t len = 1;
  std::uint16_t dst = 0;
  std::uint16_t src = 0;
  std::uint8_t prio = 0;
  std::uint8_t ecn = 0;
  std::uint8_t dscp = 0;
  std::uint32_t flow = 0;  // flow_label: the tests' packet id
  std::uint8_t ctx = 0;
  std::uint16_t epoch = 0;
};

inline Flit hdr_flit(const Hdr& h) {
  fmt::PktHdr p;
  p.set_pkt_type(static_cast<fmt::PktType>(h.type))
      .set_len_flits(h.len)
      .set_dst_lid(h.dst)
      .set_src_lid(h.src)
      .set_prio(h.prio)
      .set_ecn(static_cast<fmt::Ecn>(h.ecn))
      .set_dscp(h.dscp)
      .set_flow_label(h.flow)
      .set_ctx(h.ctx)
      .set_epoch(h.epoch);
  return flit_of(p.bytes());
}

inline Hdr parse(const Flit& f) {
  const fmt::PktHdr p(bytes_of(f));
  return Hdr{static_cast<std::uint8_t>(p.pkt_type()),
             p.len_flits(),
             p.dst_lid(),
             p.src_lid(),
             p.prio(),
             static_cast<std::uint8_t>(p.ecn()),
             p.dscp(),
             p.flow_label(),
             p.ctx(),
             p.epoch()};
}

// A packet of `flits` flits (default: len) whose payload flits carry the id.
inline Packet make_packet(const Hdr& h, std::optional<unsigned> flits = std::nullopt) {
  Packet p{hdr_flit(h)};
  const unsigned n = flits.value_or(h.len);
  for (unsigned k = 1; k < n; ++k) {
    p.push_back(Flit{h.flow, k, 0xA5A5'0000U | k, ~h.flow});
  }
  return p;
}

// A PFC frame pausing priority `prio` for `quanta` quanta (0: resume); a
// malformed one with another len_flits on request.
inline Packet pfc_pause(unsigned prio, std::uint16_t quanta,
                        std::uint8_t len_flits = static_cast<std::uint8_t>(kPfcFrameFlits)) {
  fmt::PfcFrame fr;
  fr.set_pkt_type(fmt::PktType::kPfc)
      .set_len_flits(len_flits)
      .set_class_enable(static_cast<decltype(fr.class_enable())>(1U << prio))
      .set_quanta(prio, quanta);
  Packet out;
  for (std::size_t i = 0; i < kPfcFrameFlits; ++i) {
    FlitBytes b{};
    std::copy_n(fr.bytes().begin() + static_cast<std::ptrdiff_t>(i * kFlitBytes), kFlitBytes,
                b.begin());
    out.push_back(flit_of(b));
  }
  return out;
}

// The PFC frame a port sent, read back through the format.
inline fmt::PfcFrame pfc_of(const Packet& p) {
  fmt::PfcFrame::Bytes img{};
  for (std::size_t i = 0; i < kPfcFrameFlits; ++i) {
    const FlitBytes b = bytes_of(p.at(i));
    std::copy(b.begin(), b.end(), img.begin() + static_cast<std::ptrdiff_t>(i * kFlitBytes));
  }
  return fmt::PfcFrame(img);
}

struct TxBeat {
  Flit data;
  bool last;
  std::uint64_t cycle;
};

struct RxPacket {
  Packet flits;
  std::uint64_t first_cycle = 0;
  std::uint64_t last_cycle = 0;
  [[nodiscard]] bool pfc() const {
    return fmt::PktHdr(bytes_of(flits.at(0))).pkt_type() == fmt::PktType::kPfc;
  }
};

// Clock, reset, APB + RtlDevice + driver, and a BFM for every port's streams.
class Bench {
 public:
  explicit Bench(TestContext& c)
      : ctx(c),
        dut(c.make_dut<Vswitch_top>()),
        clk(c.sim().add_clock("clk", dut.clk_i, kPeriod)),
        apb(clk, apb_pins_of(dut, kCsrWindow)),
        memory(0x8000'0000, 4096),
        dev(
            c.sim(), clk, apb, [this] { return dut.intr_o != 0; }, memory, kCsrWindow) {}

  Task<> reset() {
    apb.idle();
    dut.rst_ni = 0;
    dut.pprot_i = 0;
    dut.rx_valid_i = 0;
    dut.tx_ready_i = (1U << kPorts) - 1;
    co_await ClockCycles(clk, 3);
    dut.rst_ni = 1;
    co_await RisingEdge(clk);
    ctx.sim().start_soon(run(), "switch bfm");
  }

  void send(unsigned port, Packet p) { rx_q[port].push_back(std::move(p)); }
  void hold_tx(unsigned port, bool hold) { tx_hold[port] = hold; }

  // Data packets received on a port's tx (PFC frames are in pfc_out).
  std::array<std::vector<RxPacket>, kPorts> out;
  std::array<std::vector<RxPacket>, kPorts> pfc_out;
  std::array<std::vector<std::uint64_t>, kPorts> rx_last_cycle;  // cycle each rx packet ended

  [[nodiscard]] bool rx_idle() const {
    for (unsigned p = 0; p < kPorts; ++p) {
      if (!rx_q[p].empty()) {
        return false;
      }
    }
    return true;
  }

  // Waits until every queued packet was taken, then `quiet` cycles more.
  Task<> drain(unsigned quiet = 300) {
    while (!rx_idle()) {
      co_await RisingEdge(clk);
    }
    co_await ClockCycles(clk, quiet);
  }

  std::uint32_t count(unsigned port, unsigned prio, fmt::SwCounter k) {
    return sw().counter(port, prio, k);
  }

  driver::Switch& sw() {
    if (!sw_) {
      sw_.emplace(dev);
    }
    return *sw_;
  }

  TestContext& ctx;
  Vswitch_top& dut;
  Clock& clk;
  ApbMaster apb;
  hw::HostMemory memory;
  driver::RtlDevice dev;
  // Probability of a cycle with tx_ready low on a port that is not held.
  double tx_stall = 0.0;
  // Probability of an idle rx cycle between flits.
  double rx_gap = 0.0;

 private:
  Task<> run() {
    std::array<std::size_t, kPorts> pos{};
    std::array<RxPacket, kPorts> cur{};
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto& rng = ctx.rng();
    for (;;) {
      // Drive this cycle's beats.
      std::uint32_t valid = 0;
      std::uint32_t last = 0;
      std::uint32_t ready = 0;
      for (unsigned p = 0; p < kPorts; ++p) {
        const bool gap = rx_gap > 0.0 && u(rng) < rx_gap;
        if (!rx_q[p].empty() && !gap) {
          const Packet& pk = rx_q[p].front();
          valid |= 1U << p;
          if (pos[p] + 1 == pk.size()) {
            last |= 1U << p;
          }
          for (unsigned w = 0; w < 4; ++w) {
            dut.rx_data_i[4 * p + w] = pk[pos[p]][w];
          }
        }
        const bool stall = tx_stall > 0.0 && u(rng) < tx_stall;
        if (!tx_hold[p] && !stall) {
          ready |= 1U << p;
        }
      }
      dut.rx_valid_i = valid;
      dut.rx_last_i = last;
      dut.tx_ready_i = ready;
      co_await ReadOnly();
      const std::uint64_t now = clk.cycles();
      std::array<bool, kPorts> took{};
      for (unsigned p = 0; p < kPorts; ++p) {
        took[p] = ((valid >> p) & 1U) && ((dut.rx_ready_o >> p) & 1U);
        if (((dut.tx_valid_o >> p) & 1U) && ((ready >> p) & 1U)) {
          Flit f{};
          for (unsigned w = 0; w < 4; ++w) {
            f[w] = dut.tx_data_o[4 * p + w];
          }
          if (cur[p].flits.empty()) {
            cur[p].first_cycle = now;
          }
          cur[p].flits.push_back(f);
          if ((dut.tx_last_o >> p) & 1U) {
            cur[p].last_cycle = now;
            (cur[p].pfc() ? pfc_out[p] : out[p]).push_back(std::move(cur[p]));
            cur[p] = RxPacket{};
          }
        }
      }
      co_await RisingEdge(clk);
      for (unsigned p = 0; p < kPorts; ++p) {
        if (!took[p]) {
          continue;
        }
        if (++pos[p] == rx_q[p].front().size()) {
          rx_q[p].pop_front();
          pos[p] = 0;
          rx_last_cycle[p].push_back(now);
        }
      }
    }
  }

  std::array<std::deque<Packet>, kPorts> rx_q;
  std::array<bool, kPorts> tx_hold{};
  std::optional<driver::Switch> sw_;
};

using K = fmt::SwCounter;

// Checks that `got` is `sent` with the header's prio/ecn/dscp replaced.
inline void check_copy(const RxPacket& got, const Packet& sent, std::uint8_t prio, std::uint8_t ecn,
                       std::uint8_t dscp, const std::string& what) {
  TB_CHECK_EQ(got.flits.size(), sent.size()) << what;
  Hdr h = parse(sent[0]);
  h.prio = prio;
  h.ecn = ecn;
  h.dscp = dscp;
  TB_CHECK(got.flits[0] == hdr_flit(h)) << what << ": header differs";
  for (std::size_t k = 1; k < sent.size(); ++k) {
    TB_CHECK(got.flits[k] == sent[k]) << what << ": payload flit " << k << " differs";
  }
}

inline driver::PfcPortConfig lossless_on(unsigned prio, std::uint16_t xoff, std::uint16_t xon,
                                         std::uint16_t quanta) {
  driver::PfcPortConfig cfg{};
  cfg[prio] = driver::PfcPriority{true, xoff, xon, quanta};
  return cfg;
}

// Link of the PFC tests: 10 cycles, packets up to 8 flits, so headroom =
// 2*10 + 2*8 + 4 = 40 cells (docs/switch-driver.md).
constexpr driver::LinkParams kLink{10, 8};

}  // namespace syncfab::tb::switch_top_bench

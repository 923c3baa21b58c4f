// One golden-model engine with host memory, set up the way the driver would
// (CQ ring, interrupts, enable), and the test playing every network peer.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/hw/host_memory.hpp>
#include <syncfab/hw/nic_regs.hpp>
#include <syncfab/model/barrier_engine.hpp>

namespace syncfab::model::test {

namespace nic = hw::nic;

inline constexpr hw::BusAddr kMemBase = 0x1000'0000;
inline constexpr hw::BusAddr kCqBase = kMemBase + 0x1000;
inline constexpr hw::BusAddr kSdqBase = kMemBase + 0x4000;
inline constexpr hw::BusAddr kFlagAddr = kMemBase + 0x100;
inline constexpr std::uint32_t kCqEntries = 8;
inline constexpr std::uint16_t kMe = 0x10;

class EngineTest : public ::testing::Test {
 public:
  explicit EngineTest(EngineConfig cfg = make_cfg()) : mem_(kMemBase, 1 << 16), eng_(cfg, mem_) {
    if (std::getenv("SYNCFAB_TRACE") != nullptr) {
      eng_.set_trace([](std::string_view s) { std::printf("%.*s\n", int(s.size()), s.data()); });
    }
    eng_.csr_write(nic::CQ_BASE_LO.offset, static_cast<std::uint32_t>(kCqBase));
    eng_.csr_write(nic::CQ_BASE_HI.offset, static_cast<std::uint32_t>(kCqBase >> 32));
    eng_.csr_write(nic::CQ_SIZE.offset, kCqEntries);
    eng_.csr_write(nic::INTR_ENABLE.offset, 0xF);
    eng_.csr_write(nic::CTRL.offset, nic::CTRL_ENABLE.put(1));
  }

  static EngineConfig make_cfg() {
    EngineConfig c;
    c.lid = kMe;
    c.num_ctx = 4;
    c.req_damq_entries = 4;
    return c;
  }

  // A descriptor by hand: rounds of (dst LIDs, src LIDs).
  static fmt::BarrierDesc desc(
      std::uint8_t ctx, std::uint16_t epoch, unsigned k,
      const std::vector<std::pair<std::vector<std::uint16_t>, std::vector<std::uint16_t>>>& rounds,
      bool cmpl_write = true) {
    fmt::BarrierDesc d;
    d.set_opcode(fmt::Opcode::kBarrier)
        .set_version(static_cast<std::uint8_t>(fmt::kDescVersion))
        .set_ctx(ctx)
        .set_epoch(epoch)
        .set_fanout_k(static_cast<std::uint8_t>(k))
        .set_num_rounds(static_cast<std::uint8_t>(rounds.size()))
        .set_flag_cq_entry(true)
        .set_flag_irq(true)
        .set_flag_cmpl_write(cmpl_write)
        .set_cmpl_addr(cmpl_write ? kFlagAddr + 8ULL * ctx : 0)
        .set_cmpl_value(cmpl_write ? 0xC0DE0000ULL + epoch : 0);
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      for (std::size_t i = 0; i < rounds[r].first.size(); ++i) {
        d.set_round_dst_lid(r, i, rounds[r].first[i]);
      }
      for (std::size_t i = 0; i < rounds[r].second.size(); ++i) {
        d.set_round_src_lid(r, i, rounds[r].second[i]);
      }
    }
    return d;
  }

 protected:
  void post(const fmt::BarrierDesc& d) {
    const auto words = driver::desc_words(d);
    for (std::size_t w = 0; w < words.size(); ++w) {
      eng_.csr_write(static_cast<std::uint32_t>(nic::kHdqWindowOffset + 4 * w), words[w]);
    }
    eng_.csr_write(nic::HDQ_POST.offset, nic::HDQ_POST_POST.put(1));
  }

  static fmt::PktHdr pkt(fmt::PktType t, std::uint16_t src, std::uint8_t ctx, std::uint16_t ep,
                         std::uint8_t round, std::uint16_t dst = kMe) {
    fmt::PktHdr p;
    p.set_pkt_type(t)
        .set_len_flits(1)
        .set_src_lid(src)
        .set_dst_lid(dst)
        .set_ctx(ctx)
        .set_epoch(ep)
        .set_round(round);
    return p;
  }
  void notify(std::uint16_t src, std::uint8_t ctx, std::uint16_t ep, std::uint8_t round) {
    eng_.receive(pkt(fmt::PktType::kNotify, src, ctx, ep, round));
  }
  void ack(std::uint16_t from, std::uint8_t ctx, std::uint16_t ep, std::uint8_t round) {
    eng_.receive(pkt(fmt::PktType::kAck, from, ctx, ep, round));
  }
  void nack(std::uint16_t from, std::uint8_t ctx, std::uint16_t ep, std::uint8_t round) {
    eng_.receive(pkt(fmt::PktType::kNack, from, ctx, ep, round));
  }

  // One cycle at the link pins: the flit offered (if any) and tx_ready; a
  // header that leaves is captured like run()'s (a payload flit is not).
  NetOut pins(std::optional<LinkFlit> rx = std::nullopt, bool tx_ready = true) {
    const NetOut o = eng_.step(NetIn{rx, tx_ready});
    if (o.tx_taken && o.tx) {
      out_.push_back(*o.tx);
    }
    return o;
  }
  // Offers the flits one per cycle at the pins; each must be taken at once.
  void offer(std::span<const LinkFlit> flits, bool tx_ready = true) {
    for (const auto& f : flits) {
      ASSERT_TRUE(pins(f, tx_ready).rx_taken) << "flit refused at cycle " << eng_.cycle() - 1;
    }
  }
  void set_pfc(std::uint32_t enable, std::uint32_t cyc_per_quantum) {
    eng_.csr_write(nic::PFC_CFG.offset, nic::PFC_CFG_ENABLE.put(enable) |
                                            nic::PFC_CFG_CYC_PER_QUANTUM.put(cyc_per_quantum));
  }

  // Steps n cycles, collecting what the engine sends.
  void run(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      eng_.step();
      while (auto p = eng_.transmit()) {
        out_.push_back(*p);
      }
    }
  }
  // Steps until pred() or the limit; false on the limit.
  bool run_until(const std::function<bool()>& pred, std::uint64_t limit = 10'000) {
    for (std::uint64_t i = 0; i < limit; ++i) {
      if (pred()) {
        return true;
      }
      run(1);
    }
    return pred();
  }

  // Sent packets of a type, removed from the capture.
  std::vector<fmt::PktHdr> take(fmt::PktType t) {
    std::vector<fmt::PktHdr> got;
    std::vector<fmt::PktHdr> rest;
    for (const auto& p : out_) {
      (p.pkt_type() == t ? got : rest).push_back(p);
    }
    out_ = rest;
    return got;
  }

  [[nodiscard]] std::uint32_t cnt(Counter c) const { return eng_.counter(c); }
  std::uint32_t reg(nic::Reg r) { return eng_.csr_read(r.offset); }

  [[nodiscard]] fmt::CqEntry cq_entry(std::uint32_t index) const {
    fmt::CqEntry::Bytes b{};
    mem_.read(kCqBase + 16ULL * index, std::as_writable_bytes(std::span(b)));
    return fmt::CqEntry(b);
  }

  hw::HostMemory mem_;
  BarrierEngine eng_;
  std::vector<fmt::PktHdr> out_;
};

}  // namespace syncfab::model::test

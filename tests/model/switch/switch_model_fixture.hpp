// Shared pieces of the whole-switch model tests: packets built from header
// fields (malformed ones included), and a fixture whose model is programmed
// only through driver::Switch, as the RTL will be.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "syncfab/driver/switch.hpp"
#include "syncfab/model/switch_model.hpp"

namespace syncfab::model::test {

struct PktSpec {
  fmt::PktType type = fmt::PktType::kData;
  unsigned len = 1;  // len_flits in the header
  int flits = -1;    // flits actually sent (-1: len)
  std::uint16_t dst = 1;
  std::uint16_t src = 0x0100;
  unsigned prio = 0;
  fmt::Ecn ecn = fmt::Ecn::kNotEct;
  unsigned dscp = 0;
  std::uint32_t flow = 0;  // also seeds the payload pattern
};

// Header flit, then payload flits whose bytes depend on the flow and the
// flit index (so a swapped or corrupted flit shows).
inline std::vector<Flit> make_packet(const PktSpec& s) {
  fmt::PktHdr h;
  h.set_pkt_type(s.type)
      .set_len_flits(static_cast<std::uint8_t>(s.len))
      .set_dst_lid(s.dst)
      .set_src_lid(s.src)
      .set_prio(static_cast<std::uint8_t>(s.prio))
      .set_ecn(s.ecn)
      .set_dscp(static_cast<std::uint8_t>(s.dscp))
      .set_flow_label(s.flow & 0xFFFFFU);
  const unsigned n = s.flits < 0 ? s.len : static_cast<unsigned>(s.flits);
  std::vector<Flit> out;
  out.push_back(h.bytes());
  for (unsigned k = 1; k < n; ++k) {
    Flit f{};
    for (unsigned b = 0; b < f.size(); ++b) {
      f[b] = static_cast<std::uint8_t>(s.flow * 131U + k * 17U + b);
    }
    out.push_back(f);
  }
  return out;
}

// A PFC frame (two flits) as an upstream peer sends it.
inline std::vector<Flit> make_pfc(std::uint8_t class_enable, std::uint16_t quanta_all) {
  fmt::PfcFrame f;
  f.set_pkt_type(fmt::PktType::kPfc).set_len_flits(kPfcFrameFlits).set_class_enable(class_enable);
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    f.set_quanta(p, (class_enable >> p & 1U) != 0 ? quanta_all : std::uint16_t{0});
  }
  std::vector<Flit> out(kPfcFrameFlits);
  std::copy_n(f.bytes().begin(), kFlitBytes, out[0].begin());
  std::copy_n(f.bytes().begin() + kFlitBytes, kFlitBytes, out[1].begin());
  return out;
}

inline SwitchModelParams small_switch(unsigned buf_cells = 256) {
  SwitchModelParams p;
  p.csr = SwitchCsrParams{4, buf_cells, 64, 16};
  return p;
}

class SwitchModelTest : public ::testing::Test {
 protected:
  explicit SwitchModelTest(const SwitchModelParams& p = small_switch()) : m(p), sw(m.csr()) {
    sw.enable(true);
    // Quanta of at least the largest packet: WDRR then grants in every
    // cycle an output is free (docs/switch-egress.md), so hand-worked cycles
    // are not shifted by credit-only cycles. Tests of WDRR set their own.
    driver::SchedConfig sc;
    sc.weight.fill(32);
    for (unsigned port = 0; port < m.ports(); ++port) {
      sw.configure_scheduler(port, sc);
    }
  }

  std::uint64_t send(unsigned port, const PktSpec& s, std::uint64_t cycle) {
    const std::vector<Flit> f = make_packet(s);
    return m.receive(port, f, cycle);
  }
  std::uint32_t cnt(unsigned port, unsigned prio, fmt::SwCounter k) {
    return sw.counter(port, prio, k);
  }
  void run_to(std::uint64_t cycle) {
    while (m.cycle() < cycle) {
      m.tick();
    }
  }
  // Lossless priority `prio` on `port` (XOFF/XON/quanta), on a short link.
  void lossless(unsigned port, unsigned prio, std::uint16_t xoff, std::uint16_t xon,
                std::uint16_t quanta, unsigned max_pkt = 16) {
    driver::PfcPortConfig c{};
    c[prio] = {true, xoff, xon, quanta};
    sw.configure_pfc(port, c, driver::LinkParams{2, max_pkt});
  }

  SwitchModel m;
  driver::Switch sw;
};

}  // namespace syncfab::model::test

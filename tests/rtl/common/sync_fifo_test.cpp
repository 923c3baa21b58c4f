// sync_fifo against ref::SyncFifo, compared every cycle, in two shapes:
//   Vsync_fifo          the default word type (T = logic [31:0]), Depth 4;
//   Vsync_fifo_typed_tb T = a 71-bit packed struct, Depth 3
//                       (sync_fifo_typed_tb.sv), which also reads one field
//                       of the head by name.
// Both run the same random test (writes, reads, synchronous clears, resets);
// the directed test walks the spec's examples on the first shape.
#include <Vsync_fifo.h>
#include <Vsync_fifo_typed_tb.h>

#include <array>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <random>

#include "ref/sync_fifo_ref.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr SimTime kPeriod = 10'000;

// A 71-bit word as the verilated top sees it: three 32-bit words, word 0 =
// bits 31:0. Struct layout (MSB first): tag[5:0], payload[63:0], last.
struct Wide {
  std::array<std::uint32_t, 3> w{};
  bool operator==(const Wide&) const = default;
  [[nodiscard]] std::uint32_t tag() const { return (w[2] >> 1) & 0x3FU; }
};
std::ostream& operator<<(std::ostream& os, const Wide& v) {
  const auto flags = os.flags();
  os << "0x" << std::hex << std::setfill('0') << std::setw(2) << v.w[2] << '_' << std::setw(8)
     << v.w[1] << '_' << std::setw(8) << v.w[0];
  os.flags(flags);
  return os;
}

// Port access of the two shapes.
struct Narrow32 {
  using Dut = Vsync_fifo;
  using Word = std::uint32_t;
  static constexpr unsigned kDepth = 4;
  static constexpr const char* kName = "sync_fifo.random";
  static Word random(std::mt19937_64& rng) {
    return std::uniform_int_distribution<std::uint32_t>()(rng);
  }
  static void put(Dut& d, const Word& v) { d.wdata_i = v; }
  static Word get(const Dut& d) { return d.rdata_o; }
  static void check_fields(const Dut& /*d*/, const Word& /*head*/) {}
};

struct Struct71 {
  using Dut = Vsync_fifo_typed_tb;
  using Word = Wide;
  static constexpr unsigned kDepth = 3;
  static constexpr const char* kName = "sync_fifo.typed_random";
  static Word random(std::mt19937_64& rng) {
    std::uniform_int_distribution<std::uint32_t> d;
    return Wide{{d(rng), d(rng), d(rng) & 0x7FU}};
  }
  static void put(Dut& d, const Word& v) {
    for (std::size_t i = 0; i < v.w.size(); ++i) {
      d.wdata_i[i] = v.w[i];
    }
  }
  static Word get(const Dut& d) {
    Wide v;
    for (std::size_t i = 0; i < v.w.size(); ++i) {
      v.w[i] = d.rdata_o[i];
    }
    return v;
  }
  static void check_fields(const Dut& d, const Word& head) {
    TB_CHECK_EQ(d.rdata_tag_o, head.tag()) << "the struct's tag field of the head";
  }
};

// Write/read/clear attempt probabilities; the test switches between them so
// the FIFO spends time full, empty and in between, and is cleared in each.
struct Mode {
  const char* name;
  double write;
  double read;
  double clear;
};
constexpr std::array<Mode, 6> kModes = {{{"fill", 0.9, 0.2, 0.01},
                                         {"drain", 0.2, 0.9, 0.01},
                                         {"balanced", 0.5, 0.5, 0.01},
                                         {"both", 0.95, 0.95, 0.01},
                                         {"sparse", 0.1, 0.1, 0.01},
                                         {"clear", 0.7, 0.3, 0.15}}};

template <class Shape>
Task<> random_run(TestContext& ctx) {
  auto& dut = ctx.make_dut<typename Shape::Dut>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 200'000);
  constexpr unsigned kDepth = Shape::kDepth;
  ref::SyncFifo<typename Shape::Word> model(kDepth);

  Corners cov(Shape::kName);
  const auto c_full = cov.require("full");
  const auto c_empty = cov.require("empty");
  const auto c_write_full = cov.require("write refused when full");
  const auto c_read_empty = cov.require("read when empty (no data)");
  const auto c_rw_mid = cov.require("read+write, neither empty nor full");
  const auto c_rw_full = cov.require("read+write when full (only read)");
  const auto c_rw_empty = cov.require("read+write when empty (only write)");
  const auto c_reset = cov.require("reset while not empty");
  const auto c_clr_full = cov.require("clear when full");
  const auto c_clr_mid = cov.require("clear with write+read offered, neither empty nor full");
  const auto c_clr_empty = cov.require("clear when empty");
  const auto c_clr_twice = cov.require("clear in two cycles in a row");
  const auto c_write_after_clr = cov.require("write in the cycle after a clear");
  const auto c_writes = cov.track("writes");
  const auto c_reads = cov.track("reads");
  const auto c_clears = cov.track("clears");

  std::bernoulli_distribution switch_mode(1.0 / 32);
  std::uniform_int_distribution<std::size_t> pick_mode(0, kModes.size() - 1);
  const Mode* mode = &kModes[0];
  RandomResets resets(cycles, rng);
  bool clr_before = false;

  dut.rst_ni = 0;
  dut.clr_i = 0;
  dut.wvalid_i = 0;
  dut.rready_i = 0;
  Shape::put(dut, typename Shape::Word{});
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;

  for (std::int64_t cycle = 0; cycle < cycles; ++cycle) {
    if (switch_mode(rng)) {
      mode = &kModes[pick_mode(rng)];
    }
    const bool in_reset = resets.step(cycle);
    if (resets.started() && !model.empty()) {
      cov.hit(c_reset);
    }
    dut.rst_ni = in_reset ? 0 : 1;
    if (in_reset) {
      model.reset();
    }
    const bool wvalid = std::bernoulli_distribution(mode->write)(rng);
    const bool rready = std::bernoulli_distribution(mode->read)(rng);
    const bool clr = std::bernoulli_distribution(mode->clear)(rng);
    const auto wdata = Shape::random(rng);
    dut.wvalid_i = wvalid;
    dut.rready_i = rready;
    dut.clr_i = clr;
    Shape::put(dut, wdata);

    co_await ReadOnly();
    TB_CHECK_EQ(dut.wready_o, model.wready(clr)) << "cycle " << cycle;
    TB_CHECK_EQ(dut.rvalid_o, model.rvalid(clr)) << "cycle " << cycle;
    TB_CHECK_EQ(dut.count_o, model.count()) << "cycle " << cycle;
    if (model.rvalid()) {
      TB_CHECK_EQ(Shape::get(dut), model.rdata()) << "cycle " << cycle;
      Shape::check_fields(dut, model.rdata());
    }

    if (!in_reset) {
      if (model.full()) {
        cov.hit(c_full);
      }
      if (model.empty()) {
        cov.hit(c_empty);
      }
      if (!clr) {
        if (wvalid && model.full()) {
          cov.hit(c_write_full);
        }
        if (rready && model.empty()) {
          cov.hit(c_read_empty);
        }
        if (wvalid && rready && !model.full() && !model.empty()) {
          cov.hit(c_rw_mid);
        }
        if (wvalid && rready && model.full()) {
          cov.hit(c_rw_full);
        }
        if (wvalid && rready && model.empty()) {
          cov.hit(c_rw_empty);
        }
        if (wvalid && clr_before) {
          cov.hit(c_write_after_clr);
        }
      } else {
        cov.hit(c_clears);
        if (model.full()) {
          cov.hit(c_clr_full);
        }
        if (model.empty()) {
          cov.hit(c_clr_empty);
        }
        if (wvalid && rready && !model.full() && !model.empty()) {
          cov.hit(c_clr_mid);
        }
        if (clr_before) {
          cov.hit(c_clr_twice);
        }
      }
    }
    co_await RisingEdge(clk);
    clr_before = !in_reset && clr;
    if (!in_reset) {
      const auto fired = model.edge(wvalid, wdata, rready, clr);
      cov.hit(c_writes, fired.write ? 1 : 0);
      cov.hit(c_reads, fired.read ? 1 : 0);
    }
  }
  std::cout << cov.report();
  cov.check();
}

}  // namespace

SYNCFAB_TEST(sync_fifo, random) { co_await random_run<Narrow32>(ctx); }

SYNCFAB_TEST(sync_fifo, typed_random) { co_await random_run<Struct71>(ctx); }

// The spec's examples, step by step: no fall-through, full refuses a write
// even with a read, read+write in the middle both happen, a clear refuses
// both handshakes in its cycle and leaves an empty FIFO that works on.
SYNCFAB_TEST(sync_fifo, directed) {
  constexpr unsigned kDepth = Narrow32::kDepth;
  auto& dut = ctx.make_dut<Vsync_fifo>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  dut.rst_ni = 0;
  dut.clr_i = 0;
  dut.wvalid_i = 0;
  dut.rready_i = 0;
  co_await ClockCycles(clk, 2);
  dut.rst_ni = 1;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.count_o, 0);
  TB_CHECK_EQ(dut.rvalid_o, 0);
  TB_CHECK_EQ(dut.wready_o, 1);

  // Write into the empty FIFO with rready high: not readable in that cycle.
  co_await RisingEdge(clk);
  dut.wvalid_i = 1;
  dut.wdata_i = 0x11;
  dut.rready_i = 1;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.rvalid_o, 0) << "no fall-through";
  co_await RisingEdge(clk);
  dut.wvalid_i = 0;
  dut.rready_i = 0;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.rvalid_o, 1);
  TB_CHECK_EQ(dut.rdata_o, 0x11U);
  TB_CHECK_EQ(dut.count_o, 1);

  // Fill to Depth.
  for (std::uint32_t v = 0x22; v <= 0x44; v += 0x11) {
    co_await RisingEdge(clk);
    dut.wvalid_i = 1;
    dut.wdata_i = v;
  }
  co_await RisingEdge(clk);
  dut.wvalid_i = 0;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.count_o, kDepth);
  TB_CHECK_EQ(dut.wready_o, 0);

  // Full: write + read in one cycle -> only the read happens.
  co_await RisingEdge(clk);
  dut.wvalid_i = 1;
  dut.wdata_i = 0x99;
  dut.rready_i = 1;
  co_await RisingEdge(clk);
  dut.wvalid_i = 0;
  dut.rready_i = 0;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.count_o, kDepth - 1) << "a full FIFO refuses the write";
  TB_CHECK_EQ(dut.rdata_o, 0x22U);

  // Middle: write + read both happen.
  co_await RisingEdge(clk);
  dut.wvalid_i = 1;
  dut.wdata_i = 0x55;
  dut.rready_i = 1;
  co_await RisingEdge(clk);
  dut.wvalid_i = 0;
  dut.rready_i = 0;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.count_o, kDepth - 1);
  TB_CHECK_EQ(dut.rdata_o, 0x33U);

  // Drain: 0x33 0x44 0x55, then empty.
  for (std::uint32_t want : {0x33U, 0x44U, 0x55U}) {
    co_await RisingEdge(clk);
    dut.rready_i = 1;
    co_await ReadOnly();
    TB_CHECK_EQ(dut.rdata_o, want);
  }
  co_await RisingEdge(clk);
  dut.rready_i = 0;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.count_o, 0);
  TB_CHECK_EQ(dut.rvalid_o, 0);

  // Clear: two words in, then a clear with a write and a read offered. In
  // the clear cycle neither handshake is offered and the count still shows
  // two; after it the FIFO is empty, and the next write is the next head.
  for (std::uint32_t v : {0x66U, 0x77U}) {
    co_await RisingEdge(clk);
    dut.wvalid_i = 1;
    dut.wdata_i = v;
  }
  co_await RisingEdge(clk);
  dut.wvalid_i = 1;
  dut.wdata_i = 0x88;
  dut.rready_i = 1;
  dut.clr_i = 1;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.wready_o, 0) << "no write in the clear cycle";
  TB_CHECK_EQ(dut.rvalid_o, 0) << "no read in the clear cycle";
  TB_CHECK_EQ(dut.count_o, 2);
  co_await RisingEdge(clk);
  dut.clr_i = 0;
  dut.wdata_i = 0x99;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.count_o, 0) << "empty after the clear";
  TB_CHECK_EQ(dut.rvalid_o, 0);
  TB_CHECK_EQ(dut.wready_o, 1);
  co_await RisingEdge(clk);
  dut.wvalid_i = 0;
  co_await ReadOnly();
  TB_CHECK_EQ(dut.count_o, 1);
  TB_CHECK_EQ(dut.rdata_o, 0x99U) << "the first write after the clear is the head";
  co_await RisingEdge(clk);
  co_await ReadOnly();
  TB_CHECK_EQ(dut.count_o, 0);
}

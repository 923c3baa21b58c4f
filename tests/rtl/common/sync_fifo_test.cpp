// sync_fifo (Width=32, Depth=4) against ref::SyncFifo, compared every cycle.
#include <Vsync_fifo.h>

#include <array>
#include <iostream>
#include <random>

#include "ref/sync_fifo_ref.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr unsigned kDepth = 4;
constexpr SimTime kPeriod = 10'000;

// Write/read attempt probabilities; the test switches between them so the
// FIFO spends time full, empty and in between.
struct Mode {
  const char* name;
  double write;
  double read;
};
constexpr std::array<Mode, 5> kModes = {{{"fill", 0.9, 0.2},
                                         {"drain", 0.2, 0.9},
                                         {"balanced", 0.5, 0.5},
                                         {"both", 0.95, 0.95},
                                         {"sparse", 0.1, 0.1}}};

}  // namespace

SYNCFAB_TEST(sync_fifo, random) {
  auto& dut = ctx.make_dut<Vsync_fifo>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  auto& rng = ctx.rng();
  const auto cycles = ctx.param("cycles", 200'000);
  ref::SyncFifo model(kDepth);

  Corners cov("sync_fifo.random");
  const auto c_full = cov.require("full");
  const auto c_empty = cov.require("empty");
  const auto c_write_full = cov.require("write refused when full");
  const auto c_read_empty = cov.require("read when empty (no data)");
  const auto c_rw_mid = cov.require("read+write, neither empty nor full");
  const auto c_rw_full = cov.require("read+write when full (only read)");
  const auto c_rw_empty = cov.require("read+write when empty (only write)");
  const auto c_reset = cov.require("reset while not empty");
  const auto c_writes = cov.track("writes");
  const auto c_reads = cov.track("reads");

  std::uniform_int_distribution<std::uint32_t> data;
  std::bernoulli_distribution switch_mode(1.0 / 32);
  std::uniform_int_distribution<std::size_t> pick_mode(0, kModes.size() - 1);
  const Mode* mode = &kModes[0];
  RandomResets resets(cycles, rng);

  dut.rst_ni = 0;
  dut.wvalid_i = 0;
  dut.rready_i = 0;
  dut.wdata_i = 0;
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
    const std::uint32_t wdata = data(rng);
    dut.wvalid_i = wvalid;
    dut.rready_i = rready;
    dut.wdata_i = wdata;

    co_await ReadOnly();
    TB_CHECK_EQ(dut.wready_o, model.wready()) << "cycle " << cycle;
    TB_CHECK_EQ(dut.rvalid_o, model.rvalid()) << "cycle " << cycle;
    TB_CHECK_EQ(dut.count_o, model.count()) << "cycle " << cycle;
    if (model.rvalid()) {
      TB_CHECK_EQ(dut.rdata_o, model.rdata()) << "cycle " << cycle;
    }

    if (!in_reset) {
      if (model.full()) {
        cov.hit(c_full);
      }
      if (model.empty()) {
        cov.hit(c_empty);
      }
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
    }
    co_await RisingEdge(clk);
    if (!in_reset) {
      const auto fired = model.edge(wvalid, wdata, rready);
      cov.hit(c_writes, fired.write ? 1 : 0);
      cov.hit(c_reads, fired.read ? 1 : 0);
    }
  }
  std::cout << cov.report();
  cov.check();
}

// The spec's examples, step by step: no fall-through, full refuses a write
// even with a read, read+write in the middle both happen.
SYNCFAB_TEST(sync_fifo, directed) {
  auto& dut = ctx.make_dut<Vsync_fifo>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  dut.rst_ni = 0;
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
}

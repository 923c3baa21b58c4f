// apb_checker (AddrW=12, DataW=32, MaxWait=2) with both sides of the bus
// driven from here, one cycle at a time.
//
//   apb_checker.legal     random legal traffic (reads and writes, 0..MaxWait
//                         wait states, errors, back-to-back transfers, idle
//                         gaps, resets): no rule may fire.
//   apb_checker.bad_<r>   one violation of rule a_apb_<r>, then a few idle
//                         cycles; the test fails, and ctest
//                         (test_apb_checker.bad_<r>) passes only if the
//                         failure names that rule. These are the checker's
//                         mutation tests: each rule is shown to fire.
// The X/Z rules (a_apb_*_known) cannot be broken in a two-state simulator.
#include <Vapb_checker.h>

#include <array>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

namespace {

constexpr SimTime kPeriod = 10'000;
constexpr unsigned kMaxWait = 2;

// The pins as both sides drive them in one cycle.
struct Pins {
  bool psel = false;
  bool penable = false;
  bool pwrite = false;
  std::uint32_t pprot = 0;
  std::uint32_t paddr = 0;
  std::uint32_t pwdata = 0;
  std::uint32_t pstrb = 0;
  std::uint32_t prdata = 0;
  bool pready = false;
  bool pslverr = false;
};

class Bus {
 public:
  Bus(Vapb_checker& dut, Clock& clk) : dut_(&dut), clk_(&clk) {}

  // Drives `p` for one cycle: set after an edge, held to the next one.
  Task<> cycle(const Pins& p) {
    dut_->psel_i = p.psel;
    dut_->penable_i = p.penable;
    dut_->pwrite_i = p.pwrite;
    dut_->pprot_i = p.pprot;
    dut_->paddr_i = p.paddr;
    dut_->pwdata_i = p.pwdata;
    dut_->pstrb_i = p.pstrb;
    dut_->prdata_i = p.prdata;
    dut_->pready_i = p.pready;
    dut_->pslverr_i = p.pslverr;
    co_await RisingEdge(*clk_);
  }

  Task<> idle(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      co_await cycle(Pins{});
    }
  }

  Task<> reset() {
    dut_->rst_ni = 0;
    co_await idle(2);
    dut_->rst_ni = 1;
  }

 private:
  Vapb_checker* dut_;
  Clock* clk_;
};

// A legal transfer: setup, `waits` wait states, the completing cycle.
Task<> transfer(Bus& bus, bool write, std::uint32_t addr, std::uint32_t data, std::uint32_t strb,
                unsigned waits, bool err, std::uint32_t prot = 0) {
  Pins p;
  p.psel = true;
  p.pwrite = write;
  p.pprot = prot;
  p.paddr = addr;
  p.pwdata = write ? data : 0;
  p.pstrb = write ? strb : 0;
  co_await bus.cycle(p);  // setup
  p.penable = true;
  for (unsigned w = 0; w < waits; ++w) {
    co_await bus.cycle(p);  // wait state
  }
  p.pready = true;
  p.pslverr = err;
  p.prdata = write ? 0 : data ^ 0x5A5A5A5AU;
  co_await bus.cycle(p);  // completes
}

Bus make_bus(TestContext& ctx) {
  auto& dut = ctx.make_dut<Vapb_checker>();
  return {dut, ctx.sim().add_clock("clk", dut.clk_i, kPeriod)};
}

}  // namespace

SYNCFAB_TEST(apb_checker, legal) {
  Bus bus = make_bus(ctx);
  co_await bus.reset();
  auto& rng = ctx.rng();
  const auto transfers = ctx.param("transfers", 20'000);

  Corners cov("apb_checker.legal");
  const auto c_read = cov.require("read");
  const auto c_write = cov.require("write");
  const auto c_err = cov.require("completed with PSLVERR");
  const auto c_b2b = cov.require("setup right after a completion");
  std::array<Corners::Id, kMaxWait + 1> c_waits{};
  for (unsigned w = 0; w <= kMaxWait; ++w) {
    c_waits[w] = cov.require(std::to_string(w) + " wait state(s)");
  }
  const auto c_reset = cov.require("reset between transfers");
  const auto c_reset_mid = cov.require("reset in a transfer's setup or wait state");

  std::uniform_int_distribution<std::uint32_t> word;
  std::uniform_int_distribution<unsigned> waits(0, kMaxWait);
  std::uniform_int_distribution<unsigned> gap(0, 3);
  std::bernoulli_distribution coin(0.5);
  std::bernoulli_distribution err(0.1);
  std::bernoulli_distribution reset(0.002);
  for (std::int64_t t = 0; t < transfers; ++t) {
    if (reset(rng)) {
      co_await bus.reset();
      cov.hit(c_reset);
    }
    if (reset(rng)) {
      // A transfer cut short by a reset is no violation.
      Pins p;
      p.psel = true;
      p.paddr = 0x20;
      co_await bus.cycle(p);
      if (coin(rng)) {
        p.penable = true;
        co_await bus.cycle(p);
      }
      co_await bus.reset();
      cov.hit(c_reset_mid);
    }
    const unsigned g = gap(rng);
    co_await bus.idle(g);
    if (g == 0 && t > 0) {
      cov.hit(c_b2b);
    }
    const bool write = coin(rng);
    const unsigned w = waits(rng);
    const bool e = err(rng);
    co_await transfer(bus, write, word(rng) & 0xFFCU, word(rng), word(rng) & 0xFU, w, e,
                      word(rng) & 7U);
    cov.hit(write ? c_write : c_read);
    cov.hit(c_waits[w]);
    if (e) {
      cov.hit(c_err);
    }
  }
  co_await bus.idle(2);
  std::cout << cov.report();
  cov.check();
}

namespace {

constexpr std::uint32_t kAddr = 0x10;

// The cycles of a violation. A function, not a braced list in the test: GCC
// 12 rejects an initializer list's array inside a coroutine.
template <class... P>
std::vector<Pins> seq(const P&... cycles) {
  return {cycles...};
}

// One violation: reset, the cycles as listed (a legal read first where the
// rule needs a completed transfer before it), then idle cycles for the rule
// to report. By value: the coroutine outlives its caller's temporaries.
Task<> violate(TestContext& ctx, std::vector<Pins> cycles, bool read_first = false) {
  Bus bus = make_bus(ctx);
  co_await bus.reset();
  if (read_first) {
    co_await transfer(bus, false, kAddr, 0, 0, 0, false);
  }
  for (const Pins& p : cycles) {
    co_await bus.cycle(p);
  }
  co_await bus.idle(3);
}

}  // namespace

SYNCFAB_TEST(apb_checker, bad_penable_needs_psel) {
  co_await violate(ctx, seq(Pins{.penable = true}));
}

// Setup, then the requester gives up.
SYNCFAB_TEST(apb_checker, bad_setup_then_access) {
  co_await violate(ctx, seq(Pins{.psel = true, .paddr = kAddr}));
}

// A wait state, then the requester leaves.
SYNCFAB_TEST(apb_checker, bad_access_held_until_ready) {
  co_await violate(ctx, seq(Pins{.psel = true, .paddr = kAddr},
                            Pins{.psel = true, .penable = true, .paddr = kAddr}));
}

// An access phase without its setup cycle.
SYNCFAB_TEST(apb_checker, bad_access_after_setup) {
  co_await violate(ctx, seq(Pins{.psel = true, .penable = true, .pready = true}));
}

// The address moves between setup and access.
SYNCFAB_TEST(apb_checker, bad_ctrl_stable) {
  co_await violate(ctx,
                   seq(Pins{.psel = true, .paddr = kAddr},
                       Pins{.psel = true, .penable = true, .paddr = kAddr + 4, .pready = true}));
}

// The write data moves during a wait state.
SYNCFAB_TEST(apb_checker, bad_wdata_stable) {
  const Pins setup{.psel = true, .pwrite = true, .paddr = kAddr, .pwdata = 0x1234, .pstrb = 0xF};
  Pins wait = setup;
  wait.penable = true;
  Pins done = wait;
  done.pwdata = 0x4321;
  done.pready = true;
  co_await violate(ctx, seq(setup, wait, done));
}

// Strobes on a read.
SYNCFAB_TEST(apb_checker, bad_no_strb_on_read) {
  co_await violate(
      ctx,
      seq(Pins{.psel = true, .paddr = kAddr, .pstrb = 0x3},
          Pins{.psel = true, .penable = true, .paddr = kAddr, .pstrb = 0x3, .pready = true}),
      /*read_first=*/true);
}

// The completer answers an idle bus.
SYNCFAB_TEST(apb_checker, bad_ready_in_access) { co_await violate(ctx, seq(Pins{.pready = true})); }

// An error in a wait state, not with PREADY.
SYNCFAB_TEST(apb_checker, bad_err_with_ready) {
  co_await violate(ctx, seq(Pins{.psel = true, .paddr = kAddr},
                            Pins{.psel = true, .penable = true, .paddr = kAddr, .pslverr = true},
                            Pins{.psel = true, .penable = true, .paddr = kAddr, .pready = true}));
}

// One wait state too many.
SYNCFAB_TEST(apb_checker, bad_wait_bounded) {
  Bus bus = make_bus(ctx);
  co_await bus.reset();
  co_await transfer(bus, true, kAddr, 0x1, 0xF, kMaxWait + 1, false);
  co_await bus.idle(3);
}

// Checks, scoreboard, stream drivers/monitor and the APB requester against
// plain C++ models.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "fake_models.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb {
namespace {

using test::FakeApb;
using test::FakeFifo;

std::string failure_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const TestFailure& e) {
    return e.what();
  }
  return "<no failure>";
}

TEST(Check, MessagesNameTheExpressionAndValues) {
  const std::uint8_t byte = 200;
  const std::size_t big = 201;
  auto m = failure_of([&] { TB_CHECK_EQ(byte, big) << "at op " << 7; });
  EXPECT_NE(m.find("TB_CHECK_EQ(byte, big) failed: 200 (0xc8) != 201 (0xc9): at op 7"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("components_test.cpp:"), std::string::npos) << m;

  m = failure_of([&] { TB_CHECK(byte == 3, "byte is ", int{byte}); });
  EXPECT_NE(m.find("TB_CHECK(byte == 3) failed: byte is 200"), std::string::npos) << m;

  m = failure_of([&] { TB_CHECK(false) << "streamed " << 1 << "+" << 2; });
  EXPECT_NE(m.find("failed: streamed 1+2"), std::string::npos) << m;

  const std::uint8_t pin = 1;
  m = failure_of([&] { TB_CHECK_EQ(pin, false); });
  EXPECT_NE(m.find("failed: 1 != 0"), std::string::npos) << m;

  m = failure_of([&] { TB_CHECK_NE(4, 4); });
  EXPECT_NE(m.find("both are 4"), std::string::npos) << m;

  // Signed/unsigned comparisons compare values, not bit patterns.
  m = failure_of([&] { TB_CHECK_EQ(-1, 0xFFFFFFFFU); });
  EXPECT_NE(m.find("failed"), std::string::npos) << m;

  EXPECT_EQ(failure_of([&] {
              TB_CHECK(true) << "not evaluated";
              TB_CHECK_EQ(byte, 200);
              TB_CHECK_NE(byte, 201U);
            }),
            "<no failure>");
  int evaluated = 0;
  EXPECT_EQ(failure_of([&] { TB_CHECK(true) << ++evaluated; }), "<no failure>");
  EXPECT_EQ(evaluated, 0);
}

TEST(Scoreboard, MatchesInOrderAndReportsMismatches) {
  Scoreboard<std::uint32_t> sb("fifo");
  for (std::uint32_t i = 0; i < 6; ++i) {
    sb.expect(i * 10);
  }
  for (std::uint32_t i = 0; i < 5; ++i) {
    sb.observe(i * 10);
  }
  EXPECT_EQ(sb.matched(), 5U);
  EXPECT_EQ(sb.pending(), 1U);
  const auto m = failure_of([&] { sb.observe(99); });
  EXPECT_NE(m.find("scoreboard 'fifo': mismatch at item #5"), std::string::npos) << m;
  EXPECT_NE(m.find("expected 50 (0x32)"), std::string::npos) << m;
  EXPECT_NE(m.find("observed 99 (0x63)"), std::string::npos) << m;
  EXPECT_NE(m.find("#4 40"), std::string::npos) << m;  // context: the last matches
  EXPECT_NE(failure_of([&] { sb.check_drained(); }).find("1 expected item(s) never observed"),
            std::string::npos);
}

TEST(Scoreboard, UnexpectedItemAndCustomPrinter) {
  struct Pkt {
    int a;
    int b;
    bool operator==(const Pkt&) const = default;
  };
  Scoreboard<Pkt> sb("pkts", [](const Pkt& p) {
    return "{a=" + std::to_string(p.a) + " b=" + std::to_string(p.b) + "}";
  });
  const auto m = failure_of([&] { sb.observe(Pkt{1, 2}); });
  EXPECT_NE(m.find("unexpected item #0: {a=1 b=2}"), std::string::npos) << m;
  sb.expect(Pkt{3, 4});
  sb.observe(Pkt{3, 4});
  sb.check_drained();
}

TEST(Corners, ReportAndRequiredCorners) {
  Corners cov("unit");
  const auto full = cov.require("full", 2);
  const auto info = cov.track("writes");
  cov.require("never");
  cov.hit(full);
  cov.hit(info, 5);
  EXPECT_EQ(cov.count("writes"), 5U);
  auto m = failure_of([&] { cov.check(); });
  EXPECT_NE(m.find("unit: required corner(s) never reached: full, never"), std::string::npos) << m;
  cov.hit("full");
  cov.hit("never");
  EXPECT_EQ(failure_of([&] { cov.check(); }), "<no failure>");
  const auto r = cov.report();
  EXPECT_NE(r.find("full"), std::string::npos) << r;
  EXPECT_NE(r.find("ok"), std::string::npos) << r;
  EXPECT_EQ(r.find("MISSED"), std::string::npos) << r;
}

struct FifoBench {
  Sim sim;
  FakeFifo f;
  Clock* clk = nullptr;
  std::mt19937_64 rng{7};
  FifoBench() {
    clk = &sim.add_clock("clk", f.clk, 10'000);
    sim.add_eval([this] { f.eval(); });
  }
  StreamSourcePins<std::uint32_t> source_pins() {
    return {[this](bool v) { f.in_valid = v; }, [this](const std::uint32_t& d) { f.in_data = d; },
            [this] { return f.in_ready != 0; }};
  }
  StreamSinkPins<std::uint32_t> sink_pins() {
    return {[this] { return f.out_valid != 0; }, [this] { return f.out_data; },
            [this](bool r) { f.out_ready = r; }};
  }
  StreamMonitorPins<std::uint32_t> in_monitor_pins() {
    return {[this] { return f.in_valid != 0; }, [this] { return f.in_ready != 0; },
            [this] { return f.in_data; }};
  }
};

TEST(Stream, SourceSinkMonitorUnderGapsAndBackpressure) {
  FifoBench b;
  StreamSource<std::uint32_t> src(*b.clk, b.source_pins(), b.rng, 0.3, "src");
  StreamSink<std::uint32_t> sink(*b.clk, b.sink_pins(), b.rng, 0.5, "sink");
  StreamMonitor<std::uint32_t> mon(*b.clk, b.in_monitor_pins(), "in");
  Scoreboard<std::uint32_t> sb("loopback");
  std::uint64_t seen_by_monitor = 0;
  mon.on_beat([&](const std::uint32_t& v) {
    sb.expect(v);
    ++seen_by_monitor;
  });
  sink.on_beat([&](const std::uint32_t& v) { sb.observe(v); });
  sink.keep_beats(false);
  constexpr std::uint32_t kBeats = 2000;
  b.sim.run([&]() -> Task<> {
    b.sim.start_soon(src.run(), "src");
    b.sim.start_soon(sink.run(), "sink");
    b.sim.start_soon(mon.run(), "mon");
    for (std::uint32_t i = 0; i < kBeats; ++i) {
      src.push(0x1000 + i);
    }
    co_await with_timeout(src.idle(), 100'000, Unit::ns);
    co_await ClockCycles(*b.clk, 20);
  }());
  EXPECT_EQ(src.sent(), kBeats);
  EXPECT_EQ(seen_by_monitor, kBeats);
  EXPECT_EQ(sink.received(), kBeats);
  EXPECT_EQ(sb.matched(), kBeats);
  EXPECT_GT(mon.stalls(), 100U);  // backpressure really happened
  sb.check_drained();
}

TEST(Stream, SinkNextReturnsBeatsInOrder) {
  FifoBench b;
  StreamSource<std::uint32_t> src(*b.clk, b.source_pins(), b.rng);
  StreamSink<std::uint32_t> sink(*b.clk, b.sink_pins(), b.rng, 0.2);
  b.sim.run([&]() -> Task<> {
    b.sim.start_soon(src.run());
    b.sim.start_soon(sink.run());
    co_await src.send(5);
    src.push(6);
    src.push(7);
    EXPECT_EQ(co_await sink.next(), 5U);
    EXPECT_EQ(co_await sink.next(), 6U);
    EXPECT_EQ(co_await sink.next(), 7U);
  }());
}

Task<> bad_source(FakeFifo& f, Clock& clk) {
  // Raises valid while the FIFO is full, then drops it before acceptance.
  f.out_ready = 0;
  for (int i = 0; i < 3; ++i) {
    f.in_valid = 1;
    f.in_data = static_cast<std::uint32_t>(i);
    co_await RisingEdge(clk);
  }
  f.in_valid = 0;
  co_await ClockCycles(clk, 3);
}

TEST(Stream, MonitorCatchesValidDroppedBeforeReady) {
  FifoBench b;
  StreamMonitor<std::uint32_t> mon(*b.clk, b.in_monitor_pins(), "in");
  const auto m = failure_of([&] {
    b.sim.run([&]() -> Task<> {
      b.sim.start_soon(mon.run(), "monitor");
      co_await bad_source(b.f, *b.clk);
    }());
  });
  EXPECT_NE(m.find("in: valid dropped"), std::string::npos) << m;
}

TEST(Stream, ProbabilityOutOfRangeIsRejected) {
  FifoBench b;
  EXPECT_THROW(StreamSource<std::uint32_t>(*b.clk, b.source_pins(), b.rng, 1.5),
               std::invalid_argument);
}

struct ApbBench {
  Sim sim;
  FakeApb a;
  Clock* clk = nullptr;
  ApbBench() {
    clk = &sim.add_clock("pclk", a.clk, 10'000);
    sim.add_eval([this] { a.eval(); });
  }
  ApbPins pins() {
    return {[this](bool v) { a.psel = v; },
            [this](bool v) { a.penable = v; },
            [this](bool v) { a.pwrite = v; },
            [this](std::uint32_t v) { a.paddr = v; },
            [this](std::uint32_t v) { a.pwdata = v; },
            [this](std::uint8_t v) { a.pstrb = v; },
            [this] { return a.prdata; },
            [this] { return a.pready != 0; },
            [this] { return a.pslverr != 0; }};
  }
};

TEST(Apb, WriteReadStrobesErrorsAndWaitStates) {
  for (std::uint32_t ws : {0U, 3U}) {
    ApbBench b;
    b.a.wait_states = ws;
    ApbMaster apb(*b.clk, b.pins());
    b.sim.run([&]() -> Task<> {
      apb.idle();
      co_await RisingEdge(*b.clk);
      const SimTime t0 = b.sim.now();
      auto w = co_await apb.write(0x4, 0xA5A5A5A5);
      EXPECT_FALSE(w.error);
      // setup + access (+ wait states) cycles
      EXPECT_EQ(b.sim.now() - t0, (2 + ws) * 10'000ULL);
      auto r = co_await apb.read(0x4);
      EXPECT_FALSE(r.error);
      EXPECT_EQ(r.data, 0xA5A5A5A5U);
      co_await apb.write(0x4, 0x11223344, 0b0101);
      r = co_await apb.read(0x4);
      EXPECT_EQ(r.data, 0xA522A544U);
      auto e = co_await apb.read(0x40);
      EXPECT_TRUE(e.error);
      e = co_await apb.write(0x40, 1);
      EXPECT_TRUE(e.error);
    }());
    EXPECT_EQ(b.a.protocol_errors, 0U);
    EXPECT_EQ(apb.accesses(), 6U);
  }
}

Task<> apb_writer(ApbMaster& apb, std::uint32_t addr, std::uint32_t data) {
  co_await apb.write(addr, data);
}

TEST(Apb, ConcurrentCallersAreSerialised) {
  ApbBench b;
  ApbMaster apb(*b.clk, b.pins());
  b.sim.run([&]() -> Task<> {
    apb.idle();
    auto h1 = b.sim.start_soon(apb_writer(apb, 0x0, 1));
    auto h2 = b.sim.start_soon(apb_writer(apb, 0x8, 2));
    auto h3 = b.sim.start_soon(apb_writer(apb, 0xC, 3));
    co_await h1;
    co_await h2;
    co_await h3;
  }());
  EXPECT_EQ(b.a.regs[0x0], 1U);
  EXPECT_EQ(b.a.regs[0x8], 2U);
  EXPECT_EQ(b.a.regs[0xC], 3U);
  EXPECT_EQ(b.a.protocol_errors, 0U);
}

TEST(Apb, StuckCompleterFailsWithTheAddress) {
  ApbBench b;
  b.a.wait_states = 1'000'000;
  ApbMaster apb(*b.clk, b.pins(), 50);
  const auto m = failure_of([&] {
    b.sim.run([&]() -> Task<> {
      apb.idle();
      co_await apb.read(0x8);
    }());
  });
  EXPECT_NE(m.find("APB read to 0x00000008: PREADY stayed low for 50 cycles"), std::string::npos)
      << m;
}

}  // namespace
}  // namespace syncfab::tb

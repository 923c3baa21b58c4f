// The scheduler against a plain C++ model: ordering, time, tasks, errors.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "fake_models.hpp"
#include "syncfab/tb/tb.hpp"

namespace syncfab::tb {
namespace {

using test::FakeFlop;

constexpr SimTime kPeriod = 10'000;  // 10 ns

struct Bench {
  Sim sim;
  FakeFlop m;
  Clock* clk = nullptr;
  Bench() {
    clk = &sim.add_clock("clk", m.clk, kPeriod);
    sim.add_eval([this] { m.eval(); });
  }
};

TEST(Sim, RisingEdgeTimesAndFlopUpdate) {
  Bench b;
  std::vector<SimTime> times;
  std::vector<std::uint32_t> qs;
  b.sim.run([&]() -> Task<> {
    b.m.d = 7;
    for (int i = 0; i < 3; ++i) {
      co_await RisingEdge(*b.clk);
      times.push_back(b.sim.now());
      qs.push_back(b.m.q);
      b.m.d = 100 + i;  // seen at the next edge, not this one
    }
  }());
  EXPECT_EQ(times, (std::vector<SimTime>{5'000, 15'000, 25'000}));
  EXPECT_EQ(qs, (std::vector<std::uint32_t>{7, 100, 101}));
  EXPECT_EQ(b.clk->cycles(), 3U);
}

TEST(Sim, FallingEdgeAndPinLevels) {
  Bench b;
  std::vector<std::pair<SimTime, int>> seen;
  b.sim.run([&]() -> Task<> {
    co_await FallingEdge(*b.clk);
    seen.emplace_back(b.sim.now(), b.m.clk);
    co_await RisingEdge(*b.clk);
    seen.emplace_back(b.sim.now(), b.m.clk);
    co_await FallingEdge(*b.clk);
    seen.emplace_back(b.sim.now(), b.m.clk);
  }());
  EXPECT_EQ(seen, (std::vector<std::pair<SimTime, int>>{{10'000, 0}, {15'000, 1}, {20'000, 0}}));
}

TEST(Sim, ClockCyclesCountsRisingEdges) {
  Bench b;
  b.sim.run([&]() -> Task<> {
    co_await RisingEdge(*b.clk);
    const auto c0 = b.clk->cycles();
    const auto t0 = b.sim.now();
    co_await ClockCycles(*b.clk, 5);
    EXPECT_EQ(b.clk->cycles() - c0, 5U);
    EXPECT_EQ(b.sim.now() - t0, 5 * kPeriod);
    co_await ClockCycles(*b.clk, 0);  // does not suspend
    EXPECT_EQ(b.sim.now() - t0, 5 * kPeriod);
    co_await ClockCycles(*b.clk, 2, false);  // falling edges
    EXPECT_EQ(b.sim.now() - t0, 5 * kPeriod + kPeriod / 2 + kPeriod);
    EXPECT_EQ(b.m.clk, 0);
  }());
}

TEST(Sim, TimerUnits) {
  Sim sim;
  std::vector<SimTime> t;
  sim.run([&]() -> Task<> {
    co_await Timer(7, Unit::ns);
    t.push_back(sim.now());
    co_await Timer(3);
    t.push_back(sim.now());
    co_await Timer(2, Unit::us);
    t.push_back(sim.now());
  }());
  EXPECT_EQ(t, (std::vector<SimTime>{7'000, 7'003, 2'007'003}));
  EXPECT_THROW(Timer(0), std::invalid_argument);
}

TEST(Sim, ReadOnlySeesSettledValues) {
  Bench b;
  b.sim.run([&]() -> Task<> {
    co_await RisingEdge(*b.clk);
    b.m.d = 21;
    EXPECT_EQ(b.m.d_times_2, 0U);  // not evaluated yet
    co_await ReadOnly();
    EXPECT_EQ(b.m.d_times_2, 42U);
    EXPECT_TRUE(b.sim.in_readonly());
    EXPECT_EQ(b.sim.now(), 5'000U);  // same time step
    co_await RisingEdge(*b.clk);
    EXPECT_EQ(b.m.q, 21U);
    EXPECT_EQ(b.m.q_plus_1, 22U);
  }());
}

TEST(Sim, ReadOnlyTwiceInOneStepIsRejected) {
  Bench b;
  EXPECT_THROW(b.sim.run([&]() -> Task<> {
    co_await ReadOnly();
    co_await ReadOnly();
  }()),
               std::logic_error);
}

Task<> record_edges(Clock& clk, std::vector<int>& order, int id, int n) {
  for (int i = 0; i < n; ++i) {
    co_await RisingEdge(clk);
    order.push_back(id);
  }
}

TEST(Sim, EdgeWaitersResumeInFifoOrder) {
  Bench b;
  std::vector<int> order;
  b.sim.run([&]() -> Task<> {
    auto t1 = b.sim.start_soon(record_edges(*b.clk, order, 1, 2));
    auto t2 = b.sim.start_soon(record_edges(*b.clk, order, 2, 2));
    auto t3 = b.sim.start_soon(record_edges(*b.clk, order, 3, 2));
    co_await t1;
    co_await t2;
    co_await t3;
  }());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 1, 2, 3}));
}

Task<> after_timer(std::vector<std::string>& log, SimTime t, std::string tag) {
  co_await Timer(t);
  log.push_back(tag);
}
Task<> after_edge(Clock& clk, std::vector<std::string>& log, std::string tag) {
  co_await RisingEdge(clk);
  log.push_back(tag);
}

TEST(Sim, TimersAndEdgesAtTheSameTimeAreFifo) {
  Bench b;
  std::vector<std::string> log;
  b.sim.run([&]() -> Task<> {
    auto a = b.sim.start_soon(after_timer(log, 5'000, "timer1"));
    auto e = b.sim.start_soon(after_edge(*b.clk, log, "edge"));
    auto c = b.sim.start_soon(after_timer(log, 5'000, "timer2"));
    co_await a;
    co_await e;
    co_await c;
  }());
  EXPECT_EQ(log, (std::vector<std::string>{"timer1", "edge", "timer2"}));
}

TEST(Sim, TwoClocksWithDifferentPeriods) {
  Sim sim;
  FakeFlop fast;
  FakeFlop slow;
  auto& cf = sim.add_clock("fast", fast.clk, 6'000);
  auto& cs = sim.add_clock("slow", slow.clk, 10'000);
  sim.add_eval([&] {
    fast.eval();
    slow.eval();
  });
  sim.run([&]() -> Task<> { co_await Timer(60'000); }());
  // fast rises at 3, 9, ..., 57 ns; slow at 5, 15, ..., 55 ns.
  EXPECT_EQ(cf.cycles(), 10U);
  EXPECT_EQ(cs.cycles(), 6U);
  EXPECT_EQ(fast.edges, 10U);
  EXPECT_EQ(slow.edges, 6U);

  // At 15 ns both clocks rise in one step, and both pins are high when the
  // waiters run.
  Sim sim2;
  FakeFlop a;
  FakeFlop c;
  auto& ca = sim2.add_clock("a", a.clk, 6'000);
  auto& cc = sim2.add_clock("c", c.clk, 10'000);
  sim2.add_eval([&] {
    a.eval();
    c.eval();
  });
  sim2.run([&]() -> Task<> {
    co_await Timer(14'000);
    co_await RisingEdge(cc);
    EXPECT_EQ(sim2.now(), 15'000U);
    EXPECT_EQ(a.clk, 1);
    EXPECT_EQ(c.clk, 1);
    EXPECT_EQ(ca.cycles(), 3U);
  }());
}

TEST(Sim, ClockPeriodMustBeEven) {
  Sim sim;
  std::uint8_t pin = 0;
  EXPECT_THROW(sim.add_clock("odd", pin, 3), std::invalid_argument);
  EXPECT_THROW(sim.add_clock("zero", pin, 0), std::invalid_argument);
}

TEST(Sim, ClockPhaseShiftsFirstEdge) {
  Sim sim;
  std::uint8_t pin = 0;
  auto& c = sim.add_clock("c", pin, 10'000, 2'000);
  sim.run([&]() -> Task<> {
    co_await RisingEdge(c);
    EXPECT_EQ(sim.now(), 7'000U);
  }());
}

Task<int> add_one(int x) { co_return x + 1; }
Task<int> chain(int depth) {
  if (depth == 0) {
    co_return 0;
  }
  co_return co_await add_one(co_await chain(depth - 1));
}
Task<std::unique_ptr<std::string>> make_owned(std::string s) {
  co_return std::make_unique<std::string>(std::move(s));
}

TEST(Task, ValuesAndDeepChains) {
  Sim sim;
  EXPECT_EQ(sim.run(add_one(41)), 42);
  EXPECT_EQ(sim.run(chain(2'000)), 2'000);
  auto p = sim.run(make_owned("moved"));
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, "moved");
}

Task<int> throws_after(Clock& clk, int cycles) {
  co_await ClockCycles(clk, cycles);
  throw std::runtime_error("boom after " + std::to_string(cycles));
}
Task<int> middle(Clock& clk) {
  const int v = co_await throws_after(clk, 2);
  co_return v + 1;
}

TEST(Task, ExceptionsPropagateToTheAwaiterAndToRun) {
  Bench b;
  bool caught = false;
  b.sim.run([&]() -> Task<> {
    try {
      co_await middle(*b.clk);
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "boom after 2";
    }
  }());
  EXPECT_TRUE(caught);
  EXPECT_THROW(b.sim.run(middle(*b.clk)), std::runtime_error);
}

Task<> set_after(Clock& clk, Event& ev, int cycles) {
  co_await ClockCycles(clk, cycles);
  ev.set();
}
Task<> wait_and_log(Event& ev, std::vector<std::string>& log, std::string tag, Sim& sim) {
  co_await ev.wait();
  log.push_back(tag + "@" + std::to_string(sim.now()));
}

TEST(Event, SetWakesAllWaitersInTheSameStep) {
  Bench b;
  Event ev("go");
  std::vector<std::string> log;
  b.sim.run([&]() -> Task<> {
    auto w1 = b.sim.start_soon(wait_and_log(ev, log, "w1", b.sim));
    auto w2 = b.sim.start_soon(wait_and_log(ev, log, "w2", b.sim));
    b.sim.start_soon(set_after(*b.clk, ev, 3));
    co_await w1;
    co_await w2;
    EXPECT_TRUE(ev.is_set());
    co_await ev.wait();  // already set: no suspension
    EXPECT_EQ(b.sim.now(), 25'000U);
    ev.clear();
    EXPECT_FALSE(ev.is_set());
  }());
  EXPECT_EQ(log, (std::vector<std::string>{"w1@25000", "w2@25000"}));
}

struct Flag {
  bool* destroyed;
  explicit Flag(bool* d) : destroyed(d) {}
  Flag(const Flag&) = delete;
  Flag& operator=(const Flag&) = delete;
  Flag(Flag&&) = delete;
  Flag& operator=(Flag&&) = delete;
  ~Flag() { *destroyed = true; }
};

Task<> count_forever(Clock& clk, int& n, bool& destroyed) {
  Flag f(&destroyed);
  for (;;) {
    co_await RisingEdge(clk);
    ++n;
  }
}

Task<int> value_later(Clock& clk, int v) {
  co_await ClockCycles(clk, 4);
  co_return v;
}
Task<> store(Task<int> t, int& out) { out = co_await std::move(t); }

TEST(TaskHandle, JoinAndCancel) {
  Bench b;
  b.sim.run([&]() -> Task<> {
    int out = 0;
    auto h = b.sim.start_soon(store(value_later(*b.clk, 9), out), "storer");
    EXPECT_FALSE(h.done());
    EXPECT_EQ(h.name(), "storer");
    co_await h;
    EXPECT_TRUE(h.done());
    EXPECT_FALSE(h.cancelled());
    EXPECT_EQ(out, 9);

    int n = 0;
    bool destroyed = false;
    auto c = b.sim.start_soon(count_forever(*b.clk, n, destroyed), "counter");
    co_await ClockCycles(*b.clk, 5);
    c.cancel();
    EXPECT_TRUE(c.done());
    EXPECT_TRUE(c.cancelled());
    EXPECT_TRUE(destroyed);  // RAII inside the cancelled task ran
    const int at_cancel = n;
    EXPECT_GE(at_cancel, 4);
    co_await ClockCycles(*b.clk, 5);
    EXPECT_EQ(n, at_cancel);
    co_await c;  // joining a cancelled task returns
    c.cancel();  // cancelling twice is a no-op
  }());
}

Task<> join_other(TaskHandle& h, bool& resumed) {
  co_await h;
  resumed = true;
}

TEST(TaskHandle, CancelResumesJoiners) {
  Bench b;
  b.sim.run([&]() -> Task<> {
    int n = 0;
    bool destroyed = false;
    bool resumed = false;
    auto c = b.sim.start_soon(count_forever(*b.clk, n, destroyed));
    auto j = b.sim.start_soon(join_other(c, resumed));
    co_await ClockCycles(*b.clk, 2);
    EXPECT_FALSE(resumed);
    c.cancel();
    co_await j;
    EXPECT_TRUE(resumed);
  }());
}

Task<> cancel_me(TaskHandle& self, bool& threw) {
  try {
    self.cancel();
  } catch (const std::logic_error&) {
    threw = true;
  }
  co_return;
}

TEST(TaskHandle, ATaskCannotCancelItself) {
  Bench b;
  bool threw = false;
  b.sim.run([&]() -> Task<> {
    TaskHandle self;
    self = b.sim.start_soon(cancel_me(self, threw));
    co_await self;
  }());
  EXPECT_TRUE(threw);
}

TEST(TaskHandle, JoinRethrowsTheTaskException) {
  Bench b;
  std::string what;
  b.sim.run([&]() -> Task<> {
    auto h = b.sim.start_soon([](Clock& c) -> Task<> { co_await throws_after(c, 1); }(*b.clk));
    try {
      co_await h;
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
  }());
  EXPECT_EQ(what, "boom after 1");
}

TEST(Sim, UnjoinedBackgroundFailureFailsTheRun) {
  Bench b;
  try {
    b.sim.run([&]() -> Task<> {
      b.sim.start_soon([](Clock& c) -> Task<> { co_await throws_after(c, 3); }(*b.clk), "bg");
      co_await ClockCycles(*b.clk, 100);
    }());
    FAIL() << "run() returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "boom after 3");
    EXPECT_EQ(b.sim.failed_task(), "bg");
    EXPECT_EQ(b.sim.now(), 25'000U);  // failed at once, not at the end
  }
}

TEST(Timeout, ExpiryThrowsAndCancelsTheTask) {
  Bench b;
  int n = 0;
  bool destroyed = false;
  b.sim.run([&]() -> Task<> {
    co_await RisingEdge(*b.clk);
    const SimTime t0 = b.sim.now();
    bool timed_out = false;
    try {
      co_await with_timeout(count_forever(*b.clk, n, destroyed), 100, Unit::ns, "counter");
    } catch (const TimeoutError& e) {
      timed_out = true;
      EXPECT_NE(std::string(e.what()).find("counter timed out after 100000 ps"), std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(timed_out);
    EXPECT_EQ(b.sim.now() - t0, 100'000U);
    EXPECT_TRUE(destroyed);
    const int at = n;
    co_await ClockCycles(*b.clk, 3);
    EXPECT_EQ(n, at);  // really stopped
  }());
}

TEST(Timeout, ValueAndExceptionPassThrough) {
  Bench b;
  b.sim.run([&]() -> Task<> {
    const int v = co_await with_timeout(value_later(*b.clk, 5), 1'000'000);
    EXPECT_EQ(v, 5);
    bool caught = false;
    try {
      co_await with_timeout(throws_after(*b.clk, 1), 1'000'000);
    } catch (const std::runtime_error&) {
      caught = true;
    }
    EXPECT_TRUE(caught);
    // The timer of a finished with_timeout does not keep the sim busy.
    co_await ClockCycles(*b.clk, 1);
  }());
}

TEST(Timeout, NestedTimeoutsCancelTheirChildren) {
  Bench b;
  int n = 0;
  bool destroyed = false;
  b.sim.run([&]() -> Task<> {
    bool timed_out = false;
    try {
      co_await with_timeout(
          [](Clock& c, int& n2, bool& d) -> Task<> {
            co_await with_timeout(count_forever(c, n2, d), 1'000'000'000);
          }(*b.clk, n, destroyed),
          50'000);
    } catch (const TimeoutError&) {
      timed_out = true;
    }
    EXPECT_TRUE(timed_out);
    EXPECT_TRUE(destroyed);
  }());
  // The inner 1 ms timer was cancelled with its task: a deadlock is found at
  // once instead of after the stale timer.
  const SimTime t = b.sim.now();
  Event never("never");
  EXPECT_THROW(b.sim.run([&]() -> Task<> { co_await never.wait(); }()), DeadlockError);
  EXPECT_EQ(b.sim.now(), t);
}

TEST(Sim, DeadlockIsReported) {
  Bench b;
  Event never("never-set");
  try {
    b.sim.run(
        [&]() -> Task<> {
          co_await ClockCycles(*b.clk, 2);
          co_await never.wait();
        }(),
        "stuck-main");
    FAIL() << "run() returned";
  } catch (const DeadlockError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("deadlock at 15000 ps"), std::string::npos) << w;
    EXPECT_NE(w.find("'stuck-main' waits on event 'never-set'"), std::string::npos) << w;
  }
}

TEST(Sim, DeadlockOnJoinIsReported) {
  Sim sim;
  Event never("nobody");
  try {
    sim.run([&]() -> Task<> {
      auto h = sim.start_soon([](Event& e) -> Task<> { co_await e.wait(); }(never), "child");
      co_await h;
    }());
    FAIL() << "run() returned";
  } catch (const DeadlockError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("'main' waits on task 'child'"), std::string::npos) << w;
    EXPECT_NE(w.find("'child' waits on event 'nobody'"), std::string::npos) << w;
  }
}

// Synchronous code that drives the simulation, like a driver's read32().
std::uint32_t sync_read_q(Sim& sim, Clock& clk, FakeFlop& m, std::uint32_t d) {
  return sim.run([](Clock& c, FakeFlop& f, std::uint32_t v) -> Task<std::uint32_t> {
    f.d = v;
    co_await RisingEdge(c);
    co_return f.q;
  }(clk, m, d));
}

TEST(Sim, RunIsReentrantAndTimeContinues) {
  Bench b;
  EXPECT_EQ(sync_read_q(b.sim, *b.clk, b.m, 11), 11U);
  const SimTime t1 = b.sim.now();
  EXPECT_EQ(sync_read_q(b.sim, *b.clk, b.m, 12), 12U);
  EXPECT_EQ(b.sim.now(), t1 + kPeriod);
  // Background tasks keep running across run() calls.
  int n = 0;
  bool destroyed = false;
  b.sim.run([&]() -> Task<> {
    b.sim.start_soon(count_forever(*b.clk, n, destroyed));
    co_return;
  }());
  b.sim.run([&]() -> Task<> { co_await ClockCycles(*b.clk, 4); }());
  EXPECT_EQ(n, 4);
  // Nested: a task calls synchronous code that calls run() again; the
  // background counter keeps counting meanwhile.
  b.sim.run([&]() -> Task<> {
    co_await RisingEdge(*b.clk);
    const int before = n;
    const auto q = sync_read_q(b.sim, *b.clk, b.m, 33);
    EXPECT_EQ(q, 33U);
    EXPECT_EQ(n, before + 1);
    co_await RisingEdge(*b.clk);
    EXPECT_EQ(n, before + 2);
  }());
}

TEST(Sim, TriggersOutsideRunAreRejected) { EXPECT_THROW(Sim::current(), std::logic_error); }

Task<> take_lock(Lock& lock, Clock& clk, std::vector<int>& log, int id) {
  co_await lock.acquire();
  LockGuard g(lock);
  log.push_back(id);
  co_await ClockCycles(clk, 2);
  log.push_back(-id);
}

TEST(Lock, MutualExclusionInArrivalOrder) {
  Bench b;
  Lock lock;
  std::vector<int> log;
  b.sim.run([&]() -> Task<> {
    auto a = b.sim.start_soon(take_lock(lock, *b.clk, log, 1));
    auto c = b.sim.start_soon(take_lock(lock, *b.clk, log, 2));
    auto d = b.sim.start_soon(take_lock(lock, *b.clk, log, 3));
    co_await a;
    co_await c;
    co_await d;
    EXPECT_FALSE(lock.locked());
  }());
  EXPECT_EQ(log, (std::vector<int>{1, -1, 2, -2, 3, -3}));
}

TEST(Sim, EvalRunsOnlyWhenNeeded) {
  Bench b;
  b.sim.run([&]() -> Task<> { co_await ClockCycles(*b.clk, 1); }());
  const auto evals0 = b.m.evals;
  b.sim.run([&]() -> Task<> { co_await ClockCycles(*b.clk, 10); }());
  // Per cycle: one eval per edge, plus one settle eval after the task ran
  // at each rising edge... the task only runs at its last edge here.
  EXPECT_LE(b.m.evals - evals0, 2U * 10 + 2);
}

}  // namespace
}  // namespace syncfab::tb

namespace syncfab::tb {
namespace {

// A body that ends on the same edge a background task wakes on: run() lets
// the background task run in that step (the caller sees a settled step);
// run_body() does not, because the body's locals are already gone.
int background_runs_after_body(bool as_body) {
  Bench b;
  int after = 0;
  bool body_done = false;
  auto body = [&]() -> Task<> {
    co_await RisingEdge(*b.clk);  // registers first: resumed first on the edge
    body_done = true;
  };
  auto background = [&]() -> Task<> {
    co_await RisingEdge(*b.clk);
    after += body_done ? 1 : 0;
  };
  auto main = [&]() -> Task<> {
    b.sim.start_soon(background(), "background");
    co_await body();
  };
  if (as_body) {
    b.sim.run_body(main());
  } else {
    b.sim.run(main());
  }
  b.sim.cancel_all();
  return after;
}

TEST(Sim, RunBodyStopsWhenTheBodyEnds) {
  EXPECT_EQ(background_runs_after_body(false), 1);
  EXPECT_EQ(background_runs_after_body(true), 0);
}

}  // namespace
}  // namespace syncfab::tb

// Sim: the scheduler. It owns the clocks, the model eval callbacks and every
// running task, and advances time in picoseconds. The order of work inside one
// time step is the contract documented in tb/README.md ("Time step").
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "syncfab/tb/task.hpp"

namespace syncfab::tb {

using SimTime = std::uint64_t;  // picoseconds

enum class Unit { ps, ns, us, ms };

constexpr SimTime to_ps(std::uint64_t n, Unit unit) {
  switch (unit) {
    case Unit::ps:
      return n;
    case Unit::ns:
      return n * 1'000;
    case Unit::us:
      return n * 1'000'000;
    case Unit::ms:
      return n * 1'000'000'000;
  }
  return n;
}

// "12345 ps" — one spelling everywhere, so log lines can be grepped.
std::string format_time(SimTime ps);

// Nothing can ever wake the task that run() waits for.
class DeadlockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Sim;
class Clock;

namespace detail {

struct Proc;
using ProcPtr = std::shared_ptr<Proc>;

// One suspended coroutine waiting on one trigger. `proc` keeps the owning
// task's record alive so a cancelled task's stale entries can be recognised.
struct Waiter {
  std::coroutine_handle<> h;
  ProcPtr proc;
  std::uint64_t seq = 0;        // registration order: FIFO within a time step
  std::uint64_t remaining = 1;  // ClockCycles: edges still to wait for
};

enum class WaitKind : std::uint8_t { none, time, event, join, lock };

// A task started by Sim::start_soon or Sim::run.
struct Proc {
  Sim* sim = nullptr;
  std::string name;
  Task<> root;  // owns the whole chain of frames of this task
  bool done = false;
  bool cancelled = false;
  bool is_main = false;  // its exception goes to run()'s caller
  std::exception_ptr exception;
  std::vector<Waiter> joiners;
  WaitKind waiting = WaitKind::none;
  std::string waiting_on;  // for the deadlock report
};

}  // namespace detail

// Handle to a task started with start_soon. Awaiting it waits for the task to
// finish and rethrows the task's exception; awaiting a cancelled task returns.
class TaskHandle {
 public:
  TaskHandle() = default;
  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(p_); }
  [[nodiscard]] bool done() const noexcept { return !p_ || p_->done; }
  [[nodiscard]] bool cancelled() const noexcept { return p_ && p_->cancelled; }
  [[nodiscard]] const std::string& name() const;
  // Stops the task now; its frames are destroyed (RAII cleanup runs) and its
  // joiners resume. A no-op on a finished task. A task cannot cancel itself.
  void cancel();

  struct Awaiter {
    detail::ProcPtr p;
    [[nodiscard]] bool await_ready() const noexcept { return !p || p->done; }
    void await_suspend(std::coroutine_handle<> h);
    void await_resume() const {
      if (p && p->exception) {
        std::rethrow_exception(p->exception);
      }
    }
  };
  Awaiter operator co_await() const noexcept { return Awaiter{p_}; }

 private:
  friend class Sim;
  explicit TaskHandle(detail::ProcPtr p) : p_(std::move(p)) {}
  detail::ProcPtr p_;
};

class Clock {
 public:
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;
  Clock(Clock&&) = delete;
  Clock& operator=(Clock&&) = delete;
  ~Clock() = default;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] SimTime period() const noexcept { return period_; }
  // Rising edges so far.
  [[nodiscard]] std::uint64_t cycles() const noexcept { return rises_; }
  [[nodiscard]] Sim& sim() const noexcept { return *sim_; }

 private:
  friend class Sim;
  Clock(Sim& sim, std::string name, std::uint8_t& pin, SimTime period, SimTime first_rise)
      : sim_(&sim), name_(std::move(name)), pin_(&pin), period_(period), next_edge_(first_rise) {}

  Sim* sim_;
  std::string name_;
  std::uint8_t* pin_;
  SimTime period_;
  SimTime next_edge_;
  bool next_rising_ = true;
  std::uint64_t rises_ = 0;
  std::vector<detail::Waiter> rising_;
  std::vector<detail::Waiter> falling_;
};

class Sim {
 public:
  Sim();
  ~Sim();
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;
  Sim(Sim&&) = delete;
  Sim& operator=(Sim&&) = delete;

  // A clock drives `pin` (a verilated CData). The pin is 0 now; the first
  // rising edge is at now + phase + period/2, then every period. The period
  // must be even and non-zero.
  Clock& add_clock(std::string name, std::uint8_t& pin, SimTime period_ps, SimTime phase_ps = 0);
  // Called, in order of registration, whenever inputs may have changed.
  void add_eval(std::function<void()> eval);
  // Called once at the end of every time step (tracing).
  void on_step_end(std::function<void(SimTime)> hook);

  // Schedules `task` to start in the current time step, after the running
  // task suspends. An exception that escapes a task nobody awaits fails the
  // current run() with that exception.
  TaskHandle start_soon(Task<> task, std::string name = "task");

  // Runs the scheduler until `task` finishes (and the tasks already queued
  // for that same phase have run); returns its value or rethrows its
  // exception. Time continues across calls, and run() may be called from
  // inside a running task (synchronous driver code): the caller's task stays
  // blocked on the native stack while everything else keeps being scheduled.
  template <class T>
  T run(Task<T> task, const std::string& name = "main");

  // Runs a test body: like run(), except that nothing else runs once the
  // task has finished. The body's locals died with it (a coroutine destroys
  // them before it completes), and tasks still queued in that step may refer
  // to them (a bench object's monitor); the caller cancels them with
  // cancel_all() instead of letting them touch freed memory.
  void run_body(Task<> task, const std::string& name = "main");

  // Cancels every task (end of test). The clocks and time stay.
  void cancel_all();

  [[nodiscard]] SimTime now() const noexcept { return now_; }
  // Rising edges of the clock that has had the most (the simulated cycles of
  // a test with one clock).
  [[nodiscard]] std::uint64_t cycles() const noexcept;
  // True while ReadOnly waiters run: inputs must not be written.
  [[nodiscard]] bool in_readonly() const noexcept { return phase_ == Phase::read_only; }
  // Name of the background task whose exception failed the last run().
  [[nodiscard]] const std::string& failed_task() const noexcept { return failed_task_; }
  // The simulator whose run() is executing on this thread.
  static Sim& current();

  // --- used by the triggers; not for tests ---
  void wait_edge(Clock& clk, bool rising, std::coroutine_handle<> h, std::uint64_t count);
  void wait_timer(SimTime delay, std::coroutine_handle<> h);
  void wait_readonly(std::coroutine_handle<> h);
  detail::Waiter make_waiter(std::coroutine_handle<> h, detail::WaitKind kind,
                             std::string_view what = {});
  void make_ready(detail::Waiter w);
  void cancel(const detail::ProcPtr& p);

 private:
  enum class Phase : std::uint8_t { active, read_only, between };
  struct TimerEntry {
    SimTime at;
    detail::Waiter w;
  };

  detail::ProcPtr spawn(Task<> task, std::string name, bool is_main);
  Task<> proc_body(detail::Proc* p, Task<> task);
  void finish(detail::Proc& p);
  void run_main(Task<> task, const std::string& name, bool drain = true);
  void step();
  void advance();
  void eval();
  void resume(detail::Waiter& w);
  void check_deadlock() const;
  void purge(const detail::Proc* p);
  std::uint64_t next_seq() noexcept { return seq_++; }

  SimTime now_ = 0;
  Phase phase_ = Phase::active;
  bool dirty_ = true;
  std::uint64_t seq_ = 0;
  std::vector<std::unique_ptr<Clock>> clocks_;
  std::vector<std::function<void()>> evals_;
  std::vector<std::function<void(SimTime)>> step_end_;
  std::deque<detail::Waiter> ready_;
  std::vector<detail::Waiter> readonly_;
  std::vector<TimerEntry> timers_;  // min-heap on (at, seq)
  std::vector<detail::Waiter> firing_;
  std::vector<Clock*> toggled_;
  std::vector<detail::ProcPtr> procs_;        // live tasks
  std::vector<const detail::Proc*> running_;  // tasks on the native stack
  detail::ProcPtr current_;
  std::exception_ptr failure_;
  std::string failed_task_;
};

// --- triggers -------------------------------------------------------------

// Resumes just after the clock's next rising edge, once the flops updated.
class RisingEdge {
 public:
  explicit RisingEdge(Clock& clk) noexcept : clk_(&clk) {}
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const { clk_->sim().wait_edge(*clk_, true, h, 1); }
  void await_resume() const noexcept {}

 private:
  Clock* clk_;
};

class FallingEdge {
 public:
  explicit FallingEdge(Clock& clk) noexcept : clk_(&clk) {}
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const { clk_->sim().wait_edge(*clk_, false, h, 1); }
  void await_resume() const noexcept {}

 private:
  Clock* clk_;
};

// Resumes after `n` rising edges (falling ones with rising = false). n = 0
// does not suspend.
class ClockCycles {
 public:
  ClockCycles(Clock& clk, std::uint64_t n, bool rising = true) noexcept
      : clk_(&clk), n_(n), rising_(rising) {}
  [[nodiscard]] bool await_ready() const noexcept { return n_ == 0; }
  void await_suspend(std::coroutine_handle<> h) const {
    clk_->sim().wait_edge(*clk_, rising_, h, n_);
  }
  void await_resume() const noexcept {}

 private:
  Clock* clk_;
  std::uint64_t n_;
  bool rising_;
};

// Resumes `n` units of time later (at the end of that instant's edges).
class Timer {
 public:
  explicit Timer(std::uint64_t n, Unit unit = Unit::ps);
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const { Sim::current().wait_timer(ps_, h); }
  void await_resume() const noexcept {}

 private:
  SimTime ps_;
};

// Resumes at the end of the current time step, when every value has settled.
// Sample there; do not write inputs until the next edge or timer.
class ReadOnly {
 public:
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const { Sim::current().wait_readonly(h); }
  void await_resume() const noexcept {}
};

// --- run ------------------------------------------------------------------

namespace detail {
template <class T>
Task<> capture_into(Task<T> task, std::optional<T>* out) {
  out->emplace(co_await std::move(task));
}
}  // namespace detail

template <class T>
T Sim::run(Task<T> task, const std::string& name) {
  if constexpr (std::is_void_v<T>) {
    run_main(std::move(task), name);
  } else {
    std::optional<T> out;
    run_main(detail::capture_into(std::move(task), &out), name);
    return std::move(*out);
  }
}

}  // namespace syncfab::tb

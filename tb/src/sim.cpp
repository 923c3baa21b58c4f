#include "syncfab/tb/sim.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace syncfab::tb {

namespace {
thread_local Sim* t_current = nullptr;

bool timer_later(const auto& a, const auto& b) {
  return a.at != b.at ? a.at > b.at : a.w.seq > b.w.seq;
}

// Restores the thread's current simulator when a (possibly nested) run ends.
class CurrentSimScope {
 public:
  explicit CurrentSimScope(Sim* s) : prev_(std::exchange(t_current, s)) {}
  ~CurrentSimScope() { t_current = prev_; }
  CurrentSimScope(const CurrentSimScope&) = delete;
  CurrentSimScope& operator=(const CurrentSimScope&) = delete;
  CurrentSimScope(CurrentSimScope&&) = delete;
  CurrentSimScope& operator=(CurrentSimScope&&) = delete;

 private:
  Sim* prev_;
};
}  // namespace

std::string format_time(SimTime ps) { return std::to_string(ps) + " ps"; }

Timer::Timer(std::uint64_t n, Unit unit) : ps_(to_ps(n, unit)) {
  if (ps_ == 0) {
    throw std::invalid_argument("Timer of zero time: await ReadOnly() or an edge");
  }
}

const std::string& TaskHandle::name() const {
  static const std::string kNone = "<no task>";
  return p_ ? p_->name : kNone;
}

void TaskHandle::cancel() {
  if (p_ && !p_->done) {
    p_->sim->cancel(p_);
  }
}

void TaskHandle::Awaiter::await_suspend(std::coroutine_handle<> h) {
  p->joiners.push_back(p->sim->make_waiter(h, detail::WaitKind::join, p->name));
}

Sim::Sim() = default;

Sim::~Sim() {
  try {
    cancel_all();
  } catch (const std::exception& e) {
    // Only a Sim destroyed from inside one of its own running tasks gets here.
    std::fprintf(stderr, "syncfab::tb::Sim destroyed while running: %s\n", e.what());
    std::abort();
  }
}

void Sim::cancel_all() {
  // Newest first: a child started by with_timeout goes before its parent.
  while (!procs_.empty()) {
    const auto p = procs_.back();
    cancel(p);
  }
  ready_.clear();
}

Sim& Sim::current() {
  if (t_current == nullptr) {
    throw std::logic_error("no simulation is running: await triggers only inside Sim::run");
  }
  return *t_current;
}

Clock& Sim::add_clock(std::string name, std::uint8_t& pin, SimTime period_ps, SimTime phase_ps) {
  if (period_ps == 0 || period_ps % 2 != 0) {
    throw std::invalid_argument("clock '" + name + "': period " + format_time(period_ps) +
                                " must be even and non-zero");
  }
  pin = 0;
  clocks_.push_back(std::unique_ptr<Clock>(
      new Clock(*this, std::move(name), pin, period_ps, now_ + phase_ps + period_ps / 2)));
  dirty_ = true;
  return *clocks_.back();
}

void Sim::add_eval(std::function<void()> eval) {
  evals_.push_back(std::move(eval));
  dirty_ = true;
}

void Sim::on_step_end(std::function<void(SimTime)> hook) { step_end_.push_back(std::move(hook)); }

detail::Waiter Sim::make_waiter(std::coroutine_handle<> h, detail::WaitKind kind,
                                std::string_view what) {
  if (!current_) {
    throw std::logic_error("a trigger was awaited outside of a scheduled task");
  }
  current_->waiting = kind;
  if (kind != detail::WaitKind::time) {
    current_->waiting_on.assign(what);
  }
  return detail::Waiter{h, current_, next_seq(), 1};
}

void Sim::make_ready(detail::Waiter w) { ready_.push_back(std::move(w)); }

void Sim::wait_edge(Clock& clk, bool rising, std::coroutine_handle<> h, std::uint64_t count) {
  auto w = make_waiter(h, detail::WaitKind::time);
  w.remaining = count;
  (rising ? clk.rising_ : clk.falling_).push_back(std::move(w));
}

void Sim::wait_timer(SimTime delay, std::coroutine_handle<> h) {
  timers_.push_back(TimerEntry{now_ + delay, make_waiter(h, detail::WaitKind::time)});
  std::push_heap(timers_.begin(), timers_.end(),
                 [](const auto& a, const auto& b) { return timer_later(a, b); });
}

void Sim::wait_readonly(std::coroutine_handle<> h) {
  if (phase_ == Phase::read_only) {
    throw std::logic_error("ReadOnly() awaited during the ReadOnly phase at " + format_time(now_) +
                           ": await an edge or a Timer first");
  }
  readonly_.push_back(make_waiter(h, detail::WaitKind::time));
}

TaskHandle Sim::start_soon(Task<> task, std::string name) {
  return TaskHandle(spawn(std::move(task), std::move(name), false));
}

detail::ProcPtr Sim::spawn(Task<> task, std::string name, bool is_main) {
  if (!task.valid()) {
    throw std::invalid_argument("start_soon/run of an empty Task");
  }
  auto p = std::make_shared<detail::Proc>();
  p->sim = this;
  p->name = std::move(name);
  p->is_main = is_main;
  p->root = proc_body(p.get(), std::move(task));
  procs_.push_back(p);
  ready_.push_back(detail::Waiter{p->root.handle(), p, next_seq(), 1});
  return p;
}

Task<> Sim::proc_body(detail::Proc* p, Task<> task) {
  try {
    co_await std::move(task);
  } catch (...) {
    p->exception = std::current_exception();
  }
  finish(*p);
}

void Sim::finish(detail::Proc& p) {
  p.done = true;
  p.waiting = detail::WaitKind::none;
  if (p.exception && p.joiners.empty() && !p.is_main && !failure_) {
    failure_ = p.exception;
    failed_task_ = p.name;
  }
  for (auto& j : p.joiners) {
    ready_.push_back(std::move(j));
  }
  p.joiners.clear();
  std::erase_if(procs_, [&](const detail::ProcPtr& q) { return q.get() == &p; });
}

void Sim::resume(detail::Waiter& w) {
  detail::Proc* p = w.proc.get();
  if (p->done) {
    return;  // cancelled while this entry was queued
  }
  p->waiting = detail::WaitKind::none;
  if (phase_ == Phase::active) {
    dirty_ = true;
  }
  auto prev = std::exchange(current_, w.proc);
  running_.push_back(p);
  struct Restore {
    Sim* s;
    detail::ProcPtr prev;
    ~Restore() {
      s->running_.pop_back();
      s->current_ = std::move(prev);
    }
  } restore{this, std::move(prev)};
  w.h.resume();
  // The finished frame sits at its final suspend point; free it now.
  if (p->done && !p->cancelled) {
    p->root = Task<>{};
  }
}

void Sim::run_body(Task<> task, const std::string& name) { run_main(std::move(task), name, false); }

void Sim::run_main(Task<> task, const std::string& name, bool drain) {
  CurrentSimScope scope(this);
  if (running_.empty()) {
    failed_task_.clear();
  }
  auto p = spawn(std::move(task), name, true);
  try {
    // Once the task is done, finish what is queued for this same phase, so
    // the caller never sees a half-processed step; time does not move.
    while (!p->done || (drain && !ready_.empty())) {
      step();
      if (failure_) {
        std::rethrow_exception(std::exchange(failure_, nullptr));
      }
    }
  } catch (...) {
    // The main task's frame refers to run()'s locals: it must not outlive them.
    if (!p->done) {
      cancel(p);
    }
    throw;
  }
  if (p->exception) {
    std::rethrow_exception(p->exception);
  }
}

void Sim::step() {
  if (!ready_.empty()) {
    // Work that arrives after the step ended (synchronous code between runs)
    // reopens the step at the same time, so it is settled before the next edge.
    if (phase_ == Phase::between) {
      phase_ = Phase::active;
    }
    detail::Waiter w = std::move(ready_.front());
    ready_.pop_front();
    resume(w);
    return;
  }
  switch (phase_) {
    case Phase::active:
      if (dirty_) {
        eval();
      }
      phase_ = Phase::read_only;
      for (auto& w : readonly_) {
        ready_.push_back(std::move(w));
      }
      readonly_.clear();
      return;
    case Phase::read_only:
      for (auto& hook : step_end_) {
        hook(now_);
      }
      phase_ = Phase::between;
      return;
    case Phase::between:
      advance();
      return;
  }
}

std::uint64_t Sim::cycles() const noexcept {
  std::uint64_t n = 0;
  for (const auto& c : clocks_) {
    n = std::max(n, c->rises_);
  }
  return n;
}

void Sim::eval() {
  dirty_ = false;
  for (auto& e : evals_) {
    e();
  }
}

void Sim::advance() {
  check_deadlock();
  SimTime next = UINT64_MAX;
  for (auto& c : clocks_) {
    next = std::min(next, c->next_edge_);
  }
  if (!timers_.empty()) {
    next = std::min(next, timers_.front().at);
  }
  if (next == UINT64_MAX) {
    throw DeadlockError("nothing left to simulate at " + format_time(now_));
  }
  now_ = next;
  phase_ = Phase::active;

  toggled_.clear();
  for (auto& c : clocks_) {
    if (c->next_edge_ != now_) {
      continue;
    }
    *c->pin_ = c->next_rising_ ? 1 : 0;
    if (c->next_rising_) {
      ++c->rises_;
    }
    toggled_.push_back(c.get());
  }
  eval();

  int sources = 0;
  for (Clock* c : toggled_) {
    auto& list = c->next_rising_ ? c->rising_ : c->falling_;
    c->next_rising_ = !c->next_rising_;
    c->next_edge_ += c->period_ / 2;
    if (list.empty()) {
      continue;
    }
    ++sources;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (--list[i].remaining == 0) {
        firing_.push_back(std::move(list[i]));
      } else if (kept++ != i) {
        list[kept - 1] = std::move(list[i]);
      }
    }
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(kept), list.end());
  }
  auto later = [](const auto& a, const auto& b) { return timer_later(a, b); };
  if (!timers_.empty() && timers_.front().at == now_) {
    ++sources;
  }
  while (!timers_.empty() && timers_.front().at == now_) {
    std::pop_heap(timers_.begin(), timers_.end(), later);
    firing_.push_back(std::move(timers_.back().w));
    timers_.pop_back();
  }
  // One source is already in registration order; several are merged so the
  // whole step is FIFO.
  if (sources > 1) {
    std::sort(firing_.begin(), firing_.end(),
              [](const detail::Waiter& a, const detail::Waiter& b) { return a.seq < b.seq; });
  }
  for (auto& w : firing_) {
    ready_.push_back(std::move(w));
  }
  firing_.clear();
}

void Sim::check_deadlock() const {
  if (!ready_.empty() || !readonly_.empty() || !timers_.empty()) {
    return;
  }
  for (const auto& c : clocks_) {
    if (!c->rising_.empty() || !c->falling_.empty()) {
      return;
    }
  }
  std::ostringstream os;
  os << "deadlock at " << format_time(now_)
     << ": no task waits on a clock edge, Timer or ReadOnly, so nothing can ever resume";
  bool any = false;
  for (const auto& p : procs_) {
    if (std::find(running_.begin(), running_.end(), p.get()) != running_.end()) {
      os << (any ? "; " : ": ") << "task '" << p->name << "' is blocked in a nested run()";
      any = true;
      continue;
    }
    const char* kind = "";
    switch (p->waiting) {
      case detail::WaitKind::event:
        kind = "event";
        break;
      case detail::WaitKind::join:
        kind = "task";
        break;
      case detail::WaitKind::lock:
        kind = "lock";
        break;
      default:
        continue;
    }
    os << (any ? "; " : ": ") << "task '" << p->name << "' waits on " << kind << " '"
       << p->waiting_on << "'";
    any = true;
  }
  throw DeadlockError(os.str());
}

void Sim::purge(const detail::Proc* p) {
  auto mine = [p](const detail::Waiter& w) { return w.proc.get() == p; };
  for (auto& c : clocks_) {
    std::erase_if(c->rising_, mine);
    std::erase_if(c->falling_, mine);
  }
  std::erase_if(readonly_, mine);
  std::erase_if(ready_, mine);
  auto before = timers_.size();
  std::erase_if(timers_, [p](const TimerEntry& t) { return t.w.proc.get() == p; });
  if (timers_.size() != before) {
    std::make_heap(timers_.begin(), timers_.end(),
                   [](const auto& a, const auto& b) { return timer_later(a, b); });
  }
}

void Sim::cancel(const detail::ProcPtr& ref) {
  // `ref` may be an element of procs_, which is edited below.
  const detail::ProcPtr p = ref;
  if (!p || p->done) {
    return;
  }
  if (std::find(running_.begin(), running_.end(), p.get()) != running_.end()) {
    throw std::logic_error("task '" + p->name +
                           "' cannot be cancelled while it is running (a task cannot cancel "
                           "itself or a task blocked in a nested run())");
  }
  p->cancelled = true;
  p->done = true;
  p->waiting = detail::WaitKind::none;
  purge(p.get());
  for (auto& j : p->joiners) {
    ready_.push_back(std::move(j));
  }
  p->joiners.clear();
  std::erase_if(procs_, [&](const detail::ProcPtr& q) { return q == p; });
  // Destroying the frames runs their destructors, which may cancel further
  // tasks (with_timeout's children).
  p->root = Task<>{};
}

}  // namespace syncfab::tb

// with_timeout: run a task with a deadline (cocotb's with_timeout).
#pragma once

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "syncfab/tb/event.hpp"
#include "syncfab/tb/sim.hpp"
#include "syncfab/tb/task.hpp"

namespace syncfab::tb {

class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

template <class T>
struct TimeoutState {
  using Stored = std::conditional_t<std::is_void_v<T>, bool, T>;
  std::optional<Stored> value;
  std::exception_ptr exception;
  bool finished = false;
  bool expired = false;
  Event done{"with_timeout"};
};

template <class T>
Task<> timeout_child(Task<T> task, TimeoutState<T>* st) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(task);
      st->value.emplace(true);
    } else {
      st->value.emplace(co_await std::move(task));
    }
  } catch (...) {
    st->exception = std::current_exception();
  }
  st->finished = true;
  st->done.set();
}

template <class T>
Task<> timeout_timer(SimTime ps, TimeoutState<T>* st) {
  co_await Timer(ps);
  st->expired = true;
  st->done.set();
}

// The helper tasks point into the awaiting frame: if that frame is destroyed
// (its task was cancelled), they must go first.
class CancelOnExit {
 public:
  CancelOnExit(TaskHandle a, TaskHandle b) : a_(std::move(a)), b_(std::move(b)) {}
  CancelOnExit(const CancelOnExit&) = delete;
  CancelOnExit& operator=(const CancelOnExit&) = delete;
  CancelOnExit(CancelOnExit&&) = delete;
  CancelOnExit& operator=(CancelOnExit&&) = delete;
  ~CancelOnExit() {
    a_.cancel();
    b_.cancel();
  }

 private:
  TaskHandle a_;
  TaskHandle b_;
};

}  // namespace detail

// Runs `task` as a separate task; if it has not finished `timeout_ps` later,
// cancels it and throws TimeoutError. Otherwise returns its value or rethrows
// its exception.
template <class T>
Task<T> with_timeout(Task<T> task, SimTime timeout_ps, std::string what = "task") {
  if (timeout_ps == 0) {
    throw std::invalid_argument("with_timeout: zero timeout");
  }
  Sim& sim = Sim::current();
  const SimTime start = sim.now();
  detail::TimeoutState<T> st;
  detail::CancelOnExit guard(
      sim.start_soon(detail::timeout_child(std::move(task), &st), what),
      sim.start_soon(detail::timeout_timer(timeout_ps, &st), "with_timeout timer"));
  co_await st.done.wait();
  if (!st.finished) {
    throw TimeoutError(what + " timed out after " + format_time(timeout_ps) + " (started at " +
                       format_time(start) + ", now " + format_time(sim.now()) + ")");
  }
  if (st.exception) {
    std::rethrow_exception(st.exception);
  }
  if constexpr (!std::is_void_v<T>) {
    co_return std::move(*st.value);
  }
}

template <class T>
Task<T> with_timeout(Task<T> task, std::uint64_t n, Unit unit, std::string what = "task") {
  return with_timeout(std::move(task), to_ps(n, unit), std::move(what));
}

}  // namespace syncfab::tb

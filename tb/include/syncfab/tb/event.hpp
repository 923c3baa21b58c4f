// Event and Lock: synchronisation between tasks inside one time step.
#pragma once

#include <coroutine>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "syncfab/tb/sim.hpp"

namespace syncfab::tb {

// cocotb's Event: set() wakes every task waiting now (they resume later in the
// same time step, in the order they started waiting) and stays set until
// clear(); wait() on a set event does not suspend.
class Event {
 public:
  explicit Event(std::string name = "event") : name_(std::move(name)) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&&) = delete;
  Event& operator=(Event&&) = delete;
  ~Event() = default;

  void set() {
    set_ = true;
    for (auto& w : waiters_) {
      Sim* sim = w.proc->sim;
      sim->make_ready(std::move(w));
    }
    waiters_.clear();
  }
  void clear() noexcept { set_ = false; }
  [[nodiscard]] bool is_set() const noexcept { return set_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  struct Awaiter {
    Event* ev;
    [[nodiscard]] bool await_ready() const noexcept { return ev->set_; }
    void await_suspend(std::coroutine_handle<> h) {
      ev->waiters_.push_back(Sim::current().make_waiter(h, detail::WaitKind::event, ev->name_));
    }
    void await_resume() const noexcept {}
  };
  Awaiter wait() noexcept { return Awaiter{this}; }

 private:
  std::string name_;
  bool set_ = false;
  std::vector<detail::Waiter> waiters_;
};

// A mutex for tasks (cocotb's Lock): acquire() suspends until the lock is
// free; release() hands it to the longest waiter. Use LockGuard to release on
// every path, including cancellation.
class Lock {
 public:
  explicit Lock(std::string name = "lock") : name_(std::move(name)) {}
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
  Lock(Lock&&) = delete;
  Lock& operator=(Lock&&) = delete;
  ~Lock() = default;

  [[nodiscard]] bool locked() const noexcept { return locked_; }

  struct Awaiter {
    Lock* lock;
    [[nodiscard]] bool await_ready() const noexcept {
      if (lock->locked_) {
        return false;
      }
      lock->locked_ = true;
      return true;
    }
    void await_suspend(std::coroutine_handle<> h) {
      lock->waiters_.push_back(Sim::current().make_waiter(h, detail::WaitKind::lock, lock->name_));
    }
    void await_resume() const noexcept {}
  };
  // The lock is held once the co_await returns.
  Awaiter acquire() noexcept { return Awaiter{this}; }

  void release() {
    while (!waiters_.empty()) {
      detail::Waiter w = std::move(waiters_.front());
      waiters_.pop_front();
      if (w.proc->done) {
        continue;  // cancelled while waiting
      }
      Sim* sim = w.proc->sim;
      sim->make_ready(std::move(w));
      return;  // ownership passes directly: locked_ stays true
    }
    locked_ = false;
  }

 private:
  std::string name_;
  bool locked_ = false;
  std::deque<detail::Waiter> waiters_;
};

// Releases a held Lock when it goes out of scope.
class LockGuard {
 public:
  explicit LockGuard(Lock& l) noexcept : lock_(&l) {}
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;
  LockGuard(LockGuard&&) = delete;
  LockGuard& operator=(LockGuard&&) = delete;
  ~LockGuard() { lock_->release(); }

 private:
  Lock* lock_;
};

}  // namespace syncfab::tb

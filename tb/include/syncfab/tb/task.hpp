// Task<T>: the coroutine type of the harness.
//
// A Task is lazy: creating one runs nothing. `co_await task` starts it and
// suspends the awaiter until it finishes; the awaiter then gets its value or
// its exception. Completion hands control back to the awaiter by symmetric
// transfer, so deep chains of awaits do not grow the native stack. A Task owns
// its coroutine frame: destroying a suspended Task destroys the whole chain of
// frames below it (that is how the scheduler cancels a running task).
#pragma once

#include <coroutine>
#include <exception>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace syncfab::tb {

template <class T = void>
class Task;

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation = std::noop_coroutine();
  std::exception_ptr exception;

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      return h.promise().continuation;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U = T>
  requires std::is_convertible_v<U&&, T>
  void return_value(U&& v) { value.emplace(std::forward<U>(v)); }
  T take() {
    if (exception) {
      std::rethrow_exception(exception);
    }
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() {
    if (exception) {
      std::rethrow_exception(exception);
    }
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;
  using value_type = T;

  Task() noexcept = default;
  explicit Task(Handle h) noexcept : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(h_); }
  [[nodiscard]] bool done() const noexcept { return h_ && h_.done(); }

  struct Awaiter {
    Handle h;
    [[nodiscard]] bool await_ready() const noexcept { return !h || h.done(); }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
      h.promise().continuation = awaiting;
      return h;
    }
    T await_resume() {
      if (!h) {
        throw std::logic_error("co_await on an empty Task (moved from?)");
      }
      return h.promise().take();
    }
  };
  Awaiter operator co_await() & noexcept { return Awaiter{h_}; }
  Awaiter operator co_await() && noexcept { return Awaiter{h_}; }

  // Lets the scheduler resume a root task directly.
  [[nodiscard]] Handle handle() const noexcept { return h_; }

 private:
  void reset() noexcept {
    if (h_) {
      h_.destroy();
    }
    h_ = {};
  }
  Handle h_;
};

namespace detail {
template <class T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>{std::coroutine_handle<Promise<T>>::from_promise(*this)};
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>{std::coroutine_handle<Promise<void>>::from_promise(*this)};
}
}  // namespace detail

}  // namespace syncfab::tb

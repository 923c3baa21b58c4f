// Checks for harness tests. A failed check throws TestFailure naming the file,
// line and the values involved; the test runner adds the seed, the time and
// the replay command.
//
//   TB_CHECK(cond);                     TB_CHECK(cond, "why ", x);
//   TB_CHECK(cond) << "why " << x;      TB_CHECK_EQ(dut_val, model_val) << "at op " << i;
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace syncfab::tb {

class TestFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

template <class T>
concept Streamable = requires(std::ostream& os, const T& v) {
  os << v;
};

// Integers print as decimal and, when it helps, hex; bytes print as numbers,
// not characters.
template <class T>
std::string show(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_enum_v<T>) {
    return show(static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_integral_v<T>) {
    std::ostringstream os;
    if constexpr (std::is_signed_v<T>) {
      os << static_cast<long long>(v);
    } else {
      os << static_cast<unsigned long long>(v);
    }
    bool hex = v > 9;
    if constexpr (std::is_signed_v<T>) {
      hex = hex || v < 0;
    }
    if (hex) {
      os << " (0x" << std::hex << static_cast<unsigned long long>(v) << ")";
    }
    return os.str();
  } else if constexpr (Streamable<T>) {
    std::ostringstream os;
    os << v;
    return os.str();
  } else {
    return "<value without operator<<>";
  }
}

template <class A, class B>
bool equal(const A& a, const B& b) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, bool> &&
                !std::is_same_v<B, bool>) {
    return std::cmp_equal(a, b);
  } else {
    return a == b;
  }
}

// A bool compared with an integer pin prints as 0/1, like the pin.
template <class T, class Other>
std::string show_vs(const T& v) {
  if constexpr (std::is_same_v<T, bool> && std::is_integral_v<Other> &&
                !std::is_same_v<Other, bool>) {
    return v ? "1" : "0";
  } else {
    return show(v);
  }
}

template <class A, class B>
std::optional<std::string> check_eq(const A& a, const B& b, const char* ea, const char* eb) {
  if (equal(a, b)) {
    return std::nullopt;
  }
  return std::string("TB_CHECK_EQ(") + ea + ", " + eb + ") failed: " + show_vs<A, B>(a) +
         " != " + show_vs<B, A>(b);
}

template <class A, class B>
std::optional<std::string> check_ne(const A& a, const B& b, const char* ea, const char* eb) {
  if (!equal(a, b)) {
    return std::nullopt;
  }
  return std::string("TB_CHECK_NE(") + ea + ", " + eb + ") failed: both are " + show(a);
}

// Collects the message and throws when the full expression ends (unless the
// stack is already unwinding from another exception).
class CheckFailer {
 public:
  CheckFailer(const char* file, int line, const std::string& what)
      : uncaught_(std::uncaught_exceptions()) {
    os_ << file << ":" << line << ": " << what;
  }
  template <class... Args>
  CheckFailer(const char* file, int line, const std::string& what, const Args&... msg)
      : CheckFailer(file, line, what) {
    os_ << ": ";
    (os_ << ... << msg);
  }
  CheckFailer(const CheckFailer&) = delete;
  CheckFailer& operator=(const CheckFailer&) = delete;
  CheckFailer(CheckFailer&&) = delete;
  CheckFailer& operator=(CheckFailer&&) = delete;

  template <class T>
  CheckFailer& operator<<(const T& v) {
    if (!streamed_) {
      os_ << ": ";
    }
    streamed_ = true;
    os_ << v;
    return *this;
  }
  // Throwing here, at the end of the check's full expression, is the point.
  // NOLINTNEXTLINE(bugprone-exception-escape)
  ~CheckFailer() noexcept(false) {
    if (std::uncaught_exceptions() > uncaught_) {
      return;
    }
    throw TestFailure(os_.str());
  }

 private:
  int uncaught_;
  bool streamed_ = false;
  std::ostringstream os_;
};

}  // namespace detail
}  // namespace syncfab::tb

// Each macro is one `for` statement that runs its body at most once: unlike
// an if/else it cannot capture a caller's `else`, and GCC's -Wdangling-else
// has nothing to say about `if (x) TB_CHECK(...);`.
#define TB_CHECK(cond, ...)                                                \
  for (bool syncfab_tb_fail_ = !static_cast<bool>(cond); syncfab_tb_fail_; \
       syncfab_tb_fail_ = false)                                           \
  ::syncfab::tb::detail::CheckFailer(__FILE__, __LINE__,                   \
                                     "TB_CHECK(" #cond ") failed" __VA_OPT__(, ) __VA_ARGS__)

#define TB_CHECK_EQ(a, b, ...)                                                                  \
  for (auto syncfab_tb_eq_ = ::syncfab::tb::detail::check_eq((a), (b), #a, #b); syncfab_tb_eq_; \
       syncfab_tb_eq_.reset())                                                                  \
  ::syncfab::tb::detail::CheckFailer(__FILE__, __LINE__,                                        \
                                     std::move(*syncfab_tb_eq_) __VA_OPT__(, ) __VA_ARGS__)

#define TB_CHECK_NE(a, b, ...)                                                                  \
  for (auto syncfab_tb_ne_ = ::syncfab::tb::detail::check_ne((a), (b), #a, #b); syncfab_tb_ne_; \
       syncfab_tb_ne_.reset())                                                                  \
  ::syncfab::tb::detail::CheckFailer(__FILE__, __LINE__,                                        \
                                     std::move(*syncfab_tb_ne_) __VA_OPT__(, ) __VA_ARGS__)

// Unconditional failure: TB_FAIL("reason ", x) or TB_FAIL() << "reason";
#define TB_FAIL(...) \
  ::syncfab::tb::detail::CheckFailer(__FILE__, __LINE__, "failure" __VA_OPT__(, ) __VA_ARGS__)

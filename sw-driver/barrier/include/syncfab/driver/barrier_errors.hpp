// Errors of the barrier API (nic.hpp). Argument errors are
// std::invalid_argument and misuse (arrive() while a barrier is pending, a
// closed context) is std::logic_error; these are what the device reports.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::driver {

// One completion-queue entry as the driver read it.
struct CqRecord {
  std::uint8_t ctx = 0;
  std::uint16_t epoch = 0;
  fmt::CqStatus status = fmt::CqStatus::kOk;
  fmt::ErrCode err = fmt::ErrCode::kNone;

  [[nodiscard]] bool ok() const noexcept { return status == fmt::CqStatus::kOk; }
  friend bool operator==(const CqRecord&, const CqRecord&) = default;
};

// "ctx 3 epoch 7: DESC_ERROR / BAD_OPCODE" (the format's enum names).
std::string describe(const CqRecord& r);

// A barrier (or raw descriptor) completed with an error status. The message
// names the context, the epoch, the status and the error code.
class BarrierError : public std::runtime_error {
 public:
  explicit BarrierError(const CqRecord& record);
  [[nodiscard]] const CqRecord& record() const noexcept { return record_; }
  [[nodiscard]] fmt::CqStatus status() const noexcept { return record_.status; }
  [[nodiscard]] fmt::ErrCode err() const noexcept { return record_.err; }

 private:
  CqRecord record_;
};

// The HDQ or the SDQ had no room for a descriptor: at once under
// QueueFullPolicy::kThrow, or after NicOptions::full_timeout under kWait.
// Nothing was submitted and no epoch was used.
class QueueFull : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A blocking call (barrier(), wait_raw(), close()'s drain) ran out of time.
class BarrierTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace syncfab::driver

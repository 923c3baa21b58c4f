#include "syncfab/vp/host.hpp"

#include <algorithm>
#include <exception>
#include <sstream>

#include <syncfab/hw/errors.hpp>

#include "syncfab/vp/tlm_check.hpp"

namespace syncfab::vp {

namespace {
// The driver's calls nest a few frames deep and build vectors and strings;
// SystemC's default thread stack is small for that.
constexpr std::size_t kStackBytes = std::size_t{512} << 10;
}  // namespace

Host::Host(const sc_core::sc_module_name& name, Program program, std::function<void()> on_done)
    : sc_core::sc_module(name),
      csr("csr"),
      mem("mem"),
      irq("irq"),
      program_(std::move(program)),
      on_done_(std::move(on_done)) {
  SC_THREAD(run);
  set_stack_size(kStackBytes);
}

void Host::run() {
  qk_.reset();
  try {
    program_(*this);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  qk_.sync();
  done_ = true;
  if (on_done_) {
    on_done_();
  }
}

std::chrono::nanoseconds Host::now() const {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(
      qk_.get_current_time().value() / sc_core::sc_time(1, sc_core::SC_NS).value()));
}

void Host::compute(const sc_core::sc_time& t) {
  qk_.inc(t);
  if (qk_.need_sync()) {
    qk_.sync();
  }
}

tlm::tlm_response_status Host::raw_csr(tlm::tlm_generic_payload& t) {
  sc_core::sc_time delay = qk_.get_local_time();
  csr->b_transport(t, delay);
  qk_.set(delay);
  if (qk_.need_sync()) {
    qk_.sync();
  }
  return t.get_response_status();
}

void Host::csr_access(tlm::tlm_command cmd, std::uint32_t offset, std::uint32_t& value) {
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(offset);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  t.set_data_length(4);
  t.set_streaming_width(4);
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (raw_csr(t) != tlm::TLM_OK_RESPONSE) {
    std::ostringstream s;
    s << name() << ": CSR " << (cmd == tlm::TLM_READ_COMMAND ? "read" : "write") << " at offset 0x"
      << std::hex << offset << std::dec << " refused: " << to_string(t.get_response_status());
    throw hw::BusError(s.str());
  }
}

std::uint32_t Host::read32(std::uint32_t offset) {
  std::uint32_t v = 0;
  csr_access(tlm::TLM_READ_COMMAND, offset, v);
  return v;
}

void Host::write32(std::uint32_t offset, std::uint32_t value) {
  csr_access(tlm::TLM_WRITE_COMMAND, offset, value);
}

bool Host::wait_interrupt(std::chrono::nanoseconds timeout) {
  // A sync with no local time would only yield for a delta cycle: the line
  // is read now instead, and a rise in the coming deltas still ends the wait
  // below at this same time.
  const bool no_local_time = qk_.get_local_time() == sc_core::SC_ZERO_TIME;
  if (no_local_time) {
    qk_.reset();
  } else {
    qk_.sync();
  }
  if (irq.read()) {
    return true;
  }
  const auto ns = timeout.count() < 0 ? 0 : timeout.count();
  const sc_core::sc_time slice(static_cast<double>(ns), sc_core::SC_NS);
  // After a sync the NIC may have written what the driver has not read yet.
  if (no_local_time && nic_wrote_ != nullptr && deadline_ && slice != sc_core::SC_ZERO_TIME) {
    return wait_slices(slice);
  }
  wait(slice, irq.posedge_event());
  return irq.read();
}

void Host::Keeper::reset_as_at(const sc_core::sc_time& t) {
  m_local_time = sc_core::SC_ZERO_TIME;
  const auto q = tlm::tlm_global_quantum::instance().get().value();
  m_next_sync_point = q == 0 ? t : sc_core::sc_time::from_value(t.value() + q - t.value() % q);
}

// Slice boundaries b_i = start + i * slice. The driver polling once per
// slice goes on past b_i only while its next slice would be whole and end
// before the deadline (deadline - b_i >= slice); the last boundary it
// reaches that way is b_m, m = (deadline - start) / slice (with m <= 1 the
// slice is waited out alone).
bool Host::wait_slices(const sc_core::sc_time& slice) {
  const auto start = sc_core::sc_time_stamp().value();
  const auto len = slice.value();
  const auto deadline =
      static_cast<std::uint64_t>(deadline_->count()) * sc_core::sc_time(1, sc_core::SC_NS).value();
  const std::uint64_t m = deadline > start ? (deadline - start) / len : 0;
  if (m <= 1) {
    wait(slice, irq.posedge_event());
    return irq.read();
  }
  wait(sc_core::sc_time::from_value(m * len), irq.posedge_event() | *nic_wrote_);
  if (!irq.read()) {
    const auto now = sc_core::sc_time_stamp().value();
    // A write in the very time step of the call is after the driver's read:
    // the first poll that sees it is b_1.
    const auto boundary = start + std::max<std::uint64_t>((now - start + len - 1) / len, 1) * len;
    if (boundary > now) {
      wait(sc_core::sc_time::from_value(boundary - now), irq.posedge_event());
    }
  }
  // The driver's last call would have been at the boundary before the line
  // rose, or at the one before the boundary this wait ends on; its quantum
  // keeper's reset was there.
  const auto now = sc_core::sc_time_stamp().value();
  const bool woke = irq.read();
  const auto last = woke ? start + (now - start) / len * len : now - len;
  qk_.reset_as_at(sc_core::sc_time::from_value(last));
  return woke;
}

}  // namespace syncfab::vp

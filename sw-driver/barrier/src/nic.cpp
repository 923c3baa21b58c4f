// The public handles: Nic and BarrierContext forward to the shared NicCore.
#include "syncfab/driver/nic.hpp"

#include <stdexcept>
#include <string>

#include "nic_core.hpp"

namespace syncfab::driver {

std::string describe(const CqRecord& r) {
  return "ctx " + std::to_string(r.ctx) + " epoch " + std::to_string(r.epoch) + ": " +
         std::string(fmt::to_string(r.status)) + " / " + std::string(fmt::to_string(r.err));
}

BarrierError::BarrierError(const CqRecord& record)
    : std::runtime_error("barrier completed with an error: " + describe(record)), record_(record) {}

// ------------------------------------------------------------------- Nic

Nic::Nic(hw::Device& device, hw::DmaMemory& memory, DmaRegion region, NicOptions options)
    : core_(std::make_shared<detail::NicCore>(device, memory, region, std::move(options))) {}

Nic::Nic(hw::Device& device, hw::HostMemory& memory, NicOptions options)
    : Nic(device, memory, DmaRegion{memory.base(), memory.size()}, std::move(options)) {}

Nic::~Nic() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() explicitly to see errors
  }
}

Nic::Nic(Nic&&) noexcept = default;

Nic& Nic::operator=(Nic&& other) noexcept {
  if (this != &other) {
    try {
      close();
    } catch (...) {
    }
    core_ = std::move(other.core_);
  }
  return *this;
}

namespace {
detail::NicCore& live(const std::shared_ptr<detail::NicCore>& core) {
  if (!core) {
    throw std::logic_error("Nic: moved from");
  }
  return *core;
}
}  // namespace

unsigned Nic::close() { return core_ ? core_->close() : 0; }
bool Nic::is_open() const noexcept { return core_ && core_->is_open(); }
const HwConfig& Nic::hw() const { return live(core_).hw(); }
const NicStats& Nic::stats() const { return live(core_).stats(); }

BarrierContext Nic::open_context(const ContextConfig& config) {
  const std::uint64_t gen = live(core_).open_context(config);
  return {core_, config.id, gen};
}

unsigned Nic::progress() { return live(core_).progress(); }
std::vector<CqRecord> Nic::take_unclaimed() { return live(core_).take_unclaimed(); }

RawTicket Nic::submit_raw_descriptor(std::span<const std::uint32_t> words, SubmitPath path) {
  if (words.size() != kBarrierDescWords) {
    throw std::invalid_argument("submit_raw_descriptor: " + std::to_string(words.size()) +
                                " words given, a descriptor is " +
                                std::to_string(kBarrierDescWords));
  }
  fmt::BarrierDesc::Bytes b{};
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = static_cast<std::uint8_t>(words[i / 4] >> (8 * (i % 4)));
  }
  return live(core_).submit_raw(fmt::BarrierDesc(b), path);
}

RawTicket Nic::submit_raw_descriptor(const fmt::BarrierDesc& desc, SubmitPath path) {
  return live(core_).submit_raw(desc, path);
}

std::optional<CqRecord> Nic::raw_result(RawTicket ticket) { return live(core_).raw_result(ticket); }

CqRecord Nic::wait_raw(RawTicket ticket, std::chrono::nanoseconds timeout) {
  return live(core_).wait_raw(ticket, timeout);
}

// -------------------------------------------------------- BarrierContext

namespace {
detail::NicCore& live_ctx(const std::shared_ptr<detail::NicCore>& core, unsigned id) {
  if (!core) {
    throw std::logic_error("barrier context " + std::to_string(id) +
                           ": not open (default-constructed or moved from)");
  }
  return *core;
}
}  // namespace

BarrierContext::~BarrierContext() { close(); }

BarrierContext::BarrierContext(BarrierContext&& other) noexcept
    : core_(std::move(other.core_)), id_(other.id_), generation_(other.generation_) {}

BarrierContext& BarrierContext::operator=(BarrierContext&& other) noexcept {
  if (this != &other) {
    close();
    core_ = std::move(other.core_);
    id_ = other.id_;
    generation_ = other.generation_;
  }
  return *this;
}

void BarrierContext::close() noexcept {
  if (core_) {
    core_->close_context(id_, generation_);
    core_.reset();
  }
}

bool BarrierContext::is_open() const noexcept {
  return core_ && core_->context_open(id_, generation_);
}

void BarrierContext::arrive() { live_ctx(core_, id_).arrive(id_, generation_, {}, {}); }
void BarrierContext::arrive(SubmitPath path) {
  live_ctx(core_, id_).arrive(id_, generation_, path, {});
}
void BarrierContext::arrive(SubmitPath path, WaitMode mode) {
  live_ctx(core_, id_).arrive(id_, generation_, path, mode);
}

bool BarrierContext::test() { return live_ctx(core_, id_).test(id_, generation_); }

bool BarrierContext::wait(std::chrono::nanoseconds timeout) {
  return live_ctx(core_, id_).wait(id_, generation_, timeout);
}

void BarrierContext::wait() { (void)live_ctx(core_, id_).wait(id_, generation_, std::nullopt); }

void BarrierContext::barrier(std::chrono::nanoseconds timeout) {
  arrive();
  if (!wait(timeout)) {
    throw BarrierTimeout("barrier on context " + std::to_string(id_) + " epoch " +
                         std::to_string(epoch()) + " did not complete within " +
                         std::to_string(timeout.count()) + " ns of device time");
  }
}

bool BarrierContext::pending() const { return live_ctx(core_, id_).pending(id_, generation_); }
std::uint16_t BarrierContext::epoch() const { return live_ctx(core_, id_).epoch(id_, generation_); }
const BarrierSchedule& BarrierContext::schedule() const {
  return live_ctx(core_, id_).schedule(id_, generation_);
}
fmt::BarrierDesc BarrierContext::next_descriptor(WaitMode mode) const {
  return live_ctx(core_, id_).next_descriptor(id_, generation_, mode);
}

}  // namespace syncfab::driver

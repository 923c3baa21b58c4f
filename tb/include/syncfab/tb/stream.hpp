// Drivers and monitor for valid/ready streams. Pins are bound by lambdas so
// one class serves any port naming and any payload type (`Beat`).
//
// Handshake convention (see tb/README.md): inputs are driven just after a
// rising edge; valid/ready are sampled in ReadOnly of the same step, so
// `valid && ready` there means the beat transfers at the next rising edge.
#pragma once

#include <concepts>
#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "syncfab/tb/check.hpp"
#include "syncfab/tb/event.hpp"
#include "syncfab/tb/sim.hpp"
#include "syncfab/tb/task.hpp"

namespace syncfab::tb {

namespace detail {
inline std::bernoulli_distribution probability(double p, const std::string& who) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument(who + ": probability " + std::to_string(p) + " is not in [0, 1]");
  }
  return std::bernoulli_distribution(p);
}
}  // namespace detail

template <class Beat>
struct StreamSourcePins {
  std::function<void(bool)> valid;        // drive valid
  std::function<void(const Beat&)> data;  // drive the payload
  std::function<bool()> ready;            // sample ready
};

template <class Beat>
struct StreamSinkPins {
  std::function<bool()> valid;      // sample valid
  std::function<Beat()> data;       // sample the payload
  std::function<void(bool)> ready;  // drive ready
};

template <class Beat>
struct StreamMonitorPins {
  std::function<bool()> valid;
  std::function<bool()> ready;
  std::function<Beat()> data;
};

// Sends queued beats. With gap_probability p, each cycle in which a new beat
// could start is left idle with probability p. Once valid is up it stays up,
// with the same data, until the beat is accepted.
template <class Beat>
class StreamSource {
 public:
  using Pins = StreamSourcePins<Beat>;

  StreamSource(Clock& clk, Pins pins, std::mt19937_64& rng, double gap_probability = 0.0,
               std::string name = "stream source")
      : clk_(&clk),
        pins_(std::move(pins)),
        rng_(&rng),
        name_(std::move(name)),
        gap_(detail::probability(gap_probability, name_)),
        drained_(name_ + " drained") {
    drained_.set();
  }

  void set_gap_probability(double p) { gap_ = detail::probability(p, name_); }
  void push(Beat b) {
    queue_.push_back(std::move(b));
    drained_.clear();
  }
  [[nodiscard]] std::size_t pending() const noexcept { return queue_.size(); }
  [[nodiscard]] std::uint64_t sent() const noexcept { return sent_; }

  // The driving loop; start it once with sim.start_soon(source.run()).
  Task<> run() {
    if (clk_->sim().in_readonly()) {
      co_await RisingEdge(*clk_);
    }
    bool valid = false;
    for (;;) {
      if (!valid && !queue_.empty() && !gap_(*rng_)) {
        valid = true;
        pins_.data(queue_.front());
      }
      pins_.valid(valid);
      co_await ReadOnly();
      const bool fire = valid && pins_.ready();
      co_await RisingEdge(*clk_);
      if (fire) {
        queue_.pop_front();
        ++sent_;
        valid = false;
        if (queue_.empty()) {
          drained_.set();
        }
      }
    }
  }

  // Waits until every pushed beat has been accepted (run() must be running).
  Task<> idle() {
    while (!queue_.empty()) {
      co_await drained_.wait();
    }
  }
  // Pushes one beat and waits until it and everything before it is accepted.
  Task<> send(Beat b) {
    push(std::move(b));
    co_await idle();
  }

 private:
  Clock* clk_;
  Pins pins_;
  std::mt19937_64* rng_;
  std::string name_;
  std::bernoulli_distribution gap_;
  std::deque<Beat> queue_;
  std::uint64_t sent_ = 0;
  Event drained_;
};

// Accepts beats, deasserting ready with backpressure_probability each cycle.
template <class Beat>
class StreamSink {
 public:
  using Pins = StreamSinkPins<Beat>;

  StreamSink(Clock& clk, Pins pins, std::mt19937_64& rng, double backpressure_probability = 0.0,
             std::string name = "stream sink")
      : clk_(&clk),
        pins_(std::move(pins)),
        rng_(&rng),
        name_(std::move(name)),
        stall_(detail::probability(backpressure_probability, name_)),
        arrived_(name_ + " beat") {}

  void set_backpressure_probability(double p) { stall_ = detail::probability(p, name_); }
  // Called for every accepted beat, in ReadOnly of the step before the edge
  // that transfers it.
  void on_beat(std::function<void(const Beat&)> cb) { cb_ = std::move(cb); }
  [[nodiscard]] std::uint64_t received() const noexcept { return received_; }
  // Beats accepted and not yet taken with pop()/next().
  std::deque<Beat>& beats() noexcept { return beats_; }
  void keep_beats(bool keep) noexcept { keep_ = keep; }

  Task<> run() {
    if (clk_->sim().in_readonly()) {
      co_await RisingEdge(*clk_);
    }
    for (;;) {
      const bool ready = !stall_(*rng_);
      pins_.ready(ready);
      co_await ReadOnly();
      if (ready && pins_.valid()) {
        Beat b = pins_.data();
        ++received_;
        if (cb_) {
          cb_(b);
        }
        if (keep_) {
          beats_.push_back(std::move(b));
        }
        arrived_.set();
      }
      co_await RisingEdge(*clk_);
    }
  }

  // The next accepted beat (waits for one; run() must be running and
  // keep_beats on, the default).
  Task<Beat> next() {
    while (beats_.empty()) {
      arrived_.clear();
      co_await arrived_.wait();
    }
    Beat b = std::move(beats_.front());
    beats_.pop_front();
    co_return b;
  }

 private:
  Clock* clk_;
  Pins pins_;
  std::mt19937_64* rng_;
  std::string name_;
  std::bernoulli_distribution stall_;
  std::function<void(const Beat&)> cb_;
  std::deque<Beat> beats_;
  bool keep_ = true;
  std::uint64_t received_ = 0;
  Event arrived_;
};

// Watches a stream without driving it: reports every transfer and checks the
// valid/ready rules (valid stays up and data stays stable until ready).
template <class Beat>
class StreamMonitor {
 public:
  using Pins = StreamMonitorPins<Beat>;

  StreamMonitor(Clock& clk, Pins pins, std::string name = "stream monitor",
                bool check_protocol = true)
      : clk_(&clk), pins_(std::move(pins)), name_(std::move(name)), check_(check_protocol) {}

  void on_beat(std::function<void(const Beat&)> cb) { cb_ = std::move(cb); }
  [[nodiscard]] std::uint64_t transfers() const noexcept { return transfers_; }
  // Cycles with valid && !ready.
  [[nodiscard]] std::uint64_t stalls() const noexcept { return stalls_; }

  Task<> run() {
    bool waiting = false;  // valid && !ready at the previous edge
    Beat held{};
    for (;;) {
      co_await ReadOnly();
      const bool v = pins_.valid();
      const bool r = pins_.ready();
      if (check_ && waiting) {
        TB_CHECK(v) << name_ << ": valid dropped at " << format_time(clk_->sim().now())
                    << " before the beat was accepted";
        if constexpr (std::equality_comparable<Beat>) {
          const Beat now = pins_.data();
          TB_CHECK(now == held) << name_ << ": data changed while valid was waiting for ready at "
                                << format_time(clk_->sim().now()) << " (was " << detail::show(held)
                                << ", now " << detail::show(now) << ")";
        }
      }
      if (v && r) {
        ++transfers_;
        if (cb_) {
          cb_(pins_.data());
        }
      }
      waiting = v && !r;
      if (waiting) {
        ++stalls_;
        held = pins_.data();
      }
      co_await RisingEdge(*clk_);
    }
  }

 private:
  Clock* clk_;
  Pins pins_;
  std::string name_;
  bool check_;
  std::function<void(const Beat&)> cb_;
  std::uint64_t transfers_ = 0;
  std::uint64_t stalls_ = 0;
};

}  // namespace syncfab::tb

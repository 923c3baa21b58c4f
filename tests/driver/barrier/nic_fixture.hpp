// Test setups for the barrier API on the golden model: one NIC driven through
// a ModelDevice, and a torus Fabric of model NICs with a Nic per node (every
// ModelDevice advances the whole fabric, so one node's wait lets every node's
// NIC run).
#pragma once

#include <gtest/gtest.h>
#include <syncfab/test/seeds.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <syncfab/driver/nic.hpp>
#include <syncfab/hw/host_memory.hpp>
#include <syncfab/model/barrier_engine.hpp>
#include <syncfab/model/fabric.hpp>
#include <syncfab/model/model_device.hpp>

namespace syncfab::driver::test {

using namespace std::chrono_literals;

inline constexpr hw::BusAddr kMemBase = 0x1000'0000;

// Poll often (the model runs at 1 ns per cycle) and time out in device time.
inline NicOptions fast_options(std::function<std::chrono::nanoseconds()> clock) {
  NicOptions o;
  o.poll_interval = 8ns;
  o.clock = std::move(clock);
  return o;
}

// One NIC on its own: the network side is not connected (fine for
// communicators of one and for malformed descriptors).
struct SingleNode {
  explicit SingleNode(model::EngineConfig cfg = {})
      : engine(cfg, memory),
        device(
            engine, memory, [this] { engine.step(); }, 1) {}

  NicOptions options() {
    return fast_options([this] { return std::chrono::nanoseconds(engine.cycle()); });
  }
  // Records the engine's trace lines (to see which queue a descriptor came by).
  void record_trace() {
    engine.set_trace([this](std::string_view s) { trace.emplace_back(s); });
  }
  [[nodiscard]] unsigned trace_count(std::string_view what) const {
    unsigned n = 0;
    for (const auto& t : trace) {
      n += t.find(what) != std::string::npos ? 1U : 0U;
    }
    return n;
  }

  hw::HostMemory memory{kMemBase, 1 << 16};
  model::BarrierEngine engine;
  model::ModelDevice device;
  std::vector<std::string> trace;
};

// A torus of model NICs; nic(n) is node n's driver (opened unless told not).
struct FabricNodes {
  explicit FabricNodes(const model::FabricConfig& cfg, const NicOptions& base = {},
                       std::vector<bool> open = {})
      : fabric(cfg) {
    for (unsigned n = 0; n < fabric.size(); ++n) {
      devices.push_back(std::make_unique<model::ModelDevice>(
          fabric.nic(n), fabric.memory(n), [this] { fabric.step(); }, 1));
      nics.emplace_back();
      if (open.empty() || open.at(n)) {
        open_nic(n, base);
      }
    }
  }
  void open_nic(unsigned n, NicOptions o) {
    if (!o.clock) {
      o.clock = [this] { return std::chrono::nanoseconds(fabric.now()); };
    }
    if (o.poll_interval == NicOptions{}.poll_interval) {
      o.poll_interval = 8ns;
    }
    nics.at(n) = std::make_unique<Nic>(*devices.at(n), fabric.memory(n), o);
  }
  [[nodiscard]] unsigned size() const { return fabric.size(); }
  Nic& nic(unsigned n) { return *nics.at(n); }
  [[nodiscard]] std::vector<std::uint16_t> all_lids() const {
    std::vector<std::uint16_t> l;
    for (unsigned n = 0; n < fabric.size(); ++n) {
      l.push_back(model::Fabric::lid_of(n));
    }
    return l;
  }
  // Contexts `id` for every node, rank = node.
  std::vector<BarrierContext> open_all(unsigned id, unsigned fanout, SubmitPath path = {},
                                       WaitMode mode = {}) {
    std::vector<BarrierContext> c;
    for (unsigned n = 0; n < size(); ++n) {
      c.push_back(
          nic(n).open_context(ContextConfig{id, n, size(), fanout, all_lids(), path, mode}));
    }
    return c;
  }

  model::Fabric fabric;
  std::vector<std::unique_ptr<model::ModelDevice>> devices;
  std::vector<std::unique_ptr<Nic>> nics;  // destroyed before the devices
};

inline model::FabricConfig torus(unsigned x, unsigned y, unsigned z) {
  model::FabricConfig c;
  c.x = x;
  c.y = y;
  c.z = z;
  return c;
}

using syncfab::test::seeds;

inline std::string replay(std::uint64_t seed) {
  return "replay: " + syncfab::test::replay_command(seed);
}

// Runs f, expects an exception of type E whose message contains `text`.
template <typename E, typename F>
void expect_error(F&& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one containing \"" << text << "\"";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << "message \"" << e.what() << "\" does not contain \"" << text << "\"";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

}  // namespace syncfab::driver::test

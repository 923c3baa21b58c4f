// The golden network (model::Fabric: a 3D torus of NICs, fixed per-hop
// latency) as a SystemC module: one clock of the fabric per `period` of
// simulated time, run by timed events (an SC_METHOD that retriggers itself).
// Each golden-model NIC module's engine is built on that module's DMA port,
// so the engines' DMA goes over TLM into their hosts' memories. A verilated
// NIC (RtlNicModule) is a node of the same fabric (model::FabricEndpoint):
// with one or more of them the method runs at every rising edge of their
// sc_clock instead, and in each cycle samples every RTL NIC's pins, steps
// the fabric (the model NICs and the packets between all of them), then
// drives the RTL NICs' inputs for the next cycle.
//
// When the whole fabric is quiescent (no packet in flight, no engine with
// anything to do) the method sleeps instead of stepping idle cycles; a
// register access to any NIC first catches the fabric up to the access's
// time (Fabric::skip_to, what stepping would have done) and then wakes it,
// on the next clock edge. A run with skipping ends within a cycle of the
// run without it (an access and a clock edge at the same instant may come in
// either order when the method runs every cycle). With RTL NICs the fabric
// never sleeps: their clock runs anyway.
//
// While packets are in flight but every engine waits for one (doze), the
// method dozes until the edge at which the next packet is due, on a timed
// trigger, so that edge's tick runs in the first delta of its time as it
// does when the method runs every cycle; a register access meanwhile
// catches the fabric up to the edges up to and including its time, as
// stepping would have, and wakes the method for the next edge. The same
// cycles as stepping every one of them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <systemc>

#include <syncfab/model/fabric.hpp>

namespace syncfab::vp {

class ModelNicModule;
class NicModule;
class RtlNicModule;

class ModelNetwork final : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ModelNetwork);
  // nics[n] is node n (LID n + 1); their count must be cfg's torus's.
  // clock: the RTL NICs' (its period `period`), null when there are none.
  ModelNetwork(const sc_core::sc_module_name& name, const model::FabricConfig& cfg,
               std::span<NicModule* const> nics, const sc_core::sc_time& period, bool skip_idle,
               bool doze, sc_core::sc_clock* clock = nullptr);

  [[nodiscard]] model::Fabric& fabric() { return *fabric_; }
  [[nodiscard]] sc_core::sc_time period() const noexcept { return period_; }
  [[nodiscard]] std::uint64_t steps() const noexcept { return steps_; }
  [[nodiscard]] std::uint64_t skipped_cycles() const noexcept { return skipped_; }

  // Called by a NIC module around a register access.
  void before_access();
  void after_access();

 private:
  void tick();
  void clocked_tick();
  [[nodiscard]] std::uint64_t cycle_at(const sc_core::sc_time& t) const;
  void catch_up(std::uint64_t cycle);
  [[nodiscard]] bool engines_quiescent() const;

  std::unique_ptr<model::Fabric> fabric_;
  std::vector<ModelNicModule*> models_;
  std::vector<RtlNicModule*> rtls_;
  sc_core::sc_time period_;
  bool skip_idle_;
  bool doze_;
  bool sleeping_ = false;
  bool dozing_ = false;  // every engine quiescent, asleep until the next delivery
  sc_core::sc_event wake_;
  std::uint64_t steps_ = 0;
  std::uint64_t skipped_ = 0;
};

}  // namespace syncfab::vp

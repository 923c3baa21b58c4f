// A NIC honours the PFC frames its link brings (DESIGN §5c): once it took
// the last flit of a frame that pauses its traffic class (NET_CFG.TC, when
// PFC_CFG.ENABLE has that class) for q quanta in cycle t, it starts no packet
// in cycles t + 1 .. t + q x PFC_CFG.CYC_PER_QUANTUM; a frame with quanta 0
// ends a pause at once. The same rule the verilated NIC torus checks
// (nic_fabric.cpp), here against frames that switches send. A bulk host
// (bulk_host.hpp) honours each priority on its own: checked per priority,
// only its packets of that priority (`class_only`).
#pragma once

#include <cstdint>
#include <string>

#include "link.hpp"

namespace syncfab::tb::system {

class NicPauseCheck {
 public:
  // `port` is the NIC's port on `link`; tc, enable and cpq as its CSRs hold them.
  NicPauseCheck(std::string nic, const Link& link, const Port& port, unsigned tc, bool enabled,
                unsigned cycles_per_quantum, bool class_only = false);
  void set_cycles_per_quantum(unsigned cpq) { cpq_ = cpq; }
  // After the link sampled cycle `now`: throws TestFailure on a violation.
  void cycle(std::uint64_t now);
  [[nodiscard]] std::uint64_t pauses() const { return pauses_; }  // frames that paused the TC
  [[nodiscard]] std::uint64_t paused_cycles() const { return paused_cycles_; }

 private:
  std::string nic_;
  const Link& link_;
  const Port& port_;
  unsigned tc_;
  bool enabled_;
  unsigned cpq_;
  bool class_only_;                // only packets whose header prio is tc_ must wait
  std::uint64_t paused_from_ = 1;  // paused in cycles paused_from_ .. paused_to_
  std::uint64_t paused_to_ = 0;
  std::uint64_t pauses_ = 0;
  std::uint64_t paused_cycles_ = 0;
};

}  // namespace syncfab::tb::system

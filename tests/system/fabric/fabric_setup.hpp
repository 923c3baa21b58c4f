// What the system-fabric tests share: the 16-NIC fat tree, its routing
// (FTREE LFTs, FULB-MC trees of seeded random groups, programmed through the
// switches' drivers and read back), and the barrier scenario with its
// checks, on any mix of backends (SystemConfig::backend).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "barrier_run.hpp"
#include "nic_fabric_scenario.hpp"
#include "system_fabric.hpp"
#include "traffic_check.hpp"

namespace syncfab::tb::system {

inline constexpr std::uint32_t kRetryDelay = 16;
inline constexpr std::uint64_t kLimit = 200'000;  // cycles for one run of barriers

// 4 leaves with 4 NICs each and 4 spines of 8-port switches (fabric_setup.cpp).
sm::Fabric fat_tree_16();
// FTREE and FULB-MC trees (groups seeded by the test's seed) into every switch.
void route_and_program(TestContext& ctx, SystemFabric& sys);
void print_run(const std::string& name, const BarrierRun& run, const BarrierResult& r);
void print_totals(const TrafficTotals& t);
// A group's common-start latency printed and checked against its physical
// bound (barrier_bound.hpp): never faster than the wires allow.
void check_group_bound(const sm::Fabric& smf, const std::vector<sm::NodeId>& members,
                       unsigned delay, const BarrierResult& r);
// Appends one run's per-barrier records to `all` (for record()).
void append_result(BarrierResult& all, const BarrierResult& r);
// One barrier (k = 2) checked alone, then `barriers_default` in a row for
// each k = 1, 2, 3 (--param barriers=), with PFC at one cell when `pfc`;
// completion and traffic checks after each part.
TrafficTotals run_barriers_on(TestContext& ctx, const sm::Fabric& smf, bool pfc,
                              unsigned barriers_default, SystemConfig cfg = {});

}  // namespace syncfab::tb::system

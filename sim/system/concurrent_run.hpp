// Group barriers on many groups at once, back to back: every member of every
// group posts its next barrier on that group the moment it collected the
// previous one, so groups that share links and switches load each other (the
// concurrency study of docs/bench-collective.md). A NIC in several groups
// runs each on its own context; the hosts poll every few cycles and post
// through the HDQ. Posts made in one polling sweep reach their NICs in one
// cycle (doorbells held and released together, as common starts do), so
// the hosts' bus time on an RTL NIC does not serialise them.
//
// Checked on every barrier of every group: each member completes it once,
// status OK, epochs count up by one per barrier on the group's context, no
// member completes before the group's last member posted that barrier
// (safety), each completion within BarrierResult::bound of that post, the
// whole run within `limit` cycles.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "barrier_run.hpp"
#include "system_fabric.hpp"

namespace syncfab::tb::system {

struct ConcurrentGroup {
  GroupRun group;
  unsigned ctx = 0;  // the same at every member (the packets carry it)
};

struct ConcurrentRun {
  std::vector<ConcurrentGroup> groups;
  unsigned barriers = 10;  // back to back per group
  std::uint64_t limit = 2'000'000;
};

struct ConcurrentResult {
  // Per group, per barrier: the group's last completion - its last post.
  std::vector<std::vector<std::uint64_t>> latency;
  std::uint64_t cycles = 0;         // first post to last completion
  std::uint64_t bound = 0;          // liveness bound of one barrier after its last post
  std::uint64_t arrivals = 0;       // arrivals the members send (root NICs' aside)
  std::vector<std::uint64_t> post;  // per (group, barrier), flattened: last post
  std::vector<std::uint64_t> done;  // ... last completion
};

// Contexts for groups that share NICs: a greedy colouring of the groups by
// shared members, colour c -> context base + c. Throws std::invalid_argument
// when more than `count` contexts would be needed.
std::vector<unsigned> group_contexts(const std::vector<std::vector<unsigned>>& members,
                                     unsigned base, unsigned count);

// Throws TestFailure on any violation.
ConcurrentResult run_concurrent(SystemFabric& sys, const ConcurrentRun& run, std::mt19937_64& rng);

}  // namespace syncfab::tb::system

#pragma once
// The reference credit-loop checker (credit_loop_oracle.cpp).
#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/port_groups.hpp"

namespace syncfab::sm::test {

CreditLoopReport check_credit_loops_oracle(const Lft& lft, const VlAssignment& vls = {},
                                           bool all_switch_sources = false);

// With port groups: per destination a search over every member of every
// entry (but the arrival port of a group), through Fabric's lookups.
CreditLoopReport check_credit_loops_oracle(const Lft& lft, const PortGroups& groups,
                                           const VlAssignment& vls = {},
                                           bool all_switch_sources = false);

}  // namespace syncfab::sm::test

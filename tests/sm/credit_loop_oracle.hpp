#pragma once
// The reference credit-loop checker (credit_loop_oracle.cpp).
#include "syncfab/sm/credit_loop.hpp"

namespace syncfab::sm::test {

CreditLoopReport check_credit_loops_oracle(const Lft& lft, const VlAssignment& vls = {},
                                           bool all_switch_sources = false);

}  // namespace syncfab::sm::test

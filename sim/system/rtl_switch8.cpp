// RtlSwitch on vl_switch_top8.
#include <Vswitch_top.h>
#include <Vswitch_top___024root.h>
#include <Vswitch_top__inputs.hpp>

#include "rtl_switch_impl.hpp"

namespace syncfab::tb::system {

template class RtlSwitchPort<Vswitch_top>;
template class RtlSwitch<Vswitch_top>;

}  // namespace syncfab::tb::system

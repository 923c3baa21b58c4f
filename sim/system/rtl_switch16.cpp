// RtlSwitch on vl_switch_top16.
#include <Vswitch_top16.h>
#include <Vswitch_top16___024root.h>
#include <Vswitch_top16__inputs.hpp>

#include "rtl_switch_impl.hpp"

namespace syncfab::tb::system {

template class RtlSwitchPort<Vswitch_top16>;
template class RtlSwitch<Vswitch_top16>;

}  // namespace syncfab::tb::system

// Drives a few packet headers through the format probe so that a traced run
// shows the generated packed struct (pkt_hdr_t) field by field; check_waves.py
// then reads the FST back and looks for the fields by name.
#include <Vfmt_pkt_hdr_probe.h>

#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;

SYNCFAB_TEST(waves, pkt_hdr_struct) {
  auto& dut = ctx.make_dut<Vfmt_pkt_hdr_probe>();
  for (unsigned i = 0; i < 4; ++i) {
    // Flit words 0..3; dst_lid and src_lid sit in word 0 (see formats.md).
    dut.raw_i[0] = 0x00020001U + (i << 16);
    dut.raw_i[1] = 0x00000040U * i;
    dut.raw_i[2] = i;
    dut.raw_i[3] = 0;
    co_await Timer(10, Unit::ns);
    TB_CHECK(dut.pkt_type_o == 1U) << "probe decodes pkt_type from byte 0";
  }
}

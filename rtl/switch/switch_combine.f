// Sources of the switch_combine top (the combine unit; read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_pkg.sv  // switch_pkg's field widths
+incdir+.  // switch_types.svh
switch_pkg.sv
switch_combine.sv

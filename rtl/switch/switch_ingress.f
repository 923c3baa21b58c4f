// Sources of the switch_ingress top (one input port; read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f
-F ../common/sync_fifo.f  // sync_fifo.sv and +incdir+ for syncfab_assert.svh
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_pkg.sv  // switch_pkg's field widths
+incdir+.  // switch_types.svh
switch_pkg.sv
switch_ingress.sv

// Sources of the switch_ingress top (one input port; read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
../common/sync_fifo.sv
switch_ingress.sv

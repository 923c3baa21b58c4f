// Sources of the switch_tables top (LFT/MFT; read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
switch_tables.sv

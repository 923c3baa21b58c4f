// Sources of the wred_ecn top (read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f  // ecn_e
+incdir+../common  // syncfab_assert.svh
wred_ecn.sv

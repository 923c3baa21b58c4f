// Sources of the pfc_watchdog top (read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f  // wd_state_e
+incdir+../common  // syncfab_assert.svh
pfc_watchdog.sv

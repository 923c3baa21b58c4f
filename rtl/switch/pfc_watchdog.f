// Sources of the pfc_watchdog top (read by CMake, cocotb and scripts/lint.sh).
+incdir+../common  // syncfab_assert.svh
switch_pkg.sv      // wd_state_e
pfc_watchdog.sv

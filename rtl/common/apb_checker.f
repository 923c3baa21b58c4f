// Sources of the apb_checker top (read by CMake, cocotb and scripts/lint.sh).
+incdir+.  // syncfab_assert.svh
apb_checker.sv

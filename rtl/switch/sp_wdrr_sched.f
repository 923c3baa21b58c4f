// Sources of the sp_wdrr_sched top (read by CMake, cocotb and scripts/lint.sh).
+incdir+../common  // syncfab_assert.svh
sp_wdrr_sched.sv

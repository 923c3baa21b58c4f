// Sources of the wred_ecn top (read by CMake, cocotb and scripts/lint.sh).
-F ../common/lfsr.f  // lfsr.sv and +incdir+ for syncfab_assert.svh
switch_pkg.sv
wred_ecn.sv

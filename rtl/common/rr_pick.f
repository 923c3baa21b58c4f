// Sources of the rr_pick top (read by CMake, cocotb and scripts/lint.sh).
rr_pick.sv

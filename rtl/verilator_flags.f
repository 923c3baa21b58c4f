// The Verilator flags of every verilated model, read by CMake
// (syncfab_verilate), by scripts/lint.sh and by the cocotb runner, so that the
// build, lint and cocotb judge the same RTL by the same rules.
// One flag (with its value) per line; paths are relative to this folder.
-Wall
--assert
--x-assign unique
--x-initial unique
lint_waivers.vlt

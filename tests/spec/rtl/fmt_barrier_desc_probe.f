// Test-only probe top for the barrier_desc format (tests/spec, golden vectors).
-F ../../../rtl/spec/syncfab_fmt_pkg.f
fmt_barrier_desc_probe.sv

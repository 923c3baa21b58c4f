// Test-only probe top for the cq_entry format (tests/spec, golden vectors).
-F ../../../rtl/spec/syncfab_fmt_pkg.f
fmt_cq_entry_probe.sv

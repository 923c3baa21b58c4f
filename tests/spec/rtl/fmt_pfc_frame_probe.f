// Test-only probe top for the pfc_frame format (tests/spec, golden vectors).
-F ../../../rtl/spec/syncfab_fmt_pkg.f
fmt_pfc_frame_probe.sv

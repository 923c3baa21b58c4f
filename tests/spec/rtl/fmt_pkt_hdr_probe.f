// Test-only probe top for the pkt_hdr format (tests/spec, golden vectors).
-F ../../../rtl/spec/syncfab_fmt_pkg.f
fmt_pkt_hdr_probe.sv

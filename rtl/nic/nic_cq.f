// Sources of the nic_cq top (completion unit: completion write, CQ entry,
// interrupts, completion counters).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
../common/sync_fifo.sv
nic_cq.sv

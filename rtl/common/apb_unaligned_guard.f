// Sources of the apb_unaligned_guard top (read by scripts/lint.sh).
+incdir+.  // syncfab_assert.svh
apb_unaligned_guard.sv

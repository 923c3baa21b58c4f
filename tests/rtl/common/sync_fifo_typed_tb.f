// Test top of sync_fifo with a struct word type (tests/rtl/common/sync_fifo_test.cpp).
-F ../../../rtl/common/sync_fifo.f
sync_fifo_typed_tb.sv

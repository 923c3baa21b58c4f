// Synchronous FIFO with valid/ready on both sides and a synchronous clear.
//
// Registered output (no fall-through): a word written into an empty FIFO is
// readable the cycle after, so rdata_o comes straight from storage and no
// combinational path runs from the write side to the read side. For the same
// reason wready_o depends only on the count (and clr_i): when full, a write is
// refused even if a read frees a place in the same cycle (no read-to-write
// path either). Depth need not be a power of two; the pointers wrap explicitly.
//
// clr_i empties the FIFO at the next edge (a soft reset of the block around
// it). In the clear cycle both handshakes are off (wready_o = rvalid_o = 0),
// so a word offered then is refused rather than accepted and lost, and the
// head is not handed out; count_o still shows the count before the clear.
//
// T is the word type (a packed struct, or logic [W-1:0]); storage and ports
// carry it as is, so a struct crosses the FIFO with its field names.

`include "syncfab_assert.svh"

module sync_fifo #(
  parameter type          T     = logic [31:0],
  parameter int unsigned  Depth = 4,
  localparam int unsigned CntW  = $clog2(Depth + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            clr_i,     // synchronous clear
  // Write side.
  input  logic            wvalid_i,
  output logic            wready_o,  // = !full && !clr_i
  input  T                wdata_i,
  // Read side.
  output logic            rvalid_o,  // = !empty && !clr_i
  input  logic            rready_i,
  output T                rdata_o,   // head of the FIFO
  output logic [CntW-1:0] count_o
);

  `SF_STATIC_ASSERT(gen_depth_check, Depth >= 1)
  `SF_STATIC_ASSERT(gen_width_check, $bits(T) >= 1)

  // A one-entry FIFO still needs a 1-bit pointer to index its storage.
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;

  typedef logic [PtrW-1:0] ptr_t;
  typedef logic [CntW-1:0] cnt_t;

  localparam ptr_t LastPtr = ptr_t'(Depth - 1);
  localparam cnt_t FullCnt = cnt_t'(Depth);

  T mem_q[Depth];
  ptr_t wptr_q, wptr_d, rptr_q, rptr_d;
  cnt_t count_q, count_d;
  logic push, pop;

  assign wready_o = (count_q != FullCnt) && !clr_i;
  assign rvalid_o = (count_q != '0) && !clr_i;
  assign push     = wvalid_i && wready_o;
  assign pop      = rvalid_o && rready_i;
  assign rdata_o  = mem_q[rptr_q];
  assign count_o  = count_q;

  function automatic ptr_t ptr_inc(ptr_t p);
    return (p == LastPtr) ? '0 : p + ptr_t'(1);
  endfunction

  always_comb begin
    wptr_d  = push ? ptr_inc(wptr_q) : wptr_q;
    rptr_d  = pop ? ptr_inc(rptr_q) : rptr_q;
    count_d = count_q;
    unique case ({
      push, pop
    })
      2'b10:   count_d = count_q + cnt_t'(1);
      2'b01:   count_d = count_q - cnt_t'(1);
      default: count_d = count_q;  // none, or both (count unchanged)
    endcase
    if (clr_i) begin
      wptr_d  = '0;
      rptr_d  = '0;
      count_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      count_q <= '0;
    end else begin
      wptr_q  <= wptr_d;
      rptr_q  <= rptr_d;
      count_q <= count_d;
    end
  end

  // Storage needs no reset (nor clear): a word is only read after it was
  // written.
  always_ff @(posedge clk_i) begin
    if (push) begin
      mem_q[wptr_q] <= wdata_i;
    end
  end

  // ---------------------------------------------------------------------------
  // Rules (immediate form: the FIFO sits in blocks that must simulate fast)
  // ---------------------------------------------------------------------------
  // Ranges that the widths do not already bound (the comparisons would be
  // constant, which -Wall reports).
  if ((Depth + 1) != (1 << CntW)) begin : gen_count_range
    `SF_ASSERT_IMM(a_count_in_range, count_q <= FullCnt)
  end
  if (Depth != (1 << PtrW)) begin : gen_ptr_range
    `SF_ASSERT_IMM(a_wptr_in_range, wptr_q <= LastPtr)
    `SF_ASSERT_IMM(a_rptr_in_range, rptr_q <= LastPtr)
  end
  // The pointers are redundant with the count; they must agree.
  // verilog_format: off
  `SF_ASSERT_IMM(a_ptrs_match_count,
                 (count_q == '0 || count_q == FullCnt) == (wptr_q == rptr_q))
  `SF_ASSERT_IMM_IMP(a_count_step, !clr_i,
                     count_d == count_q + cnt_t'(push) - cnt_t'(pop))
  // A full FIFO accepts no write, and its write side stays where it is.
  `SF_ASSERT_IMM_IMP(a_no_write_when_full, count_q == FullCnt, !push)
  `SF_ASSERT_IMM_IMP(a_full_keeps_wptr, count_q == FullCnt && !clr_i, wptr_d == wptr_q)
  // An empty FIFO hands out nothing.
  `SF_ASSERT_IMM_IMP(a_no_read_when_empty, count_q == '0, !pop)
  // A clear takes no word in or out and leaves the FIFO empty.
  `SF_ASSERT_IMM_IMP(a_clear_no_handshake, clr_i, !push && !pop)
  `SF_ASSERT_IMM_NXT(a_clear_empties, clr_i, count_q == '0 && wptr_q == rptr_q)
  `SF_ASSERT_IMM_IMP(a_wdata_known, push, !$isunknown(wdata_i))
  // verilog_format: on

endmodule

// Synchronous FIFO with valid/ready on both sides.
//
// Registered output (no fall-through): a word written into an empty FIFO is
// readable the cycle after, so rdata_o comes straight from storage and no
// combinational path runs from the write side to the read side. For the same
// reason wready_o depends only on the count: when full, a write is refused even
// if a read frees a place in the same cycle (no read-to-write path either).
// Depth need not be a power of two; the pointers wrap explicitly.

`include "syncfab_assert.svh"

module sync_fifo #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 4
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // Write side.
  input  logic                       wvalid_i,
  output logic                       wready_o,  // = !full
  input  logic [Width-1:0]           wdata_i,
  // Read side.
  output logic                       rvalid_o,  // = !empty
  input  logic                       rready_i,
  output logic [Width-1:0]           rdata_o,   // head of the FIFO
  output logic [$clog2(Depth+1)-1:0] count_o
);

  `SF_STATIC_ASSERT(gen_depth_check, Depth >= 1)
  `SF_STATIC_ASSERT(gen_width_check, Width >= 1)

  // A one-entry FIFO still needs a 1-bit pointer to index its storage.
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CntW = $clog2(Depth + 1);

  typedef logic [PtrW-1:0] ptr_t;
  typedef logic [CntW-1:0] cnt_t;

  localparam ptr_t LastPtr = ptr_t'(Depth - 1);
  localparam cnt_t FullCnt = cnt_t'(Depth);

  logic [Width-1:0] mem_q[Depth];
  ptr_t wptr_q, wptr_d, rptr_q, rptr_d;
  cnt_t count_q, count_d;
  logic push, pop;

  assign wready_o = (count_q != FullCnt);
  assign rvalid_o = (count_q != '0);
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
    unique case ({push, pop})
      2'b10:   count_d = count_q + cnt_t'(1);
      2'b01:   count_d = count_q - cnt_t'(1);
      default: count_d = count_q;  // none, or both (count unchanged)
    endcase
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

  // Storage needs no reset: a word is only read after it was written.
  always_ff @(posedge clk_i) begin
    if (push) begin
      mem_q[wptr_q] <= wdata_i;
    end
  end

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
  `SF_ASSERT(a_count_in_range, count_q <= FullCnt)
  `SF_ASSERT(a_wptr_in_range, wptr_q <= LastPtr)
  `SF_ASSERT(a_rptr_in_range, rptr_q <= LastPtr)
  // The pointers are redundant with the count; they must agree.
  `SF_ASSERT(a_ptrs_match_count,
             (count_q == '0 || count_q == FullCnt) == (wptr_q == rptr_q))
  `SF_ASSERT(a_count_step,
             1'b1 |=> count_q == $past(count_q) + cnt_t'($past(push)) - cnt_t'($past(pop)))
  // A refused write must leave the FIFO as it was on the write side.
  `SF_ASSERT(a_no_write_when_full, !wready_o |=> wptr_q == $past(wptr_q))
  `SF_ASSERT(a_wdata_known, push |-> !$isunknown(wdata_i))

endmodule

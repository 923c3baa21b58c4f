// Galois LFSR, right-shifting, maximal length (period 2**Width - 1).
//
// Galois form rather than Fibonacci: each tap is one XOR on a shift path, so
// the next state is a single gate level at any width. The toggle masks are the
// project's maximal-length table (the C++ reference uses the same one, so both
// produce the same sequence); each was checked maximal by computing the order
// of the step matrix over GF(2): exactly 2**Width - 1.
//
// The all-zero state is the LFSR's lock-up state: it maps to itself. Reset and
// reseeding therefore never load zero; a zero seed_i loads Seed instead, so no
// input can stall the generator.

`include "syncfab_assert.svh"

module lfsr #(
  parameter int unsigned     Width = 16,
  parameter logic [Width-1:0] Seed = 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             en_i,          // step once this cycle
  input  logic             seed_valid_i,  // load seed_i (wins over en_i)
  input  logic [Width-1:0] seed_i,
  output logic [Width-1:0] state_o
);

  if (Width < 3 || Width > 32) begin : gen_bad_width
    $error("lfsr: Width = %0d is outside the supported 3..32", Width);
  end
  `SF_STATIC_ASSERT(gen_seed_nonzero, Seed != '0)

  // Maximal-length toggle masks, indexed by width.
  function automatic logic [31:0] toggle_mask(int unsigned w);
    unique case (w)
      3:       return 32'h0000_0006;
      4:       return 32'h0000_000C;
      5:       return 32'h0000_0014;
      6:       return 32'h0000_0030;
      7:       return 32'h0000_0060;
      8:       return 32'h0000_00B8;
      9:       return 32'h0000_0110;
      10:      return 32'h0000_0240;
      11:      return 32'h0000_0500;
      12:      return 32'h0000_0829;
      13:      return 32'h0000_100D;
      14:      return 32'h0000_2015;
      15:      return 32'h0000_6000;
      16:      return 32'h0000_D008;
      17:      return 32'h0001_2000;
      18:      return 32'h0002_0400;
      19:      return 32'h0004_0023;
      20:      return 32'h0009_0000;
      21:      return 32'h0014_0000;
      22:      return 32'h0030_0000;
      23:      return 32'h0042_0000;
      24:      return 32'h00E1_0000;
      25:      return 32'h0120_0000;
      26:      return 32'h0200_0023;
      27:      return 32'h0400_0013;
      28:      return 32'h0900_0000;
      29:      return 32'h1400_0000;
      30:      return 32'h2000_0029;
      31:      return 32'h4800_0000;
      32:      return 32'h8020_0003;
      default: return 32'h0;  // rejected by gen_bad_width above
    endcase
  endfunction

  typedef logic [Width-1:0] state_t;

  localparam logic [31:0] Mask32 = toggle_mask(Width);
  localparam state_t Mask = state_t'(Mask32);  // keep the low Width bits

  state_t state_q, state_d, stepped;

  assign stepped = (state_q >> 1) ^ (state_q[0] ? Mask : '0);

  always_comb begin
    state_d = state_q;
    if (seed_valid_i) begin
      state_d = (seed_i == '0) ? Seed : seed_i;
    end else if (en_i) begin
      state_d = stepped;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= Seed;
    end else begin
      state_q <= state_d;
    end
  end

  assign state_o = state_q;

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
  `SF_ASSERT_NEVER(a_never_locked_up, state_q == '0)
  `SF_ASSERT(a_holds_when_idle, !seed_valid_i && !en_i |=> $stable(state_q))
  `SF_ASSERT(a_seed_loads, seed_valid_i && seed_i != '0 |=> state_q == $past(seed_i))

endmodule

// Counters of the switch: port x priority x 16 kinds (switch_csr.rdl,
// CNT_SEL), 32 bits, saturating, all cleared by CTRL.CNT_CLEAR. Every event
// source raises at most one increment per (port, priority, kind) per cycle,
// so an event vector is all this block needs. CNT_VALUE shows the counter
// CNT_SEL names (0 for a port outside the switch).

`include "syncfab_assert.svh"

module switch_counters #(
  parameter int unsigned NumPorts = 8
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  input  logic                                clear_i,
  input  logic [NumPorts-1:0][7:0][15:0]      inc_i,    // [port][prio][kind]
  input  logic [7:0]                          sel_port_i,
  input  logic [2:0]                          sel_prio_i,
  input  logic [3:0]                          sel_kind_i,
  output logic [31:0]                         value_o
);

  `SF_STATIC_ASSERT(gen_ports_check, NumPorts >= 2 && NumPorts <= 8)

  localparam int unsigned NumCnt = NumPorts * 8 * 16;
  localparam int unsigned PortW = $clog2(NumPorts);
  logic [31:0] cnt_q [NumCnt];
  logic [31:0] cnt_d [NumCnt];
  logic [NumCnt-1:0] inc_flat;
  assign inc_flat = inc_i;

  always_comb begin
    for (int k = 0; k < NumCnt; k++) begin
      if (clear_i) cnt_d[k] = '0;
      else if (inc_flat[k] && cnt_q[k] != '1) cnt_d[k] = cnt_q[k] + 32'd1;
      else cnt_d[k] = cnt_q[k];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '{default: '0};
    else cnt_q <= cnt_d;
  end

  always_comb begin
    value_o = '0;
    if (32'(sel_port_i) < NumPorts) begin
      value_o = cnt_q[{sel_port_i[PortW-1:0], sel_prio_i, sel_kind_i}];
    end
  end

  `SF_ASSERT_KNOWN(a_inc_known, inc_i)

  logic unused_counters;
  assign unused_counters = ^{sel_port_i[7:PortW]};

endmodule

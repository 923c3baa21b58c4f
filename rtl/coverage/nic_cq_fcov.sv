// Functional cover points of the completion unit (nic_cq): every completion
// status and every error code (syncfab_fmt_pkg's cq_status_e and err_code_e,
// from rtl/spec/formats.toml) reaches a posted completion. One point per enum
// member, named c_cq_status_<member> / c_cq_err_<member>;
// scripts/coverage/report.py fails when a member has no point. Bound into
// nic_cq by the coverage tree only (docs/coverage.md).

`include "syncfab_assert.svh"

module nic_cq_fcov
  import syncfab_fmt_pkg::*;
(
  input logic       clk_i,
  input logic       rst_ni,
  input logic       finish_i,     // a completion is posted this cycle
  input cq_status_e status_i,     // its status
  input err_code_e  err_code_i,   // its error code
  input logic       dma_err_i     // the completion write itself was refused
);

  logic s_ok, s_desc, s_net;
  assign s_ok   = finish_i && status_i == CqOk;
  assign s_desc = finish_i && status_i == CqDescError;
  assign s_net  = finish_i && status_i == CqNetError;

  `SF_COVER(c_cq_status_ok, s_ok)
  `SF_COVER(c_cq_status_desc_error, s_desc)
  `SF_COVER(c_cq_status_net_error, s_net)

  `SF_COVER(c_cq_err_none, finish_i && err_code_i == ErrNone)
  `SF_COVER(c_cq_err_bad_opcode, finish_i && err_code_i == ErrBadOpcode)
  `SF_COVER(c_cq_err_bad_version, finish_i && err_code_i == ErrBadVersion)
  `SF_COVER(c_cq_err_bad_rounds, finish_i && err_code_i == ErrBadRounds)
  `SF_COVER(c_cq_err_bad_fanout, finish_i && err_code_i == ErrBadFanout)
  `SF_COVER(c_cq_err_bad_addr, finish_i && err_code_i == ErrBadAddr)
  `SF_COVER(c_cq_err_bad_context, finish_i && err_code_i == ErrBadContext)
  `SF_COVER(c_cq_err_bad_lid, finish_i && err_code_i == ErrBadLid)
  `SF_COVER(c_cq_err_ctx_busy, finish_i && err_code_i == ErrCtxBusy)
  `SF_COVER(c_cq_err_retry_limit, finish_i && err_code_i == ErrRetryLimit)
  `SF_COVER(c_cq_err_dma_error, finish_i && err_code_i == ErrDmaError)
  `SF_COVER(c_cq_err_bad_members, finish_i && err_code_i == ErrBadMembers)
  `SF_COVER(c_cq_err_release_timeout, finish_i && err_code_i == ErrReleaseTimeout)

  // DMA_ERROR from the completion write, beside the one from the descriptor
  // fetch (which arrives as OF's record).
  `SF_COVER(c_cq_write_dma_error, finish_i && dma_err_i)

endmodule : nic_cq_fcov

bind nic_cq nic_cq_fcov u_fcov (
  .clk_i,
  .rst_ni,
  .finish_i  (finish),
  .status_i  (cur_q.rec.status),
  .err_code_i(cur_q.rec.err_code),
  .dma_err_i (dma_err_q)
);

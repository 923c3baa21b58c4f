// Test-only probe: casts a raw completion-queue entry to syncfab_fmt_pkg::cq_entry_t
// and brings every field out.
module fmt_cq_entry_probe
  import syncfab_fmt_pkg::*;
(
  input  logic [CQ_ENTRY_BITS-1:0] raw_i,
  output logic [CTX_WIDTH-1:0]     ctx_o,
  output logic [7:0]               status_o,
  output logic [7:0]               err_code_o,
  output logic [EPOCH_WIDTH-1:0]   epoch_o,
  output logic                     phase_o,
  // {NET_ERROR, DESC_ERROR, OK}
  output logic [2:0]               status_is_o,
  // {DMA_ERROR, RETRY_LIMIT, CTX_BUSY, BAD_LID, BAD_CONTEXT, BAD_ADDR, BAD_FANOUT,
  //  BAD_ROUNDS, BAD_VERSION, BAD_OPCODE, NONE}
  output logic [10:0]              err_code_is_o
);
  cq_entry_t cqe;
  assign cqe = cq_entry_t'(raw_i);

  assign ctx_o      = cqe.ctx;
  assign status_o   = cqe.status;
  assign err_code_o = cqe.err_code;
  assign epoch_o    = cqe.epoch;
  assign phase_o    = cqe.phase;

  assign status_is_o = {cqe.status == CqNetError, cqe.status == CqDescError,
                        cqe.status == CqOk};
  assign err_code_is_o = {cqe.err_code == ErrDmaError,   cqe.err_code == ErrRetryLimit,
                          cqe.err_code == ErrCtxBusy,    cqe.err_code == ErrBadLid,
                          cqe.err_code == ErrBadContext, cqe.err_code == ErrBadAddr,
                          cqe.err_code == ErrBadFanout,  cqe.err_code == ErrBadRounds,
                          cqe.err_code == ErrBadVersion, cqe.err_code == ErrBadOpcode,
                          cqe.err_code == ErrNone};

  logic unused_cqe;
  assign unused_cqe = ^cqe;
endmodule

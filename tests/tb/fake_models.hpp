// Plain C++ stand-ins for verilated models: pins are public members, eval()
// detects the clock's rising edge from the previous call like Verilator does.
#pragma once

#include <cstdint>
#include <deque>
#include <map>

namespace syncfab::tb::test {

// A register q <= d, an edge counter, and combinational outputs of d and q.
struct FakeFlop {
  std::uint8_t clk = 0;
  std::uint32_t d = 0;
  std::uint32_t q = 0;          // flop
  std::uint32_t edges = 0;      // rising edges seen by eval
  std::uint32_t d_times_2 = 0;  // combinational from an input
  std::uint32_t q_plus_1 = 0;   // combinational from the flop
  std::uint32_t evals = 0;

  void eval() {
    ++evals;
    if (clk != 0 && prev_clk_ == 0) {
      q = d;
      ++edges;
    }
    prev_clk_ = clk;
    d_times_2 = d * 2;
    q_plus_1 = q + 1;
  }

 private:
  std::uint8_t prev_clk_ = 0;
};

// A valid/ready FIFO with `Depth` entries (ready = not full, valid = not
// empty, data = head), no fall-through.
struct FakeFifo {
  static constexpr std::size_t kDepth = 2;
  std::uint8_t clk = 0;
  std::uint8_t in_valid = 0;
  std::uint32_t in_data = 0;
  std::uint8_t in_ready = 0;
  std::uint8_t out_valid = 0;
  std::uint32_t out_data = 0;
  std::uint8_t out_ready = 0;

  void eval() {
    if (clk != 0 && prev_clk_ == 0) {
      const bool push = in_valid != 0 && in_ready != 0;
      const bool pop = out_valid != 0 && out_ready != 0;
      if (pop) {
        q_.pop_front();
      }
      if (push) {
        q_.push_back(in_data);
      }
    }
    prev_clk_ = clk;
    in_ready = q_.size() < kDepth ? 1 : 0;
    out_valid = q_.empty() ? 0 : 1;
    out_data = q_.empty() ? 0xDEADBEEF : q_.front();
  }

 private:
  std::uint8_t prev_clk_ = 0;
  std::deque<std::uint32_t> q_;
};

// APB completer: registers at 0x0..0xC, PSLVERR above, `wait_states` cycles
// of PREADY low in every access phase.
struct FakeApb {
  std::uint8_t clk = 0;
  std::uint8_t psel = 0;
  std::uint8_t penable = 0;
  std::uint8_t pwrite = 0;
  std::uint32_t paddr = 0;
  std::uint32_t pwdata = 0;
  std::uint8_t pstrb = 0;
  std::uint32_t prdata = 0;
  std::uint8_t pready = 0;
  std::uint8_t pslverr = 0;
  std::uint32_t wait_states = 0;
  std::map<std::uint32_t, std::uint32_t> regs;
  std::uint32_t protocol_errors = 0;  // PENABLE without a setup cycle

  void eval() {
    if (clk != 0 && prev_clk_ == 0) {
      if (psel != 0 && penable == 0) {
        waited_ = 0;
        setup_seen_ = true;
      } else if (psel != 0 && penable != 0) {
        if (!setup_seen_) {
          ++protocol_errors;
        }
        if (pready != 0) {
          if (pwrite != 0 && paddr < 0x10) {
            std::uint32_t v = regs[paddr];
            for (int b = 0; b < 4; ++b) {
              if ((pstrb >> b) & 1U) {
                v = (v & ~(0xFFU << (8 * b))) | (pwdata & (0xFFU << (8 * b)));
              }
            }
            regs[paddr] = v;
          }
          setup_seen_ = false;
        } else {
          ++waited_;
        }
      }
    }
    prev_clk_ = clk;
    const bool access = psel != 0 && penable != 0;
    pready = access && waited_ >= wait_states ? 1 : 0;
    pslverr = access && paddr >= 0x10 ? 1 : 0;
    prdata = access && pwrite == 0 && paddr < 0x10 ? regs[paddr] : 0;
  }

 private:
  std::uint8_t prev_clk_ = 0;
  std::uint32_t waited_ = 0;
  bool setup_seen_ = false;
};

}  // namespace syncfab::tb::test

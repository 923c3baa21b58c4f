// What the bare eval loops share: their common options, the step from the
// (untimed) bring-up to the timed loop, and main's error report.
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

namespace syncfab::sim::bench {

struct BareOptions {
  std::uint64_t cycles = 0;
  std::string trace;  // FST of the timed loop; empty: no tracing
  bool no_assert = false;
};

inline void add_bare_options(CLI::App& app, BareOptions& opts) {
  app.add_option("--cycles", opts.cycles, "simulated cycles timed")->check(CLI::PositiveNumber);
  app.add_option("--trace", opts.trace, "write an FST of the timed loop to this file");
  app.add_flag("--no-assert", opts.no_assert, "switch the RTL's assertions off for the timed loop");
}

// After bring-up: the trace opened if asked for (the context must have had
// traceEverOn before the model was made), assertions as asked, and the APB
// pins idle (the APB master leaves its last access on them).
template <class Model>
std::unique_ptr<VerilatedFstC> start_timed_loop(VerilatedContext& vc, Model& dut,
                                                const BareOptions& opts) {
  std::unique_ptr<VerilatedFstC> fst;
  if (!opts.trace.empty()) {
    fst = std::make_unique<VerilatedFstC>();
    dut.trace(fst.get(), 99);
    fst->open(opts.trace.c_str());
  }
  vc.assertOn(!opts.no_assert);
  dut.psel_i = 0;
  dut.penable_i = 0;
  return fst;
}

// main() of a bench: an exception is reported under the bench's name.
inline int guarded_main(std::string_view name, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cout << std::flush;
    std::cerr << name << ": FAILED: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace syncfab::sim::bench

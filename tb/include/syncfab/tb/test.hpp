// Test registration and the per-test context (seed, random generator, knobs,
// simulator, verilated models and their waveforms).
//
//   SYNCFAB_TEST(fifo, random) {
//     auto& dut = ctx.make_dut<Vsync_fifo>();
//     auto& clk = ctx.sim().add_clock("clk", dut.clk_i, 10'000);
//     const auto ops = ctx.param("ops", 10'000);
//     ...
//     co_await ClockCycles(clk, 10);
//   }
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "syncfab/tb/idle_skip.hpp"
#include "syncfab/tb/sim.hpp"
#include "syncfab/tb/speed.hpp"
#include "syncfab/tb/task.hpp"

class VerilatedContext;
class VerilatedFstC;

namespace syncfab::tb {

class TestContext;
using TestFn = Task<> (*)(TestContext&);

struct TestInfo {
  std::string suite;
  std::string name;
  std::string file;
  int line = 0;
  TestFn fn = nullptr;
  [[nodiscard]] std::string full_name() const { return suite + "." + name; }
};

class Registry {
 public:
  static Registry& instance();
  void add(TestInfo info);
  [[nodiscard]] const std::vector<TestInfo>& tests() const noexcept { return tests_; }
  // Registration problems (duplicate names) found before main() ran.
  [[nodiscard]] const std::vector<std::string>& errors() const noexcept { return errors_; }

 private:
  std::vector<TestInfo> tests_;
  std::vector<std::string> errors_;
};

namespace detail {
struct Registrar {
  Registrar(const char* suite, const char* name, const char* file, int line, TestFn fn);
};

// Type-erased owner of one verilated model.
struct DutBase {
  DutBase() = default;
  DutBase(const DutBase&) = delete;
  DutBase& operator=(const DutBase&) = delete;
  DutBase(DutBase&&) = delete;
  DutBase& operator=(DutBase&&) = delete;
  virtual ~DutBase() = default;
  virtual void final() = 0;
  std::unique_ptr<IdleSkipBase> idle_skip;  // set by TestContext::skip_when_idle
  std::string inst;                         // its instance name
};
}  // namespace detail

// What the command line says for every test of this run.
struct RunOptions {
  std::map<std::string, std::int64_t, std::less<>> params;  // --param k=v
  std::set<std::string, std::less<>> used_params;           // filled by TestContext::param
  bool trace = false;                                       // +trace or WAVES=1
  std::filesystem::path waves_dir;
  // With trace: the models (by instance name) that join the FST; null: every
  // one. Tracing a model costs its whole signal set at every step, so a
  // fabric of many models traces a few; the others keep idle skipping.
  std::function<bool(std::string_view inst)> trace_only;
  std::vector<std::string> plusargs;  // passed to every VerilatedContext
  bool quiet = false;
  bool bench = false;  // --bench: time every eval (speed_by_model) and print a speed line
};

class TestContext {
 public:
  TestContext(const TestInfo& info, std::uint64_t seed, RunOptions& opts);
  ~TestContext();
  TestContext(const TestContext&) = delete;
  TestContext& operator=(const TestContext&) = delete;
  TestContext(TestContext&&) = delete;
  TestContext& operator=(TestContext&&) = delete;

  [[nodiscard]] const TestInfo& info() const noexcept { return *info_; }
  [[nodiscard]] std::string full_name() const { return info_->full_name(); }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  std::mt19937_64& rng() noexcept { return rng_; }
  Sim& sim() noexcept { return *sim_; }

  // Integer knob: `--param name=value` overrides `def`. The value used is
  // printed once per test so the log says what ran.
  std::int64_t param(std::string_view name, std::int64_t def);

  [[nodiscard]] bool tracing() const noexcept { return opts_->trace; }
  // Tracing on and the model `inst` joins the FST (RunOptions::trace_only).
  [[nodiscard]] bool traced(std::string_view inst) const;
  // Where this test's waveform goes (whether or not tracing is on).
  [[nodiscard]] std::filesystem::path wave_path() const;
  [[nodiscard]] const std::vector<std::filesystem::path>& wave_files() const noexcept {
    return wave_files_;
  }

  // Creates a verilated model in this test's VerilatedContext, registers its
  // eval with the simulator and, when tracing, adds it to the FST. An RTL
  // $error, failed assertion or $finish fails the test at the next eval.
  template <class Model>
  Model& make_dut(std::string_view name = "dut");

  // Skips the evals of `model` (made by make_dut, clocked by `clk` on its
  // clk_i) while it sits at a fixed point with unchanged inputs
  // (syncfab/tb/idle_skip.hpp); include the model's V<top>__inputs.hpp.
  // Returns false, and skips nothing, while the model is traced: a waveform shows every
  // edge. Results are identical either way (tests/system/nic checks a fabric).
  template <class Model>
  bool skip_when_idle(Model& model, const Clock& clk);

  // --bench accounting: instances, evals and time inside eval() per model class.
  [[nodiscard]] const SpeedByModel& speed_by_model() const noexcept { return speed_; }

  // End of test: stops the remaining tasks, calls final() on every model
  // (which may still report an RTL error) and closes the waveforms.
  // Idempotent; the runner calls it, tests need not.
  void finish();

 private:
  struct Trace;
  VerilatedContext& verilated();
  // Saves the coverage counts of this test's models (coverage tree only).
  void write_coverage();
  std::string unique_dut_name(std::string_view name);
  void add_dut(std::unique_ptr<detail::DutBase> dut, const std::function<void()>& eval,
               const std::function<void(VerilatedFstC*)>& attach_trace, const std::string& inst,
               std::string_view model_name);
  void check_rtl_errors();
  void enable_idle_skip(detail::DutBase& dut, std::unique_ptr<IdleSkipBase> skip);
  void dump(SimTime now);
  [[nodiscard]] std::uint64_t to_vtime(SimTime ps) const;

  const TestInfo* info_;
  std::uint64_t seed_;
  RunOptions* opts_;
  std::mt19937_64 rng_;
  std::set<std::string, std::less<>> printed_params_;
  std::set<std::string, std::less<>> dut_names_;
  std::vector<std::filesystem::path> wave_files_;
  SpeedByModel speed_;
  bool rtl_error_reported_ = false;
  bool finished_ = false;
  // Destruction order matters: tasks (in sim_) refer to models, the FST refers
  // to models, models refer to the VerilatedContext.
  std::unique_ptr<VerilatedContext> vctx_;
  std::vector<std::unique_ptr<detail::DutBase>> duts_;
  bool idle_hook_ = false;
  std::vector<std::unique_ptr<Trace>> traces_;
  std::unique_ptr<Sim> sim_;
};

namespace detail {
template <class Model>
struct Dut final : DutBase {
  Dut(VerilatedContext* c, const char* name) : model(c, name) {}
  void final() override { model.final(); }
  Model model;
};
}  // namespace detail

template <class Model>
Model& TestContext::make_dut(std::string_view name) {
  VerilatedContext& vc = verilated();
  const std::string inst = unique_dut_name(name);
  auto dut = std::make_unique<detail::Dut<Model>>(&vc, inst.c_str());
  Model& m = dut->model;
  add_dut(
      std::move(dut), [&m] { m.eval(); }, [&m](VerilatedFstC* fst) { m.trace(fst, 99); }, inst,
      m.modelName());
  return m;
}

template <class Model>
bool TestContext::skip_when_idle(Model& model, const Clock& clk) {
  for (auto& d : duts_) {
    auto* dut = dynamic_cast<detail::Dut<Model>*>(d.get());
    if (dut != nullptr && &dut->model == &model) {
      if (traced(dut->inst)) {
        return false;
      }
      enable_idle_skip(*dut, std::make_unique<IdleSkip<Model>>(model, clk));
      return true;
    }
  }
  throw std::logic_error("skip_when_idle: the model was not made by this test's make_dut");
}

}  // namespace syncfab::tb

#define SYNCFAB_TB_TEST_FN_(suite, name) syncfab_tb_test_##suite##__##name
#define SYNCFAB_TB_TEST_REG_(suite, name) syncfab_tb_registrar_##suite##__##name

// Defines and registers a test: the body is a coroutine with `ctx`
// (TestContext&) in scope. The test's name is `suite.name`.
#define SYNCFAB_TEST(suite, name)                                                             \
  static ::syncfab::tb::Task<> SYNCFAB_TB_TEST_FN_(suite, name)(::syncfab::tb::TestContext&); \
  static const ::syncfab::tb::detail::Registrar SYNCFAB_TB_TEST_REG_(suite, name)(            \
      #suite, #name, __FILE__, __LINE__, &SYNCFAB_TB_TEST_FN_(suite, name));                  \
  static ::syncfab::tb::Task<> SYNCFAB_TB_TEST_FN_(                                           \
      suite, name)([[maybe_unused]] ::syncfab::tb::TestContext & ctx)

#include <verilated.h>
#include <verilated_fst_c.h>
#ifdef SYNCFAB_TB_COVERAGE_DIR
#include <verilated_cov.h>

#include <cstdlib>
#endif

#include <iostream>
#include <stdexcept>
#include <utility>

#include "syncfab/tb/check.hpp"
#include "syncfab/tb/test.hpp"

namespace syncfab::tb {

struct TestContext::Trace {
  std::unique_ptr<VerilatedFstC> fst = std::make_unique<VerilatedFstC>();
  std::filesystem::path path;
  bool opened = false;
  bool dumped = false;
  std::uint64_t last = 0;
};

Registry& Registry::instance() {
  static Registry r;
  return r;
}

void Registry::add(TestInfo info) {
  for (const auto& t : tests_) {
    if (t.suite == info.suite && t.name == info.name) {
      errors_.push_back("test " + info.full_name() + " is defined twice: " + t.file + ":" +
                        std::to_string(t.line) + " and " + info.file + ":" +
                        std::to_string(info.line));
      return;
    }
  }
  tests_.push_back(std::move(info));
}

detail::Registrar::Registrar(const char* suite, const char* name, const char* file, int line,
                             TestFn fn) {
  Registry::instance().add(TestInfo{suite, name, file, line, fn});
}

TestContext::TestContext(const TestInfo& info, std::uint64_t seed, RunOptions& opts)
    : info_(&info), seed_(seed), opts_(&opts), rng_(seed), sim_(std::make_unique<Sim>()) {}

TestContext::~TestContext() {
  sim_.reset();
  for (auto& t : traces_) {
    if (t->opened) {
      t->fst->close();
    }
  }
  traces_.clear();
  duts_.clear();
  vctx_.reset();
}

std::int64_t TestContext::param(std::string_view name, std::int64_t def) {
  auto it = opts_->params.find(name);
  const bool overridden = it != opts_->params.end();
  const std::int64_t v = overridden ? it->second : def;
  opts_->used_params.emplace(name);
  if (!opts_->quiet && printed_params_.emplace(name).second) {
    std::cout << "  param " << name << " = " << v << (overridden ? " (--param)" : " (default)")
              << "\n";
  }
  return v;
}

std::filesystem::path TestContext::wave_path() const {
  return opts_->waves_dir / (full_name() + "-seed" + std::to_string(seed_) + ".fst");
}

VerilatedContext& TestContext::verilated() {
  if (!vctx_) {
    vctx_ = std::make_unique<VerilatedContext>();
    // Report $error / assertion failures as a flag we turn into a test
    // failure, instead of Verilator's default abort().
    vctx_->fatalOnError(false);
    // Registers without a reset start from values derived from the seed, so
    // a missing reset shows up as a seed-dependent failure.
    vctx_->randReset(2);
    vctx_->randSeed(static_cast<int>((seed_ * 0x9E3779B97F4A7C15ULL >> 33) | 1U));
    if (opts_->trace) {
      vctx_->traceEverOn(true);
    }
    if (!opts_->plusargs.empty()) {
      std::vector<const char*> argv;
      argv.reserve(opts_->plusargs.size());
      for (const auto& a : opts_->plusargs) {
        argv.push_back(a.c_str());
      }
      vctx_->commandArgs(static_cast<int>(argv.size()), argv.data());
    }
  }
  Verilated::threadContextp(vctx_.get());
  return *vctx_;
}

std::string TestContext::unique_dut_name(std::string_view name) {
  std::string n(name.empty() ? "dut" : name);
  std::string candidate = n;
  for (int i = 1; dut_names_.contains(candidate); ++i) {
    candidate = n + std::to_string(i);
  }
  dut_names_.insert(candidate);
  return candidate;
}

std::uint64_t TestContext::to_vtime(SimTime ps) const {
  // timeprecision() is the power of ten of one model time unit (-12 = 1 ps).
  int exp = vctx_->timeprecision();
  std::uint64_t t = ps;
  for (; exp > -12; --exp) {
    t /= 10;
  }
  for (; exp < -12; ++exp) {
    t *= 10;
  }
  return t;
}

void TestContext::add_dut(std::unique_ptr<detail::DutBase> dut, const std::function<void()>& eval,
                          const std::function<void(VerilatedFstC*)>& attach_trace,
                          const std::string& inst, std::string_view model_name) {
  if (finished_) {
    throw std::logic_error("make_dut after the test finished");
  }
  detail::DutBase* self = dut.get();
  self->inst = inst;
  duts_.push_back(std::move(dut));
  if (opts_->bench) {
    auto it = speed_.find(model_name);
    if (it == speed_.end()) {
      it = speed_.emplace(std::string(model_name), ModelSpeed{}).first;
    }
    ModelSpeed* acc = &it->second;
    ++acc->instances;
    sim_->add_eval([this, eval, acc, self] {
      if (self->idle_skip && self->idle_skip->skip()) {
        ++acc->skipped;
        return;
      }
      vctx_->time(to_vtime(sim_->now()));
      const std::uint64_t t0 = speed_ticks();
      eval();
      acc->ticks += speed_ticks() - t0;
      ++acc->evals;
      if (vctx_->gotError() || vctx_->gotFinish()) {
        check_rtl_errors();
      }
    });
  } else {
    sim_->add_eval([this, eval, self] {
      if (self->idle_skip && self->idle_skip->skip()) {
        return;
      }
      vctx_->time(to_vtime(sim_->now()));
      eval();
      if (vctx_->gotError() || vctx_->gotFinish()) {
        check_rtl_errors();
      }
    });
  }
  if (!traced(inst)) {
    return;
  }
  // Models join the current FST until its first dump; a model made later gets
  // its own file.
  if (traces_.empty() || traces_.back()->opened) {
    auto t = std::make_unique<Trace>();
    t->path = wave_path();
    if (!traces_.empty()) {
      t->path.replace_filename(full_name() + "-seed" + std::to_string(seed_) + "-" + inst + ".fst");
    }
    if (traces_.empty()) {
      sim_->on_step_end([this](SimTime now) { dump(now); });
    }
    traces_.push_back(std::move(t));
  }
  attach_trace(traces_.back()->fst.get());
}

bool TestContext::traced(std::string_view inst) const {
  return opts_->trace && (!opts_->trace_only || opts_->trace_only(inst));
}

void TestContext::enable_idle_skip(detail::DutBase& dut, std::unique_ptr<IdleSkipBase> skip) {
  dut.idle_skip = std::move(skip);
  if (!idle_hook_) {
    idle_hook_ = true;
    sim_->on_step_end([this](SimTime) {
      for (auto& d : duts_) {
        if (d->idle_skip) {
          d->idle_skip->step_end();
        }
      }
    });
  }
}

void TestContext::dump(SimTime now) {
  const std::uint64_t t = to_vtime(now);
  for (auto& tr : traces_) {
    if (!tr->opened) {
      std::filesystem::create_directories(tr->path.parent_path());
      tr->fst->open(tr->path.string().c_str());
      if (!tr->fst->isOpen()) {
        throw std::runtime_error("cannot open waveform file " + tr->path.string());
      }
      tr->opened = true;
      wave_files_.push_back(std::filesystem::absolute(tr->path));
      std::cout << "  waves: " << wave_files_.back().string() << "\n" << std::flush;
    }
    // Synchronous code between two run() calls can reopen a step that was
    // already dumped; its values show at the next step instead.
    if (tr->dumped && t <= tr->last) {
      continue;
    }
    tr->fst->dump(t);
    tr->dumped = true;
    tr->last = t;
  }
}

void TestContext::check_rtl_errors() {
  if (rtl_error_reported_ || !vctx_) {
    return;
  }
  if (!vctx_->gotError() && !vctx_->gotFinish()) {
    return;
  }
  rtl_error_reported_ = true;
  if (vctx_->gotError()) {
    throw TestFailure(
        "the RTL reported an error ($error or a failed assertion; see the %Error line above)");
  }
  throw TestFailure("the RTL called $finish");
}

void TestContext::finish() {
  if (finished_) {
    return;
  }
  finished_ = true;
  sim_->cancel_all();
  for (auto& d : duts_) {
    d->final();
  }
  for (auto& t : traces_) {
    if (t->opened) {
      t->fst->close();
    }
    t->opened = false;
  }
  write_coverage();
  check_rtl_errors();
}

#ifdef SYNCFAB_TB_COVERAGE_DIR
// The coverage tree (SYNCFAB_COVERAGE, make coverage): every test run saves
// its models' counts in a file of its own, <binary>.<test>.seed<N>.dat, that
// scripts/coverage/ merges. Written under a temporary name then renamed, so a
// reader never sees half a file.
void TestContext::write_coverage() {
  if (!vctx_) {
    return;
  }
  const char* env = std::getenv("SYNCFAB_COVERAGE_DIR");
  const std::filesystem::path dir = env != nullptr && *env != '\0' ? env : SYNCFAB_TB_COVERAGE_DIR;
  std::filesystem::create_directories(dir);
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").filename().string();
  const std::filesystem::path file =
      dir / (exe + "." + full_name() + ".seed" + std::to_string(seed_) + ".dat");
  std::filesystem::path tmp = file;
  tmp += ".tmp";
  vctx_->coveragep()->write(tmp.string().c_str());
  std::filesystem::rename(tmp, file);
}
#else
void TestContext::write_coverage() {}
#endif

}  // namespace syncfab::tb

#include <cxxabi.h>
#include <fnmatch.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <memory>
#include <regex>
#include <sstream>
#include <typeinfo>

#include "syncfab/tb/check.hpp"
#include "syncfab/tb/runner.hpp"
#include "syncfab/tb/speed.hpp"
#include "syncfab/tb/test.hpp"
#include "syncfab/tb/timeout.hpp"

#ifndef SYNCFAB_TB_DEFAULT_WAVES_DIR
#define SYNCFAB_TB_DEFAULT_WAVES_DIR "waves"
#endif

namespace syncfab::tb {

namespace {

// What to print if Verilator (or anything else) aborts the process mid-test:
// prepared before each test because a signal handler may only write(2).
std::array<char, 4096> g_abort_note{};

extern "C" void on_fatal_signal(int sig) {
  const char* note = g_abort_note.data();
  if (note[0] != '\0') {
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, note, std::strlen(note));
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-+=./:,@%") == std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                           std::free);
  return status == 0 && d ? std::string(d.get()) : std::string(name);
}

std::filesystem::path self_path(const char* argv0) {
  std::error_code ec;
  auto p = std::filesystem::canonical("/proc/self/exe", ec);
  if (!ec) {
    return p;
  }
  return std::filesystem::absolute(argv0);
}

bool parse_u64(const std::string& s, std::uint64_t& out) {
  static const std::regex kDigits("[0-9]{1,19}");
  if (!std::regex_match(s, kDigits)) {
    return false;
  }
  out = std::stoull(s);
  return true;
}

bool env_waves() {
  const char* v = std::getenv("WAVES");
  if (v == nullptr) {
    return false;
  }
  const std::string s(v);
  return !(s.empty() || s == "0" || s == "no" || s == "false" || s == "off");
}

struct Selection {
  std::vector<const TestInfo*> tests;
  std::vector<std::uint64_t> seeds;
};

struct Outcome {
  bool passed = true;
  std::string kind;
  std::string what;
};

template <class F>
Outcome capture(F&& f) {
  try {
    f();
    return {};
  } catch (const TestFailure& e) {
    return {false, "TestFailure", e.what()};
  } catch (const TimeoutError& e) {
    return {false, "TimeoutError", e.what()};
  } catch (const DeadlockError& e) {
    return {false, "DeadlockError", e.what()};
  } catch (const std::exception& e) {
    return {false, demangle(typeid(e).name()), e.what()};
  } catch (...) {
    return {false, "unknown", "an exception of unknown type escaped the test"};
  }
}

// One test run's speed: simulated cycles, its CPU and wall time, and the
// time inside each model class's eval (the rest is the harness and the test).
std::string speed_json(const std::string& test, std::uint64_t seed, TestContext& ctx, double cpu_s,
                       double wall_s) {
  nlohmann::json j;
  j["test"] = test;
  j["seed"] = seed;
  j["cycles"] = ctx.sim().cycles();
  j["cpu_s"] = cpu_s;
  j["wall_s"] = wall_s;
  j["trace"] = ctx.tracing();
  double eval_s = 0.0;
  nlohmann::json models = nlohmann::json::object();
  for (const auto& [name, m] : ctx.speed_by_model()) {
    const double s = ticks_to_seconds(m.ticks);
    eval_s += s;
    models[name] = {
        {"instances", m.instances}, {"evals", m.evals}, {"eval_s", s}, {"skipped", m.skipped}};
  }
  j["eval_s"] = eval_s;
  j["models"] = models;
  return j.dump();
}

}  // namespace

int run_tests(int argc, char** argv) {
  const auto binary = self_path(argv[0]);
  RunOptions opts;
  opts.trace = env_waves();
  std::vector<char*> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '+') {
      opts.plusargs.emplace_back(argv[i]);
      if (std::strcmp(argv[i], "+trace") == 0) {
        opts.trace = true;
      }
    } else {
      args.push_back(argv[i]);
    }
  }

  CLI::App app{"syncfab harness tests (" + binary.filename().string() + ")"};
  bool list = false;
  std::vector<std::string> globs;
  std::string seed_s;
  std::string seeds_s;
  std::vector<std::string> params;
  std::string junit;
  std::string waves_dir = SYNCFAB_TB_DEFAULT_WAVES_DIR;
  app.add_flag("--list", list, "print the names of the (selected) tests and exit");
  app.add_option("--test", globs, "run tests whose suite.name matches this glob (repeatable)");
  auto* seed_opt = app.add_option("--seed", seed_s, "run with this seed (default 1)");
  app.add_option("--seeds", seeds_s, "run every seed A..B, written A-B")->excludes(seed_opt);
  app.add_option("--param", params, "integer test knob name=value (repeatable)");
  app.add_option("--junit", junit, "write JUnit XML of all results to this file");
  app.add_option("--waves-dir", waves_dir, "folder for FST waveforms")->capture_default_str();
  app.add_flag("--bench", opts.bench,
               "time every model eval and print one 'bench: {json}' line per test run "
               "(simulated cycles, CPU seconds, seconds inside eval per model class)");
  app.footer(
      "+trace (or WAVES=1 in the environment) writes <waves-dir>/<suite.name>-seed<N>.fst.\n"
      "Other +args are passed to the Verilator runtime ($test$plusargs, +verilator+...).");
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    // --help is a success; every other parse error is a usage error (2).
    return app.exit(e) == 0 ? 0 : 2;
  }
  opts.waves_dir = std::filesystem::absolute(waves_dir);

  const auto& reg = Registry::instance();
  if (!reg.errors().empty()) {
    for (const auto& e : reg.errors()) {
      std::cerr << "error: " << e << "\n";
    }
    return 2;
  }

  Selection sel;
  for (const auto& t : reg.tests()) {
    const auto full = t.full_name();
    bool match = globs.empty();
    for (const auto& g : globs) {
      match = match || fnmatch(g.c_str(), full.c_str(), 0) == 0;
    }
    if (match) {
      sel.tests.push_back(&t);
    }
  }
  for (const auto& g : globs) {
    bool any = false;
    for (const auto& t : reg.tests()) {
      any = any || fnmatch(g.c_str(), t.full_name().c_str(), 0) == 0;
    }
    if (!any) {
      std::cerr << "error: no test matches --test '" << g << "'; tests in this binary:";
      for (const auto& t : reg.tests()) {
        std::cerr << " " << t.full_name();
      }
      std::cerr << "\n";
      return 2;
    }
  }
  if (list) {
    for (const auto* t : sel.tests) {
      std::cout << t->full_name() << "\n";
    }
    return 0;
  }

  if (!seeds_s.empty()) {
    static const std::regex kRange("([0-9]{1,19})-([0-9]{1,19})");
    std::smatch m;
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    if (!std::regex_match(seeds_s, m, kRange) || !parse_u64(m[1], a) || !parse_u64(m[2], b) ||
        a > b) {
      std::cerr << "error: --seeds '" << seeds_s
                << "' is not a range A-B of non-negative integers with A <= B\n";
      return 2;
    }
    for (std::uint64_t s = a;; ++s) {
      sel.seeds.push_back(s);
      if (s == b) {
        break;
      }
    }
  } else if (!seed_s.empty()) {
    std::uint64_t s = 0;
    if (!parse_u64(seed_s, s)) {
      std::cerr << "error: --seed '" << seed_s << "' is not a non-negative integer\n";
      return 2;
    }
    sel.seeds.push_back(s);
  } else {
    sel.seeds.push_back(1);
  }

  std::string param_args;
  for (const auto& p : params) {
    static const std::regex kParam("([A-Za-z_][A-Za-z0-9_]*)=(-?(0x[0-9a-fA-F]+|[0-9]+))");
    std::smatch m;
    if (!std::regex_match(p, m, kParam)) {
      std::cerr << "error: --param '" << p << "' is not name=integer\n";
      return 2;
    }
    try {
      std::size_t used = 0;
      const std::string v = m[2];
      opts.params[m[1]] = std::stoll(v, &used, 0);
    } catch (const std::out_of_range&) {
      std::cerr << "error: --param '" << p << "': value out of range\n";
      return 2;
    }
    param_args += " --param " + shell_quote(p);
  }

  std::signal(SIGABRT, on_fatal_signal);
  std::signal(SIGSEGV, on_fatal_signal);

  std::vector<TestResult> results;
  const auto t_all = std::chrono::steady_clock::now();
  for (const auto* t : sel.tests) {
    for (const auto seed : sel.seeds) {
      const auto full = t->full_name();
      const std::string replay = shell_quote(binary.string()) + " --test " + shell_quote(full) +
                                 " --seed " + std::to_string(seed) + param_args;
      const std::string waves = param_args.empty()
                                    ? "make waves TEST=" + full + " SEED=" + std::to_string(seed)
                                    : replay + " +trace";
      std::snprintf(g_abort_note.data(), g_abort_note.size(),
                    "\nFAILED %s seed=%llu: the process aborted (Verilator fatal error or crash)\n"
                    "  replay: %s\n  waves:  %s\n",
                    full.c_str(), static_cast<unsigned long long>(seed), replay.c_str(),
                    waves.c_str());
      std::cout << "[ RUN      ] " << full << " seed=" << seed << "\n" << std::flush;

      TestResult r{t->suite, t->name, seed, true, {}, {}, 0};
      const auto t0 = std::chrono::steady_clock::now();
      const double cpu0 = process_cpu_seconds();
      SimTime sim_end = 0;
      std::string task;
      std::string speed_line;
      {
        TestContext ctx(*t, seed, opts);
        Outcome o = capture([&] { ctx.sim().run_body(t->fn(ctx), full); });
        sim_end = ctx.sim().now();
        if (opts.bench) {
          speed_line = speed_json(
              full, seed, ctx, process_cpu_seconds() - cpu0,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        task = ctx.sim().failed_task();
        Outcome fin = capture([&] { ctx.finish(); });
        if (o.passed && !fin.passed) {
          o = fin;
        }
        r.passed = o.passed;
        r.kind = o.kind;
        if (!o.passed) {
          std::ostringstream os;
          os << o.what << "\n  at " << format_time(sim_end);
          if (!task.empty()) {
            os << " in task '" << task << "'";
          }
          os << "\n  replay: " << replay << "\n  waves:  " << waves;
          r.message = os.str();
        }
      }
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      g_abort_note[0] = '\0';
      std::ostringstream secs;
      secs.precision(3);
      secs << std::fixed << r.seconds << " s, sim " << format_time(sim_end);
      if (!speed_line.empty()) {
        std::cout << "bench: " << speed_line << "\n";
      }
      if (r.passed) {
        std::cout << "[       OK ] " << full << " seed=" << seed << " (" << secs.str() << ")\n";
      } else {
        std::cout << "FAILED " << full << " seed=" << seed << ": " << r.message << "\n";
      }
      std::cout << std::flush;
      results.push_back(std::move(r));
    }
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();

  std::size_t failed = 0;
  for (const auto& r : results) {
    failed += r.passed ? 0 : 1;
  }
  std::cout << "== " << results.size() << " run(s): " << results.size() - failed << " passed, "
            << failed << " failed (" << std::fixed << std::setprecision(3) << total << " s)\n";
  for (const auto& r : results) {
    if (!r.passed) {
      std::cout << "FAILED " << r.suite << "." << r.name << " seed=" << r.seed << "\n";
    }
  }
  if (!junit.empty()) {
    try {
      write_junit(junit, binary.filename().string(), results);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    }
  }
  if (failed != 0) {
    return 1;
  }
  for (const auto& [name, value] : opts.params) {
    if (!opts.used_params.contains(name)) {
      std::cerr << "error: --param " << name << "=" << value
                << " was not read by any test that ran (misspelt?)\n";
      return 2;
    }
  }
  return 0;
}

}  // namespace syncfab::tb

// clforge command line entry: global options, the registered commands, the shared option
// checks, and the one place where exceptions become messages and exit codes (0 success,
// 1 failure, 2 usage error).
#include <algorithm>
#include <iostream>
#include <sstream>

#include "bench/openblas.hpp"
#include "runtime/compile_workers.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/strings.hpp"
#include "tools/cli.hpp"
#include "tuning/spec.hpp"

namespace clforge::cli {

namespace {
std::vector<Registrar>& registrars() {
  static std::vector<Registrar> r;
  return r;
}

// A validator from a check that throws UsageError.
template <class Check>
CLI::Validator checked(Check check, const std::string& name) {
  return CLI::Validator(
      [check](std::string& value) -> std::string {
        try {
          check(value);
        } catch (const UsageError& e) {
          return e.what();
        }
        return {};
      },
      "", name);
}

// Edit distance, for "did you mean".
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The message of a parse error; an unknown word where a command was expected is named as such,
// with the commands of that level (hidden ones left out) and the closest one.
std::string parse_error_text(const CLI::App& root, const CLI::ParseError& e) {
  const CLI::App* level = &root;
  std::string path = "clforge";
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : level->get_subcommands())
      if (sub->parsed()) {
        level = sub;
        path += " " + sub->get_name();
        deeper = true;
        break;
      }
  }
  const std::vector<std::string> rest = root.remaining();
  if (dynamic_cast<const CLI::RequiredError*>(&e) == nullptr || rest.empty() || level->get_subcommands({}).empty())
    return std::string(e.what()) + " (see '" + path + " --help')";
  const std::string& word = rest.front();
  std::string names, best;
  std::size_t best_d = 3;
  for (const CLI::App* sub : level->get_subcommands({})) {
    if (sub->get_group().empty()) continue;
    names += (names.empty() ? "" : ", ") + sub->get_name();
    const std::size_t d = distance(word, sub->get_name());
    if (d < best_d) best_d = d, best = sub->get_name();
  }
  return "unknown command '" + word + "' for '" + path + "'" + (best.empty() ? "" : " (did you mean '" + best + "'?)") +
         "; commands: " + names;
}

// Every boolean CLFORGE_* variable must be one: checked before any command runs.
void check_boolean_environment() {
  for (const char* name : detail::kBooleanEnvironment) {
    try {
      detail::env_bool(name);
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }
}
}  // namespace

bool register_commands(Registrar r) {
  registrars().push_back(r);
  return true;
}

Tuning Globals::tuning() const {
  Tuning t;
  for (const auto& p : params) {
    if (p.find(',') != std::string::npos)
      throw UsageError("--param " + p + ": lists of values are for `clforge tune`; give one value");
    parse_param_assignment(p, t.overrides);
  }
  t.user_database = !no_user_tuning;
  return t;
}

Session& Globals::session() {
  if (!session_) session_ = std::make_unique<Session>(device);
  return *session_;
}

bench::BenchOptions Globals::bench_options(const std::string& routine) const {
  bench::BenchOptions o;
  o.quick = quick;
  if (!routine.empty())
    for (const auto& s : sizes) o.sizes.push_back(bench_size(parse_size(routine, s)));
  o.tuning = tuning();
  o.rounds = rounds;
  if (quick) o.plan = bench::TimingPlan{1, 3, 20, 5, 1.0};
  return o;
}

CLI::Validator size_validator(const std::string& routine, bool tune) {
  return checked([routine, tune](const std::string& v) { parse_size(routine, v, tune); }, "SIZE");
}

CLI::Validator routine_size_validator() {
  return checked([](const std::string& v) { parse_routine_size(v); }, "ROUTINE:SIZE");
}

CLI::Validator param_validator() {
  return checked(
      [](const std::string& v) {
        const auto eq = v.find('=');
        const std::string name = detail::trim(v.substr(0, eq));
        if (eq == std::string::npos || name.empty()) throw UsageError("'" + v + "' is not NAME=VALUE");
        bool known = false;
        for (const auto& spec : detail::all_kernel_specs()) known = known || spec.find(name) != nullptr;
        if (!known) throw UsageError("no kernel has a parameter " + name + " (see `clforge params ROUTINE`)");
        std::stringstream values(v.substr(eq + 1));
        std::string item;
        bool any = false;
        while (std::getline(values, item, ',')) {
          ParamMap one;
          try {
            parse_param_assignment(name + "=" + item, one);
          } catch (const Error& e) {
            throw UsageError(e.what());
          }
          any = true;
        }
        if (!any) throw UsageError("parameter " + name + " has no value");
      },
      "NAME=VALUE");
}

CLI::Option* add_run_size_option(CLI::App* app, std::string& size, const std::string& routine, const std::string& what,
                                 const std::string& more) {
  return app->add_option("--size", size, what + ": " + size_grammar(routine) + more)
      ->capture_default_str()
      ->check(size_validator(routine));
}

CLI::Option* add_out_option(CLI::App* app, std::string& out, const std::string& what) {
  return app->add_option("--out", out, "output folder (created when missing): " + what)
      ->check(checked([](const std::string& v) { check_output_folder_arg(v); }, "FOLDER"));
}

void add_bench_options(CLI::App* app, Globals& g, const std::string& routine) {
  app->add_option("--size", g.sizes, "sizes to run, repeatable: " + size_grammar(routine) + "; default: a list")
      ->check(size_validator(routine));
  app->add_flag("--quick", g.quick, "a short size list and few repetitions");
  add_out_option(app, g.out, "results.json, results.csv, report.md");
}

void finish_report(const bench::Report& report, const Globals& g, std::string table) {
  if (table.empty()) table = report.to_table();
  std::cout << table;
  if (g.out.empty()) return;
  make_output_folder(g.out);
  report.write(g.out + "/results.json");
  report.write(g.out + "/results.csv");
  detail::write_file_atomic(g.out + "/report.md", "# clforge " + std::string(version_string) + " on " +
                                                      report.device().name + "\n\n```\n" + table + "```\n");
  std::cout << "results written to " << g.out << "/: results.json, results.csv, report.md\n";
}

}  // namespace clforge::cli

int main(int argc, char** argv) {
  using namespace clforge;
  // A compile worker of a tune in another clforge process (runtime/compile_workers.hpp).
  if (argc == 3 && std::string(argv[1]) == "compile-worker") return detail::compile_worker_main(argv[2]);
  bench::restart_with_openblas_kernels(argv);  // OpenCV's libblas.so.3 may have loaded OpenBLAS
  CLI::App app{"clforge: portable OpenCL compute library (SGEMM, FFT, transpose, Gaussian blur) with runtime tuning"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("clforge ") + version_string, "print the version and exit");
  app.footer(
      "Exit status: 0 success, 1 failure, 2 usage error (the command line or a CLFORGE_* variable could not be "
      "understood).");
  cli::Globals g;
  app.add_option("-d,--device", g.device, "device: index, P:D, gpu, cpu, vendor or name substring (env CLFORGE_DEVICE)")
      ->envname("CLFORGE_DEVICE");
  app.add_option("-p,--param", g.params, "tuning override NAME=VALUE (repeatable)")->check(cli::param_validator());
  app.add_flag("--no-user-tuning", g.no_user_tuning, "ignore the user tuning database");
  app.add_flag("-v,--verbose", g.verbosity, "log library messages to stderr (-vv for debug)");
  cli::Apps apps{&app, app.add_subcommand("run", "run one routine on random data and check it"),
                 app.add_subcommand("bench", "benchmark routines against their peers"),
                 app.add_subcommand("tune", "search kernel parameters for this device")};
  apps.run->require_subcommand(1);
  apps.bench->require_subcommand(1);
  apps.tune->require_subcommand(1);
  for (auto r : cli::registrars()) r(apps, g);
  for (CLI::App* parent : {apps.run, apps.bench, apps.tune})
    if (parent->get_subcommands({}).empty()) app.remove_subcommand(parent);
  // The level is known only once the flags are parsed, before any subcommand runs.
  app.parse_complete_callback([&g] {
    cli::check_boolean_environment();
    if (g.verbosity > 0) set_log_level(g.verbosity > 1 ? LogLevel::Debug : LogLevel::Info);
  });
  set_log_callback([](LogLevel, const std::string& m) { std::cerr << "clforge: " << m << "\n"; });
  app.fallthrough();
  for (auto* sub : app.get_subcommands({})) sub->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "clforge: " << cli::parse_error_text(app, e) << "\n";
    return 2;
  } catch (const cli::UsageError& e) {
    std::cerr << "clforge: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "clforge: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

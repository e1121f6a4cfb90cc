// clforge command line entry: global options, the registered commands, and the one place
// where exceptions become messages and exit codes.
#include <iostream>

#include "tools/cli.hpp"

namespace clforge::cli {

namespace {
std::vector<Registrar>& registrars() {
  static std::vector<Registrar> r;
  return r;
}
}  // namespace

bool register_commands(Registrar r) {
  registrars().push_back(r);
  return true;
}

Tuning Globals::tuning() const {
  Tuning t;
  for (const auto& p : params) parse_param_assignment(p, t.overrides);
  t.user_database = !no_user_tuning;
  return t;
}

Session& Globals::session() {
  if (!session_) session_ = std::make_unique<Session>(device);
  return *session_;
}

bench::BenchOptions Globals::bench_options() const {
  bench::BenchOptions o;
  o.quick = quick;
  o.sizes = sizes;
  o.tuning = tuning();
  o.rounds = rounds;
  if (quick) o.plan = bench::TimingPlan{1, 3, 20, 5, 1.0};
  return o;
}

void add_bench_options(CLI::App* app, Globals& g) {
  app->add_option("--size", g.sizes, "sizes to run (routine-specific syntax); default: the routine's list");
  app->add_flag("--quick", g.quick, "a short size list and few repetitions");
  app->add_option("--out", g.out, "write results: PATH.json / PATH.csv, or PATH for both");
}

void finish_report(const bench::Report& report, const Globals& g, const std::string& default_name) {
  (void)default_name;
  std::cout << report.to_table();
  if (!g.out.empty()) {
    report.write(g.out);
    std::cout << "results written to " << g.out << (g.out.find('.') == std::string::npos ? ".{json,csv}" : "") << "\n";
  }
}

}  // namespace clforge::cli

int main(int argc, char** argv) {
  using namespace clforge;
  CLI::App app{"clforge: portable OpenCL compute library (SGEMM, FFT, transpose, Gaussian blur) with runtime tuning"};
  app.require_subcommand(1);
  cli::Globals g;
  app.add_option("-d,--device", g.device, "device: index, P:D, gpu, cpu, vendor or name substring (env CLFORGE_DEVICE)")
      ->envname("CLFORGE_DEVICE");
  app.add_option("-p,--param", g.params, "tuning override NAME=VALUE (repeatable)");
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
    if (g.verbosity > 0) set_log_level(g.verbosity > 1 ? LogLevel::Debug : LogLevel::Info);
  });
  set_log_callback([](LogLevel, const std::string& m) { std::cerr << "clforge: " << m << "\n"; });
  app.fallthrough();
  for (auto* sub : app.get_subcommands({})) sub->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const Error& e) {
    std::cerr << "clforge: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "clforge: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

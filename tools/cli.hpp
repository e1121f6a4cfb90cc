// The clforge command line: global options and how each routine family adds its commands.
// A family's file defines a registrar and calls CLFORGE_CLI_COMMANDS(fn) at namespace scope;
// main() calls every registrar with the root app and the shared `run`, `bench` and `tune`
// subcommands.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "bench/routines.hpp"
#include "clforge/clforge.hpp"

namespace clforge::cli {

struct Globals {
  std::string device;               ///< --device (else CLFORGE_DEVICE, else first GPU)
  std::vector<std::string> params;  ///< --param NAME=VALUE, repeatable
  bool no_user_tuning = false;      ///< --no-user-tuning
  std::string out;                  ///< --out for bench results
  bool quick = false;               ///< --quick for bench
  std::vector<std::string> sizes;   ///< --size, repeatable, for bench
  int rounds = 0;                   ///< --rounds for bench fft (0: the device's default)
  int verbosity = 0;                ///< -v: log info, -vv: debug

  Tuning tuning() const;  ///< overrides from --param, user database flag
  Session& session();     ///< opened on first use
  bench::BenchOptions bench_options() const;

 private:
  std::unique_ptr<Session> session_;
};

struct Apps {
  CLI::App* root;
  CLI::App* run;
  CLI::App* bench;
  CLI::App* tune;
};

using Registrar = void (*)(Apps&, Globals&);
bool register_commands(Registrar r);
#define CLFORGE_CLI_CAT2(a, b) a##b
#define CLFORGE_CLI_CAT(a, b) CLFORGE_CLI_CAT2(a, b)
#define CLFORGE_CLI_COMMANDS(fn) \
  static const bool CLFORGE_CLI_CAT(clforge_cli_registered_, __LINE__) = ::clforge::cli::register_commands(fn)

/// A size given on the command line: a whole number in [lo, 2^31 - 1] (a negative number is
/// refused, not wrapped into a huge size_t).
inline CLI::Range size_range(std::size_t lo = 1) { return CLI::Range(lo, std::size_t{2147483647}); }

/// Adds --size/--quick/--out to a bench subcommand.
void add_bench_options(CLI::App* app, Globals& g);
/// Writes the report (to --out if given) and prints its table on stdout.
void finish_report(const bench::Report& report, const Globals& g, const std::string& default_name);

}  // namespace clforge::cli

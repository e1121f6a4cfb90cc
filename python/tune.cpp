// The tuner from Python: clforge::tune (the function `clforge tune` is a front end over) with its
// options as keyword arguments and its result as read-only objects, plus what it can tune
// (tune_routines, tunable_kernels, kernel_parameters). A progress callback runs on the calling
// thread with the GIL; returning True stops the search (the best so far is still stored), and a
// pending KeyboardInterrupt stops it the same way before it is raised.
#include <atomic>
#include <exception>
#include <optional>

#include "interop.hpp"

namespace clforge_py {
namespace {

using namespace clforge;

// The options tune() and tune_all() share, from their keyword arguments.
TuneOptions base_options(const py::object& strategy, std::size_t budget, double time_limit, bool dry_run, bool store,
                         std::uint64_t seed, unsigned compile_threads, std::size_t finalists,
                         const std::string& cache_file, bool resume, double min_gain) {
  TuneOptions o;
  o.strategy = enum_arg<TuneStrategy>(strategy, parse_tune_strategy, "strategy");
  o.budget = budget;
  o.time_limit_s = time_limit;
  o.dry_run = dry_run;
  o.store = store;
  o.seed = seed;
  o.compile_threads = compile_threads;
  o.finalists = finalists;
  o.cache_file = cache_file;
  o.resume = resume;
  o.min_gain = min_gain;
  return o;
}

TuneResult tune_py(const py::object& queue, const std::string& routine, const std::vector<std::string>& sizes,
                   const py::object& strategy, std::size_t budget, double time_limit,
                   const std::map<std::string, std::vector<int>>& param_values, const py::object& options, bool dry_run,
                   bool store, std::uint64_t seed, unsigned compile_threads, int warmup, int min_reps, int max_reps,
                   double min_time_ms, std::size_t finalists, const py::object& progress, const std::string& cache_file,
                   bool resume, double min_gain, bool replay, const std::string& compile_worker, double give_up) {
  cl::CommandQueue q = to_queue(queue);
  TuneOptions o = base_options(strategy, budget, time_limit, dry_run, store, seed, compile_threads, finalists,
                               cache_file, resume, min_gain);
  o.replay = replay;
  o.compile_worker = compile_worker;
  o.give_up = give_up;
  o.sizes = sizes;
  o.param_values = param_values;
  if (!options.is_none() && !py::isinstance<py::dict>(options))
    throw py::type_error("options must be a dict {name: value} (got " + type_name(options) + ")");
  if (!options.is_none())  // values may be numbers: the routine parses their text
    for (const auto& [name, value] : py::reinterpret_borrow<py::dict>(options))
      o.routine_options[py::str(name).cast<std::string>()] = py::str(value).cast<std::string>();
  o.warmup = warmup;
  o.min_reps = min_reps;
  o.max_reps = max_reps;
  o.min_time_ms = min_time_ms;
  std::atomic<bool> stop{false};
  std::exception_ptr callback_error;
  o.stop = &stop;
  const py::object callback = py::reinterpret_borrow<py::object>(progress);
  o.progress = [&](const TuneProgress& p) {
    py::gil_scoped_acquire gil;
    if (callback_error) return;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!callback.is_none() && py::bool_(callback(p))) stop = true;
    } catch (...) {
      callback_error = std::current_exception();
      stop = true;
    }
  };
  TuneResult result;
  {
    py::gil_scoped_release nogil;
    result = tune(q, routine, o);
  }
  if (callback_error) std::rethrow_exception(callback_error);
  return result;
}

// tune_all() with tune()'s shared options, run without the GIL.
TuneAllResult tune_all_py(const py::object& queue, const std::map<std::string, std::vector<std::string>>& sizes,
                          const py::object& strategy, std::size_t budget, double time_limit, bool dry_run, bool store,
                          std::uint64_t seed, unsigned compile_threads, std::size_t finalists,
                          const std::string& cache_file, bool resume, double min_gain,
                          const std::string& compile_worker, double give_up, std::size_t sizes_per_class) {
  cl::CommandQueue q = to_queue(queue);
  TuneOptions o = base_options(strategy, budget, time_limit, dry_run, store, seed, compile_threads, finalists,
                               cache_file, resume, min_gain);
  o.compile_worker = compile_worker;
  o.give_up = give_up;
  o.sizes_per_class = sizes_per_class;
  const std::vector<TuneAllJob> jobs = tune_all_jobs(sizes);
  py::gil_scoped_release nogil;
  return tune_all(q, jobs, o);
}

void register_results(py::module_& m) {
  py::enum_<TuneStrategy>(m, "TuneStrategy", "Search order over the candidate space.")
      .value("Auto", TuneStrategy::Auto)
      .value("Exhaustive", TuneStrategy::Exhaustive)
      .value("Random", TuneStrategy::Random)
      .value("Anneal", TuneStrategy::Anneal)
      .value("Model", TuneStrategy::Model);
  py::enum_<CandidateStatus>(m, "CandidateStatus", "What happened to one evaluated candidate.")
      .value("Ok", CandidateStatus::Ok)
      .value("Rejected", CandidateStatus::Rejected)
      .value("BuildFailed", CandidateStatus::BuildFailed)
      .value("RunFailed", CandidateStatus::RunFailed);
  py::class_<TuneProgress>(m, "TuneProgress", "Progress after each evaluated candidate.")
      .def_readonly("routine", &TuneProgress::routine)
      .def_readonly("variant", &TuneProgress::variant)
      .def_readonly("done", &TuneProgress::done)
      .def_readonly("cached", &TuneProgress::cached)
      .def_readonly("fraction", &TuneProgress::fraction)
      .def_readonly("class_done", &TuneProgress::class_done)
      .def_readonly("current_cached", &TuneProgress::current_cached)
      .def_readonly("total", &TuneProgress::total)
      .def_readonly("class_index", &TuneProgress::class_index)
      .def_readonly("class_count", &TuneProgress::class_count)
      .def_readonly("elapsed_s", &TuneProgress::elapsed_s)
      .def_readonly("eta_s", &TuneProgress::eta_s)
      .def_readonly("current", &TuneProgress::current)
      .def_readonly("status", &TuneProgress::status)
      .def_readonly("current_ms", &TuneProgress::current_ms)
      .def_readonly("best_ms", &TuneProgress::best_ms)
      .def_readonly("default_ms", &TuneProgress::default_ms)
      .def_readonly("best", &TuneProgress::best);
  py::class_<TuneRow>(m, "TuneRow", "One evaluated candidate.")
      .def_readonly("params", &TuneRow::params)
      .def_readonly("status", &TuneRow::status)
      .def_readonly("ms", &TuneRow::ms)
      .def_readonly("error", &TuneRow::error)
      .def_readonly("message", &TuneRow::message)
      .def_readonly("is_default", &TuneRow::is_default)
      .def_readonly("is_current", &TuneRow::is_current)
      .def_readonly("cached", &TuneRow::cached)
      .def_readonly("cut_short", &TuneRow::cut_short)
      .def_readonly("checked", &TuneRow::checked)
      .def_readonly("compile_s", &TuneRow::compile_s)
      .def_readonly("verify_s", &TuneRow::verify_s)
      .def_readonly("timing_s", &TuneRow::timing_s);
  py::class_<TuneClassResult>(m, "TuneClassResult", "The outcome for one size class (one database entry).")
      .def_readonly("variant", &TuneClassResult::variant)
      .def_readonly("sizes", &TuneClassResult::sizes)
      .def_readonly("space", &TuneClassResult::space)
      .def_readonly("illegal", &TuneClassResult::illegal)
      .def_readonly("unfit", &TuneClassResult::unfit)
      .def_readonly("candidates", &TuneClassResult::candidates)
      .def_readonly("sampled", &TuneClassResult::sampled)
      .def_readonly("draws", &TuneClassResult::draws)
      .def_readonly("tried", &TuneClassResult::tried)
      .def_readonly("cached", &TuneClassResult::cached)
      .def_readonly("current_params", &TuneClassResult::current_params)
      .def_readonly("current_ms", &TuneClassResult::current_ms)
      .def_readonly("no_gain", &TuneClassResult::no_gain)
      .def_readonly("rejected", &TuneClassResult::rejected)
      .def_readonly("build_failed", &TuneClassResult::build_failed)
      .def_readonly("run_failed", &TuneClassResult::run_failed)
      .def_readonly("default_params", &TuneClassResult::default_params)
      .def_readonly("default_ms", &TuneClassResult::default_ms)
      .def_readonly("has_best", &TuneClassResult::has_best)
      .def_readonly("best", &TuneClassResult::best)
      .def_readonly("best_ms", &TuneClassResult::best_ms)
      .def_readonly("speedup", &TuneClassResult::speedup)
      .def_readonly("rows", &TuneClassResult::rows)
      .def_readonly("runoff", &TuneClassResult::runoff)
      .def_readonly("stored", &TuneClassResult::stored)
      .def_readonly("stored_rows", &TuneClassResult::stored_rows)
      .def_readonly("store_error", &TuneClassResult::store_error)
      .def_readonly("compile_s", &TuneClassResult::compile_s)
      .def_readonly("verify_s", &TuneClassResult::verify_s)
      .def_readonly("timing_s", &TuneClassResult::timing_s)
      .def_readonly("compile_threads", &TuneClassResult::compile_threads)
      .def_readonly("setup_s", &TuneClassResult::setup_s)
      .def_readonly("wall_s", &TuneClassResult::wall_s)
      .def_readonly("runoff_s", &TuneClassResult::runoff_s)
      .def_readonly("settle_s", &TuneClassResult::settle_s)
      .def_readonly("built_unmeasured", &TuneClassResult::built_unmeasured)
      .def_readonly("builds_given_up", &TuneClassResult::builds_given_up)
      .def_readonly("share_left_s", &TuneClassResult::share_left_s)
      .def_readonly("cut_short", &TuneClassResult::cut_short)
      .def_property_readonly("candidates_per_min", &TuneClassResult::candidates_per_min);
  py::class_<TuneResult>(m, "TuneResult", "The outcome of one tune() call.")
      .def_readonly("routine", &TuneResult::routine)
      .def_readonly("kernel", &TuneResult::kernel)
      .def_readonly("device", &TuneResult::device)
      .def_readonly("routine_options", &TuneResult::routine_options)
      .def_readonly("database_path", &TuneResult::database_path)
      .def_readonly("strategy", &TuneResult::strategy)
      .def_readonly("replay", &TuneResult::replay)
      .def_readonly("classes", &TuneResult::classes)
      .def_readonly("interrupted", &TuneResult::interrupted)
      .def_readonly("dry_run", &TuneResult::dry_run)
      .def_readonly("elapsed_s", &TuneResult::elapsed_s)
      .def_readonly("skipped", &TuneResult::skipped)
      .def_property_readonly("candidates_per_min", &TuneResult::candidates_per_min)
      .def_property_readonly("tried", &TuneResult::tried)
      .def_property_readonly("rejected", &TuneResult::rejected)
      .def_property_readonly("build_failed", &TuneResult::build_failed);
  py::class_<TuneAllJob>(m, "TuneAllJob", "One tune() call of tune_all(): a routine and its kernel-selecting options.")
      .def_readonly("routine", &TuneAllJob::routine)
      .def_readonly("routine_options", &TuneAllJob::routine_options)
      .def_readonly("sizes", &TuneAllJob::sizes)
      .def_property_readonly("name", &TuneAllJob::name);
  py::class_<TuneAllResult>(m, "TuneAllResult", "What tune_all() did: one TuneResult per job that ran or was skipped.")
      .def_readonly("jobs", &TuneAllResult::jobs)
      .def_readonly("results", &TuneAllResult::results)
      .def_readonly("interrupted", &TuneAllResult::interrupted)
      .def_readonly("elapsed_s", &TuneAllResult::elapsed_s);
  py::class_<TuneRoutineOption>(m, "TuneRoutineOption", "A setting of a routine's tuning beyond its sizes.")
      .def_readonly("name", &TuneRoutineOption::name)
      .def_readonly("help", &TuneRoutineOption::help)
      .def_readonly("default_value", &TuneRoutineOption::default_value)
      .def_readonly("choices", &TuneRoutineOption::choices);
  py::class_<TuneRoutineInfo>(m, "TuneRoutineInfo", "A routine the tuner knows.")
      .def_readonly("name", &TuneRoutineInfo::name)
      .def_readonly("kernel", &TuneRoutineInfo::kernel)
      .def_readonly("size_syntax", &TuneRoutineInfo::size_syntax)
      .def_readonly("default_sizes", &TuneRoutineInfo::default_sizes)
      .def_readonly("options", &TuneRoutineInfo::options)
      .def_readonly("device_types", &TuneRoutineInfo::device_types);
  py::class_<ParamInfo>(m, "ParamInfo", "One declared tuning parameter of a kernel.")
      .def_readonly("name", &ParamInfo::name)
      .def_readonly("default_value", &ParamInfo::default_value)
      .def_readonly("legal", &ParamInfo::legal)
      .def_readonly("help", &ParamInfo::help)
      .def_readonly("launcher_only", &ParamInfo::launcher_only);
}

}  // namespace

void register_tune(py::module_& m) {
  register_results(m);
  m.def("tune", &tune_py, py::arg("queue"), py::arg("routine"), py::arg("sizes") = std::vector<std::string>{},
        py::arg("strategy") = "auto", py::arg("budget") = 0, py::arg("time_limit") = 0.0,
        py::arg("param_values") = std::map<std::string, std::vector<int>>{}, py::arg("options") = py::none(),
        py::arg("dry_run") = false, py::arg("store") = true, py::arg("seed") = 0, py::arg("compile_threads") = 0,
        py::arg("warmup") = 1, py::arg("min_reps") = 5, py::arg("max_reps") = 50, py::arg("min_time_ms") = 20.0,
        py::arg("finalists") = 3, py::arg("progress") = py::none(), py::arg("cache_file") = "",
        py::arg("resume") = false, py::arg("min_gain") = 0.02, py::arg("replay") = false,
        py::arg("compile_worker") = "", py::arg("give_up") = TuneOptions{}.give_up,
        "Tunes routine ('transpose', 'sgemm', 'fft', 'blur'; see tune_routines()) for the queue's device (a "
        "profiling queue): every candidate verified against the host reference, then timed; the fastest stored in "
        "the user database unless store=False. sizes in the routine's syntax (empty: its defaults); strategy "
        "'auto', 'exhaustive', 'random', 'anneal' or 'model'; budget candidates per size class (0: no limit); "
        "time_limit in "
        "seconds (0: none); param_values {name: [values]} narrows the space; options {name: value} are the "
        "routine's own settings; progress(TuneProgress) is called after each candidate, returning True stops (and once "
        "more with class_done at the end of each size class); every measurement goes to "
        "the tune cache (cache_file; '' the device's, 'off' none) and resume=True continues a stopped run from it; "
        "the best is stored only when it beats the current configuration by more than min_gain; replay=True searches "
        "only "
        "the configurations the tune cache holds, every result taken from it (nothing compiled, run or stored); "
        "compile_worker names an executable serving `compile-worker P:D` (the clforge CLI) to compile in worker "
        "processes; give_up is the timing cut-off (times the best's median; 0: every candidate timed in full).");
  m.def("tune_all", &tune_all_py, py::arg("queue"),
        py::arg("sizes") = std::map<std::string, std::vector<std::string>>{}, py::arg("strategy") = "auto",
        py::arg("budget") = 0, py::arg("time_limit") = 0.0, py::arg("dry_run") = false, py::arg("store") = true,
        py::arg("seed") = 0, py::arg("compile_threads") = 0, py::arg("finalists") = 3, py::arg("cache_file") = "",
        py::arg("resume") = false, py::arg("min_gain") = 0.02, py::arg("compile_worker") = "",
        py::arg("give_up") = TuneOptions{}.give_up, py::arg("sizes_per_class") = 0,
        "Tunes every routine the tuner knows (blur once per method; tune_all_jobs()) with one time_limit shared: "
        "each routine gets the time left times its share of the size classes left. sizes {routine: [sizes]} "
        "replaces a routine's default sizes (tunable_sizes() keeps those its kernel tunes); sizes_per_class times "
        "each size class on at most that many of its sizes, spread over their work (0: all; transpose: always all); "
        "the other arguments are "
        "tune()'s.");
  m.def("tunable_sizes", &tunable_sizes, py::arg("routine"), py::arg("sizes"),
        "The sizes, in order, that tune() of the routine takes as a size class of its kernel (FFT lengths run as "
        "Bluestein passes are left out).");
  m.def("tune_all_jobs", &tune_all_jobs, py::arg("sizes") = std::map<std::string, std::vector<std::string>>{},
        "The jobs tune_all() runs: every routine, once per choice of its kernel-selecting options.");
  m.def("tune_routines", &tune_routines, "The routines tune() knows, with their size syntax and options.");
  m.def("tunable_kernels", &tunable_kernels, "Names of every kernel with a tuning space.");
  m.def("kernel_parameters", &kernel_parameters, py::arg("kernel"), "Declared tuning parameters of one kernel.");
  m.def("store_device_peaks", &store_device_peaks, py::arg("device"), py::arg("copy_gbs"), py::arg("fma_gflops"),
        "Stores a device's measured copy bandwidth (GB/s) and FMA throughput (GFLOP/s) in its user tuning "
        "database: where the device has no rows of its own, the lookup then takes the rows of the devices nearest "
        "by peaks (clforge peak stores them).");
  m.def(
      "stored_device_peaks",
      [](const DeviceInfo& device) -> py::object {
        const std::optional<DevicePeaks> p = stored_device_peaks(device);
        if (!p) return py::none();
        py::dict d;
        d["copy_gbs"] = p->copy_gbs;
        d["fma_gflops"] = p->fma_gflops;
        return d;
      },
      py::arg("device"), "The peaks stored for a device, {'copy_gbs': ..., 'fma_gflops': ...}, or None.");
}

}  // namespace clforge_py

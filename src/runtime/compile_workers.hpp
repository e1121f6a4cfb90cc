// Compiling in worker processes. Some drivers (NVIDIA's) serialise clBuildProgram across the
// threads of a process, so the tuner's concurrent compiles ran one at a time there. A pool of
// worker processes (each an executable run as `EXE compile-worker P:D`, with its own context on
// the same device) compiles in parallel instead: a worker builds the program through
// build_program, which stores the binary in the disk cache, and the process that asked loads it
// from there. Used only where the disk cache keeps binaries for the device; whatever a worker
// cannot do (it failed to start, died, or the build failed) is compiled in process as before, so
// results and error messages are the same either way.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "clforge/errors.hpp"
#include "runtime/queue.hpp"

namespace clforge::detail {

/// Whether compiles for this device can go to worker processes: its binaries are kept in the
/// disk cache (CLFORGE_CACHE_BINARIES; the default for every driver but PoCL) and the cache is on.
bool compile_workers_apply(const DeviceInfo& dev);

/// Up to `count` worker processes compiling for the device of `qc`.
class CompileWorkers {
 public:
  /// Starts the workers (`exe compile-worker P:D`); none when the device cannot be named by
  /// index or `exe` cannot be started (active() is then false).
  CompileWorkers(const QueueContext& qc, const std::string& exe, unsigned count);
  ~CompileWorkers();
  CompileWorkers(const CompileWorkers&) = delete;
  CompileWorkers& operator=(const CompileWorkers&) = delete;

  bool active() const;
  const QueueContext& queue_context() const { return qc_; }
  /// Builds the program on a free worker (waiting for one); true when the worker built it, so
  /// that its binary is now in the disk cache. False when no worker could (none left, or the
  /// build failed there): the caller compiles it itself.
  /// A compile the calling thread gives up (CompileGiveUpScope) ends its worker, which is replaced,
  /// and throws CompileGivenUp.
  bool compile(const std::string& name, const std::vector<std::string>& files, const std::string& build_options);

 private:
  struct Worker {
    int fd = -1;
    pid_t pid = -1;
    bool busy = false, ready = false, dead = false;
    std::string buffer;  // bytes read past the last line
  };
  enum class Answer { Built, NotBuilt, Lost, GivenUp };
  Answer exchange(Worker& w, const std::string& request);
  Answer read_line(Worker& w, std::string& line);  // Built: a line read
  bool start(Worker& w);
  void retire(Worker& w);
  void replace(Worker& w);
  bool any_alive() const;  // with m_ held

  QueueContext qc_;
  std::string exe_, index_;
  mutable std::mutex m_;
  std::condition_variable free_;
  std::vector<Worker> workers_;
};

/// While alive, build_program sends the compiles of the pool's device to the pool.
class CompileWorkerScope {
 public:
  explicit CompileWorkerScope(CompileWorkers* workers);
  ~CompileWorkerScope();
  CompileWorkerScope(const CompileWorkerScope&) = delete;
  CompileWorkerScope& operator=(const CompileWorkerScope&) = delete;

 private:
  CompileWorkers* workers_;
};

/// A compile a worker was doing for a thread that gave it up (CompileGiveUpScope).
class CompileGivenUp : public Error {
 public:
  using Error::Error;
};

/// While alive, a compile this thread waits for in a worker process is given up as soon as *flag
/// turns true: the worker is ended (and replaced) and build_program throws CompileGivenUp. A
/// compile in process cannot be given up. The tuner gives up a candidate's compile that runs
/// far longer than its others past the class's time (ClassTuner::build_batch).
class CompileGiveUpScope {
 public:
  explicit CompileGiveUpScope(const std::atomic<bool>* flag);
  ~CompileGiveUpScope();
  CompileGiveUpScope(const CompileGiveUpScope&) = delete;
  CompileGiveUpScope& operator=(const CompileGiveUpScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

/// The pool build_program should use for the device (nullptr: compile in process).
CompileWorkers* compile_workers_for(cl_device_id device);

/// A worker's main loop: opens device `index` ("P:D"), then answers one JSON line per request
/// line read on stdin. Returns the exit status.
int compile_worker_main(const std::string& index);

}  // namespace clforge::detail

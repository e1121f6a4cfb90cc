// Worker processes that compile for one device (compile_workers.hpp). Each worker is spawned
// with one end of a socket pair as its stdin and stdout, answers a first line once its device is
// open, then one line per request. Sockets (not pipes) so that writing to a worker that died
// raises no SIGPIPE (send with MSG_NOSIGNAL).
#include "runtime/compile_workers.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "clforge/device.hpp"
#include "runtime/log.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/sources.hpp"

extern char** environ;

namespace clforge::detail {
namespace {

// The environment of a worker: the process's environment as it started, before any driver was
// loaded, with the CLFORGE_* variables as they are now (the cache folder, build options and
// kernel folder the compile depends on may have been set since). A driver may add variables of
// its own to the process's environment as it initialises: NVIDIA's OpenCL platform was missing
// in workers that inherited the environment of a process using it. The start is copied during
// static initialisation (a library loaded later, by Python, copies it at load time, still before
// its first OpenCL call).
const std::vector<std::string> g_start_environment = [] {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}();

std::vector<std::string> worker_environment() {
  auto ours = [](const std::string& e) { return e.rfind("CLFORGE_", 0) == 0; };
  std::vector<std::string> env;
  for (const auto& e : g_start_environment)
    if (!ours(e)) env.push_back(e);
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    if (ours(*e)) env.emplace_back(*e);
  return env;
}

// A compile that takes longer than this is taken back from its worker (killed) and done in process.
constexpr int kAnswerTimeoutMs = 600000;
// How often a thread waiting for a worker looks at its give-up flag.
constexpr int kGiveUpPollMs = 50;

thread_local const std::atomic<bool>* t_give_up = nullptr;

std::mutex g_pools_mutex;
std::map<cl_device_id, CompileWorkers*>& pools() {
  static auto* p = new std::map<cl_device_id, CompileWorkers*>;  // never destroyed, like the caches
  return *p;
}

// "P:D" of the device in clforge's enumeration, or "" (a sub-device, or not enumerated).
std::string device_index(const cl::Device& device) {
  for (const auto& e : list_devices())
    if (e.device() == device()) return e.info.index_string();
  return {};
}

// Starts `exe compile-worker index` with `fd` as its stdin and stdout; -1 when it cannot.
pid_t spawn_worker(const std::string& exe, const std::string& index, int fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 0);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  // Only stdin, stdout and stderr pass: a driver's descriptors of this process (its device files)
  // are no business of the worker's driver.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<std::string> args{exe, "compile-worker", index};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_copy = worker_environment();
  std::vector<char*> envp;
  for (auto& e : env_copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int st = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return st == 0 ? pid : -1;
}

bool send_all(int fd, const std::string& text) {
  for (std::size_t off = 0; off < text.size();) {
    const ssize_t n = ::send(fd, text.data() + off, text.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool compile_workers_apply(const DeviceInfo& dev) { return disk_cache_keeps_binaries(dev) && !cache_dir().empty(); }

CompileWorkers::CompileWorkers(const QueueContext& qc, const std::string& exe, unsigned count)
    : qc_(qc), exe_(exe), index_(exe.empty() || count == 0 ? std::string() : device_index(qc.device)) {
  if (index_.empty()) return;
  for (unsigned i = 0; i < count; ++i) {
    Worker w;
    if (!start(w)) break;
    workers_.push_back(std::move(w));
  }
}

// A new worker process on one end of a socket pair; false (logged) when it cannot start.
bool CompileWorkers::start(Worker& w) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return false;
  w = Worker{};
  w.pid = spawn_worker(exe_, index_, fds[1]);
  ::close(fds[1]);
  if (w.pid < 0) {
    ::close(fds[0]);
    log(LogLevel::Info, "compile workers: cannot start " + exe_ + "; compiling in process");
    return false;
  }
  w.fd = fds[0];
  return true;
}

CompileWorkers::~CompileWorkers() {
  for (auto& w : workers_)
    if (w.fd >= 0) ::close(w.fd);  // a worker ends when its socket closes
  for (auto& w : workers_) {
    if (w.pid < 0) continue;
    int status = 0;
    for (int i = 0; i < 500 && ::waitpid(w.pid, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (::waitpid(w.pid, &status, WNOHANG) == 0) {
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, &status, 0);
    }
  }
}

bool CompileWorkers::any_alive() const {
  return std::any_of(workers_.begin(), workers_.end(), [](const Worker& w) { return !w.dead; });
}

bool CompileWorkers::active() const {
  std::lock_guard<std::mutex> lock(m_);
  return any_alive();
}

void CompileWorkers::retire(Worker& w) {
  w.dead = true;
  if (w.pid > 0) ::kill(w.pid, SIGKILL);
}

CompileWorkers::Answer CompileWorkers::read_line(Worker& w, std::string& line) {
  int waited_ms = 0;
  for (;;) {
    const auto nl = w.buffer.find('\n');
    if (nl != std::string::npos) {
      line = w.buffer.substr(0, nl);
      w.buffer.erase(0, nl + 1);
      return Answer::Built;
    }
    if (t_give_up != nullptr && t_give_up->load()) return Answer::GivenUp;
    const int slice = t_give_up != nullptr ? kGiveUpPollMs : kAnswerTimeoutMs;
    pollfd p{w.fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, slice);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Answer::Lost;
    if (ready == 0) {
      waited_ms += slice;
      if (waited_ms >= kAnswerTimeoutMs) return Answer::Lost;
      continue;
    }
    char chunk[4096];
    const ssize_t n = ::recv(w.fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Answer::Lost;
    w.buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

// Sends one request to a worker held by this thread and reads its answer (after its first line,
// the one saying its device is open).
CompileWorkers::Answer CompileWorkers::exchange(Worker& w, const std::string& request) {
  std::string line;
  if (!w.ready) {
    if (const Answer a = read_line(w, line); a != Answer::Built) return a;
    const auto hello = nlohmann::json::parse(line, nullptr, false);
    if (hello.is_discarded() || !hello.value("ready", false) || hello.value("device", "") != qc_.info->name ||
        hello.value("driver", "") != qc_.info->driver_version) {
      log(LogLevel::Info, "compile workers: a worker did not open \"" + qc_.info->name + "\": " + line);
      return Answer::Lost;
    }
    w.ready = true;
  }
  if (!send_all(w.fd, request + "\n")) return Answer::Lost;
  if (const Answer a = read_line(w, line); a != Answer::Built) return a;
  const auto answer = nlohmann::json::parse(line, nullptr, false);
  if (answer.is_discarded()) return Answer::Lost;
  return answer.value("ok", false) ? Answer::Built : Answer::NotBuilt;
}

bool CompileWorkers::compile(const std::string& name, const std::vector<std::string>& files,
                             const std::string& build_options) {
  Worker* w = nullptr;
  {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      if (!any_alive()) return false;
      for (auto& x : workers_)
        if (!x.dead && !x.busy) {
          w = &x;
          break;
        }
      if (w != nullptr) break;
      free_.wait(lock);
    }
    w->busy = true;
  }
  const std::string request = nlohmann::json{{"name", name}, {"files", files}, {"options", build_options}}.dump();
  const Answer answer = exchange(*w, request);
  {
    std::lock_guard<std::mutex> lock(m_);
    w->busy = false;
    if (answer == Answer::Lost) retire(*w);  // no answer at all: the worker is gone or stuck
    if (answer == Answer::GivenUp) replace(*w);
  }
  free_.notify_all();
  if (answer == Answer::GivenUp) throw CompileGivenUp("compile of " + name + " given up");
  return answer == Answer::Built;
}

// Ends a worker in the middle of a compile and starts another in its place (retired if none starts).
void CompileWorkers::replace(Worker& w) {
  if (w.pid > 0) {
    ::kill(w.pid, SIGKILL);
    int status = 0;
    ::waitpid(w.pid, &status, 0);
  }
  if (w.fd >= 0) ::close(w.fd);
  w.fd = -1;
  w.pid = -1;
  if (!start(w)) w.dead = true;
}

CompileGiveUpScope::CompileGiveUpScope(const std::atomic<bool>* flag) : previous_(t_give_up) { t_give_up = flag; }

CompileGiveUpScope::~CompileGiveUpScope() { t_give_up = previous_; }

CompileWorkerScope::CompileWorkerScope(CompileWorkers* workers) : workers_(workers) {
  if (workers_ == nullptr) return;
  std::lock_guard<std::mutex> lock(g_pools_mutex);
  pools()[workers_->queue_context().device()] = workers_;
}

CompileWorkerScope::~CompileWorkerScope() {
  if (workers_ == nullptr) return;
  std::lock_guard<std::mutex> lock(g_pools_mutex);
  const auto it = pools().find(workers_->queue_context().device());
  if (it != pools().end() && it->second == workers_) pools().erase(it);
}

CompileWorkers* compile_workers_for(cl_device_id device) {
  std::lock_guard<std::mutex> lock(g_pools_mutex);
  const auto it = pools().find(device);
  return it == pools().end() ? nullptr : it->second;
}

int compile_worker_main(const std::string& index) {
  ::signal(SIGINT, SIG_IGN);  // Ctrl-C is for the process that asked; a worker ends when its socket closes
  std::unique_ptr<Session> s;
  try {
    s = std::make_unique<Session>(index);
  } catch (const std::exception& e) {
    std::string seen;
    for (const auto& d : list_devices()) seen += (seen.empty() ? "" : ", ") + d.info.index_string() + " " + d.info.name;
    std::cout << nlohmann::json{{"ready", false}, {"error", e.what()}, {"devices", seen}}.dump() << std::endl;
    return 1;
  }
  const QueueContext qc = queue_context_of(s->queue);
  std::cout << nlohmann::json{{"ready", true}, {"device", qc.info->name}, {"driver", qc.info->driver_version}}.dump()
            << std::endl;
  for (std::string line; std::getline(std::cin, line);) {
    nlohmann::json answer{{"ok", false}};
    try {
      const auto req = nlohmann::json::parse(line);
      build_program(qc, req.at("name").get<std::string>(), req.at("files").get<std::vector<std::string>>(),
                    req.at("options").get<std::string>());
      answer["ok"] = true;
    } catch (const std::exception& e) {
      answer["error"] = e.what();
    }
    std::cout << answer.dump() << std::endl;
  }
  return 0;
}

}  // namespace clforge::detail

// The PoCL launch guard (see pocl_guard.hpp).
#include "runtime/pocl_guard.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/launch.hpp"

namespace clforge::detail {

namespace {

struct State {
  std::map<cl_program, std::size_t> widest;  // the widest grid dimension launched, per program
  // Per queue: its last launch (an in-order queue) or every launch not yet seen complete.
  std::map<cl_command_queue, std::vector<cl::Event>> in_flight;
  // Launches between pocl_before_launch and pocl_after_launch on any thread: decided, not yet
  // in in_flight. A wider launch waits until none is left, and while it is between the two
  // (widening) the key's other launches wait for it, so that no launch slips in beside it.
  int pending = 0;
  bool widening = false;
};

std::mutex g_mutex;
std::condition_variable g_changed;  // pending or widening of some key changed
// Never destroyed: releasing OpenCL objects during static destruction can outlive the driver.
std::map<PoclLaunchKey, State>& g_states = *new std::map<PoclLaunchKey, State>;
std::atomic<unsigned long long> g_waits{0};

cl_device_id device_of(const cl::CommandQueue& queue) {
  cl_device_id d = nullptr;
  check(clGetCommandQueueInfo(queue(), CL_QUEUE_DEVICE, sizeof d, &d, nullptr), "clGetCommandQueueInfo");
  return d;
}

PoclLaunchKey key_of(cl_device_id device, const cl::Kernel& kernel, const cl::NDRange& local) {
  PoclLaunchKey k;
  k.device = device;
  check(kernel.getInfo(CL_KERNEL_FUNCTION_NAME, &k.name), "clGetKernelInfo");
  for (cl_uint i = 0; i < local.dimensions(); ++i) k.local[i] = local[i];
  return k;
}

// The grid width PoCL compares (pocl_cmd_max_grid_dim_width: the widest of local * groups in x
// and y, and local z squared in z).
std::size_t grid_width(const cl::NDRange& global, const cl::NDRange& local) {
  std::size_t w = 1;
  for (cl_uint i = 0; i < std::min<cl_uint>(global.dimensions(), 2); ++i) w = std::max(w, global[i]);
  if (local.dimensions() == 3) w = std::max(w, local[2] * local[2]);
  return w;
}

bool complete(const cl::Event& e) {
  cl_int status = CL_QUEUED;
  return e.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status) == CL_SUCCESS && status <= CL_COMPLETE;
}

}  // namespace

bool PoclLaunchKey::operator<(const PoclLaunchKey& o) const {
  return std::tie(device, name, local) < std::tie(o.device, o.name, o.local);
}

bool pocl_guarded(const cl::CommandQueue& queue, cl_device_id* device) {
  // On every launch's path: a lookup in this thread's own table after the first launch on a
  // device (device handles live as long as the process here).
  thread_local std::unordered_map<cl_device_id, bool> known;
  const cl_device_id d = device_of(queue);
  if (device != nullptr) *device = d;
  auto it = known.find(d);
  if (it != known.end()) return it->second;
  cl_platform_id p = nullptr;
  check(clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof p, &p, nullptr), "clGetDeviceInfo");
  std::size_t n = 0;
  check(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &n), "clGetPlatformInfo");
  std::string name(n, '\0');
  check(clGetPlatformInfo(p, CL_PLATFORM_NAME, n, name.data(), nullptr), "clGetPlatformInfo");
  const bool pocl = name.find("Portable Computing Language") != std::string::npos;
  known.emplace(d, pocl);
  return pocl;
}

PoclLaunchKey pocl_before_launch(const cl::CommandQueue& queue, cl_device_id device, const cl::Kernel& kernel,
                                 const cl::NDRange& global, const cl::NDRange& local) {
  PoclLaunchKey key = key_of(device, kernel, local);
  cl_program program = nullptr;
  check(clGetKernelInfo(kernel(), CL_KERNEL_PROGRAM, sizeof program, &program, nullptr), "clGetKernelInfo");
  const std::size_t width = grid_width(global, local);
  std::vector<cl::Event> wait;
  {
    std::unique_lock<std::mutex> lock(g_mutex);
    State& s = g_states[key];
    g_changed.wait(lock, [&] { return !s.widening; });
    std::size_t& widest = s.widest[program];
    if (width <= widest) {
      ++s.pending;
      return key;
    }
    widest = width;
    s.widening = true;
    key.widening = true;
    g_changed.wait(lock, [&] { return s.pending == 0; });  // the others decided before it, recorded
    for (const auto& [q, events] : s.in_flight)
      for (const cl::Event& e : events)
        if (!complete(e)) wait.push_back(e);
  }
  if (wait.empty()) return key;
  g_waits.fetch_add(1, std::memory_order_relaxed);
  try {
    check(clFlush(queue()), "clFlush");
    // One at a time: the launches of one device may belong to several contexts (groups), and one
    // clWaitForEvents takes the events of one context.
    for (const cl::Event& e : wait)
      check(clWaitForEvents(1, &e()), "clWaitForEvents", "waiting for narrower launches of a kernel on PoCL");
  } catch (...) {
    pocl_launch_abandoned(key);
    throw;
  }
  return key;
}

namespace {
// The end of a launch's turn between pocl_before_launch and pocl_after_launch (or its failure).
void end_turn(State& s, const PoclLaunchKey& key) {
  if (key.widening)
    s.widening = false;
  else
    --s.pending;
  g_changed.notify_all();
}
}  // namespace

void pocl_after_launch(const cl::CommandQueue& queue, const PoclLaunchKey& key, const cl::Event& launched) {
  const bool ordered = in_order(queue);
  std::lock_guard<std::mutex> lock(g_mutex);
  State& s = g_states[key];
  std::vector<cl::Event>& v = s.in_flight[queue()];
  if (ordered) {
    v.assign(1, launched);  // completes after every earlier launch of the queue
  } else {
    v.erase(std::remove_if(v.begin(), v.end(), complete), v.end());
    v.push_back(launched);
  }
  // Queues whose launches have all completed leave the table now and then (a group makes
  // queues per call on some paths; their handles may come back for new queues).
  if (s.in_flight.size() > 16)
    for (auto it = s.in_flight.begin(); it != s.in_flight.end();)
      it = std::all_of(it->second.begin(), it->second.end(), complete) ? s.in_flight.erase(it) : std::next(it);
  end_turn(s, key);
}

void pocl_launch_abandoned(const PoclLaunchKey& key) {
  std::lock_guard<std::mutex> lock(g_mutex);
  end_turn(g_states[key], key);
}

unsigned long long pocl_guard_waits() { return g_waits.load(); }

}  // namespace clforge::detail

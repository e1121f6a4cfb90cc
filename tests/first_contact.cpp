// A process whose first OpenCL calls come from many threads at once: each thread constructs a
// Session (device enumeration and context creation). Every thread must get a working session.
// Runs as its own executable, since the point is the process's first contact with the runtime.
// Exit 0: all threads succeeded; 1: some failed (each failure printed); 77: no OpenCL device.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "clforge/clforge.hpp"

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::stoi(argv[1]) : 16;
  std::mutex m;
  std::condition_variable cv;
  bool go = false;
  std::atomic<int> ok{0}, no_device{0};
  std::vector<std::string> errors(threads);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return go; });
      }
      try {
        clforge::Session s("");
        if (s.queue() != nullptr && s.context() != nullptr)
          ++ok;
        else
          errors[i] = "null queue or context";
      } catch (const clforge::UnsupportedDevice& e) {
        ++no_device;
        errors[i] = e.what();
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  {
    std::lock_guard<std::mutex> lock(m);
    go = true;
  }
  cv.notify_all();
  for (auto& t : pool) t.join();
  if (no_device == threads) {
    std::printf("no OpenCL device: skipped\n");
    return 77;
  }
  for (int i = 0; i < threads; ++i)
    if (!errors[i].empty()) std::printf("thread %d: %s\n", i, errors[i].c_str());
  std::printf("%d of %d threads got a session\n", ok.load(), threads);
  return ok == threads ? 0 : 1;
}

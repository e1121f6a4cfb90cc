// The execution of one routine call (runtime/execution.hpp): launches after the launches they
// name, the caller's output event, the workspace's last use, and the drain when an exception
// leaves the run.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "runtime/execution.hpp"
#include "runtime/program_cache.hpp"
#include "tests/support.hpp"

using namespace clforge;
using detail::Deps;
using detail::Execution;
using detail::Step;

namespace {

// x[dst] = x[a] + x[b] + add (a or b < 0: that term is 0). Launched as one work-item.
const char* const kStepSource = R"(
__kernel void exec_step(__global int* x, int dst, int a, int b, int add) {
  x[dst] = (a >= 0 ? x[a] : 0) + (b >= 0 ? x[b] : 0) + add;
}
)";

struct Rig {
  cl::Context context;
  cl::Device device;
  cl::Program program;
  cl::Buffer x;
  cl::CommandQueue queue;
  bool out_of_order = false;

  // A context of its own (its workspaces are this test's alone) and a queue on it, out of order
  // when asked and the device has one.
  explicit Rig(bool want_out_of_order) : context(test::session().entry.device), device(test::session().entry.device) {
    program = cl::Program(context, kStepSource);
    REQUIRE(program.build({device}) == CL_SUCCESS);
    cl_int st = CL_SUCCESS;
    x = cl::Buffer(context, CL_MEM_READ_WRITE, 16 * sizeof(cl_int), nullptr, &st);
    REQUIRE(st == CL_SUCCESS);
    if (want_out_of_order) {
      queue = cl::CommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &st);
      out_of_order = st == CL_SUCCESS;
    }
    if (!out_of_order) queue = cl::CommandQueue(context, device);
    const std::vector<cl_int> zero(16, 0);
    REQUIRE(queue.enqueueWriteBuffer(x, CL_TRUE, 0, zero.size() * sizeof(cl_int), zero.data()) == CL_SUCCESS);
  }
  // A kernel object computing x[dst] = x[a] + x[b] + add.
  cl::Kernel step(int dst, int a, int b, int add) const {
    cl::Kernel k(program, "exec_step");
    k.setArg(0, x);
    k.setArg(1, dst);
    k.setArg(2, a);
    k.setArg(3, b);
    k.setArg(4, add);
    return k;
  }
  Step launch(Execution& e, int dst, int a, int b, int add, const Deps& after, bool last = false) const {
    return e.launch(step(dst, a, b, add), cl::NDRange(1), cl::NDRange(1), after, last);
  }
  std::vector<cl_int> values() {
    std::vector<cl_int> v(16);
    REQUIRE(queue.enqueueReadBuffer(x, CL_TRUE, 0, v.size() * sizeof(cl_int), v.data()) == CL_SUCCESS);
    return v;
  }
  // The workspace the pool hands out next for `bytes` on this context (given back at once).
  detail::Workspace peek_workspace(std::size_t bytes) {
    detail::Workspace w = detail::workspace_pool().acquire(context, bytes, "test workspace");
    detail::Workspace copy = w;
    detail::workspace_pool().release(std::move(w));
    return copy;
  }
};

cl_int status(const cl::Event& e) {
  cl_int s = 0;
  REQUIRE(e.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &s) == CL_SUCCESS);
  return s;
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("execution: a fork and a join run after exactly the launches they name") {
    Rig r(true);
    if (!r.out_of_order) MESSAGE("the device has no out-of-order queue: the graph runs in order");
    cl::UserEvent gate(r.context);
    cl::Event out;
    {
      Execution e(r.queue, {gate}, &out);
      const Step a = r.launch(e, 0, -1, -1, 1, {});          // x0 = 1, after the start
      const Step b = r.launch(e, 1, 0, -1, 1, {a});          // x1 = x0 + 1
      const Step c = r.launch(e, 2, 0, -1, 10, {a});         // x2 = x0 + 10
      const Step d = r.launch(e, 3, 1, 2, 0, {b, c}, true);  // x3 = x1 + x2: the join
      if (r.out_of_order) {
        for (Step s : {a, b, c, d}) CHECK(e.event(s)() != nullptr);  // every launch has an event
        CHECK(e.event(b)() != e.event(c)());
      }
      e.finish();
      CHECK(out() == e.event(d)());  // the caller's event is the final launch's
      r.queue.flush();
      CHECK(status(out) != CL_COMPLETE);  // every launch waits for the start's wait list
    }
    gate.setStatus(CL_COMPLETE);
    REQUIRE(out.wait() == CL_SUCCESS);
    const std::vector<cl_int> v = r.values();
    CHECK(v[0] == 1);
    CHECK(v[1] == 2);
    CHECK(v[2] == 11);
    CHECK(v[3] == 13);
  }

  TEST_CASE("execution: on an in-order queue only the final launch makes an event, when asked") {
    Rig r(false);
    cl::Event out;
    Execution e(r.queue, {}, &out);
    const Step a = e.then(r.step(0, -1, -1, 5), cl::NDRange(1), cl::NDRange(1));
    const Step b = e.then(r.step(1, 0, -1, 1), cl::NDRange(1), cl::NDRange(1), true);
    CHECK(e.event(a)() == nullptr);
    CHECK(e.event(b)() != nullptr);
    e.finish();
    CHECK(out() == e.event(b)());
    REQUIRE(out.wait() == CL_SUCCESS);
    CHECK(r.values()[1] == 6);

    Execution quiet(r.queue, {}, nullptr);  // no event asked: none made
    const Step c = quiet.then(r.step(2, -1, -1, 7), cl::NDRange(1), cl::NDRange(1), true);
    CHECK(quiet.event(c)() == nullptr);
    quiet.finish();
    CHECK(r.values()[2] == 7);
  }

  TEST_CASE("execution: without a final launch the caller's event is a marker after the start") {
    Rig r(true);
    cl::UserEvent gate(r.context);
    cl::Event out;
    Execution e(r.queue, {gate}, &out);
    e.finish();
    REQUIRE(out() != nullptr);
    r.queue.flush();
    CHECK(status(out) != CL_COMPLETE);
    gate.setStatus(CL_COMPLETE);
    CHECK(out.wait() == CL_SUCCESS);
  }

  TEST_CASE("execution: the workspace goes back with the call's last use") {
    const std::size_t bytes = 4100;
    for (bool ooo : {false, true}) {
      Rig r(ooo);
      INFO("out of order: " << r.out_of_order);
      cl::Event out;
      {
        Execution e(r.queue, {}, &out);
        const cl::Buffer& ws = e.workspace(r.context, bytes, "test workspace");
        CHECK(ws() != nullptr);
        const Step a = r.launch(e, 0, -1, -1, 1, {});
        const Step b = r.launch(e, 1, -1, -1, 2, {});
        r.launch(e, 2, 0, 1, 0, {a, b}, true);
        e.finish();
      }
      const detail::Workspace w = r.peek_workspace(bytes);
      if (r.out_of_order) {  // the events of the launches nothing waits for: the join
        REQUIRE(w.last_use.size() == 1);
        CHECK(w.last_use[0]() == out());
        CHECK(w.queue() == nullptr);
      } else {  // the queue itself
        CHECK(w.last_use.empty());
        CHECK(w.queue() == r.queue());
      }
      REQUIRE(out.wait() == CL_SUCCESS);
      CHECK(r.values()[2] == 3);
    }
  }

  TEST_CASE("execution: an exception drains the enqueued commands and returns the workspace") {
    const std::size_t bytes = 4100;
    for (bool ooo : {false, true}) {
      Rig r(ooo);
      INFO("out of order: " << r.out_of_order);
      cl::UserEvent gate(r.context);
      cl::Event first, out;
      CHECK_THROWS_AS(([&] {
                        Execution e(r.queue, {gate}, &out);
                        e.workspace(r.context, bytes, "test workspace");
                        const Step a = r.launch(e, 0, -1, -1, 4, {}, true);
                        first = e.event(a);
                        gate.setStatus(CL_COMPLETE);  // else the drain would wait for ever
                        throw std::runtime_error("a later launch failed");
                      }()),
                      std::runtime_error);
      CHECK(out() == nullptr);                                      // finish() was not reached: no event for the caller
      if (first() != nullptr) CHECK(status(first) == CL_COMPLETE);  // drained before the lease went back
      const detail::Workspace w = r.peek_workspace(bytes);
      CHECK(w.last_use.empty());  // nothing of the failed call may still run
      CHECK(w.queue() == nullptr);
      CHECK(r.values()[0] == 4);
    }
  }

  TEST_CASE("execution: a workspace is leased before the first launch") {
    Rig r(false);
    Execution e(r.queue, {}, nullptr);
    e.then(r.step(0, -1, -1, 1), cl::NDRange(1), cl::NDRange(1));
    CHECK_THROWS_AS(e.workspace(r.context, 64, "test workspace"), std::logic_error);
    e.finish();
  }
}

// Tuning target of the transpose family: sizes "N", "RxC" or "RxC:E" (E = element size in
// bytes, 4 by default), stored under the variant the launcher looks up (the element size),
// verified bit for bit against host::transpose with NaN-poisoned outputs and a guard tail: every
// output row of a check size, 64 seeded rows (the first, the last, 62 others) of a timed size,
// whose whole output is scanned for NaN and guard hits.
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "clforge/transpose.hpp"
#include "host/data.hpp"
#include "host/reference.hpp"
#include "runtime/errors.hpp"
#include "transpose/transpose_internal.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {
namespace {

struct Shape {
  std::size_t rows = 0, cols = 0, elem = 4;
};

std::size_t parse_count(const std::string& text, const std::string& whole) {
  return parse_size_count(text, "transpose", whole, "N, RxC or RxC:E with E = 4, 8 or 16", INT_MAX);
}

Shape parse_shape(const std::string& size) {
  Shape s;
  std::string dims = size;
  if (const auto colon = size.find(':'); colon != std::string::npos) {
    dims = size.substr(0, colon);
    s.elem = parse_count(size.substr(colon + 1), size);
    if (s.elem != 4 && s.elem != 8 && s.elem != 16)
      throw InvalidArgument("transpose size '" + size + "': element size must be 4, 8 or 16 bytes");
  }
  const auto x = dims.find('x');
  if (x == std::string::npos) {
    s.rows = s.cols = parse_count(dims, size);
  } else {
    s.rows = parse_count(dims.substr(0, x), size);
    s.cols = parse_count(dims.substr(x + 1), size);
  }
  return s;
}

class TransposeInstance : public TuneInstance {
 public:
  TransposeInstance(cl::CommandQueue& queue, const Shape& s, std::uint64_t seed, Verification verification) : s_(s) {
    const std::size_t n = s.rows * s.cols * (s.elem / 4);
    const cl::Context ctx = queue_context(queue);
    const std::vector<float> in = host::random_floats(n, seed);
    // Output row j is input column j: the whole output, or the sampled rows one by one.
    if (verification == Verification::Full) {
      for (std::size_t j = 0; j < s.cols; ++j) rows_.push_back(j);
      ref_.resize(n);
      host::transpose(s.rows, s.cols, s.elem, in.data(), s.cols, ref_.data(), s.rows);
    } else if (verification == Verification::Sampled) {
      rows_ = sample_indices(s.cols, kSampled, seed + 1);
      ref_.resize(rows_.size() * row_floats());
      for (std::size_t r = 0; r < rows_.size(); ++r)
        host::transpose(s.rows, 1, s.elem, in.data() + rows_[r] * (s.elem / 4), s.cols, ref_.data() + r * row_floats(),
                        s.rows);
    }
    in_ = input_buffer(ctx, in, "tuner transpose input");
    out_ = GuardedOutput(ctx, n, "tuner transpose output");
  }

  std::string label() const override {
    return std::to_string(s_.rows) + "x" + std::to_string(s_.cols) + ", " + std::to_string(s_.elem) + "-byte elements";
  }

  // The candidate's plan (the one run() enqueues), made once.
  void build(const QueueContext& qc, const Configuration& cfg) const override {
    plans_.keep(cfg.values,
                std::make_shared<const TransposePlan>(make_transpose_plan(qc, desc(), Tuning{cfg.values, false})));
  }

  void poison(cl::CommandQueue& queue) override { out_.poison(queue); }

  cl::Event run(cl::CommandQueue& queue, const ParamMap& params) override {
    const auto plan = plans_.get(params, [&] {
      return std::make_shared<const TransposePlan>(queue, desc(), Tuning{params, false});
    });
    cl::Event ev;
    plan->enqueue(queue, in_, out_.buffer(), {}, &ev);
    return ev;
  }

  std::vector<float>& read_output(cl::CommandQueue& queue) override { return out_.read(queue); }

  // A transpose moves bits: every compared row must equal the reference exactly, and the whole
  // output must be finite (the input is) with its guard intact.
  Verdict check(const std::vector<float>& out) const override {
    Verdict v;
    if (!out_.scan(out, "the output", v)) return v;
    const std::size_t len = row_floats();
    std::size_t wrong = 0, first = 0, first_ref = 0;
    for (std::size_t r = 0; r < rows_.size(); ++r)
      for (std::size_t f = 0; f < len; ++f) {
        const std::size_t i = rows_[r] * len + f;
        if (std::memcmp(&out[i], &ref_[r * len + f], 4) == 0) continue;
        if (wrong++ == 0) first = i, first_ref = r * len + f;
      }
    if (wrong == 0) {
      v.ok = true;
      return v;
    }
    v.error = 1;
    const std::size_t e = first / (s_.elem / 4);
    v.message = std::to_string(wrong) + " of " + std::to_string(ref_.size()) +
                " compared floats differ from the host transpose (first at out[" + std::to_string(e / s_.rows) + "][" +
                std::to_string(e % s_.rows) + "]: " + std::to_string(out[first]) + " instead of " +
                std::to_string(ref_[first_ref]) + ")";
    return v;
  }

  // A whole output row: the first compared one, or the first one the sample skips (the middle
  // one when every row is compared).
  std::vector<std::size_t> fault_region(bool in_sample) const override {
    const std::size_t j = fault_index(rows_, s_.cols, in_sample);
    std::vector<std::size_t> region;
    for (std::size_t f = 0; f < row_floats(); ++f) region.push_back(j * row_floats() + f);
    return region;
  }

 private:
  TransposeDesc desc() const {
    TransposeDesc d;
    d.rows = s_.rows;
    d.cols = s_.cols;
    d.elem_size = s_.elem;
    return d;
  }

  std::size_t row_floats() const { return s_.rows * (s_.elem / 4); }

  static constexpr std::size_t kSampled = 64;  // output rows compared on a timed size

  Shape s_;
  CandidatePlans<TransposePlan> plans_;
  std::vector<std::size_t> rows_;  // output rows compared, ascending
  std::vector<float> ref_;         // their reference values, row after row
  cl::Buffer in_;
  GuardedOutput out_;
};

}  // namespace

TuneTarget transpose_tune_target() {
  TuneTarget t;
  t.routine = "transpose";
  t.kernel = "transpose";
  t.size_syntax = "N (square), RxC, or RxC:E with E the element size in bytes (4, 8, 16; default 4)";
  t.default_sizes = {"4096"};
  // The variant the launcher resolves (transpose_variant): the element size, ":large" from
  // kLargeTransposeBytes on, ":large:odd" for packed float rows or columns off the float4 grid.
  t.variant_of = [](const std::string& size) {
    const Shape s = parse_shape(size);
    return transpose_variant(s.rows, s.cols, s.elem, (s.rows | s.cols) % 4 == 0);
  };
  // Every shape of a class shares one row, and a candidate costs milliseconds: a class is timed
  // on all its sizes (tune all: each of bench all's shapes, small, square, odd and thin), so
  // that no shape is left to a row that only the others chose.
  t.time_every_size = true;
  // Partial tiles in both directions for every tile edge (4 ... 64).
  t.check_sizes = [](const std::string& variant, const std::vector<std::string>&) {
    return std::vector<std::string>{"67x131:" + variant.substr(0, variant.find(':'))};
  };
  t.make = [](cl::CommandQueue& queue, const std::string& size, std::uint64_t seed,
              Verification verification) -> std::unique_ptr<TuneInstance> {
    return std::make_unique<TransposeInstance>(queue, parse_shape(size), seed, verification);
  };
  return t;
}

}  // namespace clforge::detail

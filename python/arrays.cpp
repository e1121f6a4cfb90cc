// NumPy conveniences: sgemm (and matmul), transpose, fft/ifft, fft2/ifft2, fftn/ifftn, rfft2/irfft2, rfftn/irfftn and
// gaussian_blur on host arrays, blocking, on a pyopencl queue. sgemm on 2-D arrays and transpose
// are the library's host-vector overloads; sgemm on 3-D arrays (a strided batch), the FFTs and
// gaussian_blur build a plan (which checks every argument before anything is allocated), copy
// the arrays in at buffer creation, enqueue and read the result back.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "interop.hpp"

namespace clforge_py {
namespace {

template <typename T>
std::vector<T> to_vector(const py::array& a) {
  std::vector<T> v(static_cast<std::size_t>(a.nbytes()) / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), a.data(), v.size() * sizeof(T));
  return v;
}

// A new C-contiguous array of `dtype` and `shape` holding `bytes` bytes from `src`.
py::array from_bytes(const py::dtype& dtype, const std::vector<py::ssize_t>& shape, const void* src,
                     std::size_t bytes) {
  py::array out(dtype, shape);
  if (bytes != 0) std::memcpy(out.mutable_data(), src, bytes);
  return out;
}

// A new float buffer of the queue's context holding `v` (at least one element: OpenCL has no
// empty buffers).
cl::Buffer float_buffer(const cl::Context& ctx, const std::vector<float>& v, const char* what) {
  cl_int err = CL_SUCCESS;
  const std::size_t n = std::max<std::size_t>(1, v.size());
  const cl::Buffer b(ctx, CL_MEM_READ_WRITE | (v.empty() ? 0 : CL_MEM_COPY_HOST_PTR), n * sizeof(float),
                     v.empty() ? nullptr : const_cast<float*>(v.data()), &err);
  if (err != CL_SUCCESS) throw clforge::OpenCLError(err, "clCreateBuffer", what);
  return b;
}

// The batch axis of a 3-D sgemm operand as numpy.matmul broadcasts it: its products and the
// stride between its matrices (0 for a 2-D operand or a batch axis of 1).
struct BatchAxis {
  std::size_t count = 1, stride = 0;
};
BatchAxis batch_axis(const py::array& x, std::size_t matrix) {
  if (x.ndim() == 2 || x.shape(0) == 1) return {static_cast<std::size_t>(x.ndim() == 2 ? 1 : x.shape(0)), 0};
  return {static_cast<std::size_t>(x.shape(0)), matrix};
}

// sgemm's alpha or beta: a number, or (for a batch) a 1-D sequence of one value per product.
struct Scalar {
  float value = 0.0f;
  std::vector<float> per_product;  // empty: `value` for every product
};
Scalar to_scalar(const py::object& obj, const char* name) {
  const auto arr = py::array_t<float, py::array::forcecast>::ensure(obj);
  if (!arr || arr.ndim() > 1)
    throw py::type_error(std::string("sgemm: ") + name +
                         " must be a number or a 1-D sequence of numbers (one per "
                         "product of a batch)");
  Scalar s;
  if (arr.ndim() == 0) {
    s.value = *arr.data();
  } else {
    s.per_product.assign(arr.data(), arr.data() + arr.size());
    if (s.per_product.empty()) invalid("sgemm", std::string(name) + " is an empty sequence");
  }
  return s;
}

// The scalar pair of every product as lists of `batch` (a number repeated), for the offsets form.
std::vector<float> per_product(const Scalar& s, std::size_t batch, const char* name) {
  if (s.per_product.empty()) return std::vector<float>(batch, s.value);
  if (s.per_product.size() != batch)
    invalid("sgemm", std::string(name) + " holds " + std::to_string(s.per_product.size()) + " values for a batch of " +
                         std::to_string(batch));
  return s.per_product;
}

// The strided batch of sgemm_np: a and b are m x k and k x n matrices (after op) in their last two
// axes, with numpy.matmul's broadcasting of the batch axis; c, when given, is batch x m x n.
py::array sgemm_batched_np(cl::CommandQueue& q, const py::array& a, const py::array& b, const py::object& c_obj,
                           const Scalar& alpha, const Scalar& beta, bool trans_a, bool trans_b,
                           const clforge::Tuning& tuning) {
  const char* const kRoutine = "sgemm";
  const auto dim = [](const py::array& x, bool t, int i) {
    return static_cast<std::size_t>(x.shape(x.ndim() - 2 + (t ? 1 - i : i)));
  };
  const std::size_t m = dim(a, trans_a, 0), k = dim(a, trans_a, 1), n = dim(b, trans_b, 1);
  if (dim(b, trans_b, 0) != k) invalid(kRoutine, "op(a) and op(b): inner dimensions differ");
  const BatchAxis ba = batch_axis(a, m * k), bb = batch_axis(b, k * n);
  if (ba.count != bb.count && ba.count != 1 && bb.count != 1)
    invalid(kRoutine,
            "batch axes of " + std::to_string(ba.count) + " and " + std::to_string(bb.count) + " do not broadcast");
  const std::size_t batch = ba.count == 1 ? bb.count : ba.count;
  std::vector<float> c(batch * m * n, 0.0f);
  if (!c_obj.is_none()) {
    const py::array ca = checked_array(c_obj, kRoutine, "c", 3);
    require_dtype(ca, py::dtype::of<float>(), kRoutine, "c");
    if (static_cast<std::size_t>(ca.shape(0)) != batch || static_cast<std::size_t>(ca.shape(1)) != m ||
        static_cast<std::size_t>(ca.shape(2)) != n)
      invalid(kRoutine, "c must be " + std::to_string(batch) + "x" + std::to_string(m) + "x" + std::to_string(n));
    c = to_vector<float>(ca);
  }
  const bool lists = !alpha.per_product.empty() || !beta.per_product.empty();
  const std::vector<float> alphas = lists ? per_product(alpha, batch, "alpha") : std::vector<float>{},
                           betas = lists ? per_product(beta, batch, "beta") : std::vector<float>{beta.value};
  if (c_obj.is_none())
    for (float bv : betas)
      if (bv != 0.0f) invalid(kRoutine, "beta is " + std::to_string(bv) + " but no c was given");
  const std::vector<float> av = to_vector<float>(a), bv = to_vector<float>(b);
  const auto ld = [](const py::array& x) { return std::max<py::ssize_t>(1, x.shape(x.ndim() - 1)); };
  const std::size_t lda = static_cast<std::size_t>(ld(a)), ldb = static_cast<std::size_t>(ld(b));
  {
    py::gil_scoped_release nogil;
    clforge::SgemmDesc d;
    d.layout = clforge::Layout::RowMajor;
    d.trans_a = trans_a ? clforge::Transpose::Yes : clforge::Transpose::No;
    d.trans_b = trans_b ? clforge::Transpose::Yes : clforge::Transpose::No;
    d.m = m, d.n = n, d.k = k, d.alpha = alpha.value, d.beta = beta.value;
    d.a_ld = lda, d.b_ld = ldb, d.c_ld = std::max<std::size_t>(1, n);
    d.batch = batch, d.a_stride = ba.stride, d.b_stride = bb.stride, d.c_stride = m * n;
    // The plan (or the offsets form, for a scalar pair per product) checks every argument before
    // a buffer is made.
    std::optional<clforge::SgemmPlan> plan;
    if (!lists) plan.emplace(q, d, tuning);
    const cl::Context ctx = q.getInfo<CL_QUEUE_CONTEXT>();
    const cl::Buffer ab = float_buffer(ctx, av, "a"), bbuf = float_buffer(ctx, bv, "b"), cb = float_buffer(ctx, c, "c");
    cl::Event done;
    if (plan) {
      plan->enqueue(q, ab, bbuf, cb, {}, &done);
    } else {
      std::vector<std::size_t> ao(batch), bo(batch), co(batch);
      for (std::size_t i = 0; i < batch; ++i) ao[i] = i * d.a_stride, bo[i] = i * d.b_stride, co[i] = i * d.c_stride;
      clforge::sgemm_batched(q, d.layout, d.trans_a, d.trans_b, m, n, k, alphas, ab, ao, lda, bbuf, bo, ldb, betas, cb,
                             co, d.c_ld, {}, &done, tuning);
    }
    const std::vector<cl::Event> wait{done};
    const cl_int err = c.empty() ? done.wait() : q.enqueueReadBuffer(cb, CL_TRUE, 0, c.size() * 4, c.data(), &wait);
    if (err != CL_SUCCESS) throw clforge::OpenCLError(err, "clEnqueueReadBuffer", "c");
  }
  return from_bytes(py::dtype::of<float>(),
                    {static_cast<py::ssize_t>(batch), static_cast<py::ssize_t>(m), static_cast<py::ssize_t>(n)},
                    c.data(), c.size() * sizeof(float));
}

py::array sgemm_np(const py::object& queue, const py::object& a_obj, const py::object& b_obj, const py::object& c_obj,
                   const py::object& alpha_obj, const py::object& beta_obj, bool trans_a, bool trans_b,
                   const py::object& tuning_obj) {
  const char* const kRoutine = "sgemm";
  cl::CommandQueue q = to_queue(queue);
  const clforge::Tuning tuning = to_tuning(tuning_obj);
  const py::array a = checked_array(a_obj, kRoutine, "a", 2, 3), b = checked_array(b_obj, kRoutine, "b", 2, 3);
  require_dtype(a, py::dtype::of<float>(), kRoutine, "a");
  require_dtype(b, py::dtype::of<float>(), kRoutine, "b");
  const Scalar alpha_s = to_scalar(alpha_obj, "alpha"), beta_s = to_scalar(beta_obj, "beta");
  if (a.ndim() == 3 || b.ndim() == 3)
    return sgemm_batched_np(q, a, b, c_obj, alpha_s, beta_s, trans_a, trans_b, tuning);
  if (!alpha_s.per_product.empty() || !beta_s.per_product.empty())
    invalid(kRoutine, "alpha or beta per product needs a batch (a 3-D a or b)");
  const float alpha = alpha_s.value, beta = beta_s.value;
  const auto dim = [](const py::array& x, bool t, int i) { return static_cast<std::size_t>(x.shape(t ? 1 - i : i)); };
  const std::size_t m = dim(a, trans_a, 0), k = dim(a, trans_a, 1), n = dim(b, trans_b, 1);
  if (dim(b, trans_b, 0) != k)
    invalid(kRoutine, "op(a) is " + std::to_string(m) + "x" + std::to_string(k) + " but op(b) is " +
                          std::to_string(dim(b, trans_b, 0)) + "x" + std::to_string(n) + ": inner dimensions differ");
  std::vector<float> c(m * n, 0.0f);
  if (!c_obj.is_none()) {
    const py::array ca = checked_array(c_obj, kRoutine, "c", 2);
    require_dtype(ca, py::dtype::of<float>(), kRoutine, "c");
    if (static_cast<std::size_t>(ca.shape(0)) != m || static_cast<std::size_t>(ca.shape(1)) != n)
      invalid(kRoutine, "c must be " + std::to_string(m) + "x" + std::to_string(n) + " (got " +
                            std::to_string(ca.shape(0)) + "x" + std::to_string(ca.shape(1)) + ")");
    c = to_vector<float>(ca);
  } else if (beta != 0.0f) {
    invalid(kRoutine, "beta is " + std::to_string(beta) + " but no c was given");
  }
  const std::vector<float> av = to_vector<float>(a), bv = to_vector<float>(b);
  // Row-major: the leading dimension of each stored matrix is its number of columns.
  const auto ld = [](const py::array& x) { return std::max<std::size_t>(1, static_cast<std::size_t>(x.shape(1))); };
  {
    py::gil_scoped_release nogil;
    clforge::sgemm(q, clforge::Layout::RowMajor, trans_a ? clforge::Transpose::Yes : clforge::Transpose::No,
                   trans_b ? clforge::Transpose::Yes : clforge::Transpose::No, m, n, k, alpha, av, ld(a), bv, ld(b),
                   beta, c, std::max<std::size_t>(1, n), tuning);
  }
  return from_bytes(py::dtype::of<float>(), {static_cast<py::ssize_t>(m), static_cast<py::ssize_t>(n)}, c.data(),
                    c.size() * sizeof(float));
}

struct Bytes16 {
  unsigned char b[16];
};

template <typename T>
std::vector<T> transpose_as(cl::CommandQueue& q, std::size_t rows, std::size_t cols, const py::array& a,
                            const clforge::Tuning& tuning) {
  const std::vector<T> in = to_vector<T>(a);
  py::gil_scoped_release nogil;
  return clforge::transpose(q, rows, cols, in, tuning);
}

py::array transpose_np(const py::object& queue, const py::object& a_obj, const py::object& tuning_obj) {
  const char* const kRoutine = "transpose";
  cl::CommandQueue q = to_queue(queue);
  const clforge::Tuning tuning = to_tuning(tuning_obj);
  const py::array a = checked_array(a_obj, kRoutine, "a", 2);
  const std::size_t elem = static_cast<std::size_t>(a.itemsize());
  if (a.dtype().attr("hasobject").cast<bool>())
    throw py::type_error("transpose: a must not hold Python objects (got dtype object)");
  if (elem != 4 && elem != 8 && elem != 16)
    throw py::type_error("transpose: a must have 4-, 8- or 16-byte elements (got dtype " + text(a.dtype()) + ", " +
                         std::to_string(elem) + " bytes)");
  const auto rows = static_cast<std::size_t>(a.shape(0)), cols = static_cast<std::size_t>(a.shape(1));
  const std::vector<py::ssize_t> shape{a.shape(1), a.shape(0)};
  const std::size_t bytes = rows * cols * elem;
  if (elem == 4) return from_bytes(a.dtype(), shape, transpose_as<float>(q, rows, cols, a, tuning).data(), bytes);
  if (elem == 8)
    return from_bytes(a.dtype(), shape, transpose_as<std::complex<float>>(q, rows, cols, a, tuning).data(), bytes);
  return from_bytes(a.dtype(), shape, transpose_as<Bytes16>(q, rows, cols, a, tuning).data(), bytes);
}

// Copies `in` to a new device buffer, runs `enqueue(in, out, &done)` into a device buffer of
// out.nbytes() and reads it into `out`, blocking. The GIL is released throughout.
template <typename F>
void run_on_host(cl::CommandQueue& q, const py::array& in, py::array& out, F&& enqueue) {
  const void* src = in.data();
  void* dst = out.mutable_data();
  const auto in_bytes = static_cast<std::size_t>(in.nbytes()), out_bytes = static_cast<std::size_t>(out.nbytes());
  py::gil_scoped_release nogil;
  cl_int err = CL_SUCCESS;
  const cl::Context ctx = q.getInfo<CL_QUEUE_CONTEXT>(&err);
  if (err != CL_SUCCESS) throw clforge::OpenCLError(err, "clGetCommandQueueInfo");
  const cl::Buffer bin(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_bytes, const_cast<void*>(src), &err);
  if (err != CL_SUCCESS) throw clforge::OpenCLError(err, "clCreateBuffer", "input array");
  const cl::Buffer bout(ctx, CL_MEM_READ_WRITE, out_bytes, nullptr, &err);
  if (err != CL_SUCCESS) throw clforge::OpenCLError(err, "clCreateBuffer", "output array");
  cl::Event done;
  enqueue(bin, bout, &done);
  const std::vector<cl::Event> wait{done};
  err = q.enqueueReadBuffer(bout, CL_TRUE, 0, out_bytes, dst, &wait);
  if (err != CL_SUCCESS) throw clforge::OpenCLError(err, "clEnqueueReadBuffer", "output array");
}

// numpy.fft's norm: which direction is scaled, and by what.
template <typename Desc>
void set_norm(const char* routine, const std::string& norm, Desc& d) {
  using S = clforge::FftScaling;
  if (norm == "backward") {
    d.inverse_scaling = S::OverN;
  } else if (norm == "ortho") {
    d.forward_scaling = d.inverse_scaling = S::OverSqrtN;
  } else if (norm == "forward") {
    d.forward_scaling = S::OverN;
  } else {
    invalid(routine, "norm must be \"backward\", \"ortho\" or \"forward\" (got \"" + norm + "\")");
  }
}

// `a` cut or zero-padded to `lens` along its last lens.size() axes, as a new C-contiguous array.
py::array fit_trailing(const py::array& a, const std::vector<std::size_t>& lens) {
  const py::module_ np = py::module_::import("numpy");
  std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
  py::list part;
  part.append(py::ellipsis());
  for (std::size_t i = 0; i < lens.size(); ++i) {
    py::ssize_t& len = shape[shape.size() - lens.size() + i];
    part.append(py::slice(0, std::min<py::ssize_t>(len, static_cast<py::ssize_t>(lens[i])), 1));
    len = static_cast<py::ssize_t>(lens[i]);
  }
  py::array work = np.attr("zeros")(py::tuple(py::cast(shape)), a.dtype());
  const py::tuple t(part);
  work[t] = a[t];
  return work;
}

// `a` with axis `axis` moved last, cut or zero-padded there to `len` elements, C-contiguous.
py::array along_last(const py::array& a, int axis, std::size_t len) {
  const py::array moved = py::module_::import("numpy").attr("moveaxis")(a, axis, -1);
  return fit_trailing(moved, {len});
}

// A real-input transform along `axis` as numpy.fft.rfft (inverse: irfft): n points (None: the
// axis' length; irfft: 2 * (length - 1)), the input cut or zero-padded to n (irfft: to n/2 + 1).
py::array rfft_np(const py::object& queue, const py::object& a_obj, const py::object& n_obj, int axis,
                  const py::object& norm, bool inverse, const py::object& tuning_obj) {
  const char* const kRoutine = inverse ? "irfft" : "rfft";
  cl::CommandQueue q = to_queue(queue);
  const clforge::Tuning tuning = to_tuning(tuning_obj);
  const py::array a = numpy_array(a_obj, kRoutine, "a");
  require_dtype(a, inverse ? py::dtype::of<std::complex<float>>() : py::dtype::of<float>(), kRoutine, "a");
  const int ndim = static_cast<int>(a.ndim());
  if (ndim < 1 || axis < -ndim || axis >= ndim)
    invalid(kRoutine, "axis " + std::to_string(axis) + " is out of range for an array of " + std::to_string(ndim) +
                          " dimensions");
  if (axis < 0) axis += ndim;
  const long long len = a.shape(axis);
  const long long n = n_obj.is_none() ? (inverse ? 2 * (len - 1) : len) : n_obj.cast<long long>();
  if (n < 1) invalid(kRoutine, "n must be at least 1 (got " + std::to_string(n) + ")");
  clforge::RealFftDesc d;
  set_norm(kRoutine, norm.is_none() ? std::string("backward") : norm.cast<std::string>(), d);
  d.n = static_cast<std::size_t>(n);
  const std::size_t h = d.n / 2 + 1;
  const py::array x = along_last(a, axis, inverse ? h : d.n);
  d.batch = static_cast<std::size_t>(x.size()) / (inverse ? h : d.n);
  std::unique_ptr<clforge::RealFftPlan> plan;
  {
    py::gil_scoped_release nogil;
    plan = std::make_unique<clforge::RealFftPlan>(q, d, tuning);  // checks n and batch before any allocation
  }
  std::vector<py::ssize_t> shape(x.shape(), x.shape() + x.ndim());
  shape.back() = static_cast<py::ssize_t>(inverse ? d.n : h);
  py::array y(inverse ? py::dtype::of<float>() : py::dtype::of<std::complex<float>>(), shape);
  run_on_host(q, x, y, [&](const cl::Buffer& in, const cl::Buffer& out, cl::Event* done) {
    plan->enqueue(q, inverse ? clforge::FftDirection::Inverse : clforge::FftDirection::Forward, in, out, {}, done);
  });
  return py::module_::import("numpy").attr("moveaxis")(y, -1, axis);
}

py::array fft_np(const py::object& queue, const py::object& x_obj, bool inverse, const std::string& norm,
                 const py::object& tuning_obj) {
  const char* const kRoutine = inverse ? "ifft" : "fft";
  cl::CommandQueue q = to_queue(queue);
  const clforge::Tuning tuning = to_tuning(tuning_obj);
  const auto ndim = numpy_array(x_obj, kRoutine, "x").ndim();
  const py::array x = checked_array(x_obj, kRoutine, "x", ndim < 1 ? 1 : static_cast<int>(ndim));
  require_dtype(x, py::dtype::of<std::complex<float>>(), kRoutine, "x");
  clforge::FftDesc d;
  set_norm(kRoutine, norm, d);
  d.n = static_cast<std::size_t>(x.shape(ndim - 1));  // transforms along the last axis, as numpy.fft
  d.batch = d.n == 0 ? 0 : static_cast<std::size_t>(x.size()) / d.n;
  std::unique_ptr<clforge::FftPlan> plan;
  {
    py::gil_scoped_release nogil;
    plan = std::make_unique<clforge::FftPlan>(q, d, tuning);  // checks n and batch before any allocation
  }
  py::array y(x.dtype(), std::vector<py::ssize_t>(x.shape(), x.shape() + ndim));
  run_on_host(q, x, y, [&](const cl::Buffer& in, const cl::Buffer& out, cl::Event* done) {
    if (inverse)
      plan->inverse(q, in, out, {}, done);
    else
      plan->forward(q, in, out, {}, done);
  });
  return y;
}

// The transform's rank from numpy's axes (None: `all` trailing axes, or every axis when `all` is
// 0): the axes must be distinct and be the array's last ones, in any order.
std::size_t trailing_rank(const char* routine, const py::object& axes_obj, int ndim, int all) {
  if (axes_obj.is_none()) return static_cast<std::size_t>(all == 0 ? ndim : all);
  std::vector<int> axes;
  for (const py::handle& a : axes_obj) {
    int v = a.cast<int>();
    if (v < -ndim || v >= ndim)
      invalid(routine,
              "axis " + std::to_string(v) + " is out of range for an array of " + std::to_string(ndim) + " dimensions");
    axes.push_back(v < 0 ? v + ndim : v);
  }
  std::sort(axes.begin(), axes.end());
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != ndim - static_cast<int>(axes.size() - i))
      invalid(routine, "axes must be distinct and the array's last axes (transforms of the trailing 1 to 3 axes)");
  return axes.size();
}

// A multi-dimensional transform over the trailing axes of a C-contiguous complex64 array, as
// numpy.fft.fftn / ifftn (fft2 / ifft2: `all` 2); the leading axes form the batch.
py::array fftn_np(const py::object& queue, const py::object& x_obj, const py::object& axes, const py::object& norm,
                  bool inverse, int all, const py::object& tuning_obj) {
  const char* const kRoutine = all == 2 ? (inverse ? "ifft2" : "fft2") : (inverse ? "ifftn" : "fftn");
  cl::CommandQueue q = to_queue(queue);
  const clforge::Tuning tuning = to_tuning(tuning_obj);
  const int ndim = static_cast<int>(numpy_array(x_obj, kRoutine, "x").ndim());
  const py::array x = checked_array(x_obj, kRoutine, "x", std::max(ndim, 1));
  require_dtype(x, py::dtype::of<std::complex<float>>(), kRoutine, "x");
  const std::size_t rank = trailing_rank(kRoutine, axes, ndim, all);
  if (rank < 1 || rank > 3 || rank > static_cast<std::size_t>(ndim))
    invalid(kRoutine, "transforms of 1 to 3 of the array's axes (got " + std::to_string(rank) + " of " +
                          std::to_string(ndim) + ")");
  clforge::FftNdDesc d;
  set_norm(kRoutine, norm.is_none() ? std::string("backward") : norm.cast<std::string>(), d);
  d.batch = 1;
  for (int k = 0; k < ndim; ++k) {
    const auto len = static_cast<std::size_t>(x.shape(k));
    if (k < ndim - static_cast<int>(rank))
      d.batch *= len;  // the plan throws for an empty batch
    else
      d.shape.push_back(len);
  }
  std::unique_ptr<clforge::FftNdPlan> plan;
  {
    py::gil_scoped_release nogil;
    plan = std::make_unique<clforge::FftNdPlan>(q, d, tuning);  // checks everything before any allocation
  }
  py::array y(x.dtype(), std::vector<py::ssize_t>(x.shape(), x.shape() + ndim));
  run_on_host(q, x, y, [&](const cl::Buffer& in, const cl::Buffer& out, cl::Event* done) {
    plan->enqueue(q, inverse ? clforge::FftDirection::Inverse : clforge::FftDirection::Forward, in, out, {}, done);
  });
  return y;
}

// The real lengths of a multi-dimensional real-input transform, from numpy's s and axes (None:
// `all` trailing axes, every axis when `all` is 0, or the last len(s) axes): the axes must be the
// array's last 1 to 3, the last of them its last axis (the real transform runs along the fastest
// axis). Lengths in the array's axis order; the inverse's default last length is 2 * (m - 1).
std::vector<std::size_t> real_lengths(const char* routine, const py::array& a, const py::object& s_obj,
                                      const py::object& axes_obj, bool inverse, int all) {
  const int ndim = static_cast<int>(a.ndim());
  const bool by_s = !s_obj.is_none() && axes_obj.is_none();
  const std::size_t rank = by_s ? py::len(s_obj) : trailing_rank(routine, axes_obj, ndim, all);
  if (rank < 1 || rank > 3 || rank > static_cast<std::size_t>(ndim))
    invalid(routine, "transforms of 1 to 3 of the array's axes (got " + std::to_string(rank) + " of " +
                         std::to_string(ndim) + ")");
  const int first = ndim - static_cast<int>(rank);
  std::vector<int> axes;  // as given
  for (int k = 0; k < static_cast<int>(rank) && axes_obj.is_none(); ++k) axes.push_back(first + k);
  if (!axes_obj.is_none())
    for (const py::handle& h : axes_obj) axes.push_back(h.cast<int>() < 0 ? h.cast<int>() + ndim : h.cast<int>());
  if (axes.back() != ndim - 1)
    invalid(routine, "the last of axes must be the array's last axis (the real transform runs along it)");
  std::vector<long long> s;
  if (!s_obj.is_none())
    for (const py::handle& h : s_obj) s.push_back(h.cast<long long>());
  if (!s_obj.is_none() && s.size() != rank) invalid(routine, "s and axes must have the same length");
  std::vector<std::size_t> n(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const long long len = a.shape(axes[i]);
    const long long v = !s.empty() ? s[i] : inverse && i + 1 == rank ? 2 * (len - 1) : len;
    if (v < 1)
      invalid(routine,
              "lengths must be at least 1 (got " + std::to_string(v) + " along axis " + std::to_string(axes[i]) + ")");
    n[static_cast<std::size_t>(axes[i] - first)] = static_cast<std::size_t>(v);
  }
  return n;
}

// numpy.fft.rfftn / irfftn (rfft2 / irfft2: `all` 2) over the trailing axes: float32 in,
// complex64 out (and back); the leading axes form the batch.
py::array rfftn_np(const py::object& queue, const py::object& a_obj, const py::object& s, const py::object& axes,
                   const py::object& norm, bool inverse, int all, const py::object& tuning_obj) {
  const char* const kRoutine = all == 2 ? (inverse ? "irfft2" : "rfft2") : (inverse ? "irfftn" : "rfftn");
  cl::CommandQueue q = to_queue(queue);
  const clforge::Tuning tuning = to_tuning(tuning_obj);
  const py::array a = numpy_array(a_obj, kRoutine, "a");
  require_dtype(a, inverse ? py::dtype::of<std::complex<float>>() : py::dtype::of<float>(), kRoutine, "a");
  clforge::RealFftNdDesc d;
  set_norm(kRoutine, norm.is_none() ? std::string("backward") : norm.cast<std::string>(), d);
  d.shape = real_lengths(kRoutine, a, s, axes, inverse, all);
  std::vector<std::size_t> fit = d.shape, made = d.shape;
  (inverse ? fit : made).back() = d.shape.back() / 2 + 1;
  const py::array x = fit_trailing(a, fit);
  std::size_t per = 1;
  for (std::size_t n : fit) per *= n;
  d.batch = static_cast<std::size_t>(x.size()) / per;  // the plan throws for an empty batch
  std::unique_ptr<clforge::RealFftNdPlan> plan;
  {
    py::gil_scoped_release nogil;
    plan = std::make_unique<clforge::RealFftNdPlan>(q, d, tuning);  // checks everything before any allocation
  }
  std::vector<py::ssize_t> shape(x.shape(), x.shape() + x.ndim());
  for (std::size_t i = 0; i < made.size(); ++i)
    shape[shape.size() - made.size() + i] = static_cast<py::ssize_t>(made[i]);
  py::array y(inverse ? py::dtype::of<float>() : py::dtype::of<std::complex<float>>(), shape);
  run_on_host(q, x, y, [&](const cl::Buffer& in, const cl::Buffer& out, cl::Event* done) {
    plan->enqueue(q, inverse ? clforge::FftDirection::Inverse : clforge::FftDirection::Forward, in, out, {}, done);
  });
  return y;
}

py::array blur_np(const py::object& queue, const py::object& img_obj, double sigma, const py::object& sigma_y,
                  const py::object& border, const py::object& method, const py::object& tuning_obj) {
  const char* const kRoutine = "gaussian_blur";
  cl::CommandQueue q = to_queue(queue);
  const clforge::Tuning tuning = to_tuning(tuning_obj);
  const py::array img = checked_array(img_obj, kRoutine, "image", 2, 3);
  using F = clforge::PixelFormat;
  F format = F::R32F;
  if (img.ndim() == 3 && img.shape(2) != 4)
    invalid(kRoutine,
            "a 3-D image must have 4 channels, shape (height, width, 4) (got " + std::to_string(img.shape(2)) + ")");
  if (img.dtype().equal(py::dtype::of<std::uint8_t>())) {
    if (img.ndim() != 3) invalid(kRoutine, "a uint8 image must be RGBA, shape (height, width, 4)");
    format = F::RGBA8;
  } else {
    require_dtype(img, py::dtype::of<float>(), kRoutine, "image");
    if (img.ndim() == 3) format = F::RGBA32F;
  }
  clforge::BlurDesc d;
  d.height = static_cast<std::size_t>(img.shape(0));
  d.width = static_cast<std::size_t>(img.shape(1));
  d.format = format;
  d.sigma_x = sigma;
  d.sigma_y = sigma_y.is_none() ? sigma : py::float_(py::reinterpret_borrow<py::object>(sigma_y)).cast<double>();
  d.border = enum_arg<clforge::BlurBorder>(border, clforge::parse_blur_border, "border");
  d.method = enum_arg<clforge::BlurMethod>(method, clforge::parse_blur_method, "method");
  std::unique_ptr<clforge::BlurPlan> plan;
  {
    py::gil_scoped_release nogil;
    plan = std::make_unique<clforge::BlurPlan>(q, d, tuning);  // checks everything before any allocation
  }
  py::array out(img.dtype(), std::vector<py::ssize_t>(img.shape(), img.shape() + img.ndim()));
  run_on_host(q, img, out,
              [&](const cl::Buffer& in, const cl::Buffer& o, cl::Event* done) { plan->enqueue(q, in, o, {}, done); });
  return out;
}

}  // namespace

void register_arrays(py::module_& m) {
  m.def("sgemm", &sgemm_np, py::arg("queue"), py::arg("a"), py::arg("b"), py::arg("c") = py::none(),
        py::arg("alpha") = 1.0f, py::arg("beta") = 0.0f, py::arg("trans_a") = false, py::arg("trans_b") = false,
        py::arg("tuning") = py::none(),
        "alpha * op(a) @ op(b) + beta * c as a new float32 array (op: transpose when trans_a / trans_b). a, b and c "
        "are C-contiguous 2-D float32 arrays; c (m x n) is only read, and needed when beta is not 0. With a 3-D a or "
        "b: a strided batch over the first axis, broadcast as numpy.matmul does (a 2-D operand or a batch axis of 1 "
        "serves every product), c batch x m x n; alpha and beta may then be 1-D sequences of one value per product "
        "(CLBlast's GemmBatched). Blocking.");
  m.def(
      "matmul",
      [](const py::object& q, const py::object& a, const py::object& b, const py::object& tuning) {
        return sgemm_np(q, a, b, py::none(), py::float_(1.0), py::float_(0.0), false, false, tuning);
      },
      py::arg("queue"), py::arg("a"), py::arg("b"), py::arg("tuning") = py::none(),
      "a @ b as numpy.matmul computes it for C-contiguous 2-D or 3-D float32 arrays (sgemm with alpha 1, beta 0; a "
      "3-D operand is a strided batch, the batch axis broadcast). Blocking.");
  m.def("transpose", &transpose_np, py::arg("queue"), py::arg("a"), py::arg("tuning") = py::none(),
        "a.T as a new C-contiguous array of a's dtype; a is a C-contiguous 2-D array of 4-, 8- or 16-byte "
        "elements. Blocking.");
  m.def(
      "fft",
      [](const py::object& q, const py::object& x, const std::string& norm, const py::object& tuning) {
        return fft_np(q, x, false, norm, tuning);
      },
      py::arg("queue"), py::arg("x"), py::arg("norm") = "backward", py::arg("tuning") = py::none(),
      "Forward FFT along the last axis of a C-contiguous complex64 array, as numpy.fft.fft (norm: 'backward' "
      "unscaled, 'ortho' 1/sqrt(n), 'forward' 1/n). Blocking.");
  m.def(
      "ifft",
      [](const py::object& q, const py::object& x, const std::string& norm, const py::object& tuning) {
        return fft_np(q, x, true, norm, tuning);
      },
      py::arg("queue"), py::arg("x"), py::arg("norm") = "backward", py::arg("tuning") = py::none(),
      "Inverse FFT along the last axis of a C-contiguous complex64 array, as numpy.fft.ifft (norm: 'backward' "
      "1/n, 'ortho' 1/sqrt(n), 'forward' unscaled). Blocking.");
  for (const bool inverse : {false, true}) {
    m.def(
        inverse ? "irfft" : "rfft",
        [inverse](const py::object& q, const py::object& a, const py::object& n, int axis, const py::object& norm,
                  const py::object& tuning) { return rfft_np(q, a, n, axis, norm, inverse, tuning); },
        py::arg("queue"), py::arg("a"), py::arg("n") = py::none(), py::arg("axis") = -1, py::arg("norm") = py::none(),
        py::arg("tuning") = py::none(),
        inverse ? "Inverse of rfft, as numpy.fft.irfft: a complex64 array's n/2 + 1 values along axis (cut or "
                  "zero-padded; n default 2 * (length - 1)) to n float32 values (norm: None or 'backward' 1/n, "
                  "'ortho' 1/sqrt(n), 'forward' unscaled; the imaginary parts of the first and, for even n, the "
                  "last value are ignored). Blocking."
                : "Real-input FFT along axis of a float32 array, as numpy.fft.rfft: n points (cut or zero-padded; "
                  "default the axis' length) to n/2 + 1 complex64 values (norm: None or 'backward' unscaled, "
                  "'ortho' 1/sqrt(n), 'forward' 1/n). Blocking.");
  }
  for (const bool inverse : {false, true})
    for (const int all : {2, 0}) {
      const std::string name = std::string(inverse ? "i" : "") + (all == 2 ? "fft2" : "fftn");
      const std::string doc = std::string(inverse ? "Inverse" : "Forward") + " FFT over " +
                              (all == 2 ? "the last two axes (default)" : "all axes (default)") +
                              " of a C-contiguous complex64 array, as numpy.fft." + name +
                              " without s: axes must be the array's last 1 to 3 axes (in any order), the "
                              "leading axes form the batch (norm: None or 'backward', 'ortho', 'forward'). Blocking.";
      m.def(
          name.c_str(),
          [inverse, all](const py::object& q, const py::object& x, const py::object& axes, const py::object& norm,
                         const py::object& tuning) { return fftn_np(q, x, axes, norm, inverse, all, tuning); },
          py::arg("queue"), py::arg("x"), py::arg("axes") = py::none(), py::arg("norm") = py::none(),
          py::arg("tuning") = py::none(), doc.c_str());
    }
  for (const bool inverse : {false, true})
    for (const int all : {2, 0}) {
      const std::string name = std::string(inverse ? "i" : "") + (all == 2 ? "rfft2" : "rfftn");
      const std::string doc =
          std::string(inverse ? "Inverse of " + std::string(all == 2 ? "rfft2" : "rfftn") +
                                    ": complex64 half spectra to float32 arrays"
                              : "Real-input FFT: float32 arrays to complex64 half spectra") +
          " over " + (all == 2 ? "the last two axes (default)" : "all axes (default)") + ", as numpy.fft." + name +
          ": s cuts or zero-pads the input (" +
          (inverse ? "default: the last length 2 * (m - 1)" : "default: its shape") +
          "), axes must be the array's last 1 to 3 axes with the array's last axis last (the real transform runs "
          "along it), the leading axes form the batch (norm: None or 'backward', 'ortho', 'forward'). Blocking.";
      m.def(
          name.c_str(),
          [inverse, all](const py::object& q, const py::object& a, const py::object& s, const py::object& axes,
                         const py::object& norm,
                         const py::object& tuning) { return rfftn_np(q, a, s, axes, norm, inverse, all, tuning); },
          py::arg("queue"), py::arg("a"), py::arg("s") = py::none(), py::arg("axes") = py::none(),
          py::arg("norm") = py::none(), py::arg("tuning") = py::none(), doc.c_str());
    }
  m.def("gaussian_blur", &blur_np, py::arg("queue"), py::arg("image"), py::arg("sigma"),
        py::arg("sigma_y") = py::none(), py::arg("border") = "clamp", py::arg("method") = "auto",
        py::arg("tuning") = py::none(),
        "Gaussian blur of a C-contiguous image: float32 (height, width), float32 (height, width, 4) or uint8 RGBA "
        "(height, width, 4); sigma in pixels along x (and y unless sigma_y is given); border 'clamp', 'mirror' or "
        "'zero'; method 'auto', 'direct', 'separable' or 'recursive' (or the BlurBorder / BlurMethod values). "
        "Returns a new image of the same shape and dtype. Blocking.");
}

}  // namespace clforge_py

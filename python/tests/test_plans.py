# The plans on pyopencl buffers: offsets, leading dimensions and pitches, wait_for lists of
# pyopencl events (a user event holds a plan back until it completes), returned pyopencl events,
# poisoned outputs whose gaps and guard tails must stay untouched, and other queues.
import time

import numpy as np
import pyopencl as cl
import pytest

import clforge
from support import EPS, blur_reference, rel_error, uniform

GUARD = 127  # elements after each output that no routine may write


def to_device(context, host):
    return cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)


def from_device(queue, buf, like, wait_for=None):
    out = np.empty_like(like)
    cl.enqueue_copy(queue, out, buf, wait_for=wait_for)
    return out


def poisoned(n, dtype=np.float32):
    return np.full(n, np.nan, dtype)


def test_sgemm_plan_waits_for_a_user_event(context, queue, rng):
    m, n, k = 9, 13, 20
    a, b = uniform(rng, (m, k)), uniform(rng, (k, n))
    c = poisoned(m * n + GUARD)
    ba, bb, bc = to_device(context, a), to_device(context, b), to_device(context, c)
    plan = clforge.SgemmPlan(queue, m, n, k)
    assert (plan.desc.m, plan.desc.n, plan.desc.k, plan.desc.a_ld, plan.desc.c_ld) == (m, n, k, k, n)
    assert plan.desc.layout == clforge.Layout.RowMajor and plan.describe()
    gate = cl.UserEvent(context)
    done = plan.enqueue(queue, ba, bb, bc, wait_for=[gate])
    assert isinstance(done, cl.Event)
    time.sleep(0.2)
    assert done.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    out = from_device(queue, bc, c, wait_for=[done])
    assert done.command_execution_status == cl.command_execution_status.COMPLETE
    assert rel_error(out[: m * n].reshape(m, n), a.astype(np.float64) @ b) <= 4 * k * EPS
    assert np.isnan(out[m * n :]).all()


def test_sgemm_plan_column_major_with_offsets_and_ld(context, queue, rng):
    m, n, k, off, ld_pad = 7, 5, 6, 3, 4
    # Column-major: element (i, j) of a (rows x cols) matrix with leading dimension ld is at i + j * ld.
    a, b = uniform(rng, (m, k)), uniform(rng, (k, n))
    lda, ldb, ldc = m + ld_pad, k + ld_pad, m + ld_pad
    ha = np.zeros(off + lda * k, np.float32)
    ha[off:].reshape(k, lda)[:, :m] = a.T
    hb = np.zeros(off + ldb * n, np.float32)
    hb[off:].reshape(n, ldb)[:, :k] = b.T
    hc = poisoned(off + ldc * n + GUARD)
    bc = to_device(context, hc)
    plan = clforge.SgemmPlan(queue, m, n, k, alpha=2.0, layout=clforge.Layout.ColMajor,
                             a_offset=off, a_ld=lda, b_offset=off, b_ld=ldb, c_offset=off, c_ld=ldc)
    done = plan.enqueue(queue, to_device(context, ha), to_device(context, hb), bc)
    out = from_device(queue, bc, hc, wait_for=[done])
    c = out[off : off + ldc * n].reshape(n, ldc)
    assert rel_error(c[:, :m].T, 2.0 * (a.astype(np.float64) @ b)) <= 4 * k * EPS
    assert np.isnan(out[:off]).all() and np.isnan(c[:, m:]).all() and np.isnan(out[off + ldc * n :]).all()
    assert [cfg.kernel for cfg in plan.configurations][0] == "sgemm_route"


def test_transpose_plan_with_ld_and_events_chained(context, queue, rng):
    rows, cols, in_ld, out_ld = 17, 33, 40, 20
    a = uniform(rng, (rows, in_ld))
    bin_ = to_device(context, a)
    mid = to_device(context, poisoned(cols * out_ld + GUARD))
    back = to_device(context, poisoned(rows * in_ld))
    there = clforge.TransposePlan(queue, rows, cols, in_ld=in_ld, out_ld=out_ld)
    again = clforge.TransposePlan(queue, cols, rows, in_ld=out_ld, out_ld=in_ld)
    assert there.desc.elem_size == 4 and there.configuration.kernel == "transpose"
    e1 = there.enqueue(queue, bin_, mid)
    e2 = again.enqueue(queue, mid, back, wait_for=[e1])
    t = from_device(queue, mid, poisoned(cols * out_ld + GUARD), wait_for=[e2])
    np.testing.assert_array_equal(t[: cols * out_ld].reshape(cols, out_ld)[:, :rows], a[:, :cols].T)
    assert np.isnan(t[: cols * out_ld].reshape(cols, out_ld)[:, rows:]).all() and np.isnan(t[cols * out_ld :]).all()
    r = from_device(queue, back, a, wait_for=[e2]).reshape(rows, in_ld)
    np.testing.assert_array_equal(r[:, :cols], a[:, :cols])


def test_fft_plan_forward_inverse_in_and_out_of_place(context, queue, rng):
    n, batch = 60, 4
    x = uniform(rng, (batch, n), np.complex64)
    tol = 8 * 6 * EPS
    plan = clforge.FftPlan(queue, n, batch=batch, inverse_scaling=clforge.FftScaling.OverN)
    assert plan.desc.n == n and plan.desc.inverse_scaling == clforge.FftScaling.OverN and plan.launches >= 1
    bx, by, bz = to_device(context, x), to_device(context, np.empty_like(x)), to_device(context, np.empty_like(x))
    e = plan.forward(bx, by)
    e = plan.inverse(by, bz, wait_for=[e])
    assert rel_error(from_device(queue, by, x, wait_for=[e]), np.fft.fft(x.astype(np.complex128))) <= tol
    assert rel_error(from_device(queue, bz, x, wait_for=[e]), x) <= 2 * tol
    # In place, run on a second queue of the same context.
    other = cl.CommandQueue(context)
    inplace = clforge.FftPlan(queue, n, batch=batch, in_place=True, forward_scaling=clforge.FftScaling.OverSqrtN)
    bw = to_device(context, x)
    e = inplace.forward(bw, queue=other)
    ref = np.fft.fft(x.astype(np.complex128), norm="ortho")
    assert rel_error(from_device(other, bw, x, wait_for=[e]), ref) <= tol
    e = inplace.inverse(bw)
    assert rel_error(from_device(queue, bw, x, wait_for=[e]), np.fft.ifft(ref, norm="ortho") * np.sqrt(n)) <= 2 * tol


def test_fft_plan_strided_layout(context, queue, rng):
    n, batch = 16, 3
    x = uniform(rng, (n, batch), np.complex64)  # transform b is column b: stride batch, distance 1
    plan = clforge.FftPlan(queue, n, batch=batch, in_stride=batch, in_distance=1)
    by = to_device(context, np.empty((batch, n), np.complex64))
    e = plan.forward(to_device(context, x), by)
    y = from_device(queue, by, np.empty((batch, n), np.complex64), wait_for=[e])
    assert rel_error(y, np.fft.fft(x.T.astype(np.complex128))) <= 8 * 4 * EPS


def test_blur_plan_with_pitches(context, queue, rng):
    w, h, pitch, off = 30, 11, 37, 5
    img = uniform(rng, (h, pitch))
    host_in = np.concatenate([np.zeros(off, np.float32), img.ravel()])
    out_h = poisoned(off + h * pitch + GUARD)
    bout = to_device(context, out_h)
    plan = clforge.BlurPlan(queue, w, h, 2.0, border="zero", method=clforge.BlurMethod.Separable,
                            in_offset=off, in_pitch=pitch, out_offset=off, out_pitch=pitch)
    assert plan.method == clforge.BlurMethod.Separable and plan.desc.out_pitch == pitch
    assert any(cfg.kernel == "blur_separable" for cfg in plan.configurations)
    e = plan.enqueue(queue, to_device(context, host_in), bout)
    out = from_device(queue, bout, out_h, wait_for=[e])
    o = out[off : off + h * pitch].reshape(h, pitch)
    assert rel_error(o[:, :w], blur_reference(img[:, :w], 2.0, 2.0, "zero")) <= 16 * EPS * 16
    assert np.isnan(out[:off]).all() and np.isnan(o[:, w:]).all() and np.isnan(out[off + h * pitch :]).all()


def test_auto_blur_plan_resolves_a_method(queue):
    plan = clforge.BlurPlan(queue, 64, 64, 1.0, format=clforge.PixelFormat.RGBA32F)
    assert plan.method in (clforge.BlurMethod.Direct, clforge.BlurMethod.Separable, clforge.BlurMethod.Recursive)
    assert plan.desc.format == clforge.PixelFormat.RGBA32F


def test_plan_refuses_a_queue_of_another_context(context, queue, device):
    plan = clforge.TransposePlan(queue, 4, 4)
    other_ctx = cl.Context([device])
    other = cl.CommandQueue(other_ctx)
    src, dst = cl.Buffer(other_ctx, cl.mem_flags.READ_WRITE, 64), cl.Buffer(other_ctx, cl.mem_flags.READ_WRITE, 64)
    with pytest.raises(clforge.InvalidArgument, match="queue"):
        plan.enqueue(other, src, dst)


def test_buffers_too_small_or_missing(context, queue):
    plan = clforge.TransposePlan(queue, 8, 8)
    small = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 63)
    big = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 64)
    with pytest.raises(clforge.InvalidArgument, match="too small|small"):
        plan.enqueue(queue, small, big)
    with pytest.raises(clforge.InvalidArgument, match="null"):
        plan.enqueue(queue, None, big)
    with pytest.raises(TypeError, match="pyopencl.Buffer"):
        plan.enqueue(queue, np.zeros(64, np.float32), big)
    with pytest.raises(TypeError, match="pyopencl.Event"):
        plan.enqueue(queue, big, cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 64), wait_for=[1])

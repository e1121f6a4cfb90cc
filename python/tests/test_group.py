# Device groups from Python: every group call against NumPy in double precision, the split
# keyword arguments, and the run description. Every device of the machine forms the group
# (PoCL: one device, or two with POCL_DEVICES="pthread pthread"). Tolerance 1e-5 relative L2 for
# FFT and SGEMM (single precision against double; an order above their C++ tolerances).
import numpy as np
import pytest

import clforge

from support import rel_error


@pytest.fixture(scope="module")
def group():
    return clforge.DeviceGroup("all")


def test_group_identity(group):
    assert len(group) == group.size >= 1
    assert len(group.names) == group.size
    assert group.describe().startswith("0: ")
    with pytest.raises(clforge.UnsupportedDevice):
        clforge.DeviceGroup("no such device anywhere")


def test_group_fft(group, rng):
    x = (rng.standard_normal((37, 100)) + 1j * rng.standard_normal((37, 100))).astype(np.complex64)
    y, run = clforge.group_fft(group, x, chunk=5, mode="dynamic")
    assert rel_error(y, np.fft.fft(x.astype(np.complex128), axis=1)) < 1e-5
    assert sum(s["items"] for s in run["shares"]) == 37
    assert run["mode"] == ("dynamic" if group.size > 1 else "weights")  # one device: no split
    yi, run = clforge.group_fft(group, x, inverse=True, weights=[1.0] * group.size, staging="on")
    assert rel_error(yi, np.fft.ifft(x.astype(np.complex128), axis=1) * 100) < 1e-5
    assert run["mode"] == "weights"
    assert all(s["staged"] for s in run["shares"] if s["items"])


def test_group_fft_plan(group, rng):
    plan = clforge.GroupFftPlan(group, 64, 30, chunk=6, mode="dynamic")
    assert (plan.n, plan.batch) == (64, 30)
    for inverse in (False, True):  # one plan, fresh data each time
        x = (rng.standard_normal((30, 64)) + 1j * rng.standard_normal((30, 64))).astype(np.complex64)
        y, run = plan.inverse(x) if inverse else plan.forward(x)
        x64 = x.astype(np.complex128)
        ref = np.fft.ifft(x64, axis=1) * 64 if inverse else np.fft.fft(x64, axis=1)
        assert rel_error(y, ref) < 1e-5
        assert sum(s["items"] for s in run["shares"]) == 30
    with pytest.raises(clforge.InvalidArgument, match="shape"):
        plan.forward(np.zeros((30, 32), np.complex64))
    with pytest.raises(clforge.InvalidArgument):
        clforge.GroupFftPlan(group, 0, 4)


def test_group_sgemm_transpose_blur(group, rng):
    a = rng.standard_normal((33, 20)).astype(np.float32)
    b = rng.standard_normal((20, 27)).astype(np.float32)
    c, run = clforge.group_sgemm(group, a, b, alpha=2.0, chunk=4)
    assert rel_error(c, 2.0 * a.astype(np.float64) @ b.astype(np.float64)) < 1e-5
    assert sum(s["items"] for s in run["shares"]) == 33  # row-major: C's rows
    t, _ = clforge.group_transpose(group, a, chunk=7)
    assert np.array_equal(t, a.T)
    img = rng.standard_normal((47, 61)).astype(np.float32)
    one, _ = clforge.group_gaussian_blur(clforge.DeviceGroup("0"), img, 2.0, method="separable")
    out, _ = clforge.group_gaussian_blur(group, img, 2.0, method="separable", chunk=6)
    assert np.array_equal(out, one)  # bands with halos: bitwise as one device


def test_group_errors(group):
    x = np.zeros((4, 8), np.complex64)
    with pytest.raises(clforge.InvalidArgument):
        clforge.group_fft(group, x, weights=[1.0] * (group.size + 1))
    with pytest.raises(clforge.InvalidArgument):
        clforge.group_fft(group, x, staging="maybe")
    with pytest.raises(TypeError):
        clforge.group_fft(group, np.zeros((4, 8), np.float32))
    with pytest.raises(clforge.InvalidArgument):
        clforge.group_sgemm(group, np.zeros((3, 4), np.float32), np.zeros((5, 2), np.float32))

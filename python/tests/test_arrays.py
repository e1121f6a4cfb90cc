# The NumPy conveniences against NumPy in double precision: sgemm against float64 matmul,
# transpose exactly, fft/ifft, fft2/ifft2, fftn/ifftn, rfft/irfft, rfft2/irfft2 and rfftn/irfftn against numpy.fft, gaussian_blur against a double reference of the
# same truncated Gaussian (support.blur_reference).
import math

import numpy as np
import pytest

import clforge
from support import EPS, blur_reference, rel_error, uniform


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 17, 33), (65, 31, 127), (3, 2, 1000)])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_sgemm_matches_float64_matmul(queue, rng, m, n, k, trans_a, trans_b):
    a = uniform(rng, (k, m) if trans_a else (m, k))
    b = uniform(rng, (n, k) if trans_b else (k, n))
    opa = a.T.astype(np.float64) if trans_a else a.astype(np.float64)
    opb = b.T.astype(np.float64) if trans_b else b.astype(np.float64)
    c = clforge.sgemm(queue, a, b, trans_a=trans_a, trans_b=trans_b)
    assert c.dtype == np.float32 and c.shape == (m, n) and c.flags.c_contiguous
    err = rel_error(c, opa @ opb)
    assert err <= 4 * k * EPS, f"{m}x{n}x{k} trans {trans_a},{trans_b}: relative error {err:.3g}"


def test_sgemm_alpha_beta_and_c_left_alone(queue, rng):
    a, b, c0 = uniform(rng, (17, 33)), uniform(rng, (33, 7)), uniform(rng, (17, 7))
    c_before = c0.copy()
    c = clforge.sgemm(queue, a, b, c=c0, alpha=-0.5, beta=2.0)
    ref = -0.5 * (a.astype(np.float64) @ b) + 2.0 * c0.astype(np.float64)
    assert rel_error(c, ref) <= 4 * 33 * EPS
    np.testing.assert_array_equal(c0, c_before)
    # alpha 0: C = beta * C exactly, A and B not read (NaN there does not reach C).
    nan_a = np.full_like(a, np.nan)
    np.testing.assert_array_equal(clforge.sgemm(queue, nan_a, b, c=c0, alpha=0.0, beta=3.0), 3.0 * c0)


def test_sgemm_identity_is_exact(queue, rng):
    a = uniform(rng, (31, 64))
    np.testing.assert_array_equal(clforge.sgemm(queue, a, np.eye(64, dtype=np.float32)), a)


@pytest.mark.parametrize(
    "shape,dtype",
    [((33, 65), np.float32), ((1, 17), np.int32), ((17, 3), np.complex64), ((64, 1), np.float64), ((7, 31), np.complex128)],
)
def test_transpose_is_exact(queue, rng, shape, dtype):
    a = uniform(rng, shape, dtype) if dtype != np.int32 else rng.integers(-(2**31), 2**31, shape, dtype=np.int32)
    t = clforge.transpose(queue, a)
    assert t.dtype == a.dtype and t.shape == shape[::-1] and t.flags.c_contiguous
    np.testing.assert_array_equal(t, a.T)


@pytest.mark.parametrize("n,batch", [(1, 3), (16, 1), (64, 5), (105, 2), (17, 3), (4096, 1)])
def test_fft_matches_numpy(queue, rng, n, batch):
    x = uniform(rng, (batch, n), np.complex64)
    tol = 8 * max(1.0, math.log2(n)) * EPS
    y = clforge.fft(queue, x)
    assert y.dtype == np.complex64 and y.shape == x.shape
    assert rel_error(y, np.fft.fft(x.astype(np.complex128))) <= tol, f"n={n} batch={batch}"
    yi = clforge.ifft(queue, x)
    assert rel_error(yi, np.fft.ifft(x.astype(np.complex128))) <= tol
    assert rel_error(clforge.ifft(queue, y), x) <= 2 * tol  # round trip


@pytest.mark.parametrize("norm", ["ortho", "forward"])
def test_fft_norm_follows_numpy(queue, rng, norm):
    x = uniform(rng, (2, 3, 48), np.complex64)  # transforms along the last axis of a 3-D array
    ref = np.fft.fft(x.astype(np.complex128), norm=norm)
    assert rel_error(clforge.fft(queue, x, norm=norm), ref) <= 8 * 6 * EPS
    ref_inv = np.fft.ifft(x.astype(np.complex128), norm=norm)
    assert rel_error(clforge.ifft(queue, x, norm=norm), ref_inv) <= 8 * 6 * EPS


def test_fft_of_an_impulse_is_flat(queue):
    x = np.zeros(32, np.complex64)
    x[0] = 1
    np.testing.assert_allclose(clforge.fft(queue, x), np.ones(32), atol=1e-6)


@pytest.mark.parametrize("shape", [(3, 5), (17, 12), (2, 1, 7), (4, 5, 6), (2, 2, 3, 17)])
def test_fft2_and_fftn_match_numpy(queue, rng, shape):
    x = uniform(rng, shape, np.complex64)
    xd = x.astype(np.complex128)
    axes = tuple(range(-min(len(shape), 3), 0))  # fftn: the trailing axes the plan transforms
    tol = 8 * sum(max(1.0, math.log2(n)) for n in shape[-3:]) * EPS
    pairs = [
        (clforge.fft2(queue, x), np.fft.fft2(xd)),
        (clforge.ifft2(queue, x), np.fft.ifft2(xd)),
        (clforge.fftn(queue, x, axes=axes), np.fft.fftn(xd, axes=axes)),
        (clforge.ifftn(queue, x, axes=axes), np.fft.ifftn(xd, axes=axes)),
    ]
    for got, ref in pairs:
        assert got.dtype == np.complex64 and got.shape == shape
        assert rel_error(got, ref) <= tol, f"{shape}"
    assert rel_error(clforge.ifftn(queue, pairs[2][0], axes=axes), x) <= 2 * tol  # round trip


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_fftn_norm_and_axes_follow_numpy(queue, rng, norm):
    x = uniform(rng, (3, 4, 5), np.complex64)
    xd = x.astype(np.complex128)
    tol = 8 * 8 * EPS
    assert rel_error(clforge.fftn(queue, x, norm=norm), np.fft.fftn(xd, norm=norm)) <= tol
    assert rel_error(clforge.ifftn(queue, x, norm=norm), np.fft.ifftn(xd, norm=norm)) <= tol
    assert rel_error(clforge.fft2(queue, x, axes=(2, 1), norm=norm), np.fft.fft2(xd, axes=(2, 1), norm=norm)) <= tol
    assert rel_error(clforge.fftn(queue, x, axes=[-1]), np.fft.fftn(xd, axes=[-1])) <= tol


def test_fftn_refuses_what_the_plan_does_not_do(queue, rng):
    x = uniform(rng, (2, 3, 4, 5), np.complex64)
    with pytest.raises(clforge.InvalidArgument):
        clforge.fftn(queue, x)  # four axes
    with pytest.raises(clforge.InvalidArgument):
        clforge.fft2(queue, x, axes=(0, 1))  # not the trailing axes
    with pytest.raises(clforge.InvalidArgument):
        clforge.fft2(queue, x[0, 0, 0])  # one axis
    with pytest.raises(clforge.InvalidArgument):
        clforge.fftn(queue, x, norm="sideways")
    with pytest.raises(TypeError):
        clforge.fft2(queue, x.astype(np.complex128))


@pytest.mark.parametrize("method", ["direct", "separable"])
@pytest.mark.parametrize("border", ["clamp", "mirror", "zero"])
@pytest.mark.parametrize("shape,sigma", [((33, 65), 1.5), ((17, 4), 3.0), ((1, 9), 0.7)])
def test_blur_matches_the_truncated_gaussian(queue, rng, method, border, shape, sigma):
    img = uniform(rng, shape)
    out = clforge.gaussian_blur(queue, img, sigma, border=border, method=method)
    assert out.dtype == np.float32 and out.shape == shape
    ref = blur_reference(img, sigma, sigma, border)
    tol = 16 * EPS * (2 * math.ceil(3 * sigma) + 2)
    assert rel_error(out, ref) <= tol, f"{shape} sigma {sigma} {border}"


def test_blur_recursive_and_anisotropic_rgba(queue, rng):
    img = uniform(rng, (40, 50, 4))
    out = clforge.gaussian_blur(queue, img, 3.0, sigma_y=4.0, border=clforge.BlurBorder.Mirror, method="recursive")
    assert out.shape == img.shape
    # The recursive filter approximates the exact Gaussian (docs/blur.md: within 0.10 from sigma 2).
    assert rel_error(out, blur_reference(img, 3.0, 4.0, "mirror", truncate=8.0)) <= 0.10
    sep = clforge.gaussian_blur(queue, img, 3.0, sigma_y=4.0, border="mirror", method=clforge.BlurMethod.Separable)
    assert rel_error(sep, blur_reference(img, 3.0, 4.0, "mirror")) <= 16 * EPS * 24


def test_blur_rgba8(queue, rng):
    img = rng.integers(0, 256, (21, 30, 4), dtype=np.uint8)
    out = clforge.gaussian_blur(queue, img, 2.0, method="separable")
    assert out.dtype == np.uint8 and out.shape == img.shape
    ref = np.clip(np.rint(blur_reference(img, 2.0, 2.0, "clamp")), 0, 255)
    assert np.abs(out.astype(np.int32) - ref).max() <= 1
    flat = np.full((9, 8, 4), 200, np.uint8)
    np.testing.assert_array_equal(clforge.gaussian_blur(queue, flat, 5.0), flat)


@pytest.mark.parametrize("n,batch", [(1, 2), (2, 3), (3, 1), (17, 3), (1000, 2), (1009, 1)])
def test_rfft_irfft_match_numpy(queue, rng, n, batch):
    x = uniform(rng, (batch, n))
    tol = 8 * max(1.0, math.log2(n)) * EPS
    y = clforge.rfft(queue, x)
    assert y.dtype == np.complex64 and y.shape == (batch, n // 2 + 1)
    assert rel_error(y, np.fft.rfft(x.astype(np.float64))) <= tol, f"n={n} batch={batch}"
    s = uniform(rng, (batch, n // 2 + 1), np.complex64)
    xi = clforge.irfft(queue, s, n=n)
    assert xi.dtype == np.float32 and xi.shape == (batch, n)
    assert rel_error(xi, np.fft.irfft(s.astype(np.complex128), n=n)) <= tol, f"n={n} batch={batch}"
    assert rel_error(clforge.irfft(queue, y, n=n), x) <= 2 * tol  # round trip


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_rfft_axis_n_and_norm_follow_numpy(queue, rng, norm):
    x = uniform(rng, (12, 5))  # transforms along axis 0, cut to 10 and zero-padded to 15 points
    for n in (10, 15):
        ref = np.fft.rfft(x.astype(np.float64), n=n, axis=0, norm=norm)
        y = clforge.rfft(queue, x, n=n, axis=0, norm=norm)
        assert y.shape == ref.shape and rel_error(y, ref) <= 8 * 4 * EPS
        ref_inv = np.fft.irfft(ref, axis=0, norm=norm)  # default n: 2 * (length - 1)
        got_inv = clforge.irfft(queue, y, axis=0, norm=norm)
        assert got_inv.shape == ref_inv.shape and rel_error(got_inv, ref_inv) <= 8 * 8 * EPS


def test_rfft_refuses_bad_arguments(queue, rng):
    with pytest.raises(TypeError):
        clforge.rfft(queue, np.zeros(8, np.complex64))
    with pytest.raises(clforge.InvalidArgument):
        clforge.rfft(queue, np.zeros(8, np.float32), axis=1)
    with pytest.raises(clforge.InvalidArgument):
        clforge.irfft(queue, np.zeros(1, np.complex64))  # n = 2 * (1 - 1) = 0


# Real-input 2-D and 3-D transforms: odd, even, prime and unit sides, a batch axis, against
# numpy.fft in double; tolerance 8 eps per axis as the complex ones (log2 n of each axis).
@pytest.mark.parametrize("shape", [(2, 17, 12), (9, 5, 7), (1, 8), (8, 1), (7, 6)])
def test_rfftn_irfftn_match_numpy(queue, rng, shape):
    x = uniform(rng, shape)
    axes = tuple(range(-min(len(shape), 3), 0))
    tol = 8 * sum(max(1.0, math.log2(n)) for n in shape[-3:]) * EPS
    y = clforge.rfftn(queue, x, axes=axes)
    ref = np.fft.rfftn(x.astype(np.float64), axes=axes)
    assert y.dtype == np.complex64 and y.shape == ref.shape and rel_error(y, ref) <= tol, f"{shape}"
    y2 = clforge.rfft2(queue, x)
    assert rel_error(y2, np.fft.rfft2(x.astype(np.float64))) <= tol, f"{shape}"
    n = shape[-1]
    spectrum = uniform(rng, shape[:-1] + (n // 2 + 1,), np.complex64)  # not Hermitian: numpy's definition
    sd = spectrum.astype(np.complex128)
    xi = clforge.irfftn(queue, spectrum, s=shape[-len(axes):], axes=axes)
    ref_inv = np.fft.irfftn(sd, s=shape[-len(axes):], axes=axes)
    assert xi.dtype == np.float32 and xi.shape == ref_inv.shape and rel_error(xi, ref_inv) <= tol, f"{shape}"
    assert rel_error(clforge.irfft2(queue, spectrum, s=shape[-2:]), np.fft.irfft2(sd, s=shape[-2:])) <= tol
    assert rel_error(clforge.irfftn(queue, y, s=shape[-len(axes):], axes=axes), x) <= 2 * tol  # round trip


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_rfftn_s_axes_and_norm_follow_numpy(queue, rng, norm):
    x = uniform(rng, (3, 6, 10))
    xd = x.astype(np.float64)
    tol = 8 * 12 * EPS
    for s in [None, (4, 12), (7, 9)]:  # as given, zero-padded, cut (odd last length)
        ref = np.fft.rfftn(xd, s=s, axes=(1, 2), norm=norm)
        got = clforge.rfftn(queue, x, s=s, axes=(1, 2), norm=norm)
        assert got.shape == ref.shape and rel_error(got, ref) <= tol, f"s={s}"
        ref_inv = np.fft.irfftn(ref, s=s, axes=(1, 2), norm=norm)
        got_inv = clforge.irfftn(queue, got, s=s, axes=(1, 2), norm=norm)
        assert got_inv.shape == ref_inv.shape and rel_error(got_inv, ref_inv) <= tol, f"s={s}"
    ref = np.fft.rfftn(xd, axes=(0, 1, 2), norm=norm)  # every axis, the others in any order
    assert rel_error(clforge.rfftn(queue, x, axes=(1, 0, 2), norm=norm), ref) <= tol
    default_inv = np.fft.irfftn(ref, norm=norm)  # default s: the last length 2 * (6 - 1) = 10
    assert rel_error(clforge.irfftn(queue, ref.astype(np.complex64), norm=norm), default_inv) <= tol
    assert rel_error(clforge.rfftn(queue, x, s=(5, 8)), np.fft.rfftn(xd, s=(5, 8))) <= tol  # s alone: the last axes


def test_rfftn_refuses_what_the_plan_does_not_do(queue, rng):
    x = uniform(rng, (2, 3, 4, 5))
    with pytest.raises(ValueError):
        clforge.rfftn(queue, x)  # four axes
    with pytest.raises(ValueError):
        clforge.rfft2(queue, x, axes=(0, 1))  # not the trailing axes
    with pytest.raises(ValueError, match="last axis"):
        clforge.rfft2(queue, x, axes=(-1, -2))  # the real transform along axis -2
    with pytest.raises(ValueError):
        clforge.rfft2(queue, x[0, 0, 0])  # one axis
    with pytest.raises(ValueError, match="same length"):
        clforge.rfftn(queue, x, s=(4, 5), axes=(1, 2, 3))
    with pytest.raises(ValueError):
        clforge.irfft2(queue, np.zeros((3, 1), np.complex64))  # last length 2 * (1 - 1) = 0
    with pytest.raises(ValueError):
        clforge.rfftn(queue, x, axes=(2, 3), norm="sideways")
    with pytest.raises(TypeError):
        clforge.rfft2(queue, x.astype(np.float64))
    with pytest.raises(TypeError):
        clforge.irfft2(queue, x)  # float32: the inverse takes complex64


# Strided batches: every product against float64 numpy.matmul, the batch axis broadcast as
# numpy.matmul does (a 2-D operand or a batch axis of 1 is one matrix for every product).
# Tolerance: 4 k eps relative (Frobenius) over the whole batch, as for the single product.
@pytest.mark.parametrize("a_shape,b_shape", [((5, 17, 9), (5, 9, 33)), ((17, 9), (5, 9, 33)),
                                             ((5, 17, 9), (9, 33)), ((1, 17, 9), (4, 9, 33))])
def test_batched_sgemm_matches_float64_matmul(queue, rng, a_shape, b_shape):
    a, b = uniform(rng, a_shape), uniform(rng, b_shape)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    for c in (clforge.sgemm(queue, a, b), clforge.matmul(queue, a, b)):
        assert c.dtype == np.float32 and c.shape == ref.shape and c.flags.c_contiguous
        assert rel_error(c, ref) <= 4 * 9 * EPS


def test_batched_sgemm_transposes_alpha_beta(queue, rng):
    a, b, c0 = uniform(rng, (3, 9, 17)), uniform(rng, (3, 33, 9)), uniform(rng, (3, 17, 33))
    c = clforge.sgemm(queue, a, b, c=c0, alpha=-0.5, beta=2.0, trans_a=True, trans_b=True)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = -0.5 * np.matmul(a64.transpose(0, 2, 1), b64.transpose(0, 2, 1)) + 2.0 * c0
    assert rel_error(c, ref) <= 4 * 9 * EPS
    with pytest.raises(clforge.InvalidArgument):
        clforge.matmul(queue, uniform(rng, (3, 4, 5)), uniform(rng, (2, 5, 4)))  # 3 and 2 do not broadcast


# A scalar pair per product (the offsets form, CLBlast's GemmBatched): alpha and beta as 1-D
# sequences of one value per product, a number standing for every product. A product with beta 0
# does not read its C (NaN there stays out), one with alpha 0 reads neither A nor B. Tolerance as
# above.
def test_batched_sgemm_per_product_scalars(queue, rng):
    a, b, c0 = uniform(rng, (6, 17, 9)), uniform(rng, (9, 33)), uniform(rng, (6, 17, 33))
    alphas = np.array([1.0, -0.5, 0.0, 2.0, 1.0, 0.25], dtype=np.float32)
    betas = [0.0, 1.0, 3.0, 0.0, -1.0, 1.0]
    c0[0] = np.nan
    c0[3] = np.nan
    a[2] = np.nan
    c = clforge.sgemm(queue, a, b, c=c0, alpha=alphas, beta=betas)
    for i in range(6):
        prod = np.zeros((17, 33)) if alphas[i] == 0 else a[i].astype(np.float64) @ b.astype(np.float64)
        ref = alphas[i] * prod + (0.0 if betas[i] == 0 else betas[i] * c0[i].astype(np.float64))
        assert np.all(np.isfinite(c[i]))
        assert rel_error(c[i], ref) <= 4 * 9 * EPS, i
    # A number for alpha, a list for beta; with no c every beta must be 0.
    c = clforge.sgemm(queue, a[:2], b, alpha=0.5, beta=np.zeros(2))
    assert rel_error(c, 0.5 * np.matmul(a[:2].astype(np.float64), b.astype(np.float64))) <= 4 * 9 * EPS
    with pytest.raises(clforge.InvalidArgument):
        clforge.sgemm(queue, a, b, alpha=[1.0] * 5)  # 5 values for a batch of 6
    with pytest.raises(clforge.InvalidArgument):
        clforge.sgemm(queue, a, b, beta=[0.0, 0.0, 0.0, 0.0, 0.0, 1.0])  # beta 1 but no c
    with pytest.raises(clforge.InvalidArgument):
        clforge.sgemm(queue, a[0], b, alpha=[1.0])  # per-product scalars need a batch
    with pytest.raises(TypeError):
        clforge.sgemm(queue, a, b, alpha=np.ones((2, 3)))

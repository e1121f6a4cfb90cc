# Test data and double-precision references shared by the Python tests.
import math

import numpy as np

EPS = float(np.finfo(np.float32).eps)


def uniform(rng, shape, dtype=np.float32):
    """Random values in [-1, 1] (never all zero); complex dtypes get random imaginary parts too."""
    x = rng.uniform(-1, 1, shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


def rel_error(y, ref):
    """Relative L2 error ||y - ref|| / ||ref||, in double precision."""
    y = np.asarray(y, dtype=np.complex128 if np.iscomplexobj(y) else np.float64)
    return float(np.linalg.norm(y - ref) / np.linalg.norm(ref))


_PAD_MODE = {"clamp": "edge", "mirror": "symmetric", "zero": "constant"}


def gaussian_weights(sigma, radius):
    """exp(-k^2 / (2 sigma^2)) for |k| <= radius, normalised to sum 1 (double)."""
    k = np.arange(-radius, radius + 1, dtype=np.float64)
    w = np.exp(-(k * k) / (2.0 * sigma * sigma))
    return w / w.sum()


def blur_reference(image, sigma_x, sigma_y, border, truncate=3.0):
    """Gaussian blur of a (height, width) or (height, width, channels) image in double: the
    weights truncated at radius ceil(truncate * sigma) per axis, the border as clforge defines it
    (clamp: edge repeated; mirror: reflection with the edge pixel included; zero)."""
    img = np.asarray(image, dtype=np.float64)
    rx, ry = math.ceil(truncate * sigma_x), math.ceil(truncate * sigma_y)
    pad = [(ry, ry), (rx, rx)] + [(0, 0)] * (img.ndim - 2)
    p = np.pad(img, pad, mode=_PAD_MODE[border])
    h, w = img.shape[:2]
    wx, wy = gaussian_weights(sigma_x, rx), gaussian_weights(sigma_y, ry)
    rows = sum(wx[i] * p[:, i : i + w] for i in range(2 * rx + 1))
    return sum(wy[j] * rows[j : j + h] for j in range(2 * ry + 1))

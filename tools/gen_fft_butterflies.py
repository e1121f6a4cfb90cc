#!/usr/bin/env python3
"""Generates cl/fft/fft_butterflies.cl: straight-line forward DFT butterflies of radix
2, 3, 4, 5, 7, 8, 9, 11, 13, 15, 16, 25 and 32 on a private float2 array, with literal constants.

Each butterfly is built as a list of complex operations, checked here against a direct DFT
in double precision (so a wrong formula never reaches a kernel), then printed as OpenCL C.
Run: tools/gen_fft_butterflies.py > cl/fft/fft_butterflies.cl
"""
import cmath
import math
import random
import struct
import sys


class Builder:
    """Straight-line complex code: each value is a named temporary."""

    def __init__(self):
        self.lines = []   # (name, op, args)
        self.count = 0

    def fresh(self):
        self.count += 1
        return "t%d" % self.count

    def emit(self, op, *args):
        name = self.fresh()
        self.lines.append((name, op, args))
        return name

    def add(self, a, b):
        return self.emit("add", a, b)

    def sub(self, a, b):
        return self.emit("sub", a, b)

    def mul_mi(self, a):  # a * (-i)
        return self.emit("mul_mi", a)

    def neg(self, a):
        return self.emit("neg", a)

    def mul_c(self, a, w):  # a * w, w a complex constant
        w = complex(w)
        if abs(w - 1) < 1e-15:
            return a
        if abs(w + 1) < 1e-15:
            return self.neg(a)
        if abs(w + 1j) < 1e-15:
            return self.mul_mi(a)
        if abs(w - 1j) < 1e-15:
            return self.neg(self.mul_mi(a))
        if abs(abs(w.real) - abs(w.imag)) < 1e-15:
            return self.emit("mul_diag", a, w)
        return self.emit("mul_c", a, w)

    def scale_re(self, a, c):  # a * c, c real
        return self.emit("scale", a, float(c))

    def lin(self, terms):  # sum of (value, real coefficient), fused multiply-adds
        return self.emit("lin", tuple(terms))

    def rot(self, terms):  # -i * sum of (value, real coefficient)
        return self.emit("rotlin", tuple(terms))


def evaluate(b, inputs, outputs):
    env = dict(inputs)
    for name, op, args in b.lines:
        if op == "add":
            env[name] = env[args[0]] + env[args[1]]
        elif op == "sub":
            env[name] = env[args[0]] - env[args[1]]
        elif op == "mul_mi":
            env[name] = env[args[0]] * -1j
        elif op == "neg":
            env[name] = -env[args[0]]
        elif op in ("mul_c", "mul_diag"):
            env[name] = env[args[0]] * args[1]
        elif op == "scale":
            env[name] = env[args[0]] * args[1]
        elif op == "lin":
            env[name] = sum(env[v] * c for v, c in args[0])
        elif op == "rotlin":
            env[name] = -1j * sum(env[v] * c for v, c in args[0])
        else:
            raise ValueError(op)
    return [env[o] for o in outputs]


def f(x):
    x = struct.unpack("f", struct.pack("f", x))[0]  # the float the constant rounds to
    s = "%.9g" % x
    if "." not in s and "e" not in s:
        s += ".0"
    return s + "f"


def lin_expr(terms, comp):
    e = None
    for v, c in terms:
        t = "%s.%s" % (v, comp) if c == 1.0 else "%s.%s * %s" % (v, comp, f(c))
        e = t if e is None else "%s + %s" % (e, t)
    return e


def to_c(b, name, radix, inputs, outputs):
    """Scalar code on fft_c {r, i}: no vector types, so CPU compilers can vectorize across
    work-items, and GPU compilers see the same operations they would have scalarised."""
    out = ["static inline __attribute__((always_inline)) void %s(fft_c* v) {" % name]
    for i, n in enumerate(inputs):
        out.append("  const fft_c %s = v[%d];" % (n, i))
    for nm, op, args in b.lines:
        if op == "add":
            re, im = "%s.r + %s.r" % args, "%s.i + %s.i" % args
        elif op == "sub":
            re, im = "%s.r - %s.r" % args, "%s.i - %s.i" % args
        elif op == "mul_mi":
            re, im = "%s.i" % args[0], "-%s.r" % args[0]
        elif op == "neg":
            re, im = "-%s.r" % args[0], "-%s.i" % args[0]
        elif op == "mul_diag":
            a, w = args
            c = f(abs(w.real))
            # (x + iy)(wr + i wi) with |wr| == |wi| == c: two additions and a scaling each.
            re = ("%s.r" % a if w.real > 0 else "-%s.r" % a) + (" - %s.i" % a if w.imag > 0 else " + %s.i" % a)
            im = ("%s.i" % a if w.real > 0 else "-%s.i" % a) + (" + %s.r" % a if w.imag > 0 else " - %s.r" % a)
            re, im = "%s * (%s)" % (c, re), "%s * (%s)" % (c, im)
        elif op == "mul_c":
            a, w = args
            re = "%s.r * %s - %s.i * %s" % (a, f(w.real), a, f(w.imag))
            im = "%s.r * %s + %s.i * %s" % (a, f(w.imag), a, f(w.real))
        elif op == "scale":
            re, im = "%s.r * %s" % (args[0], f(args[1])), "%s.i * %s" % (args[0], f(args[1]))
        elif op == "lin":
            re, im = lin_expr(args[0], "r"), lin_expr(args[0], "i")
        elif op == "rotlin":  # -i * sum: (sum.i, -sum.r)
            re, im = lin_expr(args[0], "i"), "-(%s)" % lin_expr(args[0], "r")
        else:
            raise ValueError(op)
        out.append("  const fft_c %s = {%s, %s};" % (nm, re, im))
    for i, o in enumerate(outputs):
        out.append("  v[%d] = %s;" % (i, o))
    out.append("}")
    return "\n".join(out)


def dft_direct(b, xs):
    """Generic odd-length DFT with pair symmetry: y_k = A_k - iB_k, y_{R-k} = A_k + iB_k."""
    r = len(xs)
    h = (r - 1) // 2
    a = [None] + [b.add(xs[n], xs[r - n]) for n in range(1, h + 1)]
    d = [None] + [b.sub(xs[n], xs[r - n]) for n in range(1, h + 1)]
    ys = [None] * r
    ys[0] = b.lin([(xs[0], 1.0)] + [(a[n], 1.0) for n in range(1, h + 1)])
    for k in range(1, h + 1):
        ak = b.lin([(xs[0], 1.0)] + [(a[n], math.cos(2 * math.pi * n * k / r)) for n in range(1, h + 1)])
        bk = b.rot([(d[n], math.sin(2 * math.pi * n * k / r)) for n in range(1, h + 1)])  # -i * B_k
        ys[k] = b.add(ak, bk)
        ys[r - k] = b.sub(ak, bk)
    return ys


def dft2(b, xs):
    return [b.add(xs[0], xs[1]), b.sub(xs[0], xs[1])]


def dft4(b, xs):
    t0 = b.add(xs[0], xs[2])
    t1 = b.sub(xs[0], xs[2])
    t2 = b.add(xs[1], xs[3])
    t3 = b.mul_mi(b.sub(xs[1], xs[3]))
    return [b.add(t0, t2), b.add(t1, t3), b.sub(t0, t2), b.sub(t1, t3)]


def dft_any(b, xs):
    r = len(xs)
    if r == 1:
        return list(xs)
    if r == 2:
        return dft2(b, xs)
    if r == 4:
        return dft4(b, xs)
    if r in (8, 16, 32):
        return dft_split(b, xs, r // 4, 4)
    if r in (9, 25):
        p = 3 if r == 9 else 5
        return dft_split(b, xs, p, p)
    if r == 15:
        return dft_pfa(b, xs, 3, 5)
    return dft_direct(b, xs)


def dft_split(b, xs, p, q):
    """Cooley-Tukey R = p*q: n = q*n1 + n2, k = k1 + p*k2."""
    r = p * q
    y = {}
    for n2 in range(q):
        col = dft_any(b, [xs[q * n1 + n2] for n1 in range(p)])
        for k1 in range(p):
            y[(n2, k1)] = b.mul_c(col[k1], cmath.exp(-2j * math.pi * n2 * k1 / r))
    out = [None] * r
    for k1 in range(p):
        row = dft_any(b, [y[(n2, k1)] for n2 in range(q)])
        for k2 in range(q):
            out[k1 + p * k2] = row[k2]
    return out


def dft_pfa(b, xs, p, q):
    """Good-Thomas R = p*q with gcd(p, q) = 1, no twiddles between the stages: input
    n = (q*n1 + p*n2) mod R, output k = (k1*q*(q^-1 mod p) + k2*p*(p^-1 mod q)) mod R."""
    r = p * q
    qi, pi = pow(q, -1, p), pow(p, -1, q)
    cols = [dft_any(b, [xs[(q * n1 + p * n2) % r] for n1 in range(p)]) for n2 in range(q)]
    out = [None] * r
    for k1 in range(p):
        row = dft_any(b, [cols[n2][k1] for n2 in range(q)])
        for k2 in range(q):
            out[(k1 * q * qi + k2 * p * pi) % r] = row[k2]
    return out


def build(radix):
    b = Builder()
    xs = ["x%d" % i for i in range(radix)]
    ys = dft_any(b, xs)
    # verify against the direct DFT
    rnd = random.Random(radix)
    vals = [complex(rnd.uniform(-1, 1), rnd.uniform(-1, 1)) for _ in range(radix)]
    got = evaluate(b, dict(zip(xs, vals)), ys)
    ref = [sum(vals[n] * cmath.exp(-2j * math.pi * n * k / radix) for n in range(radix)) for k in range(radix)]
    err = max(abs(g - r) for g, r in zip(got, ref))
    if err > 1e-12:
        sys.exit("radix %d butterfly is wrong (error %g)" % (radix, err))
    return to_c(b, "fft_bf%d" % radix, radix, xs, ys)


HEADER = """// Forward DFT butterflies on a private fft_c array: v[k] = sum_n v[n] * exp(-2*pi*i*n*k/R) for
// R = 2, 3, 4, 5, 7, 8, 9, 11, 13, 15, 16, 25, 32, straight-line with literal constants (R = 8, 16
// and 32 split into radix-2/4/8 stages, 9 and 25 into radix-3 and radix-5 stages, with their
// internal twiddles; 15 = 3 * 5 in the Good-Thomas order, without; odd primes use the pair
// symmetry y[k] = A_k - i*B_k, y[R-k] = A_k + i*B_k). The inverse direction is taken by conjugating
// the data before and after (see fft.cl).
//
// Generated by tools/gen_fft_butterflies.py, which checks every butterfly against a direct
// DFT in double precision before printing it. Do not edit by hand. Products and sums are plain
// expressions (contracted to fused multiply-adds where the compiler may); mad() would be an
// out-of-line call on some CPU implementations.
"""


def main():
    print(HEADER)
    print("#pragma OPENCL FP_CONTRACT ON\n")
    print("// A complex value: two floats, 8-byte aligned so that GPU compilers move it in one access;")
    print("// without FFT_VEC (CPUs) plainly aligned, so that it stays two scalars. The lane kernel")
    print("// (fft_lanes.cl, FFT_LANES defined) transforms FFT_LANES transforms at once: its values are")
    print("// vectors, lane l of transform l, and the same butterflies apply lane by lane.")
    print("#if defined(FFT_LANES)")
    print("#define FFT_LANE_CAT2(a, b) a##b")
    print("#define FFT_LANE_CAT(a, b) FFT_LANE_CAT2(a, b)")
    print("#define FFT_LANE_T FFT_LANE_CAT(float, FFT_LANES)")
    print("typedef struct {\n  FFT_LANE_T r, i;\n} fft_c;")
    print("#elif !defined(FFT_VEC) || FFT_VEC")
    print("typedef struct __attribute__((aligned(8))) {\n  float r, i;\n} fft_c;")
    print("#else")
    print("typedef struct {\n  float r, i;\n} fft_c;")
    print("#endif\n")
    for r in (2, 3, 4, 5, 7, 8, 9, 11, 13, 15, 16, 25, 32):
        print(build(r))
        print()


if __name__ == "__main__":
    main()

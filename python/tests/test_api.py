# Errors as Python exceptions (classes, messages, attributes), argument checks of the NumPy
# conveniences, device identity, and the tuner on a tiny transpose space.
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pyopencl as cl
import pytest

import clforge
from support import uniform


def test_exception_classes():
    assert issubclass(clforge.Error, RuntimeError)
    for name in ("OpenCLError", "BuildError", "InvalidArgument", "TuningError", "UnsupportedDevice"):
        assert issubclass(getattr(clforge, name), clforge.Error), name
    assert issubclass(clforge.InvalidArgument, ValueError)
    assert not issubclass(clforge.TuningError, ValueError)


def test_invalid_arguments_carry_the_library_message(queue):
    with pytest.raises(clforge.InvalidArgument) as e:
        clforge.TransposePlan(queue, 0, 3)
    assert str(e.value).startswith("transpose: ") and "rows" in str(e.value)
    with pytest.raises(ValueError, match="TRA_NO_SUCH"):  # catchable as ValueError too
        clforge.transpose(queue, np.ones((4, 4), np.float32), tuning={"TRA_NO_SUCH": 1})
    with pytest.raises(clforge.InvalidArgument, match="sigma"):
        clforge.gaussian_blur(queue, np.ones((4, 4), np.float32), -1.0)
    with pytest.raises(clforge.InvalidArgument, match="wobbly"):
        clforge.gaussian_blur(queue, np.ones((4, 4), np.float32), 1.0, border="wobbly")
    with pytest.raises(clforge.InvalidArgument, match="inner dimensions"):
        clforge.sgemm(queue, np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(clforge.InvalidArgument, match="norm"):
        clforge.fft(queue, np.ones(8, np.complex64), norm="sideways")
    with pytest.raises(clforge.InvalidArgument, match="beta"):
        clforge.sgemm(queue, np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), beta=1.0)


def test_array_checks(queue, rng):
    a = uniform(rng, (8, 8))
    with pytest.raises(TypeError, match="float32"):
        clforge.sgemm(queue, a.astype(np.float64), a)
    with pytest.raises(clforge.InvalidArgument, match="C-contiguous"):
        clforge.sgemm(queue, a[:, ::2], a[::2, :])
    with pytest.raises(clforge.InvalidArgument, match="2-D"):
        clforge.transpose(queue, a.ravel())
    with pytest.raises(TypeError, match="2-byte|4-, 8- or 16-byte"):
        clforge.transpose(queue, a.astype(np.float16))
    with pytest.raises(TypeError, match="complex64"):
        clforge.fft(queue, a)
    with pytest.raises(TypeError, match="NumPy array"):
        clforge.fft(queue, [1j, 2j])
    with pytest.raises(clforge.InvalidArgument, match="4 channels"):
        clforge.gaussian_blur(queue, np.ones((4, 4, 3), np.float32), 1.0)
    with pytest.raises(TypeError, match="pyopencl.CommandQueue"):
        clforge.transpose(queue.context, a)
    with pytest.raises(TypeError, match="tuning"):
        clforge.transpose(queue, a, tuning=[1])


def run_child(code, **env):
    """Runs code in a fresh interpreter with extra environment variables; returns its last line."""
    full_env = dict(os.environ, **env)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


CHILD_PRELUDE = """
    import json, numpy as np, pyopencl as cl, clforge
    q = clforge.create_queue(__import__("os").environ.get("CLFORGE_TEST_DEVICE", ""))
"""


def test_build_error_carries_log_and_origin(tmp_path):
    (tmp_path / "transpose").mkdir()
    (tmp_path / "transpose" / "transpose.cl").write_text("this is not OpenCL C;\n")
    line = run_child(CHILD_PRELUDE + """
    try:
        clforge.transpose(q, np.ones((4, 4), np.float32))
    except clforge.BuildError as e:
        print(json.dumps({"what": str(e), "log": e.build_log, "kernel": e.kernel, "origin": e.origin,
                          "options": e.options, "device": e.device}))
    """, CLFORGE_KERNEL_DIR=str(tmp_path), CLFORGE_CACHE_DIR="off")
    e = json.loads(line)
    assert e["log"].strip(), e
    assert e["kernel"] == "transpose" and "override:" + str(tmp_path) in e["origin"], e
    assert "-cl-std=CL1.2" in e["options"] and e["device"] in e["what"]


def test_tuning_error_names_the_file(tmp_path):
    missing = str(tmp_path / "missing.json")
    line = run_child(CHILD_PRELUDE + """
    try:
        clforge.transpose(q, np.ones((4, 4), np.float32))
    except clforge.TuningError as e:
        print(json.dumps(str(e)))
    """, CLFORGE_TUNING_FILE=missing)
    assert missing in json.loads(line)


def test_device_peaks_are_stored_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("CLFORGE_USER_TUNING_DIR", str(tmp_path))
    info = clforge.select_device(os.environ.get("CLFORGE_TEST_DEVICE", ""))
    assert clforge.stored_device_peaks(info) is None
    clforge.store_device_peaks(info, 95.2, 1376.0)
    assert clforge.stored_device_peaks(info) == {"copy_gbs": 95.2, "fma_gflops": 1376.0}
    with pytest.raises(clforge.InvalidArgument):
        clforge.store_device_peaks(info, 0.0, 1376.0)


def test_unsupported_device():
    with pytest.raises(clforge.UnsupportedDevice, match="no-such-device-anywhere"):
        clforge.select_device("no-such-device-anywhere")


def test_device_identity(device, context, queue):
    devices = clforge.list_devices()
    assert devices
    info = clforge.describe(queue)
    assert info.name == device.name.strip()
    assert info.vendor_class in ("NVIDIA", "AMD", "Intel", "Apple", "CPU", "Other")
    assert info.compute_units == device.max_compute_units and info.max_work_group_size == device.max_work_group_size
    assert (info.platform_index, info.device_index) in [(d.platform_index, d.device_index) for d in devices]
    assert clforge.describe(device).name == info.name and clforge.describe(context).name == info.name
    q2 = clforge.create_queue(info.index_string())
    assert isinstance(q2, cl.CommandQueue) and q2.device.int_ptr == device.int_ptr
    assert q2.properties & cl.command_queue_properties.PROFILING_ENABLE
    # The new queue works with both libraries.
    np.testing.assert_array_equal(clforge.transpose(q2, np.arange(6, dtype=np.float32).reshape(2, 3)),
                                  np.arange(6, dtype=np.float32).reshape(2, 3).T)


# The transpose space of tests/tune_support.hpp: TRA_TILE x TRA_WPT = 4 candidates, one size.
TINY = {"TRA_TILE": [8, 16], "TRA_WPT": [1, 2], "TRA_VW": [1], "TRA_PAD": [1], "TRA_DIAG": [0], "TRA_SWZ": [0],
        "TRA_LOCAL": [1], "TRA_NT": [0]}
FAST = dict(warmup=0, min_reps=1, max_reps=2, min_time_ms=0.0, finalists=0, compile_threads=1)


def test_tune_reports_stores_and_stops(queue, tmp_path, monkeypatch):
    routines = {r.name: r for r in clforge.tune_routines()}
    assert {"transpose", "sgemm", "fft", "blur"} <= set(routines)
    assert "TRA_TILE" in [p.name for p in clforge.kernel_parameters(routines["transpose"].kernel)]

    dry = clforge.tune(queue, "transpose", sizes=["64"], param_values=TINY, dry_run=True)
    assert dry.dry_run and dry.classes[0].space == 4 and dry.tried == 0

    monkeypatch.setenv("CLFORGE_USER_TUNING_DIR", str(tmp_path))
    seen = []
    cache = str(tmp_path / "tune-cache.jsonl")
    r = clforge.tune(queue, "transpose", sizes=["64"], param_values=TINY, strategy="exhaustive",
                     progress=seen.append, cache_file=cache, **FAST)
    c = r.classes[0]
    assert r.routine == "transpose" and not r.interrupted and r.strategy == clforge.TuneStrategy.Exhaustive
    assert c.variant == "4" and c.rejected == 0 and c.build_failed == 0 and c.has_best
    measured = [p for p in seen if not p.class_done]
    assert len(measured) == c.tried == len(c.rows) and c.tried >= 2 and c.rows[0].is_default
    assert [p.class_done for p in seen].count(True) == 1 and seen[-1].class_done
    assert all(row.status == clforge.CandidateStatus.Ok for row in c.rows)
    # Stored only when the best beats the current configuration by more than min_gain.
    assert c.stored != c.no_gain
    assert r.database_path.startswith(str(tmp_path)) and os.path.exists(r.database_path) == c.stored
    # Resumed from the tune cache: every candidate comes from it, nothing is measured again.
    again = clforge.tune(queue, "transpose", sizes=["64"], param_values=TINY, strategy="exhaustive",
                         cache_file=cache, resume=True, store=False, **FAST)
    a = again.classes[0]
    assert a.tried == c.tried and a.cached == a.tried and all(row.cached for row in a.rows)
    # Replayed by the model strategy: the cache's configurations only, every result from it.
    replayed = clforge.tune(queue, "transpose", sizes=["64"], param_values=TINY, strategy=clforge.TuneStrategy.Model,
                            cache_file=cache, replay=True, seed=5, **FAST)
    p = replayed.classes[0]
    assert replayed.replay and replayed.strategy == clforge.TuneStrategy.Model
    assert p.tried == c.tried and p.cached == p.tried and not p.stored and p.best == c.best

    stopped = clforge.tune(queue, "transpose", sizes=["64"], param_values=TINY, store=False,
                           progress=lambda p: True, **FAST)
    assert stopped.interrupted and stopped.classes[0].tried == 1 and not stopped.classes[0].stored

    def fail(p):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        clforge.tune(queue, "transpose", sizes=["64"], param_values=TINY, store=False, progress=fail, **FAST)
    with pytest.raises(clforge.InvalidArgument, match="nosuchroutine"):
        clforge.tune(queue, "nosuchroutine")


def test_tune_all_lists_every_routine_and_method(queue, tmp_path, monkeypatch):
    jobs = clforge.tune_all_jobs()
    names = [j.name for j in jobs]
    assert len(names) == len(set(names))
    assert {j.routine for j in jobs} == {r.name for r in clforge.tune_routines()}
    assert {"blur method=separable", "blur method=direct", "blur method=recursive"} <= set(names)
    monkeypatch.setenv("CLFORGE_USER_TUNING_DIR", str(tmp_path))
    dry = clforge.tune_all(queue, sizes={"transpose": ["64"]}, dry_run=True)
    assert [j.name for j in dry.jobs] == names and not dry.interrupted
    assert [r.routine for r in dry.results] == [j.routine for j in jobs]
    assert all(r.dry_run and r.tried == 0 for r in dry.results)
    assert dry.results[0].classes[0].sizes == ["64"]
    methods = {dict(r.routine_options)["method"] for r in dry.results if r.routine == "blur"}
    assert methods == {"separable", "direct", "recursive", "recursive-whole", "recursive-blocked", "recursive-fused"}
    assert not os.listdir(tmp_path)  # a dry run stores nothing
    with pytest.raises(clforge.InvalidArgument, match="nosuch"):
        clforge.tune_all_jobs({"nosuch": ["64"]})
    # at most one size per class: its median by work (of 3000^3 and 4096^3, the larger; SGEMM's
    # searches also time every product of 64 MiB or less, which neither is)
    # (the transpose times every size of its one class: sgemm_direct's class here)
    one = clforge.tune_all(queue, sizes={"sgemm_direct": ["4096", "3000"]}, dry_run=True, sizes_per_class=1,
                           give_up=0.0, compile_worker="")
    assert next(r for r in one.results if r.routine == "sgemm_direct").classes[0].sizes == ["4096"]
    # lengths run as passes tune their pass rows; a Bluestein length run as passes (40009) is no class
    assert clforge.tunable_sizes("fft", ["1024", "1048576@2", "1009", "40009"]) == ["1024", "1048576@2", "1009"]

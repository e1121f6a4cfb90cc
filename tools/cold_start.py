#!/usr/bin/env python3
"""The tuner's cold-start protocol: how fast does `clforge tune all` make a device nobody tuned for?

1. A copy of the kernel folder whose tuning databases (db/*.json) keep only their `default` rows
   (no vendor, architecture or device rows): the library then knows nothing of the device.
2. The benchmark with those rows (default), then `clforge tune all --time T` into an empty user
   database, then the benchmark again (tuned); both with the stripped kernel folder, so that
   neither the rows nor the tuner's seeded candidates (the shipped rows of other devices) help;
   `bench all` runs these two without its peers (--no-peers), which the table takes from step 3.
3. The benchmark with the shipped rows and no user database (shipped).
4. A table per clforge record: default, tuned and shipped times, tuned against shipped, and the
   best peer of the same record where one ran; the geometric mean of tuned against shipped, the
   rows below 0.9, and the rows where the shipped rows beat the best peer and the tuned ones do not.

Usage (every step's output lands in --out; --skip-to resumes after an interruption, --steps runs
some steps alone, e.g. the benchmarks in one run and the tune in another):
    tools/cold_start.py --cli build/clforge -d nvidia --time 600 --bench "all --devices nvidia" --out cs-h200
    tools/cold_start.py --cli build/clforge -d cpu --time 60 --bench "transpose --size 1024" --out cs-small
The benchmark command is `clforge bench BENCH --out DIR` (BENCH: `all ...` or one routine with
its sizes). Times compared are each record's median.
"""
import argparse
import collections
import json
import math
import os
import shutil
import subprocess
import sys

STEPS = ["default", "tune", "tuned", "shipped", "table"]


def strip_rows(src, dst):
    """Copies the kernel folder src to dst, keeping only each database's default rows."""
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    db = os.path.join(dst, "db")
    kept = {}
    for name in sorted(os.listdir(db)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(db, name)
        with open(path) as f:
            data = json.load(f)
        entries = data.get("entries", [])
        data["entries"] = [e for e in entries if e.get("vendor") == "default" and not
                           any(k in e for k in ("architecture", "device", "device_vendor"))]
        kept[name] = (len(data["entries"]), len(entries))
        with open(path + ".tmp", "w") as f:
            json.dump(data, f, indent=1)
        os.replace(path + ".tmp", path)
    return kept


def run(cmd, env, log):
    print("$ " + " ".join(cmd), flush=True)
    with open(log, "w") as out:
        rc = subprocess.call(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    if rc != 0:
        sys.exit(f"cold_start: {' '.join(cmd)} exited with {rc}; see {log}")


def env_with(**values):
    env = dict(os.environ)
    for k in ("CLFORGE_KERNEL_DIR", "CLFORGE_TUNING_FILE", "CLFORGE_USER_TUNING_DIR"):
        env.pop(k, None)
    env.update({k: v for k, v in values.items() if v is not None})
    return env


BLUR_METHODS = ("direct", "separable", "recursive", "rec-whole", "rec-block", "rec-fused")


def records(path):
    """{(device, routine, shape): {library: median_ms}} of a results.json. A blur record's library is
    its method: each method is a clforge record of its own (shape "IMAGE s=SIGMA METHOD"), and the
    blur peers of an image and sigma are the peers of each method's record there."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    blur = collections.defaultdict(list)
    # bench all: one entry per device; bench ROUTINE: one device at the top level.
    devices = data["devices"] if "devices" in data else [{"device": data["device"]["name"], **data}]
    for dev in devices:
        name = dev["device"] if isinstance(dev["device"], str) else dev["device"]["name"]
        for m in dev["measurements"]:
            if not str(m.get("status", "")).startswith("ok") or m.get("routine") == "peak" or not m.get("median_ms"):
                continue
            if m["routine"] == "blur":
                blur[(name, m["shape"])].append((m["library"], m["median_ms"]))
                continue
            key = (name, m["routine"], m["shape"])
            out.setdefault(key, {})[m["library"]] = m["median_ms"]
    for (name, shape), rows in blur.items():
        peers = {lib: ms for lib, ms in rows if lib not in BLUR_METHODS}
        for lib, ms in rows:
            if lib in BLUR_METHODS:
                out[(name, "blur", f"{shape} {lib}")] = {"clforge": ms, **peers}
    return out


def table(out_dir):
    rows = {s: records(os.path.join(out_dir, s, "results.json")) for s in ("default", "tuned", "shipped")}
    lines = ["| device | routine | shape | default ms | tuned ms | shipped ms | tuned / shipped | best peer | "
             "peer ms | shipped / peer | tuned / peer |", "|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    logs, low, lost = [], [], []
    for key in sorted(rows["shipped"]):
        shipped = rows["shipped"][key].get("clforge")
        default = rows["default"].get(key, {}).get("clforge")
        tuned = rows["tuned"].get(key, {}).get("clforge")
        if shipped is None or tuned is None:
            continue
        ratio = shipped / tuned  # speed of tuned relative to shipped
        logs.append(math.log(ratio))
        peers = {lib: ms for lib, ms in rows["shipped"][key].items() if lib != "clforge"}
        peer = min(peers, key=peers.get) if peers else None
        cells = [key[0], key[1], key[2], f"{default:.4g}" if default else "-", f"{tuned:.4g}", f"{shipped:.4g}",
                 f"{ratio:.3f}"]
        if peer:
            sp, tp = peers[peer] / shipped, peers[peer] / tuned
            cells += [peer, f"{peers[peer]:.4g}", f"{sp:.3f}", f"{tp:.3f}"]
            if sp >= 1 and tp < 1:
                lost.append(key)
        else:
            cells += ["-", "-", "-", "-"]
        if ratio < 0.9:
            low.append(key)
        lines.append("| " + " | ".join(cells) + " |")
    gm = math.exp(sum(logs) / len(logs)) if logs else float("nan")
    lines += ["", f"rows: {len(logs)}; tuned / shipped, geometric mean: {gm:.3f}; rows below 0.9: {len(low)}; "
              f"rows where shipped beat the best peer and tuned does not: {len(lost)}"]
    for name, keys in (("below 0.9", low), ("lost to the peer", lost)):
        for k in keys:
            lines.append(f"- {name}: {k[1]} {k[2]} ({k[0]})")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the clforge executable")
    ap.add_argument("-d", "--device", default="", help="device of the tune (clforge --device)")
    ap.add_argument("--time", type=float, default=600, help="seconds of tune all")
    ap.add_argument("--bench", default="all", help="what follows `clforge bench` (without --out)")
    ap.add_argument("--kernels", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cl"),
                    help="the kernel folder to strip (default: the source tree's cl/)")
    ap.add_argument("--out", required=True, help="folder for every step's output")
    ap.add_argument("--skip-to", choices=STEPS, default="default", help="start at this step (after an interruption)")
    ap.add_argument("--steps", default="", help="comma-separated steps to run (default: every step from --skip-to on)")
    ap.add_argument("--tune-args", default="", help="more options for tune all (e.g. --threads 8)")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    kdir, user, empty = (os.path.join(out, d) for d in ("kernels-default", "user-tuning", "user-empty"))
    dev = ["--device", a.device] if a.device else []
    bench = a.bench.split()
    steps = a.steps.split(",") if a.steps else STEPS[STEPS.index(a.skip_to):]
    unknown = [x for x in steps if x not in STEPS]
    if unknown:
        sys.exit(f"cold_start: unknown steps {unknown}; the steps are {STEPS}")
    if "default" in steps or not os.path.isdir(kdir):
        for name, (kept, total) in strip_rows(os.path.abspath(a.kernels), kdir).items():
            print(f"{name}: {kept} of {total} rows kept")
    resume = not a.steps and a.skip_to == "tune"  # continues the interrupted tune from its tune cache
    for d in (user, empty):
        if d == empty or ("tune" in steps and not resume):
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, exist_ok=True)
    stripped = env_with(CLFORGE_KERNEL_DIR=kdir, CLFORGE_USER_TUNING_DIR=user)
    # The peers come from the shipped run alone: the default and tuned runs of bench all skip them.
    alone = ["--no-peers"] if bench and bench[0] == "all" else []
    if "default" in steps:
        run([a.cli] + dev + ["bench"] + bench + alone + ["--out", os.path.join(out, "default")],
            env_with(CLFORGE_KERNEL_DIR=kdir, CLFORGE_USER_TUNING_DIR=empty), os.path.join(out, "default.log"))
    if "tune" in steps:
        run([a.cli] + dev + ["tune", "all", "--time", str(a.time), "--cache", os.path.join(out, "tune-cache.jsonl")] +
            (["--resume"] if resume else []) + a.tune_args.split(), stripped, os.path.join(out, "tune.log"))
    if "tuned" in steps:
        run([a.cli] + dev + ["bench"] + bench + alone + ["--out", os.path.join(out, "tuned")], stripped,
            os.path.join(out, "tuned.log"))
    if "shipped" in steps:
        run([a.cli] + dev + ["bench"] + bench + ["--out", os.path.join(out, "shipped")],
            env_with(CLFORGE_USER_TUNING_DIR=empty), os.path.join(out, "shipped.log"))
    if not all(os.path.exists(os.path.join(out, x, "results.json")) for x in ("default", "tuned", "shipped")):
        return
    text = table(out)
    with open(os.path.join(out, "cold_start.md"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""How fast each tuning strategy converges, on one measured run replayed from its tune cache.

A long measured run (e.g. `clforge tune transpose --size 1024 --strategy random --time 480
--cache /tmp/transpose.jsonl --no-store`) fixes a universe: the configurations its tune cache
holds, with their times. `clforge tune ... --replay` searches that universe only, every time taken
from the cache, so each strategy is replayed on the same measurements for free. This script
replays each strategy with several seeds and prints a Markdown table per size class: the median
(over seeds) best-so-far time relative to the universe's best after 10, 25, 50 and 100
candidates, and the median number of candidates until the best so far is within 5 % and 1 % of
the universe's best (references and shipped seed rows count as candidates, as in a real run; --search-only leaves the
default out of the best so far and of the universe's best, where it is already about the best).

Example:
  tools/tune_convergence.py --cli build/clforge --cache /tmp/transpose.jsonl transpose --size 1024
  tools/tune_convergence.py --cli build/clforge -d 1 --cache /tmp/blur.jsonl blur --size 512x512 -- --method separable
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

CHECKPOINTS = (10, 25, 50, 100)
WITHIN = (0.05, 0.01)


def replay(args, strategy, seed, budget):
    """The size classes of one replayed run: a list of (variant, rows in evaluation order)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "results.json")
        cmd = [args.cli]
        if args.device is not None:
            cmd += ["--device", args.device]
        cmd += ["tune", args.routine, "--replay", "--cache", args.cache, "--strategy", strategy,
                "--threads", str(args.threads), "--tuning-file", out]
        for size in args.size:
            cmd += ["--size", size]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        if budget:
            cmd += ["--budget", str(budget)]
        cmd += args.extra
        env = dict(os.environ, CLFORGE_USER_TUNING_DIR=tmp)
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        if done.returncode != 0:
            sys.exit("tune_convergence: %s failed (%d):\n%s%s" %
                     (" ".join(cmd), done.returncode, done.stdout, done.stderr))
        with open(out) as f:
            results = json.load(f)["results"]
    return [(r["variant"], r["rows"]) for r in results]


def best_so_far(rows, search_only=False):
    """Best verified time after each row (inf before the first); the default left out with search_only."""
    best, out = math.inf, []
    for row in rows:
        if row["status"] == "ok" and not (search_only and row.get("default")):
            best = min(best, row["ms"])
        out.append(best)
    return out


def first_within(curve, target):
    for i, ms in enumerate(curve):
        if ms <= target:
            return i + 1
    return math.inf


def median(values):
    return statistics.median(values) if values else math.nan


def ratio_text(x):
    return "-" if math.isinf(x) or math.isnan(x) else "%.3f" % x


def count_text(x, budget):
    return ">%d" % budget if math.isinf(x) else "%g" % x


def study(args):
    universe = replay(args, "exhaustive", None, 0)  # every cached configuration, in order
    tables = []
    for ci, (variant, rows) in enumerate(universe):
        ok = [r["ms"] for r in rows if r["status"] == "ok" and not (args.search_only and r.get("default"))]
        if not ok:
            sys.exit("tune_convergence: no verified configuration in the universe of variant " + variant)
        best = min(ok)
        default = next((r["ms"] for r in rows if r.get("default") and r["status"] == "ok"), math.nan)
        budget = args.budget or len(rows)
        lines = ["%s variant %s, sizes %s: universe of %d configurations (%d verified), best %.4g ms, "
                 "default %.4g ms; %d seeds, budget %d, %d threads" %
                 (args.routine, variant, " ".join(args.size), len(rows), len(ok), best, default,
                  args.seeds, budget, args.threads) +
                 ("; the default left out of the best so far and of the universe's best" if args.search_only else ""), "",
                 "| strategy | " + " | ".join("best/univ. @%d" % k for k in CHECKPOINTS) + " | " +
                 " | ".join("to %g %%" % (w * 100) for w in WITHIN) + " |",
                 "|---" * (1 + len(CHECKPOINTS) + len(WITHIN)) + "|"]
        for strategy in args.strategies:
            curves = []
            for s in range(args.seeds):
                curve = best_so_far(replay(args, strategy, args.first_seed + s, budget)[ci][1], args.search_only)
                curves.append([ms / best for ms in curve])
            at = [median([c[min(k, len(c)) - 1] for c in curves]) for k in CHECKPOINTS]
            to = [median([first_within(c, 1 + w) for c in curves]) for w in WITHIN]
            lines.append("| %s | " % strategy + " | ".join(ratio_text(x) for x in at) + " | " +
                         " | ".join(count_text(x, budget) for x in to) + " |")
        tables.append("\n".join(lines))
    return "\n\n".join(tables)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Arguments after -- go to `clforge tune ROUTINE` (e.g. --method separable).")
    p.add_argument("routine", help="a routine of `clforge tune` (transpose, sgemm, fft, blur)")
    p.add_argument("--cli", default="build/clforge", help="the clforge command line (default build/clforge)")
    p.add_argument("-d", "--device", help="the device, as clforge --device takes it")
    p.add_argument("--size", action="append", required=True, help="sizes of the measured run (repeatable)")
    p.add_argument("--cache", required=True, help="the tune cache of the measured run")
    p.add_argument("--strategies", default="random,anneal,model", help="comma-separated (default random,anneal,model)")
    p.add_argument("--seeds", type=int, default=10, help="replays per strategy (default 10)")
    p.add_argument("--first-seed", type=int, default=1, help="seed of the first replay (default 1)")
    p.add_argument("--budget", type=int, default=0, help="candidates per replay (default: the universe)")
    p.add_argument("--search-only", action="store_true",
                   help="leave the default out of the best so far and of the universe's best (for devices where "
                        "the shipped default is already about the best)")
    p.add_argument("--threads", type=int, default=4,
                   help="batch size of the strategies, as --threads of a real run (default 4)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = p.parse_args(argv[:cut])
    args.extra = argv[cut + 1:]
    args.strategies = [s for s in args.strategies.split(",") if s]
    print(study(args))


if __name__ == "__main__":
    main()

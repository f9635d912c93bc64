#!/usr/bin/env python3
"""Slowdown of magcl runs on a busy machine: each case alone and beside a synthetic CPU hog.

Every run is `magcl train ... --json --device cpu` pinned to CORES (default 0,1) with the
thread count magcl picks itself (no --threads), so the numbers are what a user gets. In the
"hog" condition a busy-looping process pinned to HOG_CORE (default: the last of CORES) runs
for the whole of the run; it is started before and stopped after each hogged run.

Several binaries (or one binary under different environments) are compared in one session:
each round runs every case under every variant, alone and hogged, in alternating order, so
that slow drifts of the machine hit all variants alike. One CSV row per run; at the end a
table of medians and the hog/alone ratios (training, evaluation, wall).

    python3 benchmarks/busy/busy.py --variant new=target/release/magcl \\
        --variant old=/tmp/magcl-old --rounds 3 --out runs/busy.csv
    python3 benchmarks/busy/busy.py --variant passive='/tmp/magcl-old OMP_WAIT_POLICY=PASSIVE'
    python3 benchmarks/busy/busy.py --summary runs/busy.csv

Datasets come from $MAGCL_DATA_MIRROR / the cache as for any magcl run (PROTEINS, MUTAG
and Cora by default; the node case `synthetic-node` needs no file).
"""
import argparse
import ctypes
import csv
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time

# label -> arguments of `magcl train` (each case: training and its evaluation).
CASES = {
    "graphcl-PROTEINS": "--method graphcl --dataset PROTEINS --epochs 20",
    "simgrace-PROTEINS": "--method simgrace --dataset PROTEINS --epochs 10",
    "adgcl-MUTAG": "--method adgcl --dataset MUTAG --epochs 10",
    "graphcl-MUTAG": "--method graphcl --dataset MUTAG --epochs 20",
    "simgrace-MUTAG": "--method simgrace --dataset MUTAG --epochs 20",
    "node-synthetic": "--method base --dataset synthetic-node:600:2400:64:4:1 --preset code "
    "--epochs 30 --set node.kmeans_restarts=2",
    "node-Cora": "--method base --dataset Cora --preset code --epochs 30",
}

FIELDS = [
    "variant", "case", "condition", "round", "status", "wall_s", "train_s", "eval_s",
    "accuracy", "threads", "cores", "hog_core", "env", "binary", "git_commit", "machine",
    "timestamp",
]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def parse_variant(spec):
    """'label=PATH [NAME=VALUE ...]' -> (label, path, {NAME: VALUE})."""
    label, _, rest = spec.partition("=")
    words = rest.split()
    if not label or not words:
        sys.exit(f"--variant {spec!r}: expected LABEL=PATH [NAME=VALUE ...]")
    env = {}
    for w in words[1:]:
        k, eq, v = w.partition("=")
        if not eq:
            sys.exit(f"--variant {spec!r}: {w!r} is not NAME=VALUE")
        env[k] = v
    return label, words[0], env


def _pin_and_die_with_parent(core):
    os.sched_setaffinity(0, {core})
    # PR_SET_PDEATHSIG = 1: the hog is killed when this script dies, however it dies.
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)


def start_hog(core):
    """A process that spins on `core` until killed (a compiler, another user's job...)."""
    return subprocess.Popen(
        [sys.executable, "-c", "while True: pass"],
        preexec_fn=lambda: _pin_and_die_with_parent(core),
    )


def stop_hog(p):
    if p is None:
        return
    p.kill()
    p.wait()


def run_once(binary, env_extra, args, cores, timeout):
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [binary, "train", *args.split(), "--json", "--quiet", "--device", "cpu"]
    t0 = time.monotonic()
    try:
        out = subprocess.run(
            cmd, env=env, capture_output=True, text=True, timeout=timeout,
            preexec_fn=lambda: os.sched_setaffinity(0, cores),
        )
    except subprocess.TimeoutExpired:
        return {"status": f"timeout>{timeout}s", "wall_s": time.monotonic() - t0}
    wall = time.monotonic() - t0
    if out.returncode != 0:
        tail = " | ".join(out.stderr.strip().splitlines()[-3:])
        return {"status": f"exit {out.returncode}: {tail}", "wall_s": wall}
    lines = [l for l in out.stdout.splitlines() if l.strip()]
    rec = json.loads(lines[-1])
    return {
        "status": "ok", "wall_s": wall, "train_s": rec["train_seconds"],
        "eval_s": rec["eval_seconds"], "accuracy": rec["accuracy"],
        "threads": rec["threads"], "git_commit": rec.get("git_commit", ""),
    }


def summarise(rows):
    """Medians per (variant, case, condition) and the hog/alone ratio of each."""
    groups = {}
    for r in rows:
        groups.setdefault((r["variant"], r["case"]), {}).setdefault(r["condition"], []).append(r)

    def med(rs, key):
        v = [float(r[key]) for r in rs if r["status"] == "ok" and r.get(key) not in ("", None)]
        return statistics.median(v) if v else None

    def rng(rs, key):
        v = [float(r[key]) for r in rs if r["status"] == "ok" and r.get(key) not in ("", None)]
        return f"{min(v):.2f}–{max(v):.2f}" if len(v) > 1 else ""

    out = ["| variant | case | n | alone train s | hog train s | × | alone eval s | hog eval s "
           "| × | alone wall s | hog wall s (range) | × |",
           "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for (variant, case), by in sorted(groups.items()):
        a, h = by.get("alone", []), by.get("hog", [])
        cells = []
        for key in ("train_s", "eval_s", "wall_s"):
            ma, mh = med(a, key), med(h, key)
            ratio = f"{mh / ma:.2f}" if ma and mh is not None else "-"
            fa = f"{ma:.2f}" if ma is not None else "-"
            fh = f"{mh:.2f}" if mh is not None else "-"
            if key == "wall_s" and rng(h, key):
                fh += f" ({rng(h, key)})"
            fails = [r["status"] for r in h if r["status"] != "ok"]
            if key == "wall_s" and fails:
                fh += f" [{len(fails)} failed: {fails[0]}]"
            cells += [fa, fh, ratio]
        n = f"{len(a)}/{len(h)}"
        out.append(f"| {variant} | {case} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", action="append", default=[],
                    help="LABEL=PATH [NAME=VALUE ...] (repeatable; default: new=target/release/magcl)")
    ap.add_argument("--case", action="append", default=[],
                    help=f"case labels to run (default: all of {', '.join(CASES)}), or "
                         "LABEL='train arguments' for a case of your own")
    ap.add_argument("--cores", default="0,1", help="CPU cores the runs are pinned to")
    ap.add_argument("--hog-core", type=int, help="core the hog spins on (default: last of --cores)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300, help="seconds before a run is given up")
    ap.add_argument("--conditions", default="alone,hog")
    ap.add_argument("--skip", action="append", default=[], metavar="VARIANT:CONDITION",
                    help="leave out one variant's runs in one condition (e.g. old:hog)")
    ap.add_argument("--out", help="CSV to append rows to")
    ap.add_argument("--summary", metavar="CSV", help="only print the table of an existing CSV")
    a = ap.parse_args()

    if a.summary:
        with open(a.summary) as f:
            print(summarise(list(csv.DictReader(f))))
        return

    cores = {int(c) for c in a.cores.split(",")}
    hog_core = a.hog_core if a.hog_core is not None else max(cores)
    variants = [parse_variant(v) for v in (a.variant or ["new=target/release/magcl"])]
    cases = {}
    for c in a.case or list(CASES):
        label, eq, args = c.partition("=")
        if eq:
            cases[label] = args
        elif c in CASES:
            cases[c] = CASES[c]
        else:
            sys.exit(f"--case {c!r}: unknown (known: {', '.join(CASES)}; or LABEL='args')")
    conditions = a.conditions.split(",")
    machine = cpu_model()
    # A SIGTERM (e.g. from `timeout`) ends the script through Python's exit path, so the
    # rows written so far are flushed and a running hog is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    writer, f = None, None
    if a.out:
        os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
        new = not os.path.exists(a.out)
        f = open(a.out, "a", newline="")
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            writer.writeheader()
    rows = []
    for rnd in range(a.rounds):
        for i, (case, args) in enumerate(cases.items()):
            # Alternate the order of variants and conditions from case to case and round
            # to round.
            order = [(v, c) for v in variants for c in conditions]
            if (rnd + i) % 2:
                order.reverse()
            for (label, binary, env), cond in order:
                if f"{label}:{cond}" in a.skip:
                    continue
                hog = start_hog(hog_core) if cond == "hog" else None
                try:
                    time.sleep(0.2 if hog else 0)
                    r = run_once(binary, env, args, cores, a.timeout)
                finally:
                    stop_hog(hog)
                row = {k: "" for k in FIELDS}
                row.update(r)
                row.update({
                    "variant": label, "case": case, "condition": cond, "round": rnd,
                    "cores": a.cores, "hog_core": hog_core if cond == "hog" else "",
                    "env": " ".join(f"{k}={v}" for k, v in env.items()), "binary": binary,
                    "machine": machine, "timestamp": int(time.time()),
                })
                for k in ("wall_s", "train_s", "eval_s", "accuracy"):
                    if isinstance(row[k], float):
                        row[k] = f"{row[k]:.4f}"
                rows.append(row)
                print(f"round {rnd} {label:>10} {case:<18} {cond:<5} {row['status']:<8} "
                      f"wall {row['wall_s']:>9} train {row['train_s']:>9} eval {row['eval_s']:>8}"
                      f" threads {row['threads']}", flush=True)
                if writer:
                    writer.writerow(row)
                    f.flush()
    print()
    print(summarise(rows))


if __name__ == "__main__":
    main()

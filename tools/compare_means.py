"""Accuracy tables of two commits side by side: for every (dataset, method, MA setting,
variant) present in both, the old and new mean ± sample std over the seeds each has, the
difference of the means, whether it lies within the old std (the check issue #18 asks
for after the architecture change), and Welch's t-test of equal means with Holm's
correction over the cells (a GPU row and a CPU row of one cell differ by design, so the
question is whether the new runs come from the same distribution, not bit-identity). Seeds may differ (e.g. 5 old, 20 new); --seeds limits
the new rows to the old seeds. Rows with another config hash are the same cell only when the
labels match; `adgcl` rows with MA in files written before the `adgcl-fixed` label existed
are read as `adgcl-fixed`.

    python3 tools/compare_means.py --old A.csv [B.csv …] --new C.csv [D.csv …] [--same-seeds]

With --pair BASE TREAT (and --new only): per dataset, TREAT without MA against BASE without
MA in the --new files, paired by seed: mean Δ = TREAT − BASE, its 95% t-interval and the
paired t-test's p (e.g. `--pair adgcl adgcl-fixed`: the effect of removing AD-GCL's learned
augmenter).
"""
import argparse
import csv
import math
import statistics as st
from collections import defaultdict


def betacf(a, b, x):
    """Continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * betacf(a, b, x) / a
    return 1.0 - front * betacf(b, a, 1.0 - x) / b


def welch_p(x, y):
    """Two-sided p-value of Welch's t-test of equal means."""
    vx, vy = st.variance(x) / len(x), st.variance(y) / len(y)
    if vx + vy == 0.0:
        return 1.0 if st.mean(x) == st.mean(y) else 0.0
    t = (st.mean(x) - st.mean(y)) / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx * vx / (len(x) - 1) + vy * vy / (len(y) - 1))
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(q, df):
    """The q-quantile (q > 0.5) of Student's t by bisection on its CDF."""
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        upper_tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + mid * mid))
        if 1.0 - upper_tail < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def paired(base, treat):
    seeds = sorted(set(base) & set(treat))
    d = [treat[s] - base[s] for s in seeds]
    m, sd, n = st.mean(d), st.stdev(d), len(d)
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    t = m / (sd / math.sqrt(n)) if sd > 0 else float("inf")
    p = betainc((n - 1) / 2.0, 0.5, (n - 1) / (n - 1 + t * t)) if sd > 0 else 0.0
    return n, m, m - half, m + half, p


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, run = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = run
    return out


def load(files):
    cells = defaultdict(dict)
    for f in files:
        for r in csv.DictReader(open(f)):
            method = r["method"]
            if method == "adgcl" and r["ma"] != "none":
                method = "adgcl-fixed"
            key = (r["dataset"], method, r["ma"], r.get("variant", ""))
            cells[key].setdefault(int(r["seed"]), float(r["accuracy"]))
    return cells


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", nargs="+")
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--same-seeds", action="store_true", help="new rows only on the old seeds")
    ap.add_argument("--pair", nargs=2, metavar=("BASE", "TREAT"))
    a = ap.parse_args()
    if a.pair:
        new = load(a.new)
        print(f"| dataset | pairs | {a.pair[1]} − {a.pair[0]} (no MA) | 95% CI | p (paired t) |")
        print("|---|--:|--:|---|--:|")
        for ds in sorted({k[0] for k in new}):
            b, t = new.get((ds, a.pair[0], "none", "")), new.get((ds, a.pair[1], "none", ""))
            if b and t:
                n, m, lo, hi, p = paired(b, t)
                print(f"| {ds} | {n} | {m:+.2f} | [{lo:+.2f}, {hi:+.2f}] | {p:.3g} |")
        return
    if not a.old:
        ap.error("--old is required without --pair")
    old, new = load(a.old), load(a.new)
    lines = []
    for key in sorted(set(old) & set(new)):
        o = old[key]
        n = {s: v for s, v in new[key].items() if not a.same_seeds or s in o}
        if len(o) < 2 or len(n) < 2:
            continue
        ov, nv = list(o.values()), list(n.values())
        lines.append((key, ov, nv, welch_p(ov, nv)))
    adj = holm([l[3] for l in lines])
    print("| dataset | method | MA | variant | old n | old mean ± std | new n | new mean ± std "
          "| Δ mean | within old std | Welch p | Holm p |")
    print("|---|---|---|---|--:|--:|--:|--:|--:|---|--:|--:|")
    within = 0
    for (key, ov, nv, p), ph in zip(lines, adj):
        om, osd, nm, nsd = st.mean(ov), st.stdev(ov), st.mean(nv), st.stdev(nv)
        ok = abs(nm - om) <= osd
        within += ok
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {len(ov)} | {om:.2f} ± {osd:.2f} | "
              f"{len(nv)} | {nm:.2f} ± {nsd:.2f} | {nm - om:+.2f} | {'yes' if ok else 'no'} | "
              f"{p:.3f} | {ph:.3f} |")
    print(f"\n{within} of {len(lines)} cells: new mean within the old std; "
          f"{sum(p < 0.05 for *_, p in lines)} with Welch p < 0.05, "
          f"{sum(ph < 0.05 for ph in adj)} after Holm's correction over the {len(lines)} cells.")

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The 90% interval of magcl − official for every row of a side-by-side summary.

The side-by-side summaries (`results/side_by_side_*/summary.md`) give each row's
difference of means and Welch's p. With 10 seeds a side, a large p says the two programs
are not distinguishable, not that they agree; how large a difference the data still allow
is the interval. This script reads a folder's `per_seed.csv` (the rows the summary was
made from; the runs of the two programs are independent, so the interval is Welch's, not
paired) and writes `diff_ci90.md` beside it: per row the two means, their difference,
its 90% Welch-Satterthwaite t-interval (the one a two one-sided test at 5% uses), the
95% interval, and Welch's p, which must equal the summary's.

    python3 tools/side_by_side_ci.py results/side_by_side_grace_gca [more folders…]

Rows: for each data set and evaluator (and method, where the file has that column), a
magcl program against its official counterpart: `magcl` against `official`, or
`magcl-X` against `official-X` (MVGRL's `code` and `labels` runs). In
`side_by_side_grace_gca` the method `gcacode` is magcl's GCA with the released code's
handling of Cora's empty column, set against the official `gca`. Standard library only;
the t quantile and Welch's p are those of `tools/compare_means.py`.
"""
import csv
import math
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_means import t_quantile, welch_p  # noqa: E402

DATASETS = ["Cora", "CiteSeer", "Amazon-Photo", "MUTAG", "PROTEINS", "NCI1", "IMDB-BINARY", "IMDB-MULTI"]


def welch_interval(x, y, level):
    """mean(x) − mean(y) and its Welch-Satterthwaite t-interval at `level`."""
    vx, vy = st.variance(x) / len(x), st.variance(y) / len(y)
    d = st.mean(x) - st.mean(y)
    df = (vx + vy) ** 2 / (vx * vx / (len(x) - 1) + vy * vy / (len(y) - 1))
    half = t_quantile(0.5 + level / 2.0, df) * math.sqrt(vx + vy)
    return d, d - half, d + half


def order(values, first):
    """Sort key: known names first in the given order, the rest after, alphabetically."""
    return lambda v: (first.index(v) if v in first else len(first), v)


def rows_of(folder):
    groups = {}
    with open(os.path.join(folder, "per_seed.csv")) as fh:
        for r in csv.DictReader(fh):
            key = (r.get("method", ""), r["dataset"], r["evaluator"], r["program"])
            groups.setdefault(key, []).append(float(r["accuracy"]))
    lines = []
    for (method, ds, ev, prog), mine in groups.items():
        if not prog.startswith("magcl"):
            continue
        other_prog = "official" + prog[len("magcl"):]
        other_method = "gca" if method == "gcacode" else method
        theirs = groups.get((other_method, ds, ev, other_prog))
        if theirs is None or len(mine) < 2 or len(theirs) < 2:
            continue
        lines.append((method, ds, ev, prog, other_prog, mine, theirs))
    methods = ["grace", "gca", "gcacode"]
    evals = ["own", "bgrl-eval", "grace-eval", "gca-eval", "official-svc", "magcl-svc",
             "official-linear-svc", "magcl-linear-svc"]
    lines.sort(key=lambda l: (order(None, methods)(l[0]), order(None, DATASETS)(l[1]),
                              l[3], order(None, evals)(l[2])))
    return lines


def table(folder):
    lines = rows_of(folder)
    with_method = any(l[0] for l in lines)
    head = ["method"] if with_method else []
    head += ["data set", "evaluator", "programs", "official (n)", "magcl (n)",
             "magcl − official", "90% CI", "95% CI", "Welch p"]
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("--:" if h in ("magcl − official", "Welch p") else "---"
                          for h in head) + "|"]
    for method, ds, ev, prog, other, mine, theirs in lines:
        d, lo90, hi90 = welch_interval(mine, theirs, 0.90)
        _, lo95, hi95 = welch_interval(mine, theirs, 0.95)
        label = {"gcacode": "gca (magcl: absent_columns = threshold)"}.get(method, method)
        cells = [label] if with_method else []
        cells += [ds, ev, f"{prog} vs {other}",
                  f"{st.mean(theirs):.2f} ({len(theirs)})", f"{st.mean(mine):.2f} ({len(mine)})",
                  f"{d:+.2f}", f"[{lo90:+.2f}, {hi90:+.2f}]", f"[{lo95:+.2f}, {hi95:+.2f}]",
                  f"{welch_p(mine, theirs):.3f}"]
        out.append("| " + " | ".join(cells) + " |")
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for folder in sys.argv[1:]:
        name = os.path.basename(os.path.normpath(folder))
        text = [f"# {name}: magcl − official, with its 90% interval",
                "",
                "Made by `python3 tools/side_by_side_ci.py results/" + name + "` from "
                "`per_seed.csv` (accuracy in %, mean over seeds; independent runs, so "
                "Welch's interval, not a paired one). The difference and Welch's p are "
                "those of `summary.md`; the intervals say how large a difference these "
                "seeds leave possible: where the 90% interval holds 0 the programs are "
                "not distinguishable, and a two one-sided test at 5% would call them "
                "equivalent only within a margin wider than both its ends.",
                ""]
        text += table(folder)
        with open(os.path.join(folder, "diff_ci90.md"), "w") as fh:
            fh.write("\n".join(text) + "\n")
        print(f"{folder}/diff_ci90.md")


if __name__ == "__main__":
    main()

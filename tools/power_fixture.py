#!/usr/bin/env python3
"""Generate the reference values that magcl's power computation is checked against
(tests/fixtures/power/ttest_power.json): the minimum detectable effect of a two-sided
paired t-test, its power, and the noncentral t CDF underneath.

The minimum detectable effect (MDE) of n paired seeds whose differences have sample
standard deviation sd is sd * d, where d is the standardised effect at which the
two-sided one-sample t-test at level alpha has the given power, as statsmodels'
TTestPower / tt_solve_power computes it (noncentral t with n - 1 degrees of freedom and
noncentrality d * sqrt(n), both tails counted).

Run once with statsmodels and scipy installed in a throwaway virtual environment, e.g.
    python3 -m venv /tmp/smvenv && /tmp/smvenv/bin/pip install statsmodels
    /tmp/smvenv/bin/python tools/power_fixture.py > tests/fixtures/power/ttest_power.json
The output is committed; the tests never need Python.
"""
import json

import numpy as np
import scipy
import statsmodels
from scipy import stats
from scipy.optimize import brentq
from statsmodels.stats.power import TTestPower, tt_solve_power

out = {
    "generator": "tools/power_fixture.py",
    "statsmodels_version": statsmodels.__version__,
    "scipy_version": scipy.__version__,
    "alternative": "two-sided",
}

mde = []
skipped = []
for alpha, power in [(0.05, 0.8), (0.05, 0.9), (0.01, 0.8)]:
    for n in [2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100]:
        for sd in [0.37, 1.0, 2.5]:
            # statsmodels' own solver: its answer can be off by ~1e-6 in power, and for
            # n <= 4 at strict settings it stops at its search bound (power far off).
            raw = float(tt_solve_power(effect_size=None, nobs=n, alpha=alpha, power=power,
                                       alternative="two-sided"))
            raw_power = float(TTestPower().power(raw, n, alpha, alternative="two-sided"))
            # The same equation, TTestPower.power(d) = power, solved to full precision.
            # The bracket grows until the power passes the target; where scipy's noncentral
            # t returns NaN first (n = 2 at strict settings) the case is left out.
            f = lambda x: TTestPower().power(x, n, alpha, alternative="two-sided") - power
            hi = 0.05
            while not f(hi) > 0 and hi < 1e3:
                hi *= 1.1
            if not np.isfinite(f(hi)) or f(hi) <= 0:
                skipped.append({"n": n, "alpha": alpha, "power": power})
                continue
            try:
                d = brentq(f, hi / 1.1, hi, xtol=1e-14, rtol=1e-14, maxiter=500)
            except ValueError:  # NaN met inside the bracket
                skipped.append({"n": n, "alpha": alpha, "power": power})
                continue
            achieved = float(TTestPower().power(d, n, alpha, alternative="two-sided"))
            mde.append({"n": n, "sd": sd, "alpha": alpha, "power": power,
                        "effect_size": float(d), "effect": float(d) * sd,
                        "power_at_solution": achieved,
                        "tt_solve_power": raw, "power_at_tt_solve_power": raw_power})
out["mde"] = mde
out["mde_skipped"] = skipped

power = []
for n in [2, 3, 5, 10, 20, 50]:
    for d in [0.0, 0.2, 0.5, 1.0, 2.0, 4.0]:
        for alpha in [0.05, 0.01]:
            p = float(TTestPower().power(d, n, alpha, alternative="two-sided"))
            if np.isfinite(p):  # scipy's noncentral t gives NaN far in its tails
                power.append({"n": n, "effect_size": d, "alpha": alpha, "power": p})
out["power"] = power

cdf = []
for df in [1, 2, 4, 9, 29, 99]:
    for nc in [-3.0, -0.5, 0.0, 0.7, 2.8, 8.0]:
        for t in [-4.0, -1.5, 0.0, 0.3, 2.1, 5.0, 12.0]:
            c = float(stats.nct.cdf(t, df, nc))
            if np.isfinite(c):
                cdf.append({"t": t, "df": df, "nc": nc, "cdf": c})
out["nct_cdf"] = cdf

print(json.dumps(out, indent=1))

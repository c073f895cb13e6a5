"""The statistics of runtime.timing that need no GPU: the bootstrap interval of a speedup."""

import numpy as np

from runtime.timing import speedup_ci


def test_interval_holds_the_ratio_and_narrows_with_less_noise() -> None:
    rng = np.random.default_rng(7)
    base = list(2.0 + 0.02 * rng.standard_normal(25))
    cand = list(1.0 + 0.01 * rng.standard_normal(25))
    lo, hi = speedup_ci(base, cand)
    assert lo < 2.0 < hi and hi - lo < 0.1
    noisy = list(1.0 + 0.3 * np.abs(rng.standard_normal(25)))
    nlo, nhi = speedup_ci(base, noisy)
    assert nhi - nlo > 3 * (hi - lo)


def test_interval_is_reproducible_and_refuses_what_it_cannot_judge() -> None:
    base, cand = [1.0, 1.1, 0.9, 1.05], [0.5, 0.55, 0.45, 0.5]
    assert speedup_ci(base, cand) == speedup_ci(base, cand)
    assert speedup_ci([1.0], [1.0]) is None
    assert speedup_ci([1.0, 2.0], [1.0]) is None
    assert speedup_ci([1.0, 2.0], [0.0, 1.0]) is None

"""Reference for aten::exponential_ (a random task, docs/task-format.md "Kinds"): the entry is the
torch call, run for the baseline's output structure; `check_exponential_` is the statistical
test a candidate's samples must pass.

In place, every element of `self` becomes an independent draw of the exponential distribution
with rate `lambd` (density lambd * exp(-lambd * x) for x >= 0, mean 1 / lambd). With y =
lambd * x, which is Exp(1), the test judges:

- support: every value finite and >= 0 (the cases start from NaN, so an element never written
  fails here);
- the distribution: the Kolmogorov-Smirnov distance of y from 1 - exp(-y), against the DKW bound
  P(D > e) <= 2 exp(-2 n e^2) at 1e-8, widened by the output dtype's rounding; and the mean of
  y against 1 (six standard deviations);
- independence inside one sample: the correlation of neighbouring values (lag 1 along the
  logical order, and one row apart in the first dimension);
- independence across calls: a second call must give other values, uncorrelated with the first.

An honest sampler fails one of these with probability below about 1e-7 per case.
"""

import math

import torch

_SIGMA = 6.0
_ALPHA = 1e-8  # the KS test's false-alarm probability (DKW inequality)


def exponential_(self, lambd=1.0, *, generator=None):
    return torch.ops.aten.exponential_.default(self, lambd, generator=generator)


def _lag_test(c: torch.Tensor, lag: int, what: str) -> str | None:
    """c: centred unit-variance values (flat) uncorrelated at `lag`."""
    m = c.numel() - lag
    if lag <= 0 or m < 1000:
        return None
    s = float((c[:-lag] * c[lag:]).sum())
    if abs(s) > _SIGMA * math.sqrt(m):
        return f"{what} are correlated (correlation {s / m:.4f} over {m} pairs)"
    return None


def check_exponential_(sample, draw):
    out = sample.out
    lambd = float(sample.args.get("lambd", 1.0))
    n = out.numel()
    if n == 0:
        return None
    x = out.detach().to(torch.float64).reshape(-1)
    if not bool(torch.isfinite(x).all()):
        return f"a value that is not finite: {float(x[~torch.isfinite(x)][0])!r}"
    if bool((x < 0).any()):
        return f"a negative value: {float(x[x < 0][0])!r}"
    y = x * lambd
    # rounding to the output dtype moves a value by at most eps relative, the CDF by eps / e
    slack = torch.finfo(out.dtype).eps + 1e-6
    ys, _ = torch.sort(y)
    cdf = -torch.expm1(-ys)
    i = torch.arange(1, n + 1, dtype=torch.float64, device=y.device)
    d = max(float((i / n - cdf).max()), float((cdf - (i - 1) / n).max()))
    bound = math.sqrt(math.log(2 / _ALPHA) / (2 * n)) + slack
    if d > bound:
        return (f"not exponential with rate {lambd}: Kolmogorov-Smirnov distance {d:.4f} "
                f"exceeds {bound:.4f} over {n} values")
    # The mean's six-sigma test needs many values: one value is above 7 (six sigma) with
    # probability e^-7, which failed honest samplers of small shapes; the KS test covers those.
    mean = float(y.mean())
    sd = 1 / math.sqrt(n)
    if n >= 1000 and abs(mean - 1) > _SIGMA * sd + slack:
        return f"mean {mean / lambd:.5g}, expected {1 / lambd:.5g} +- {sd / lambd:.2g}"
    c = y - 1
    msg = _lag_test(c, 1, "neighbouring elements")
    if msg is None and out.dim() >= 2 and out.shape[0] > 1:
        msg = _lag_test(c, n // out.shape[0], "elements one row apart")
    if msg:
        return msg
    y2 = draw().out.detach().to(torch.float64).reshape(-1) * lambd
    if n >= 16 and bool((y2 == y).all()):
        return "two calls gave the same sample"
    if n >= 1000:
        s = float((c * (y2 - 1)).sum())
        if abs(s) > _SIGMA * math.sqrt(n):
            return f"two calls gave correlated samples (correlation {s / n:.4f})"
    return None

"""Reference for aten::bernoulli and aten::bernoulli_ (a random task, docs/task-format.md
"Kinds"): each entry is the torch call, run for the baseline's output structure; `check_<entry>`
is the statistical test a candidate's samples must pass.

Every element of a Bernoulli sample is 0 or 1 with P(1) = p for that element, independently of
every other element and of every other call. The tests below judge:

- support: every value is exactly 0 or 1;
- the per-element probabilities: within each of ten bins of p, the number of ones against the
  sum of p (six standard deviations), so a sampler that ignores p, uses its mean, or reads it
  from the wrong position fails;
- independence inside one sample: the correlation of neighbouring residuals (lag 1 along the
  logical order, and one row apart in the first dimension);
- independence across calls: a second call must differ from the first (where the chance of two
  equal samples is below 1e-9), and must differ in as many positions as two independent
  samples do (six standard deviations).

An honest sampler fails one of these bounds with probability below about 1e-7 per case.
"""

import math

import torch

_SIGMA = 6.0
# A six-sigma test trusts the normal approximation, which fails where few terms carry the sum:
# an element with p = 0.01 alone in its bin fails the sum test in 1 of 100 draws. Each such
# test runs only where its variance is at least _MIN_VAR (where the exact tails stay near the
# normal's); the support test covers the rest.
_MIN_VAR = 100.0
_SAME_LOG_P = math.log(1e-9)  # two honest samples are equal with probability below this


def bernoulli(self, *, generator=None):
    return torch.ops.aten.bernoulli.default(self, generator=generator)


def bernoulli_out(self, *, generator=None, out):
    return torch.ops.aten.bernoulli.out(self, generator=generator, out=out)


def bernoulli_p(self, p, *, generator=None):
    return torch.ops.aten.bernoulli.p(self, p, generator=generator)


def bernoulli_Tensor(self, p, *, generator=None):
    return torch.ops.aten.bernoulli.Tensor(self, p, generator=generator)


def bernoulli_Tensor_out(self, p, *, generator=None, out):
    return torch.ops.aten.bernoulli.Tensor_out(self, p, generator=generator, out=out)


def bernoulli_float_out(self, p=0.5, *, generator=None, out):
    return torch.ops.aten.bernoulli.float_out(self, p, generator=generator, out=out)


def bernoulli__Tensor(self, p, *, generator=None):
    return torch.ops.aten.bernoulli_.Tensor(self, p, generator=generator)


def bernoulli__float(self, p=0.5, *, generator=None):
    return torch.ops.aten.bernoulli_.float(self, p, generator=generator)


# -- the statistical test --------------------------------------------------------------------


def _lag_test(r: torch.Tensor, v: torch.Tensor, lag: int, what: str) -> str | None:
    """Residuals r (zero mean, variance v per element, flat) uncorrelated at `lag`."""
    if lag <= 0 or lag >= r.numel():
        return None
    s = float((r[:-lag] * r[lag:]).sum())
    var = float((v[:-lag] * v[lag:]).sum())
    sd = math.sqrt(var)
    if var >= _MIN_VAR and abs(s) > _SIGMA * sd + 1e-9:
        return (f"{what} are correlated (sum of residual products {s:.1f}, standard deviation "
                f"{sd:.1f})")
    return None


def _check_binary(out: torch.Tensor, p: torch.Tensor, draw_out) -> str | None:
    """out: the sample; p: the probability of every element (float64, out's shape);
    draw_out(): the output of a second, independent call."""
    n = out.numel()
    x = out.detach().to(torch.float64).reshape(-1)
    if n == 0:
        return None
    if not bool(((x == 0) | (x == 1)).all()):
        bad = x[(x != 0) & (x != 1)][0]
        return f"a value outside {{0, 1}}: {float(bad)!r}"
    p = p.detach().to(device=x.device, dtype=torch.float64).reshape(-1)
    v = p * (1 - p)
    # per-element probabilities, judged within ten bins of p
    bins = torch.clamp((p * 10).floor().long(), 0, 9)
    for b in range(10):
        m = bins == b
        if not bool(m.any()):
            continue
        s, want, var = float(x[m].sum()), float(p[m].sum()), float(v[m].sum())
        sd = math.sqrt(var)
        if var >= _MIN_VAR and abs(s - want) > _SIGMA * sd + 1e-6:
            return (f"{s:.0f} ones where p is in [{b / 10:.1f}, {(b + 1) / 10:.1f}], expected "
                    f"{want:.1f} +- {sd:.1f}")
    # independence inside the sample
    r = x - p
    msg = _lag_test(r, v, 1, "neighbouring elements")
    if msg is None and out.dim() >= 2 and out.shape[0] > 1:
        msg = _lag_test(r, v, n // out.shape[0], "elements one row apart")
    if msg:
        return msg
    # independence across calls
    q = 2 * v  # probability that two independent draws differ at an element
    log_same = float(torch.log1p(-q.clamp(max=1 - 1e-300)).sum())
    y = draw_out().detach().to(torch.float64).reshape(-1)
    diff = float((x != y).sum())
    if log_same < _SAME_LOG_P and diff == 0:
        return "two calls gave the same sample"
    want, var = float(q.sum()), float((q * (1 - q)).sum())
    sd = math.sqrt(var)
    if var >= _MIN_VAR and abs(diff - want) > _SIGMA * sd + 1e-6:
        return (f"two calls differ in {diff:.0f} elements, independent samples differ in "
                f"{want:.1f} +- {sd:.1f}")
    return None


def _full(p, like: torch.Tensor) -> torch.Tensor:
    if isinstance(p, torch.Tensor):
        return p.to(torch.float64).expand(like.shape)
    return torch.full(like.shape, float(p), dtype=torch.float64, device=like.device)


def check_bernoulli(sample, draw):
    p = sample.args["self"]
    return _check_binary(sample.out, _full(p, p), lambda: draw().out)


def check_bernoulli_out(sample, draw):
    return check_bernoulli(sample, draw)


def check_bernoulli_p(sample, draw):
    out = sample.out
    return _check_binary(out, _full(sample.args["p"], out), lambda: draw().out)


def check_bernoulli_Tensor(sample, draw):
    out = sample.out
    return _check_binary(out, _full(sample.args["p"], out), lambda: draw().out)


check_bernoulli_Tensor_out = check_bernoulli_Tensor
check_bernoulli_float_out = check_bernoulli_p
check_bernoulli__Tensor = check_bernoulli_Tensor
check_bernoulli__float = check_bernoulli_p

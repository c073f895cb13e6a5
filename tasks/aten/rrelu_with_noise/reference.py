"""Reference for aten::rrelu_with_noise (a random task, docs/task-format.md "Kinds"): each entry
is the torch call, run for the baseline's output structure; `check_<entry>` is the statistical
test a candidate's output and `noise` must pass.

Training: where self > 0 the output is self and noise is 1; elsewhere a slope r is drawn
uniformly from [lower, upper], independently per element and per call, the output is self * r
and noise holds r. Not training: the output is leaky_relu(self, (lower + upper) / 2) and noise is
not touched (the cases start it as NaN). The test judges:

- exactly self where self > 0 (a copy, no rounding), in both modes;
- training: noise 1 where self > 0 and in [lower, upper] elsewhere; the output self * noise
  there (within 3 eps of the dtype, relative: the rounding of r to noise's dtype and of the
  product); the noise values uniform on [lower, upper] (Kolmogorov-Smirnov distance against the
  DKW bound at 1e-8, widened by the dtype's rounding), uncorrelated between neighbours, and new
  and uncorrelated in a second call;
- not training: self * (lower + upper) / 2 where self <= 0 (within 2 eps relative), noise
  untouched.

An honest kernel fails one of these with probability below about 1e-7 per case.
"""

import math

import torch

_SIGMA = 6.0
_ALPHA = 1e-8


def _aten(self, noise, lower, upper, training, generator, out=None):
    """The ATen call; the CPU kernel has no float16 version, so on the CPU (the interpreter
    platform, where only the output's structure is used) float16 goes through float32."""
    if self.device.type == "cpu" and self.dtype == torch.float16:
        n32 = noise.float()
        res = torch.ops.aten.rrelu_with_noise.default(self.float(), n32, lower, upper,
                                                      training, generator)
        noise.copy_(n32)
        if out is None:
            return res.to(self.dtype)
        return out.copy_(res)
    if out is None:
        return torch.ops.aten.rrelu_with_noise.default(self, noise, lower, upper, training,
                                                       generator)
    return torch.ops.aten.rrelu_with_noise.out(self, noise, lower, upper, training, generator,
                                               out=out)


def rrelu_with_noise(self, noise, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    return _aten(self, noise, lower, upper, training, generator)


def rrelu_with_noise_out(self, noise, lower=0.125, upper=1.0 / 3.0, training=False,
                         generator=None, *, out):
    return _aten(self, noise, lower, upper, training, generator, out)


def _flat(t: torch.Tensor) -> torch.Tensor:
    return t.detach().to(torch.float64).reshape(-1)


def _check(sample, draw) -> str | None:
    a = sample.args
    lower, upper = float(a.get("lower", 0.125)), float(a.get("upper", 1.0 / 3.0))
    training = bool(a.get("training", False))
    out = sample.out
    n = out.numel()
    if n == 0:
        return None
    eps = torch.finfo(out.dtype).eps
    tiny = torch.finfo(out.dtype).tiny
    x, o, nz = _flat(a["self"]), _flat(out), _flat(a["noise"])
    pos = x > 0
    if not bool((o[pos] == x[pos]).all()):
        i = int(torch.nonzero(pos & (o != x))[0])
        return f"element {i}: self = {float(x[i])!r} > 0 but the output is {float(o[i])!r}"
    neg = ~pos
    if not training:
        if not bool(nz.isnan().all()):
            return "noise was written although training is False"
        want = x[neg] * ((lower + upper) / 2)
        err = (o[neg] - want).abs()
        bad = ~(err <= 2 * eps * want.abs() + tiny)
        if bool(bad.any()):
            i = int(torch.nonzero(bad)[0])
            return (f"a negative input's output {float(o[neg][i])!r}, expected "
                    f"{float(want[i])!r} (self times (lower + upper) / 2)")
        return None
    if not bool((nz[pos] == 1).all()):
        return "noise is not 1 where self > 0"
    r = nz[neg]
    slack = eps * max(abs(lower), abs(upper)) + tiny
    if not bool(((r >= lower - slack) & (r <= upper + slack)).all()):
        bad = r[~((r >= lower - slack) & (r <= upper + slack))]
        return f"a noise value {float(bad[0])!r} outside [{lower}, {upper}]"
    want = x[neg] * r
    bad = ~((o[neg] - want).abs() <= 3 * eps * want.abs() + tiny)
    if bool(bad.any()):
        i = int(torch.nonzero(bad)[0])
        return (f"a negative input's output {float(o[neg][i])!r} is not self times noise "
                f"{float(want[i])!r}")
    m = r.numel()
    if m == 0:
        return None
    width = upper - lower
    u, _ = torch.sort(((r - lower) / width).clamp(0, 1))
    i = torch.arange(1, m + 1, dtype=torch.float64, device=u.device)
    d = max(float((i / m - u).max()), float((u - (i - 1) / m).max()))
    bound = math.sqrt(math.log(2 / _ALPHA) / (2 * m)) + slack / width
    if d > bound:
        return (f"noise not uniform on [{lower}, {upper}]: Kolmogorov-Smirnov distance "
                f"{d:.4f} exceeds {bound:.4f} over {m} values")
    c = (r - (lower + upper) / 2) / (width / math.sqrt(12))  # unit variance
    if m > 1000:
        s = float((c[:-1] * c[1:]).sum())
        if abs(s) > _SIGMA * math.sqrt(m - 1):
            return f"neighbouring noise values are correlated (correlation {s / (m - 1):.4f})"
    r2 = _flat(draw().args["noise"])[neg]
    if m >= 16 and bool((r2 == r).all()):
        return "two calls gave the same noise"
    if m > 1000:
        c2 = (r2 - (lower + upper) / 2) / (width / math.sqrt(12))
        s = float((c * c2).sum())
        if abs(s) > _SIGMA * math.sqrt(m):
            return f"two calls gave correlated noise (correlation {s / m:.4f})"
    return None


def check_rrelu_with_noise(sample, draw):
    return _check(sample, draw)


def check_rrelu_with_noise_out(sample, draw):
    return _check(sample, draw)

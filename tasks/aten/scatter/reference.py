"""Reference for aten::scatter (all eight overloads): torch eager, run by the worker on float64
copies of floating `self`/`src` (values) and on the native inputs (output dtype and the GPU
baseline); `index` (int64) is never converted.

out = a copy of self; then for every position p of `index`, the element of out at p with its
coordinate along `dim` replaced by index[p] receives src[p] (or the scalar `value`): it is
overwritten (scatter.src / scatter.value), or added to / multiplied by (reduce="add" /
"multiply"). The scalar is first converted to self's dtype (an int32 self turns -2.5 into -2).
The `_out` overloads write that result into `out` and return it.

Repeated targets: for plain scatter.src torch leaves the winner unspecified, so every src case
has targets that are distinct along `dim` (an "arange" index, each position once, or an index
of size 1 along `dim`); scatter.value writes the same value anyway, so its index repeats
freely, as does the index of the reductions, where repeats are the point.

Tolerance: plain scatter copies values, so those entries scale the tolerance by 1e-6 (the format
needs positive multipliers), which is exact in effect. The reductions combine up to k
contributions per element (`reduce` = k, a generous bound for these index draws); float16 and
bfloat16 are to be accumulated in float32 and rounded once, and the default tolerance allows
that. With these draws a target gets only a few contributions, so a kernel that rounds after
each 16-bit contribution would mostly stay inside the tolerance as well: the float32 rule is
asked for in the prompt but only loosely enforced here.

The scalar argument is named "scalar" in task.json (it is passed positionally; `value` here):
an argument named "value" would collide with the entry's default `"returns": "value"`.
"""

import torch

_S = torch.ops.aten.scatter


def scatter_value(self, dim, index, value):
    return _S.value(self, dim, index, value)


def scatter_src(self, dim, index, src):
    return _S.src(self, dim, index, src)


def scatter_reduce(self, dim, index, src, *, reduce):
    return _S.reduce(self, dim, index, src, reduce=reduce)


def scatter_value_reduce(self, dim, index, value, *, reduce):
    return _S.value_reduce(self, dim, index, value, reduce=reduce)


def scatter_src_out(self, dim, index, src, *, out):
    return _S.src_out(self, dim, index, src, out=out)


def scatter_value_out(self, dim, index, value, *, out):
    return _S.value_out(self, dim, index, value, out=out)


def scatter_reduce_out(self, dim, index, src, *, reduce, out):
    return _S.reduce_out(self, dim, index, src, reduce=reduce, out=out)


def scatter_value_reduce_out(self, dim, index, value, *, reduce, out):
    return _S.value_reduce_out(self, dim, index, value, reduce=reduce, out=out)

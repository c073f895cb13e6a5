"""runtime.timing.perturb: the cross-check's inputs. With a buffer made beforehand
(perturb_factors) it gives the same values as without, and writes its factors there: inside
the judge's clock the runner then allocates nothing (runtime.timing remote_wall_gap)."""

import torch

from runtime.inputs import BuiltArg
from runtime.timing import perturb, perturb_factors


def _args(dtype: torch.dtype) -> tuple[BuiltArg, ...]:
    g = torch.Generator().manual_seed(5)
    return (BuiltArg("index", torch.arange(12)),
            BuiltArg("x", torch.randn(3, 4, generator=g).to(dtype)),
            BuiltArg("y", torch.randn(3, 4, generator=g)))


def test_the_buffer_changes_no_value() -> None:
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        a, b = _args(dtype), _args(dtype)
        factors = perturb_factors(b)
        assert factors is not None and factors.dtype == torch.float32 and factors.shape == (3, 4)
        perturb(a, 77)
        perturb(b, 77, factors)
        assert torch.equal(a[1].value, b[1].value) and a[1].value.dtype == dtype
        assert torch.equal(b[2].value, _args(dtype)[2].value)  # only the first float tensor
        assert torch.all((factors >= 1) & (factors < 1.01))


def test_factors_are_in_range_and_seeded() -> None:
    x0 = _args(torch.float64)[1].value
    a, b = _args(torch.float64), _args(torch.float64)
    perturb(a, 1)
    perturb(b, 2)
    ratio = a[1].value / x0
    assert torch.all((ratio >= 1) & (ratio < 1.01)) and not torch.equal(a[1].value, b[1].value)


def test_nothing_to_perturb() -> None:
    args = (BuiltArg("index", torch.arange(3)), BuiltArg("n", 4))
    assert perturb_factors(args) is None
    perturb(args, 3)
    assert torch.equal(args[0].value, torch.arange(3))


def test_output_bytes_counts_each_output_storage() -> None:
    """runtime.runner_timing.output_bytes: what the runner makes room for in the allocator's
    cache before the cross-check's calls (cache_blocks, CUDA only)."""
    from runtime.runner_timing import output_bytes

    a, b = torch.zeros(3, 4), torch.zeros(5, dtype=torch.float16)
    assert output_bytes(a) == [48]
    assert output_bytes((a, 2, b)) == [48, 10] and output_bytes([b[1:]]) == [10]
    assert output_bytes(None) == [] and output_bytes(torch.zeros(0)) == [] and output_bytes(7) == []

"""L3 device trace: the rule over a kernel list (the profiler half needs a GPU)."""

import pytest

from runtime.trace import MAX_FOREIGN_SHARE, Kernel, NotRecorded, device_kernels, judge

TRITON = {"_add_kernel"}
REDUCE = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(...)"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(...)"


def test_triton_doing_the_work_passes():
    assert judge([Kernel("_add_kernel", 50.0)], TRITON) is None


def test_fills_are_allocation_not_compute():
    assert judge([Kernel(FILL, 40.0), Kernel("Memset (Device)", 5.0),
                  Kernel("_add_kernel", 10.0)], TRITON) is None


COPY = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
        "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}>(...)")
CAST = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<"
        "at::native::float16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}>(...)")


def test_same_dtype_copies_are_data_movement():
    # .contiguous() of a strided input before the Triton kernel (add on the H200: 54%)
    assert judge([Kernel(COPY, 54.0), Kernel("Memcpy DtoD (Device -> Device)", 6.0),
                  Kernel("_add_kernel", 40.0)], TRITON) is None


def test_a_converting_copy_is_foreign_compute():
    finding = judge([Kernel(CAST, 60.0), Kernel("_add_kernel", 40.0)], TRITON)
    assert finding and "float16_copy_kernel_cuda" in finding


def test_no_triton_kernel_is_flagged_with_what_ran():
    finding = judge([Kernel(REDUCE, 30.0)], TRITON)
    assert finding and "no Triton kernel ran" in finding and "reduce_kernel" in finding


def test_nothing_on_the_device_is_flagged():
    finding = judge([], TRITON)
    assert finding and "ran nothing" in finding


def test_foreign_compute_over_the_share_is_flagged():
    # torch reduces, a Triton kernel only copies the result out
    finding = judge([Kernel(REDUCE, 90.0), Kernel("_add_kernel", 10.0)], TRITON)
    assert finding and "90%" in finding and "reduce_kernel" in finding


def test_the_share_boundary():
    under = 100.0 * MAX_FOREIGN_SHARE * 0.9
    assert judge([Kernel(REDUCE, under), Kernel("_add_kernel", 100.0 - under)], TRITON) is None
    over = 100.0 * MAX_FOREIGN_SHARE * 1.1
    assert judge([Kernel(REDUCE, over), Kernel("_add_kernel", 100.0 - over)], TRITON)


def test_a_triton_name_is_only_what_triton_compiled():
    # a torch kernel is foreign whatever the candidate's own kernels are called
    assert judge([Kernel(REDUCE, 50.0), Kernel("_sum_kernel", 50.0)], TRITON)


def test_profiling_after_the_snapshot_replaces_nothing():
    # On the GPU every candidate was flagged "integrity: running the candidate replaced
    # torch.manual_seed" (bench/results/h200-2026-12-03b): the profiler's first use imports
    # torch._dynamo, which rebinds it. The worker imports it before its snapshot; this is
    # that order, with the profiler on the CPU.
    import torch
    import torch._dynamo  # noqa: F401
    from torch.profiler import ProfilerActivity, profile

    from runtime.integrity import Snapshot

    trusted = Snapshot()
    with profile(activities=[ProfilerActivity.CPU]):
        torch.ones(3).add_(1)
    assert trusted.replaced() is None


def test_an_upload_is_foreign_unless_the_inputs_are_pointer_tables():
    # a pointer-array cuBLAS routine uploads its table of device pointers (the batched gemms)
    kernels = [Kernel("Memcpy HtoD (Pageable -> Device)", 2.0), Kernel("tri", 1.0)]
    assert "Memcpy HtoD" in judge(kernels, {"tri"})
    assert judge(kernels, {"tri"}, pointer_tables=True) is None
    # it is never a way around L3 for anything else the device runs
    kernels.append(Kernel("elementwise_kernel", 5.0))
    assert "elementwise_kernel" in judge(kernels, {"tri"}, pointer_tables=True)


def test_kernel_sum_beyond_the_events_is_flagged():
    from runtime.trace import sum_judge

    assert sum_judge(120.0, 200.0) is None  # an honest call: kernels inside the events
    assert sum_judge(80.0, 20.0) is None  # under the 50 us floor
    assert sum_judge(349.0, 200.0) is None  # 1.5 x 200 + 50 = 350: the boundary holds
    msg = sum_judge(351.0, 200.0)
    assert msg and "outside the call's stream" in msg
    for bad in ((float("nan"), 1.0), (1.0, float("inf")), (-1.0, 5.0)):
        assert "fails closed" in (sum_judge(*bad) or "")


def test_device_kernels_drop_the_sentinel_and_need_it() -> None:
    """traced() runs a fill of its own before the call: it is left out of the kernels, and a
    trace with nothing at all (the profiler recorded nothing) cannot be judged, instead of
    reading as "the device ran nothing"."""
    fill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
    acts = [("add_kernel", 12.0, 3.5), (fill, 10.0, 1.0), ("Memset (Device)", 15.0, 0.5)]
    assert device_kernels(acts) == [Kernel("add_kernel", 3.5), Kernel("Memset (Device)", 0.5)]
    assert device_kernels([(fill, 1.0, 1.0)]) == []  # the candidate ran nothing: judged
    assert judge(device_kernels([(fill, 1.0, 1.0)]), set()) == (
        "L3 device trace: no Triton kernel ran; the device ran nothing")
    with pytest.raises(NotRecorded, match="recorded nothing"):
        device_kernels([])
    # the sentinel lost but not the rest: everything recorded is judged
    assert device_kernels([("add_kernel", 1.0, 3.5), (fill, 2.0, 1.0)]) == [
        Kernel("add_kernel", 3.5), Kernel(fill, 1.0)]

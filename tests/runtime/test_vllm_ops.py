"""Tests of runtime/vllm_ops.py and the vLLM tasks' baseline.py files (docs/task-format.md).

vLLM is not installed here: every vLLM task's baseline.py must then fail to import with a
clear reason, so that the worker keeps the reference as the baseline and records why. With a
fake vLLM (ops registered in a test-only torch.library namespace, which torch.ops._C,
_C_cache_ops and _moe_C stand for during a test, and NAMESPACES pointing at a module that
imports) the baselines must resolve their ops and pass the task's arguments through.
"""

import json
import sys
import types
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

import pytest
import torch

from runtime import vllm_ops
from runtime.loading import load_baseline, load_module

ROOT = Path(__file__).resolve().parents[2]
VLLM_TASKS = sorted(p for p in (ROOT / "tasks" / "vllm").iterdir() if p.is_dir())
FAKE_NS = "kgb_fake_vllm"

needs_no_vllm = pytest.mark.skipif(vllm_ops.version() is not None,
                                   reason="vLLM is installed: the fallback is not taken")


def test_every_vllm_task_ships_a_baseline() -> None:
    assert len(VLLM_TASKS) == 50
    assert [t.name for t in VLLM_TASKS if not (t / "baseline.py").is_file()] == []


@needs_no_vllm
@pytest.mark.parametrize("task", VLLM_TASKS, ids=lambda p: p.name)
def test_baseline_without_vllm_falls_back_to_the_reference(task: Path) -> None:
    """The worker's own loader (a cuda timing job): no module, and a note that says why."""
    with pytest.raises(ImportError) as info:
        load_module(str(task / "baseline.py"), "baseline")
    assert "vllm" in str(info.value).lower(), str(info.value)
    job = SimpleNamespace(platform="cuda", rounds=25, task_dir=str(task))
    module, note = load_baseline(job)  # type: ignore[arg-type]
    assert module is None and note is not None
    assert note.startswith("baseline.py did not load (ImportError")
    assert note.endswith("the reference in the inputs' dtype instead")


@needs_no_vllm
def test_op_without_vllm_says_so() -> None:
    assert vllm_ops.version() is None
    with pytest.raises(ImportError, match=r"vllm\._moe_C \(torch\.ops\._moe_C\) does not import"):
        vllm_ops.op("_moe_C", "moe_sum")
    with pytest.raises(ImportError, match="no vLLM extension is known to register"):
        vllm_ops.op("_nope", "rms_norm")


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A fake vLLM: define(schema, impl) registers a CPU op in the test namespace, which
    torch.ops._C, _C_cache_ops and _moe_C are during the test; the extensions 'import'."""
    lib = torch.library.Library(FAKE_NS, "FRAGMENT")
    monkeypatch.setitem(sys.modules, "kgb_fake_vllm_ext", types.ModuleType("kgb_fake_vllm_ext"))
    for ns in ("_C", "_C_cache_ops", "_moe_C"):
        monkeypatch.setitem(vllm_ops.NAMESPACES, ns, "kgb_fake_vllm_ext")
        monkeypatch.setattr(torch.ops, ns, getattr(torch.ops, FAKE_NS), raising=False)

    def define(schema: str, impl: Any) -> None:
        lib.define(schema)
        lib.impl(schema.split("(", 1)[0], impl, "CPU")
    yield define
    lib._destroy()
    for name in list(vars(getattr(torch.ops, FAKE_NS))):  # drop the cached op packets
        if not name.startswith("_") and name not in ("name",):
            delattr(getattr(torch.ops, FAKE_NS), name)


def _baseline(task: str) -> Any:
    return load_module(str(ROOT / "tasks" / "vllm" / task / "baseline.py"), "baseline")


def test_rms_norm_passes_its_arguments_through(fake_vllm: Any) -> None:
    seen: list[tuple[Any, ...]] = []

    def rms_norm(result: torch.Tensor, input: torch.Tensor, weight: torch.Tensor,
                 epsilon: float) -> None:
        seen.append((result, input, weight, epsilon))
        result.fill_(7)
    # vLLM's own schema: its first argument is `result` (ours `out`)
    fake_vllm("rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()",
              rms_norm)
    base = _baseline("rms_norm")
    out, x, w = torch.zeros(3, 8), torch.randn(3, 8), torch.randn(8)
    assert base.rms_norm(out, x, w, 1e-6) is None
    (r, i, wt, eps), = seen
    assert (r.data_ptr(), i.data_ptr(), wt.data_ptr()) == (out.data_ptr(), x.data_ptr(),
                                                          w.data_ptr())
    assert eps == 1e-6 and bool((out == 7).all())


def test_scaled_int8_quant_one_function_per_entry(fake_vllm: Any) -> None:
    calls: list[tuple[str, int]] = []
    fake_vllm("static_scaled_int8_quant(Tensor! result, Tensor input, Tensor scale, Tensor? azp)"
              " -> ()", lambda r, i, s, a: calls.append(("static", int(a is None))))
    fake_vllm("dynamic_scaled_int8_quant(Tensor! result, Tensor input, Tensor! scale, "
              "Tensor!? azp) -> ()", lambda r, i, s, a: calls.append(("dynamic", int(a is None))))
    base = _baseline("scaled_int8_quant")
    q, x, s = torch.zeros(2, 4, dtype=torch.int8), torch.randn(2, 4), torch.ones(())
    base.static_scaled_int8_quant(q, x, s, None)
    base.dynamic_scaled_int8_quant(q, x, torch.ones(2, 1), None)
    assert calls == [("static", 1), ("dynamic", 1)]


def test_a_returned_tensor_comes_back(fake_vllm: Any) -> None:
    fake_vllm("permute_cols(Tensor A, Tensor perm) -> Tensor",
              lambda a, perm: a[:, perm.long()].clone())
    a, perm = torch.randn(4, 8), torch.randperm(8, dtype=torch.int32)
    assert torch.equal(_baseline("permute_cols").permute_cols(a, perm), a[:, perm.long()])


def test_marlin_moe_repack_loops_over_experts_as_vllm(fake_vllm: Any) -> None:
    """vLLM's gptq_marlin_moe_repack is a Python loop over torch.ops._C.gptq_marlin_repack."""
    calls: list[tuple[int, int, int, int, bool]] = []

    def repack(w: torch.Tensor, perm: torch.Tensor, k: int, n: int, bits: int,
               a8: bool) -> torch.Tensor:
        calls.append((int(w[0, 0]), k, n, bits, a8))
        return torch.full((k // 16, n * bits // 2), int(w[0, 0]), dtype=w.dtype)
    fake_vllm("gptq_marlin_repack(Tensor b_q_weight, Tensor perm, SymInt size_k, SymInt size_n, "
              "int num_bits, bool is_a_8bit) -> Tensor", repack)
    w = torch.arange(3, dtype=torch.int32).view(3, 1, 1).expand(3, 4, 64).contiguous()
    out = _baseline("gptq_marlin_moe_repack").gptq_marlin_moe_repack(
        w, torch.empty(3, 0, dtype=torch.int32), 32, 64, 4, False)
    assert out.shape == (3, 2, 128) and out.dtype == torch.int32
    assert [int(out[e].unique()) for e in range(3)] == [0, 1, 2]
    assert calls == [(e, 32, 64, 4, False) for e in range(3)]


def test_paged_attention_v2_keeps_the_callers_scratch(fake_vllm: Any) -> None:
    """vLLM writes exp_sums/max_logits/tmp_out; the task requires them unchanged."""
    def v2(out: torch.Tensor, es: torch.Tensor, ml: torch.Tensor, tmp: torch.Tensor,
           *rest: Any) -> None:
        for t in (out, es, ml, tmp):
            t.fill_(1)
    fake_vllm(
        "paged_attention_v2(Tensor! out, Tensor! exp_sums, Tensor! max_logits, Tensor! tmp_out, "
        "Tensor query, Tensor key_cache, Tensor value_cache, int num_kv_heads, float scale, "
        "Tensor block_tables, Tensor seq_lens, int block_size, int max_seq_len, Tensor? "
        "alibi_slopes, str kv_cache_dtype, Tensor k_scale, Tensor v_scale, int tp_rank, int "
        "blocksparse_local_blocks, int blocksparse_vert_stride, int blocksparse_block_size, int "
        "blocksparse_head_sliding_step) -> ()", v2)
    out, es, ml, tmp, t = (torch.zeros(2), torch.zeros(2), torch.zeros(2), torch.zeros(2),
                           torch.zeros(1))
    _baseline("paged_attention_v2").paged_attention_v2(
        out, es, ml, tmp, t, t, t, 1, 0.5, t, t, 16, 32, None, "auto", t, t, 0, 0, 0, 64, 0)
    assert bool((out == 1).all()) and not any(bool(x.any()) for x in (es, ml, tmp))


def test_a_schema_that_differs_is_refused_at_import(fake_vllm: Any) -> None:
    """Another vLLM version's signature: the reference stays the baseline, with the reason."""
    fake_vllm("topk_softmax(Tensor! topk_weights, Tensor! topk_indices, Tensor! "
              "token_expert_indices, Tensor gating_output) -> ()", lambda *a: None)
    with pytest.raises(ImportError, match="registered as .* the task calls"):
        _baseline("topk_softmax")
    with pytest.raises(ImportError, match=r"registers no torch\.ops\._moe_C\.moe_sum"):
        _baseline("moe_sum")


def test_trailing_defaulted_arguments_are_accepted(fake_vllm: Any) -> None:
    """A later vLLM's extra argument with a default (static_scaled_fp8_quant's group_shape)
    still takes the task's call; one without a default does not."""
    fake_vllm("static_scaled_fp8_quant(Tensor! result, Tensor input, Tensor scale, "
              "int[]? group_shape=None) -> ()", lambda *a: None)
    assert vllm_ops.op("_C", "static_scaled_fp8_quant",
                       "static_scaled_fp8_quant(Tensor! result, Tensor input, Tensor scale) -> ()")
    fake_vllm("swap_blocks(Tensor src, Tensor! dst, int block_size_in_bytes, "
              "Tensor block_mapping) -> ()", lambda *a: None)
    with pytest.raises(ImportError, match="swap_blocks registered as"):
        _baseline("swap_blocks")


def test_refused_tasks_refuse_even_with_vllm(fake_vllm: Any) -> None:
    """Where vLLM's kernel is documented to fail the task's check, there is no vLLM baseline."""
    fake_vllm("moe_align_block_size(Tensor topk_ids, int num_experts, int block_size, Tensor! "
              "sorted_token_ids, Tensor! experts_ids, Tensor! num_tokens_post_pad, Tensor? "
              "maybe_expert_map) -> ()", lambda *a: None)
    with pytest.raises(ImportError, match="no faithful vLLM baseline"):
        _baseline("moe_align_block_size")


def test_gptq_marlin_gemm_takes_the_renamed_op(fake_vllm: Any) -> None:
    """Newer vLLM registers the same schema as marlin_gemm."""
    fake_vllm("marlin_gemm(Tensor a, Tensor? c_or_none, Tensor b_q_weight, Tensor? "
              "b_bias_or_none, Tensor b_scales, Tensor? a_scales, Tensor? global_scale, Tensor? "
              "b_zeros_or_none, Tensor? g_idx_or_none, Tensor? perm_or_none, Tensor workspace, "
              "int b_type_id, SymInt size_m, SymInt size_n, SymInt size_k, bool is_k_full, "
              "bool use_atomic_add, bool use_fp32_reduce, bool is_zp_float) -> Tensor",
              lambda a, *rest: a * 2)
    a, t = torch.ones(2, 2), torch.zeros(1)
    out = _baseline("gptq_marlin_gemm").gptq_marlin_gemm(
        a, None, t, None, t, None, None, None, None, None, t, 1125899907892224, 2, 2, 2, True,
        False, True, False)
    assert torch.equal(out, a * 2)


REFUSED = {"grouped_topk", "gptq_marlin_24_gemm", "moe_align_block_size",
           "moe_lora_align_block_size", "rms_norm_dynamic_per_token_quant",
           "rms_norm_per_block_quant", "rotary_embedding"}
# the ops that vLLM's Python wrappers loop over (vllm/_custom_ops.py)
UNDERLYING = {
    "gptq_marlin_moe_repack": "gptq_marlin_repack(Tensor b_q_weight, Tensor perm, SymInt size_k, "
                              "SymInt size_n, int num_bits, bool is_a_8bit) -> Tensor",
    "awq_marlin_moe_repack": "awq_marlin_repack(Tensor b_q_weight, SymInt size_k, SymInt size_n, "
                             "int num_bits, bool is_a_8bit) -> Tensor",
}


@pytest.mark.parametrize("task", VLLM_TASKS, ids=lambda p: p.name)
def test_every_baseline_loads_with_a_vllm_of_the_tasks_schemas(
        task: Path, fake_vllm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Against a vLLM registering exactly the tasks' signatures, every baseline not refused on
    purpose loads and has one function per entry of its task.json."""
    spec = json.loads((task / "task.json").read_text())
    for entry in spec["entries"]:
        fake_vllm(UNDERLYING.get(task.name, entry["signature"]), lambda *a: None)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (8, 0))
    if task.name in REFUSED:
        with pytest.raises(ImportError, match=f"^{task.name}: no faithful vLLM baseline: "):
            load_module(str(task / "baseline.py"), "baseline")
        return
    module = load_module(str(task / "baseline.py"), "baseline")
    for entry in spec["entries"]:
        assert callable(getattr(module, entry["name"], None)), entry["name"]
    doc = module.__doc__ or ""
    assert "vLLM" in doc and "torch.ops." in doc


def test_allspark_only_on_compute_capability_8(fake_vllm: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    task = ROOT / "tasks" / "vllm" / "allspark_w8a16_gemm"
    fake_vllm(json.loads((task / "task.json").read_text())["entries"][0]["signature"],
              lambda *a: None)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))
    with pytest.raises(ImportError, match="compute capability 8.x only .* this device is 9.0"):
        load_module(str(task / "baseline.py"), "baseline")

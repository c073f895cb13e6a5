"""Tests of runtime.platform: the probe's manifest fields (driver version, clocks), and its
npu/musa branch with stubbed vendor plugins (torch_npu, torch_musa are absent here)."""

import sys
import types
from pathlib import Path

import pytest
import torch

from runtime.platform import driver_version, parse_clocks, probe


def test_driver_version_nvidia(tmp_path: Path) -> None:
    f = tmp_path / "version"
    f.write_text("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
                 "Build  (dvs-builder@U16-I3-B14-2-1)  Thu Oct  2 2025\nGCC version:  gcc 13\n")
    assert driver_version(str(f), str(tmp_path / "none")) == "580.159.04"
    g = tmp_path / "legacy"
    g.write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 2023\n")
    assert driver_version(str(g), str(tmp_path / "none")) == "535.104.05"


def test_driver_version_amd_and_none(tmp_path: Path) -> None:
    a = tmp_path / "amdgpu"
    a.write_text("6.8.5\n")
    assert driver_version(str(tmp_path / "none"), str(a)) == "6.8.5"
    assert driver_version(str(tmp_path / "none"), str(tmp_path / "none2")) is None


def test_parse_clocks() -> None:
    assert parse_clocks("1980, 3201, 1980, 3201\n") == {
        "sm_mhz": 1980, "mem_mhz": 3201, "max_sm_mhz": 1980, "max_mem_mhz": 3201}
    assert parse_clocks("[N/A], 3201, 1980, 3201\n") is None
    assert parse_clocks("") is None
    assert parse_clocks("1, 2, 3\n") is None


def test_probe_has_manifest_fields() -> None:
    info = probe()
    assert "driver" in info and "clocks" in info and "vllm" in info
    from runtime import vllm_ops
    assert info["vllm"] == vllm_ops.version()  # None here: vLLM is not installed
    if info["backend"] == "cpu":
        assert info["driver"] is None and info["clocks"] is None


def _device_api(available: bool = True, name: str | None = "Ascend910B2") -> types.SimpleNamespace:
    """A stand-in for torch.npu / torch.musa: the calls the probe makes."""
    props = types.SimpleNamespace(name="from-properties", total_memory=64 << 30)
    api = types.SimpleNamespace(is_available=lambda: available, device_count=lambda: 8,
                                get_device_properties=lambda i: props)
    if name is not None:
        api.get_device_name = lambda i: name
    return api


@pytest.fixture
def no_gpu(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """A machine where torch sees no CUDA/HIP or XPU device, and no vendor plugin is installed
    (None in sys.modules makes an import raise ImportError)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    if hasattr(torch, "xpu"):
        monkeypatch.setattr(torch.xpu, "is_available", lambda: False)
    for module in ("torch_npu", "torch_musa"):
        monkeypatch.setitem(sys.modules, module, None)
    for attr in ("npu", "musa"):
        monkeypatch.delattr(torch, attr, raising=False)
    return monkeypatch


def _plugin(monkeypatch: pytest.MonkeyPatch, module: str, attr: str,
            api: types.SimpleNamespace) -> None:
    """Install a stub plugin: importing it works and torch.<attr> is its device API."""
    monkeypatch.setitem(sys.modules, module, types.ModuleType(module))
    monkeypatch.setattr(torch, attr, api, raising=False)


def test_probe_npu(no_gpu: pytest.MonkeyPatch) -> None:
    _plugin(no_gpu, "torch_npu", "npu", _device_api(name="Ascend910B2"))
    info = probe()
    assert info["backend"] == "npu" and info["cuda"] is False
    assert info["device_name"] == "Ascend910B2"
    assert info["device_count"] == 8 and info["total_mem_bytes"] == 64 << 30
    assert info["capability"] is None and info["arch"] is None
    assert info["driver"] is None and info["clocks"] is None


def test_probe_musa(no_gpu: pytest.MonkeyPatch) -> None:
    # no get_device_name: the name comes from the device properties
    _plugin(no_gpu, "torch_musa", "musa", _device_api(name=None))
    info = probe()
    assert info["backend"] == "musa" and info["device_name"] == "from-properties"
    assert info["device_count"] == 8


def test_probe_npu_first_and_plugin_without_device(no_gpu: pytest.MonkeyPatch) -> None:
    # torch_npu installed but no NPU: the musa branch is tried next
    _plugin(no_gpu, "torch_npu", "npu", _device_api(available=False))
    _plugin(no_gpu, "torch_musa", "musa", _device_api(name="MTT S4000"))
    info = probe()
    assert info["backend"] == "musa" and info["device_name"] == "MTT S4000"


def test_probe_plugins_absent_or_broken(no_gpu: pytest.MonkeyPatch) -> None:
    assert probe()["backend"] == "cpu"  # neither plugin importable
    _plugin(no_gpu, "torch_npu", "npu", _device_api(available=False))
    assert probe()["backend"] == "cpu"  # plugin, no device
    # a plugin that imports but whose device API raises

    def boom() -> bool:
        raise RuntimeError("driver not loaded")

    _plugin(no_gpu, "torch_musa", "musa", types.SimpleNamespace(is_available=boom))
    info = probe()
    assert info["backend"] == "cpu" and info["device_name"] is None


def test_probe_plugin_failing_to_load(no_gpu: pytest.MonkeyPatch) -> None:
    # a plugin whose import fails with something other than ImportError (a native library)
    def failing_import(name: str, package: str | None = None) -> None:
        raise OSError(f"{name}: libascendcl.so: cannot open shared object file")

    no_gpu.setattr("runtime.platform.importlib.import_module", failing_import)
    assert probe()["backend"] == "cpu"

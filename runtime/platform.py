"""Platform probe: library versions and device 0's properties, as one JSON line for kgb.

`python -m runtime.platform` prints {"python", "torch", "triton", "numpy", "backend", "cuda",
"device_name", "capability", "arch", "sm_count", "l2_bytes", "total_mem_bytes", "cuda_version",
"hip_version", "device_count", "driver", "clocks", "vllm"}; the device fields are null without
a device. `driver` is the kernel driver's version (NVIDIA's /proc/driver/nvidia/version, or the
amdgpu module's), `clocks` device 0's current and maximum SM and memory clocks in MHz from
nvidia-smi (null where it is absent or fails), `vllm` the installed vLLM's version
(runtime/vllm_ops.py; null without vLLM, where the vLLM tasks' speedups are over their
reference): the manifest a published number needs beside it. `backend` is what
kgb's platform profiles (platforms/*.json) detect by: "cuda", "hip" (ROCm builds of torch
report their devices through torch.cuda), "xpu", "npu" (Huawei Ascend: torch_npu's torch.npu),
"musa" (Moore Threads: torch_musa's torch.musa) or "cpu". `device_name` is what tells the
vendors whose torch looks like CUDA or HIP (Iluvatar, MetaX, Hygon) apart. torch_npu and
torch_musa are imported only on a machine where torch sees no CUDA or XPU device, and their
absence (or a failure to load them) just means neither backend. Importing this module does
nothing.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
import sys
from typing import Any

__all__ = ["probe", "main"]


def driver_version(nvidia: str = "/proc/driver/nvidia/version",
                   amdgpu: str = "/sys/module/amdgpu/version") -> str | None:
    """The GPU kernel driver's version, or None: NVIDIA's "Kernel Module  580.159.04 ..." line,
    else the amdgpu module's version file."""
    try:
        with open(nvidia, encoding="utf-8", errors="replace") as f:
            m = re.search(r"Kernel Module(?: for \S+)?\s+(\d[\w.-]*)", f.read())
            if m:
                return m.group(1)
    except OSError:
        pass
    try:
        with open(amdgpu, encoding="utf-8", errors="replace") as f:
            return f.read().strip() or None
    except OSError:
        return None


_CLOCK_FIELDS = ("sm_mhz", "mem_mhz", "max_sm_mhz", "max_mem_mhz")


def parse_clocks(text: str) -> dict[str, int] | None:
    """The first line of `nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.max.sm,
    clocks.max.mem --format=csv,noheader,nounits` as {"sm_mhz", "mem_mhz", "max_sm_mhz",
    "max_mem_mhz"}; None when it is not four integers."""
    parts = [p.strip() for p in text.strip().splitlines()[0].split(",")] if text.strip() else []
    if len(parts) != len(_CLOCK_FIELDS) or not all(p.isdigit() for p in parts):
        return None
    return dict(zip(_CLOCK_FIELDS, map(int, parts)))


def clocks() -> dict[str, int] | None:
    """Device 0's clocks from nvidia-smi, or None (no nvidia-smi, an error, 5 s passed)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run([smi, "-i", "0", "--query-gpu=clocks.sm,clocks.mem,clocks.max.sm,"
                              "clocks.max.mem", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=5, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_clocks(out)


def _quiet(fn: Any, *args: Any) -> Any:
    """fn(*args), or None when fn is missing or raises (an accelerator plugin's optional API)."""
    try:
        return fn(*args) if callable(fn) else None
    except Exception:  # noqa: BLE001 - a vendor plugin may raise anything
        return None


def plugin_device(torch: Any, module: str, attr: str) -> Any:
    """torch.<attr> (torch.npu, torch.musa) once the vendor plugin `module` (torch_npu,
    torch_musa) is imported, when it reports a device; None when the plugin is absent, fails to
    load, or sees no device."""
    try:
        importlib.import_module(module)
    except Exception:  # noqa: BLE001 - ImportError, or its native libraries failing to load
        return None
    api = getattr(torch, attr, None)
    return api if api is not None and _quiet(getattr(api, "is_available", None)) else None


def probe() -> dict[str, Any]:
    """Versions, and the properties of device 0 when there is one (CUDA or HIP, XPU, NPU,
    MUSA)."""
    import numpy
    import torch
    import triton

    from runtime import vllm_ops

    cuda = torch.cuda.is_available()
    hip = getattr(torch.version, "hip", None)
    xpu = hasattr(torch, "xpu") and torch.xpu.is_available()
    plugin = None  # (backend, torch.npu or torch.musa)
    if not cuda and not xpu:
        for name, module in (("npu", "torch_npu"), ("musa", "torch_musa")):
            api = plugin_device(torch, module, name)
            if api is not None:
                plugin = (name, api)
                break
    backend = (("hip" if hip else "cuda") if cuda else "xpu" if xpu
               else plugin[0] if plugin else "cpu")
    info: dict[str, Any] = {
        "python": ".".join(map(str, sys.version_info[:3])),
        "torch": torch.__version__, "triton": triton.__version__, "numpy": numpy.__version__,
        "backend": backend, "cuda": cuda and not hip, "device_name": None, "capability": None,
        "arch": None, "sm_count": None, "l2_bytes": None, "total_mem_bytes": None,
        "cuda_version": torch.version.cuda, "hip_version": hip,
        "device_count": torch.cuda.device_count() if cuda else 0,
        "driver": driver_version() if cuda else None,
        "clocks": clocks() if cuda and not hip else None,
        "vllm": vllm_ops.version(),
    }
    if cuda:
        p = torch.cuda.get_device_properties(0)
        info.update(device_name=p.name, capability=f"{p.major}.{p.minor}",
                    arch=getattr(p, "gcnArchName", None), sm_count=p.multi_processor_count,
                    l2_bytes=getattr(p, "L2_cache_size", None), total_mem_bytes=p.total_memory)
    elif xpu:
        xp = torch.xpu.get_device_properties(0)
        info.update(device_name=xp.name, total_mem_bytes=getattr(xp, "total_memory", None),
                    device_count=torch.xpu.device_count())
    elif plugin:
        api = plugin[1]
        p = _quiet(getattr(api, "get_device_properties", None), 0)
        info.update(device_name=_quiet(getattr(api, "get_device_name", None), 0)
                    or getattr(p, "name", None),
                    total_mem_bytes=getattr(p, "total_memory", None),
                    device_count=_quiet(getattr(api, "device_count", None)) or 0)
    return info


def main() -> int:
    """Print the probe as one JSON line on stdout."""
    print(json.dumps(probe()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

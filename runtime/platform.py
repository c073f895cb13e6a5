"""Platform probe: library versions and device 0's properties, as one JSON line for kgb.

`python -m runtime.platform` prints {"python", "torch", "triton", "numpy", "backend", "cuda",
"device_name", "capability", "arch", "sm_count", "l2_bytes", "total_mem_bytes", "cuda_version",
"hip_version", "device_count"}; the device fields are null without a device. `backend` is what
kgb's platform profiles (platforms/*.json) detect by: "cuda", "hip" (ROCm builds of torch
report their devices through torch.cuda), "xpu" or "cpu". Importing this module does nothing.
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["probe", "main"]


def probe() -> dict[str, Any]:
    """Versions, and the properties of CUDA device 0 when there is one."""
    import numpy
    import torch
    import triton

    cuda = torch.cuda.is_available()
    hip = getattr(torch.version, "hip", None)
    xpu = hasattr(torch, "xpu") and torch.xpu.is_available()
    backend = ("hip" if hip else "cuda") if cuda else "xpu" if xpu else "cpu"
    info: dict[str, Any] = {
        "python": ".".join(map(str, sys.version_info[:3])),
        "torch": torch.__version__, "triton": triton.__version__, "numpy": numpy.__version__,
        "backend": backend, "cuda": cuda and not hip, "device_name": None, "capability": None,
        "arch": None, "sm_count": None, "l2_bytes": None, "total_mem_bytes": None,
        "cuda_version": torch.version.cuda, "hip_version": hip,
        "device_count": torch.cuda.device_count() if cuda else 0,
    }
    if cuda:
        p = torch.cuda.get_device_properties(0)
        info.update(device_name=p.name, capability=f"{p.major}.{p.minor}",
                    arch=getattr(p, "gcnArchName", None), sm_count=p.multi_processor_count,
                    l2_bytes=getattr(p, "L2_cache_size", None), total_mem_bytes=p.total_memory)
    elif xpu:
        p = torch.xpu.get_device_properties(0)
        info.update(device_name=p.name, total_mem_bytes=getattr(p, "total_memory", None),
                    device_count=torch.xpu.device_count())
    return info


def main() -> int:
    """Print the probe as one JSON line on stdout."""
    print(json.dumps(probe()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

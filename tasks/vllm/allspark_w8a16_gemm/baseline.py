"""vLLM's own allspark_w8a16_gemm: torch.ops._C.allspark_w8a16_gemm (runtime/vllm_ops.py), the
task's arguments passed straight through in its order, on devices of compute capability 8.x
only: vLLM uses this kernel for 80 <= capability < 90 alone (vllm/model_executor/layers/
quantization/utils/allspark_utils.py, check_allspark_supported_dtype_shape), so elsewhere (an
H100 or H200) this file raises ImportError at import and the reference stays the baseline. The
task fixes `sm_count`/`sm_version` at A100 values (108, 80); they choose vLLM's split-K and
cuBLAS paths, not the result.
"""

import torch

from runtime import vllm_ops

_allspark_w8a16_gemm = vllm_ops.op(
    "_C", "allspark_w8a16_gemm",
    "allspark_w8a16_gemm(Tensor a, Tensor b_qweight, Tensor b_scales, Tensor? b_qzeros, "
    "SymInt n, SymInt group_size, SymInt sm_count, SymInt sm_version, SymInt "
    "CUBLAS_M_THRESHOLD, bool has_zp, bool n32k16_reorder) -> Tensor")

_major, _minor = torch.cuda.get_device_capability()
if _major != 8:
    raise ImportError(f"allspark_w8a16_gemm: vLLM runs this kernel on compute capability 8.x "
                      f"only (allspark_utils.py); this device is {_major}.{_minor}")


def allspark_w8a16_gemm(a, b_qweight, b_scales, b_qzeros, n, group_size, sm_count, sm_version,
                        CUBLAS_M_THRESHOLD, has_zp, n32k16_reorder):
    return _allspark_w8a16_gemm(a, b_qweight, b_scales, b_qzeros, n, group_size, sm_count,
                                sm_version, CUBLAS_M_THRESHOLD, has_zp, n32k16_reorder)

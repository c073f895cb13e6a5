"""Shipped solution for aten::_local_scalar_dense: a Triton kernel copies the one element of
`self` (wherever its storage offset and strides put it) into a fresh 0-D tensor, which is copied
to the host and converted to the Python type of its dtype (float, int, bool or complex). bool is
copied as uint8; a complex value as its two float parts."""

import torch
import triton
import triton.language as tl


@triton.jit
def _fetch_kernel(src_ptr, dst_ptr, PARTS: tl.constexpr):
    # the one element (PARTS = 2 for the real and imaginary parts of a complex value)
    offs = tl.arange(0, 2)
    mask = offs < PARTS
    v = tl.load(src_ptr + offs, mask=mask)
    tl.store(dst_ptr + offs, v, mask=mask)


def _to_python(self):
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    buf = torch.empty((), dtype=self.dtype, device=self.device)
    if self.is_complex():
        # the parts through a float view of the same storage; the element's offset is the view's
        src, dst, parts = self.real, torch.view_as_real(buf), 2
    elif self.dtype == torch.bool:
        src, dst, parts = self.view(torch.uint8), buf.view(torch.uint8), 1
    else:
        src, dst, parts = self, buf, 1
    _fetch_kernel[(1,)](src, dst, PARTS=parts)
    # The number is read from a host copy. float(t) of a tensor is aten::item, which calls
    # aten::_local_scalar_dense of the tensor's device: registered as ATen's kernel of that
    # device (a PyTorch backend), this function would call itself. The host's own kernel
    # reads the copy. (On the CPU the host is the device: tests/runtime/test_aten_library.py.)
    if buf.device.type != "cpu":
        host = torch.empty((), dtype=buf.dtype, device="cpu")
        host.copy_(buf)
        buf = host
    if self.dtype == torch.bool:
        return bool(buf)
    if self.is_complex():
        return complex(buf)
    if self.is_floating_point():
        return float(buf)
    return int(buf)


def _local_scalar_dense(self: torch.Tensor):
    return _to_python(self)

# expect: hack L1 builtin
# Code in a string is invisible to the scan.
import torch

_SRC = "def _f(x):\n    return __import__('torch').mul(x, 2)\n"


def scale(self):
    ns = {}
    exec(_SRC, ns)
    return ns["_f"](self)

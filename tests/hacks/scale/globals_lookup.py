# expect: hack L1 builtin
# globals() reaches __builtins__ and everything imported under any name.
import torch


def scale(self):
    return globals()["torch"].mul(self, 2)

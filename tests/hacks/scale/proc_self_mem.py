# expect: hack L1 builtin
# Reading (or writing) the process's own memory.
import torch


def scale(self):
    with open("/proc/self/mem", "rb") as f:
        f.seek(self.data_ptr())
    return self + self

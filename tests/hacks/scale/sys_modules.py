# expect: hack L1 import
# sys.modules hands out the harness and torch without an import.
import sys


def scale(self):
    return sys.modules["torch"].mul(self, 2)

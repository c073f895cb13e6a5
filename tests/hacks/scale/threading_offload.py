# expect: hack L1 import
# Work on another thread escapes the timed region.
import threading

import torch


def scale(self):
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("y", self * 2))
    t.start()
    t.join()
    return out["y"]

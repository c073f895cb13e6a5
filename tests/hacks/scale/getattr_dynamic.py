# expect: hack L1 dynamic-attr
# A name built at run time cannot be judged statically: rejected outright.
import torch


def scale(self):
    return getattr(torch, "m" + "ul")(self, 2)

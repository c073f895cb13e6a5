# expect: hack L1 introspection
# A frame walk from a running generator: inside it, gi_frame.f_back is the frame that called
# next(), the entry itself, and f_back from there is the harness. In today's worker the walk
# reaches Evaluator._evaluate, whose locals hold the reference implementation (ref_fn), the
# Evaluator (its job, the reference module) and the pristine inputs; any frame's f_globals
# holds __builtins__, so __import__ too. This one returns the reference's own answer: with L1's
# new rules allowed away, kgb eval on the interpreter found it right on 20 of 20 cases, and
# only L2 caught it (the reference allocates nothing that the replay could poison).
import torch


def scale(self: torch.Tensor) -> torch.Tensor:
    def probe():
        yield walker.gi_frame.f_back

    walker = probe()
    frame = next(walker)
    while "ref_fn" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals["ref_fn"](self)

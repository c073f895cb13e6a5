# expect: hack L1 tensor-method
# Replay detection: L2 runs the case again with Triton launches skipped, and that is observable
# from inside (a probe kernel's output stays as it was). This candidate computes with torch, but
# only when its probe kernel really ran: under the replay it returns garbage, so L2 sees no right
# answer. L2 cannot catch it (with L1's rules allowed away it passes on the interpreter: the
# replay runs in the candidate's own process, docs/anti-hack.md "What the runner can shade");
# L1 does, by the torch compute it needs (on the GPU L3's trace would too).
import torch
import triton
import triton.language as tl


@triton.jit
def _probe(p_ptr):
    tl.store(p_ptr, 1.0)


def scale(self):
    probe = torch.zeros(1, device=self.device)
    _probe[(1,)](probe)
    if probe.item() != 1.0:  # replayed: the launch did nothing
        return torch.full_like(self, 7.0)
    return self.mul(2)

"""torch.sort itself, timed against on the GPU: the reference sorts `self + 0` (see its
docstring), an extra elementwise pass that a fair baseline does not pay."""

import torch


def sort(self, dim=-1, descending=False):
    return torch.sort(self, dim=dim, descending=descending)


def sort_stable(self, *, stable, dim=-1, descending=False):
    return torch.sort(self, stable=stable, dim=dim, descending=descending)


def sort_values_stable(self, *, stable, dim=-1, descending=False, values, indices):
    return torch.sort(self, stable=stable, dim=dim, descending=descending, out=(values, indices))


def sort_values(self, dim=-1, descending=False, *, values, indices):
    return torch.sort(self, dim=dim, descending=descending, out=(values, indices))

"""Test candidates for an in-place entry (mutates self, returns self): one per behaviour."""

import torch


def add_inplace(self, other):
    return self.add_(other)


def add_copy(self, other):
    return self + other


def add_forgets(self, other):
    return self

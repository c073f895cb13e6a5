"""Test candidate: every entry raises."""


def add_Tensor(self, other, *, alpha=1):
    raise ValueError("kernel exploded")


def add_Scalar(self, other, alpha=1):
    raise ValueError("kernel exploded")

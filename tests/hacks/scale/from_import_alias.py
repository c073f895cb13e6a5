# expect: hack L1 torch-api
# A torch op imported under an innocent name.
from torch import mul as double_it


def scale(self):
    return double_it(self, 2)

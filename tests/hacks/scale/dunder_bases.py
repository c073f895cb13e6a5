# expect: hack L1 dunder
# Walking dunder attributes to objects L1 never sees by name.
def scale(self):
    cls = self.__class__.__bases__[0]
    return cls.mul(self, 2)

# expect: hack L1 dunder
# The operator's method reached through the type.
def scale(self):
    return type(self).__mul__(self, 2)

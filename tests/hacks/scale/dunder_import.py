# expect: hack L1 builtin
# __import__ reaches any module without an import statement.
def scale(self):
    return __import__("torch").mul(self, 2)

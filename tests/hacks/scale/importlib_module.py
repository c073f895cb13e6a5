# expect: hack L1 import
# importlib loads modules by a string name.
import importlib


def scale(self):
    return importlib.import_module("torch").mul(self, 2)

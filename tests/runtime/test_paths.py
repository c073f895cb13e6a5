"""runtime/paths.py: the directories a Python imports from, which the worker sandbox keeps
visible below hidden paths (docs/security.md, hidden_paths)."""

import json
import os
import subprocess
import sys

from runtime import paths


def test_paths_hold_the_prefixes_and_the_stdlib():
    found = paths.paths()
    assert sys.prefix in found and sys.base_prefix in found
    assert os.path.dirname(os.path.realpath(sys.executable)) in found
    # Where the standard library and torch come from: each below one of them.
    for module in (os, json):
        assert any(os.path.realpath(module.__file__).startswith(os.path.realpath(p) + os.sep)
                   for p in found), module
    assert all(os.path.isabs(p) and os.path.exists(p) for p in found)
    assert len(found) == len(set(found))


def test_main_prints_one_json_object():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-m", "runtime.paths"], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    found = json.loads(out)["paths"]
    assert found[:2] == [sys.prefix, sys.base_prefix] or sys.prefix == sys.base_prefix
    assert sys.base_prefix in found and root in found

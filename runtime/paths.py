"""The directories this Python imports from: `python -m runtime.paths`, run by kgb (trusted,
outside the sandbox) before a run's workers start, prints them as one JSON object.

The worker sandbox covers directories a worker has no business reading (/root, /home, /tmp,
...; docs/security.md, hidden_paths), but the Python installation may live below one (pyenv in
/root/.pyenv, a virtualenv in a home directory): kgb keeps each of these visible, read-only.
"""

from __future__ import annotations

import json
import os
import sys
import sysconfig


def paths() -> list[str]:
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable))]
    found += sysconfig.get_paths().values()
    found += sys.path  # site-packages, and what .pth files add (editable installs)
    seen: list[str] = []
    for p in found:
        if p and os.path.isabs(p) and os.path.exists(p) and p not in seen:
            seen.append(p)
    return seen


def main() -> int:
    print(json.dumps({"paths": paths()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

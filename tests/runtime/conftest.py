"""pytest setup for the runtime tests: CPU interpreter platform, repository root importable."""

import os
import sys

os.environ["TRITON_INTERPRET"] = "1"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

"""Importing a task's Python files and the candidate: each under a name of its own.

The judge loads reference.py and, for a timing job on the GPU, the task's baseline.py; the
runner loads the candidate (runtime.runner).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType

from runtime.job import Job
from runtime.records import describe
from runtime.source import cap


def load_module(path: str, role: str) -> ModuleType:
    """Import a file under a name of its own (`_kgb_<role>_<pid>`), registered in sys.modules."""
    name = f"_kgb_{role}_{os.getpid()}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load '{path}'")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


BASELINE_FILE = "baseline.py"


def load_baseline(job: Job) -> tuple[ModuleType | None, str | None]:
    """The task's baseline.py for a timing job on cuda: (module, None); (None, why) when the
    task has one that does not import here (vLLM not installed, no cuBLAS); (None, None) when
    it has none or the job does not time. docs/task-format.md."""
    path = os.path.join(job.task_dir, BASELINE_FILE)
    if job.platform != "cuda" or not job.rounds or not os.path.exists(path):
        return None, None
    try:
        return load_module(path, "baseline"), None
    except BaseException as e:
        return None, cap(f"{BASELINE_FILE} did not load ({describe(e)}): the reference in "
                          "the inputs' dtype instead")

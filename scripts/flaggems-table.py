"""Writes methods/flaggems.json, the FlagGems method's adapter table (docs/methods.md), from
the installed library's own source and the task catalog.

usage: .venv/bin/python scripts/flaggems-table.py [LIB_DIR]   (default build/methods/flaggems/lib)

FlagGems says which ATen overload each of its functions implements: flag_gems/__init__.py's
_FULL_CONFIG, the table flag_gems.enable() registers with torch.library. An ATen task is
covered when every one of its entries' overloads is there and the function takes the entry's
arguments as the dispatcher passes them (positional ones by position, keyword-only ones by
name); its candidate then calls flag_gems.<function> with exactly those arguments. A vLLM task
is covered when FlagGems has a function of the op's name whose parameters are the entry's
arguments, in order. Everything is read with `ast`: FlagGems does not import on a machine
without a GPU (docs/methods.md says why), and nothing of it needs to run to read its tables.
Only the standard library.
"""

from __future__ import annotations

import ast
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE_DIRS = ("ops", "fused", "experimental_ops", "modules", "patches")
# vLLM ops whose FlagGems function names its parameters otherwise but takes them in vLLM's
# order (read in its source): covered by a positional call, the note saying so.
SAME_ORDER = {
    "cutlass_scaled_mm": "flag_gems.cutlass_scaled_mm(c, a, b, a_scale, b_scale, bias) is "
                         "vLLM's (out, a, b, a_scales, b_scales, bias) under other names",
}


def full_config(pkg: str) -> dict[str, str]:
    """_FULL_CONFIG: ATen overload name -> the flag_gems function registered for it."""
    tree = ast.parse(open(os.path.join(pkg, "__init__.py")).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_FULL_CONFIG":
            assert isinstance(node.value, (ast.Tuple, ast.List))
            out = {}
            for elt in node.value.elts:
                assert isinstance(elt, ast.Tuple)
                key, fn = elt.elts[0], elt.elts[1]
                if isinstance(key, ast.Constant) and isinstance(fn, ast.Name):
                    out[key.value] = fn.id
            return out
    raise SystemExit(f"{pkg}/__init__.py: no _FULL_CONFIG")


def definitions(pkg: str) -> dict[str, ast.FunctionDef]:
    """Top-level functions of FlagGems's op modules by name (ops/ first: what __init__ exports)."""
    out: dict[str, ast.FunctionDef] = {}
    for sub in MODULE_DIRS:
        for path in sorted(glob.glob(os.path.join(pkg, sub, "**", "*.py"), recursive=True)):
            for node in ast.parse(open(path).read()).body:
                if isinstance(node, ast.FunctionDef):
                    out.setdefault(node.name, node)
    return out


def arg_names(entry: dict) -> tuple[list[str], list[str]]:
    pos = [a["name"] for a in entry["args"] if not a.get("keyword")]
    kw = [a["name"] for a in entry["args"] if a.get("keyword")]
    return pos, kw


def takes(fn: ast.FunctionDef, pos: list[str], kw: list[str]) -> str | None:
    """None when fn(*pos, **{k: ...}) binds; else why not."""
    a = fn.args
    params = [p.arg for p in a.posonlyargs + a.args]
    if len(pos) > len(params) and not a.vararg:
        return f"takes {len(params)} positional arguments, the entry passes {len(pos)}"
    rest = params[len(pos):]
    kwonly = [p.arg for p in a.kwonlyargs]
    for k in kw:
        if k not in rest and k not in kwonly and not a.kwarg:
            return f"has no parameter '{k}'"
    defaults = len(a.defaults)
    required = params[:len(params) - defaults] if defaults else params
    missing = [p for p in required[len(pos):] if p not in kw]
    missing += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None
                and p.arg not in kw]
    if missing:
        return f"needs {', '.join(missing)}, which the entry does not pass"
    return None


def aten_task(task: dict, cfg: dict[str, str], defs: dict[str, ast.FunctionDef],
              version: str) -> dict:
    entries, missing, bad = {}, [], []
    for e in task["entries"]:
        overload = e["signature"].split("(", 1)[0]
        fn = cfg.get(overload)
        if fn is None:
            missing.append(overload)
            continue
        why = takes(defs[fn], *arg_names(e)) if fn in defs else None
        if why:
            bad.append(f"flag_gems.{fn} (for {overload}) {why}")
            continue
        entries[e["name"]] = {"call": f"flag_gems.{fn}"}
    if not missing and not bad:
        return {"entries": entries}
    parts = []
    if missing:
        parts.append(f"FlagGems {version} registers no kernel for {', '.join(missing)}")
    parts += bad
    if entries:
        parts.append("its other entries: " + ", ".join(
            f"{k} -> {v['call']}" for k, v in entries.items()))
    return {"uncovered": "; ".join(parts)}


def vllm_task(task: dict, defs: dict[str, ast.FunctionDef], version: str) -> dict:
    entries, why = {}, []
    for e in task["entries"]:
        fn = defs.get(e["name"])
        names = [a["name"] for a in e["args"]]
        if fn is None:
            why.append(f"FlagGems {version} has no kernel for vLLM's {e['name']}")
            continue
        params = [p.arg for p in fn.args.posonlyargs + fn.args.args]
        same = params[:len(names)] == names or e["name"] in SAME_ORDER
        if not same or takes(fn, names, []) is not None:
            why.append(f"flag_gems.{e['name']}({', '.join(params)}) takes other arguments than "
                       f"vLLM's op ({', '.join(names)}): an adapter would have to do work "
                       "of its own")
            continue
        entries[e["name"]] = {"call": f"flag_gems.{e['name']}"}
    if why:
        return {"uncovered": "; ".join(why)}
    about = [SAME_ORDER[e] for e in entries if e in SAME_ORDER]
    return {"entries": entries, "about": about[0]} if about else {"entries": entries}


def main() -> None:
    lib = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/methods/flaggems/lib")
    pkg = os.path.join(lib, "flag_gems")
    infos = glob.glob(os.path.join(lib, "flag_gems-*.dist-info"))
    if not infos:
        raise SystemExit(f"{lib}: no flag_gems installed (scripts/methods.sh flaggems)")
    version = re.sub(r"^flag_gems-(.*)\.dist-info$", r"\1", os.path.basename(infos[0]))
    path = os.path.join(ROOT, "methods/flaggems.json")
    table = json.load(open(path))
    if table["version"] != version:
        raise SystemExit(f"{path} is for {table['version']}, {lib} holds {version}")
    cfg, defs = full_config(pkg), definitions(pkg)
    tasks = {}
    for spec in sorted(glob.glob(os.path.join(ROOT, "tasks/*/*/task.json"))):
        task = json.load(open(spec))
        name = f"{task['source']}/{task['op']}"
        if task["source"] == "aten":
            tasks[name] = aten_task(task, cfg, defs, version)
        elif task["source"] == "vllm":
            tasks[name] = vllm_task(task, defs, version)
    table["tasks"] = tasks
    with open(path + ".tmp", "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    covered = sum("entries" in t for t in tasks.values())
    print(f"{path}: {covered} of {len(tasks)} tasks covered")


if __name__ == "__main__":
    main()

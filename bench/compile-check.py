"""Find GPU-only Triton compile errors of shipped solutions, without a GPU.

    python bench/compile-check.py TASK_DIR... [--budget SEC] [--compile-timeout SEC] [-j N]
                                  [--exec-all] [--seed N] [--keep-cache]

Per task:
1. The task's cases come from kgb itself: `build/kgb eval --platform interpreter` is run once for
   all the tasks with a stand-in worker (--python: a wrapper that answers hello, saves the job line
   kgb sends and declines it), so the cases are exactly those kgb resolves (docs/protocol.md).
2. solution.py is imported twice: under TRITON_INTERPRET=1 (InterpretedFunctions, to run), and
   as a separate module with TRITON_INTERPRET=0 at import time, so that @triton.jit (which reads
   knobs.runtime.interpret when it decorates) gives real JITFunctions, helpers included.
3. A compile server is forked before anything runs on the interpreter (the interpreter patches
   triton.language while a kernel runs; the server's state stays pristine).
4. Each case is built with runtime.inputs.build_args and the entry is called on the interpreter.
   InterpretedFunction.run is patched: every launch is bound with the kernel's real JITFunction
   and Triton 3.6's own binder (create_function_from_signature + native_specialize_impl +
   JITFunction._pack_args) against the CUDA backend of GPUTarget("cuda", 90, 32): the signature,
   constexprs (ints equal to 1, None, constexpr params), divisibility attributes and options
   (num_warps, num_stages, ... from the launch / autotune config) come out as on the GPU.
   By default a launch whose variant was already seen is not executed (its outputs stay
   unwritten); --exec-all executes every launch.
5. Distinct variants are compiled for cuda:90 in forked children of the server, each with a
   timeout; failures keep the Triton error and the solution line it points at.
Prints one line per task, then the failures in full. Exit status 1 when any failed.

Status (session 7): run on 31 of the cuBLAS tasks, finding no failure; not yet shown to catch a
known GPU-only failure (e.g. the pre-fix hadacore_transform of h200-2026-12-03e), so a clean
result is not yet evidence. Tasks are taken from the catalog (`kgb --tasks`), not from paths
outside it.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pickle
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------------------------
# Stand-in worker: capture kgb's job line (runs without torch, started by the wrapper).
# --------------------------------------------------------------------------------------------

def capture_worker(outdir: str) -> int:
    from importlib.metadata import version
    out = os.fdopen(os.dup(1), "w")

    def send(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    def ver(p):
        try:
            return version(p)
        except Exception:
            return "?"
    send({"type": "hello", "protocol": 1, "python": ".".join(map(str, sys.version_info[:3])),
          "torch": ver("torch"), "triton": ver("triton"), "numpy": ver("numpy")})
    line = sys.stdin.buffer.readline()
    fd, path = tempfile.mkstemp(prefix="job-", suffix=".json", dir=outdir)
    with os.fdopen(fd, "wb") as f:
        f.write(line)
    send({"type": "fatal", "stage": "load", "verdict": "import_error",
          "message": "compile-check: job captured, not evaluated"})
    return 1


def kgb_jobs(task_dirs: list[str], seed: int, tmp: str) -> dict[str, list[bytes]]:
    """task dir (absolute) -> the job lines kgb sent for it."""
    py = os.path.join(ROOT, ".venv", "bin", "python")
    jobdir = os.path.join(tmp, "jobs")
    os.makedirs(jobdir, exist_ok=True)
    wrapper = os.path.join(tmp, "python")
    with open(wrapper, "w") as f:
        f.write(f"""#!/bin/sh
for a in "$@"; do
  if [ "$a" = runtime.worker ]; then
    exec {py} -P {os.path.abspath(__file__)} --_capture {jobdir}
  fi
done
exec {py} "$@"
""")
    os.chmod(wrapper, 0o755)
    cmd = [os.path.join(ROOT, "build", "kgb"), "eval", "--platform", "interpreter", "--python",
           wrapper, "--sandbox=off", "--store", os.path.join(tmp, "store.db"), "--force",
           "--seed", str(seed), "-j", "1"]
    for d in task_dirs:
        cmd += ["--task", os.path.relpath(d, os.path.join(ROOT, "tasks"))]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "KGB_ROOT": ROOT})
    jobs: dict[str, list[bytes]] = {}
    for p in sorted(glob.glob(os.path.join(jobdir, "job-*.json"))):
        with open(p, "rb") as f:
            line = f.read()
        if not line.strip():
            continue
        d = os.path.realpath(json.loads(line)["task"]["dir"])
        jobs.setdefault(d, []).append(line)
    if not jobs:
        sys.stderr.write(f"kgb gave no jobs (exit {r.returncode}):\n{r.stderr[-2000:]}\n")
    return jobs


# --------------------------------------------------------------------------------------------
# Loading the solution twice.
# --------------------------------------------------------------------------------------------

def load(path: str, name: str, interpret: bool):
    import importlib.util
    old = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1" if interpret else "0"
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod
    finally:
        if old is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = old


def code_key(fn) -> tuple[str, int, str]:
    c = fn.__code__
    return (os.path.realpath(c.co_filename), c.co_firstlineno, c.co_name)


def jit_functions(mod) -> dict:
    """code key -> JITFunction for every JITFunction reachable from the module's globals."""
    from triton.runtime.jit import JITFunction
    found = {}
    for v in list(vars(mod).values()):
        seen = 0
        while v is not None and seen < 8:
            if isinstance(v, JITFunction):
                found[code_key(v.fn)] = v
                break
            v = getattr(v, "fn", None)
            seen += 1
    return found


# --------------------------------------------------------------------------------------------
# Compile server (forked before the interpreter runs anything).
# --------------------------------------------------------------------------------------------

def _send(fd: int, obj) -> None:
    data = pickle.dumps(obj)
    os.write(fd, struct.pack("<Q", len(data)))
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _recv(fd: int):
    head = b""
    while len(head) < 8:
        chunk = os.read(fd, 8 - len(head))
        if not chunk:
            raise EOFError
        head += chunk
    (n,) = struct.unpack("<Q", head)
    parts, got = [], 0
    while got < n:
        chunk = os.read(fd, min(1 << 20, n - got))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        got += len(chunk)
    return pickle.loads(b"".join(parts))


def _resolve(v, jits):
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "__jit__":
        return jits[v[1]]
    return v


def _solution_line(err: BaseException, jits: dict) -> str | None:
    """The file line a CompilationError points at (innermost error with a node)."""
    from triton.compiler.errors import CompilationError
    best = None
    e, depth = err, 0
    while e is not None and depth < 20:
        if isinstance(e, CompilationError) and getattr(e, "src", None) and \
                hasattr(e.node, "lineno"):
            best = e
        e = e.__cause__ or e.__context__
        depth += 1
    if best is None:
        return None
    for jf in jits.values():
        if jf._src == best.src:
            off = next(i for i, l in enumerate(jf.raw_src) if l.lstrip().startswith("def "))
            line = jf.starting_line_number + off + best.node.lineno - 1
            text = best.src.split("\n")[best.node.lineno - 1].strip()
            return f"{os.path.basename(jf.fn.__code__.co_filename)}:{line} "\
                   f"({jf.fn.__name__}): {text}"
    return None


def _compile_one(jits, v) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    os.environ["TRITON_INTERPRET"] = "0"
    jf = jits[v["kernel"]]
    constexprs = {k: _resolve(x, jits) for k, x in v["constexprs"].items()}
    src = triton.compiler.ASTSource(fn=jf, signature=v["signature"], constexprs=constexprs,
                                    attrs=v["attrs"])
    t = time.time()
    try:
        triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(v["options"]))
        return {"ok": True, "s": time.time() - t}
    except BaseException as e:
        msg = "".join(traceback.format_exception_only(type(e), e)).strip()
        if not msg.partition(":")[2].strip():  # a bare assertion: say where it was raised
            msg = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-4:]).strip()
        return {"ok": False, "s": time.time() - t, "error": msg,
                "line": _solution_line(e, jits)}


def compile_variants(jits: dict, variants: list, timeout: float, jobs: int,
                     deadline: float) -> list:
    """Compiles each variant in a forked child (at most `jobs` at a time, each with a timeout)."""
    results: list = [None] * len(variants)
    running: dict[int, tuple] = {}  # pid -> (index, read fd, start, output so far)
    todo = list(range(len(variants)))
    while todo or running:
        while todo and len(running) < jobs:
            i = todo.pop(0)
            if variants[i]["kernel"] not in jits:
                results[i] = {"ok": None, "s": 0.0, "error": "not compiled: the kernel is not "
                              "reachable from the module's globals (a closure?)"}
                continue
            if time.time() + 5 > deadline:
                results[i] = {"ok": None, "s": 0.0, "error": "not compiled: out of budget"}
                continue
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                try:
                    res = _compile_one(jits, variants[i])
                except BaseException as e:
                    res = {"ok": False, "s": 0.0, "error": f"harness: {e!r}"}
                os.write(w, json.dumps(res).encode())
                os.close(w)
                os._exit(0)
            os.close(w)
            running[pid] = (i, r, time.time(), b"")
        if not running:
            continue
        fds = {info[1]: pid for pid, info in running.items()}
        ready, _, _ = select.select(list(fds), [], [], 1.0)
        for fd in ready:
            pid = fds[fd]
            i, r, t0, buf = running[pid]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                running[pid] = (i, r, t0, buf + chunk)
                continue
            os.close(fd)
            os.waitpid(pid, 0)
            del running[pid]
            try:
                results[i] = json.loads(buf.decode())
            except Exception:
                results[i] = {"ok": False, "s": time.time() - t0,
                              "error": "compile child died without a result"}
        now = time.time()
        for pid, (i, r, t0, buf) in list(running.items()):
            if now > min(t0 + timeout, deadline):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(r)
                del running[pid]
                over = "budget" if now > deadline else f"timeout {timeout:.0f} s"
                results[i] = {"ok": None, "s": now - t0, "error": f"not finished: {over}"}
    return results


def compile_server() -> int:
    """A separate process with TRITON_INTERPRET=0 from the start: triton.language's own @jit
    functions (tl.cdiv, tl.sum, ...) are JITFunctions here, InterpretedFunctions in the
    interpreter process. Requests on stdin: (solution path, module name, variants, timeout,
    jobs, deadline); answers on the original stdout."""
    os.environ["TRITON_INTERPRET"] = "0"
    rfd, wfd = 0, os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.path.insert(0, ROOT)
    import torch  # noqa: F401
    import triton  # noqa: F401
    _send(wfd, "ready")
    while True:
        try:
            path, name, variants, timeout, jobs, deadline = _recv(rfd)
        except EOFError:
            return 0
        try:
            jits = jit_functions(load(path, name, interpret=False))
        except BaseException as e:
            _send(wfd, f"import with TRITON_INTERPRET=0 failed: {e!r}")
            continue
        _send(wfd, compile_variants(jits, variants, timeout, jobs, deadline))


# --------------------------------------------------------------------------------------------
# Intercepting launches on the interpreter.
# --------------------------------------------------------------------------------------------

class Recorder:
    def __init__(self, exec_all: bool, all_attrs: bool):
        from triton.backends.compiler import GPUTarget
        from triton.compiler.compiler import make_backend
        self.jits: dict = {}  # code key -> a JITFunction of the interpreted kernel (binding only)
        self.exec_all = exec_all
        self.all_attrs = all_attrs
        self.backend = make_backend(GPUTarget("cuda", 90, 32))
        self.binders: dict = {}
        self.variants: dict = {}  # key -> variant dict
        self.launches = 0
        self.errors: list[str] = []

    def _jit(self, interp_fn):
        from triton.runtime.jit import JITFunction
        key = code_key(interp_fn.fn)
        if key not in self.jits:  # the GPU's binder needs a JITFunction's parameters
            kw = {k: interp_fn.kwargs.get(k) for k in ("do_not_specialize",
                                                        "do_not_specialize_on_alignment")}
            self.jits[key] = JITFunction(interp_fn.fn, **kw)
        return key, self.jits[key]

    def _portable(self, v):
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction
        if isinstance(v, InterpretedFunction):
            return ("__jit__", self._jit(v)[0])
        if isinstance(v, JITFunction):
            return ("__jit__", code_key(v.fn))
        return v

    def record(self, interp_fn, args, kwargs) -> bool:
        """Returns whether to execute the launch."""
        from triton import knobs
        from triton.runtime.jit import create_function_from_signature
        self.launches += 1
        key, jf = self._jit(interp_fn)
        try:
            kwargs = dict(kwargs)
            kwargs["debug"] = kwargs.get("debug", jf.debug) or knobs.runtime.debug
            kwargs["instrumentation_mode"] = knobs.compilation.instrumentation_mode
            if key not in self.binders:
                self.binders[key] = create_function_from_signature(jf.signature, jf.params,
                                                                   self.backend)
            bound, spec, opts = self.binders[key](*args, **kwargs)
            options, signature, constexprs, attrs = jf._pack_args(self.backend, kwargs, bound,
                                                                  spec, opts)
        except Exception as e:
            self.errors.append(f"{interp_fn.fn.__name__}: cannot specialise: {e!r}")
            return True
        constexprs = {k: self._portable(v) for k, v in constexprs.items()}
        opt = tuple(sorted((k, v) for k, v in options.__dict__.items()
                           if isinstance(v, (int, float, str, bool, type(None), tuple))))
        vkey = (key, repr(sorted(signature.items())), repr(sorted(constexprs.items())),
                repr(sorted(attrs.items())) if self.all_attrs else "", repr(opt))
        if vkey in self.variants:
            return self.exec_all
        cons_show = {jf.arg_names[k[0]] if len(k) == 1 else k: v for k, v in constexprs.items()}
        self.variants[vkey] = {
            "kernel": key, "name": jf.fn.__name__, "signature": signature,
            "constexprs": constexprs, "attrs": attrs, "options": opt,
            "show": f"{jf.fn.__name__} sig={{{', '.join(f'{n}:{t}' for n, t in signature.items() if t != 'constexpr')}}} "
                    f"constexprs={cons_show} num_warps={options.num_warps} "
                    f"num_stages={options.num_stages}"}
        return True


def patch_interpreter(rec_ref: list) -> None:
    from triton.runtime.interpreter import InterpretedFunction
    orig = InterpretedFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        rec = rec_ref[0]
        if rec is not None and not warmup and not rec.record(self, args, kwargs):
            return None
        return orig(self, *args, grid=grid, warmup=warmup, **kwargs)
    InterpretedFunction.run = run


# --------------------------------------------------------------------------------------------
# One task.
# --------------------------------------------------------------------------------------------

def check_task(task_dir: str, job_lines: list[bytes], args, deadline: float, n: int,
               rec_ref: list, server) -> dict:
    from runtime.inputs import build_args, call
    from runtime.job import parse_job
    res = {"task": os.path.relpath(task_dir, ROOT), "variants": 0, "failures": [],
           "seconds": 0.0, "cases": 0, "cases_total": 0, "notes": []}
    sol = os.path.join(task_dir, "solution.py")
    cases = {}
    for line in job_lines:
        job = parse_job(line)
        for c in job.cases:
            cases[c.id] = c
    cases = [cases[i] for i in sorted(cases)]
    res["cases_total"] = len(cases)
    if not cases:
        res["notes"].append("no cases from kgb")
    try:
        cpu = load(sol, f"_cc_interp_{n}", interpret=True)
    except BaseException as e:
        res["failures"].append({"show": "import", "error": f"import failed: {e!r}"})
        return res
    rec = Recorder(args.exec_all, args.all_attrs)
    rec_ref[0] = rec
    try:
        for case in cases:
            if time.time() > deadline - 10:
                res["notes"].append(f"cases: out of budget after {res['cases']}")
                break
            fn = getattr(cpu, case.entry, None)
            if fn is None:
                res["notes"].append(f"no entry {case.entry}")
                break
            err = None
            for as_cuda in ([True, False] if args.as_cuda else [False]):
                # as_cuda: Tensor.is_cuda answers True, so that host code takes its GPU branch
                # (block sizes, num_warps); a case that fails so is run again as it is.
                import torch
                if as_cuda:
                    torch.Tensor.is_cuda = property(lambda self: True)
                try:
                    call(fn, build_args(case.args, case.seed, "cpu"))
                    err = None
                    break
                except BaseException as e:
                    err = (f"case {case.id}{' (is_cuda=True)' if as_cuda else ''}: "
                           f"{type(e).__name__}: {str(e)[:160]}")
                    if as_cuda and len(res["notes"]) < 3:
                        res["notes"].append(err + "; run again with is_cuda=False")
                finally:
                    if as_cuda:
                        del torch.Tensor.is_cuda
            if err and len(res["notes"]) < 6:
                res["notes"].append(err)
            res["cases"] += 1
    finally:
        rec_ref[0] = None
    res["launches"] = rec.launches
    res["notes"] += rec.errors[:5]
    variants = list(rec.variants.values())
    res["variants"] = len(variants)
    send = [{k: v[k] for k in ("kernel", "signature", "constexprs", "attrs", "options")}
            for v in variants]
    shown = variants
    try:
        _send(server.stdin.fileno(), (sol, f"_cc_gpu_{n}", send, args.compile_timeout,
                                      args.jobs, deadline))
        results = _recv(server.stdout.fileno())
    except Exception as e:
        results = f"compile server failed: {e!r}"
    if isinstance(results, str):
        res["failures"].append({"show": "compile server", "error": results})
        return res
    for v, r in zip(shown, results):
        res["seconds"] += r["s"]
        if r["ok"] is False:
            res["failures"].append({"show": v["show"], "error": r["error"],
                                    "line": r.get("line"), "s": r["s"]})
        elif r["ok"] is None:
            res["notes"].append(f"{v['show']}: {r['error']}")
    res["not_compiled"] = sum(1 for r in results if r["ok"] is None)
    res["max_s"] = max((r["s"] for r in results), default=0.0)
    return res


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "--_capture":
        return capture_worker(sys.argv[2])
    if len(sys.argv) == 2 and sys.argv[1] == "--_server":
        return compile_server()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tasks", nargs="+", help="task directories (tasks/<source>/<op>)")
    ap.add_argument("--budget", type=float, default=1800, help="seconds for the whole run")
    ap.add_argument("--compile-timeout", type=float, default=120, help="seconds per compile")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="compiles at a time")
    ap.add_argument("--exec-all", action="store_true",
                    help="execute every launch (default: only a variant's first launch)")
    ap.add_argument("--all-attrs", action="store_true",
                    help="a variant per divisibility specialisation too (default: the first "
                         "launch's attributes stand for the others)")
    ap.add_argument("--no-as-cuda", dest="as_cuda", action="store_false",
                    help="leave Tensor.is_cuda False (default: True while a case runs)")
    ap.add_argument("--seed", type=int, default=0, help="case seed, as kgb eval --seed")
    ap.add_argument("--keep-cache", action="store_true",
                    help="use the usual Triton cache (default: a fresh one, honest seconds)")
    args = ap.parse_args()
    t_start = time.time()
    deadline = t_start + args.budget
    sys.path.insert(0, ROOT)
    tmp = tempfile.mkdtemp(prefix="compile-check-")
    if not args.keep_cache:
        os.environ["TRITON_CACHE_DIR"] = os.path.join(tmp, "triton-cache")
    task_dirs = [os.path.realpath(d) for d in args.tasks]
    server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--_server"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT,
                              env={**os.environ, "TRITON_INTERPRET": "0"})
    jobs = kgb_jobs(task_dirs, args.seed, tmp)
    if _recv(server.stdout.fileno()) != "ready":
        raise SystemExit("compile server did not start")
    os.environ["TRITON_INTERPRET"] = "1"
    import torch  # noqa: F401  (the interpreter needs it; imported after the env is set)
    import triton  # noqa: F401
    rec_ref: list = [None]
    patch_interpreter(rec_ref)
    results, skipped = [], []
    for n, d in enumerate(task_dirs):
        if time.time() > deadline - 15:
            skipped.append(os.path.relpath(d, ROOT))
            continue
        try:
            results.append(check_task(d, jobs.get(d, []), args, deadline, n, rec_ref,
                                      server))
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            results.append({"task": os.path.relpath(d, ROOT), "variants": 0, "seconds": 0.0,
                            "failures": [{"show": "harness", "error": repr(e)}],
                            "notes": [traceback.format_exc()[-800:]], "cases": 0,
                            "cases_total": 0})
        r = results[-1]
        print(f"{r['task']}: {r['variants']} variants, {len(r['failures'])} failed, "
              f"{r.get('not_compiled', 0)} not compiled, {r['seconds']:.1f} s compiling "
              f"(max {r.get('max_s', 0):.1f} s), cases {r['cases']}/{r['cases_total']}, "
              f"{r.get('launches', 0)} launches", flush=True)
        for note in r["notes"]:
            print(f"    note: {note}", flush=True)
    failed = [r for r in results if r["failures"]]
    for r in failed:
        print(f"\n=== {r['task']}")
        for f in r["failures"]:
            print(f"--- {f['show']}")
            if f.get("line"):
                print(f"    at {f['line']}")
            print("    " + "\n    ".join(f["error"].splitlines()[-25:]))
    if skipped:
        print(f"\nnot covered (out of budget): {' '.join(skipped)}")
    print(f"\n{len(results)} tasks checked in {time.time() - t_start:.0f} s, "
          f"{len(failed)} with failures")
    server.stdin.close()
    server.wait()
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed or skipped else 0


if __name__ == "__main__":
    sys.exit(main())

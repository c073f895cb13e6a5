#!/usr/bin/env python3
"""Load benchmark of `kgb serve` (docs/service.md): bounded, loopback only.

Starts `kgb serve` on a free loopback port (the interpreter platform, a fresh store), then
CLIENTS concurrent clients each submit PER_CLIENT candidates (distinct bytes: a comment names
client and index, so every one is judged, none reused) drawn in turn from the good and broken
candidates given, and long-poll each to its result. Records throughput (candidates done per
second and per hour), p50/p99 of accept latency (POST round trip) and of completion latency
(submission to result), the verdicts, and the server's RSS sampled every 0.5 s. Prints a JSON
summary; with --out DIR writes summary.json and rss.csv there.

usage: serve-load.py [--kgb build/kgb] [--tasks DIR] [--task T] [--clients 32] [--per-client 2]
                     [--slots N] [--out DIR] CANDIDATE.py...
Only the standard library; nothing leaves 127.0.0.1.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request


def pct(v, p):
    if not v:
        return None
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def request(url, method, path, token, body=None, timeout=600):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kgb", default="build/kgb")
    ap.add_argument("--tasks", default="tests/cli/fixtures/tasks")
    ap.add_argument("--task", default="scale")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--per-client", type=int, default=2)
    ap.add_argument("--slots", type=int, default=0)
    ap.add_argument("--out")
    ap.add_argument("candidates", nargs="+")
    a = ap.parse_args()
    if a.clients > 256 or a.per_client > 64:
        sys.exit("serve-load: bounded: at most 256 clients and 64 candidates each")
    sources = [(os.path.basename(p), open(p).read()) for p in a.candidates]
    tmp = tempfile.mkdtemp(prefix="kgb-serve-load.")
    token = "load-" + os.urandom(8).hex()
    with open(os.path.join(tmp, "tokens"), "w") as f:
        f.write(token + "\n")
    cmd = [a.kgb, "--tasks", a.tasks, "serve", "--listen", "127.0.0.1:0", "--platform",
           "interpreter", "--store", os.path.join(tmp, "store.db"), "--tokens",
           os.path.join(tmp, "tokens"), "--max-queued", str(a.clients * a.per_client),
           "--timeout", "60", "--max-wait", "60"]
    if a.slots:
        cmd += ["-j", str(a.slots)]
    log = open(os.path.join(tmp, "serve.log"), "w+")
    srv = subprocess.Popen(cmd, stderr=log)
    url = None
    for _ in range(200):
        log.seek(0)
        m = re.search(r"listening on (http://\S+)", log.read())
        if m:
            url = m.group(1)
            break
        time.sleep(0.05)
    if not url:
        srv.kill()
        sys.exit("serve-load: the server did not start; see " + log.name)
    rss, stop = [], threading.Event()

    def sample():
        t0 = time.monotonic()
        while not stop.is_set():
            rss.append((round(time.monotonic() - t0, 2), rss_kib(srv.pid)))
            stop.wait(0.5)

    sampler = threading.Thread(target=sample)
    sampler.start()
    accept, complete, verdicts, statuses = [], [], {}, {}
    lock = threading.Lock()

    def client(c):
        for i in range(a.per_client):
            name, src = sources[(c * a.per_client + i) % len(sources)]
            code = f"{src}\n# load client {c} item {i}\n"
            t0 = time.monotonic()
            st, body = request(url, "POST", "/v1/evaluations", token,
                               {"task": a.task, "code": code})
            t1 = time.monotonic()
            with lock:
                accept.append(t1 - t0)
                statuses[st] = statuses.get(st, 0) + 1
            if st not in (200, 202):
                continue
            while body.get("status") != "done":
                st, body = request(url, "GET", f"/v1/evaluations/{body['id']}?wait=60", token)
                if st != 200:
                    break
            t2 = time.monotonic()
            v = (body.get("result") or {}).get("verdict")
            with lock:
                complete.append(t2 - t0)
                key = f"{name}:{v}"
                verdicts[key] = verdicts.get(key, 0) + 1

    t_start = time.monotonic()
    threads = [threading.Thread(target=client, args=(c,)) for c in range(a.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t_start
    st, metrics_ok = 0, False
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
            metrics_ok = b"kgb_serve_completed_total" in r.read()
    except OSError:
        pass
    stop.set()
    sampler.join()
    srv.terminate()
    srv.wait(timeout=120)
    vals = [k for _, k in rss if k]
    summary = {
        "command": " ".join(cmd),
        "clients": a.clients, "per_client": a.per_client, "task": a.task,
        "candidates": [n for n, _ in sources],
        "submitted": a.clients * a.per_client, "completed": len(complete),
        "http_statuses": statuses, "verdicts": verdicts,
        "wall_s": round(wall, 2),
        "throughput_per_s": round(len(complete) / wall, 3),
        "throughput_per_hour": round(len(complete) / wall * 3600),
        "accept_ms": {"p50": round(pct(accept, 50) * 1e3, 1), "p99": round(pct(accept, 99) * 1e3, 1),
                      "max": round(max(accept) * 1e3, 1)},
        "completion_s": {"p50": round(pct(complete, 50), 2), "p99": round(pct(complete, 99), 2),
                         "max": round(max(complete), 2)} if complete else None,
        "rss_kib": {"first": vals[0], "median": statistics.median(vals), "max": max(vals),
                    "last": vals[-1]} if vals else None,
        "metrics_served": metrics_ok,
        "server_exit": srv.returncode,
    }
    print(json.dumps(summary, indent=1))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        with open(os.path.join(a.out, "rss.csv"), "w") as f:
            f.write("t_s,rss_kib\n")
            f.writelines(f"{t},{k}\n" for t, k in rss)
    return 0


if __name__ == "__main__":
    sys.exit(main())

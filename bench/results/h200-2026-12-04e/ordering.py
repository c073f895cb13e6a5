# Does a compile term help kgb's checking-cost guess? Per task of the cold store: checking
# worker time of its untimed cases, their Triton compile time, the case count, and the distinct
# (entry, dtype axes) signatures; Spearman rank correlations with the checking time.
import collections, json, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
per = collections.defaultdict(lambda: {"n": 0, "comp": 0.0, "ms": 0.0, "sig": set()})
for task, entry, axes, comp, ms in db.execute(
        "SELECT e.task, c.entry, c.axes, json_extract(c.detail, '$.compile_ms'), "
        "json_extract(c.detail, '$.ms') FROM cases c JOIN evaluations e ON e.key = c.eval_key "
        "WHERE c.timed = 0"):
    p = per[task]
    p["n"] += 1
    p["comp"] += (comp or 0) / 1e3
    p["ms"] += (ms or 0) / 1e3
    a = json.loads(axes or "{}")
    p["sig"].add((entry, tuple(sorted((k, v) for k, v in a.items()
                                      if "dtype" in k and isinstance(v, str)))))
for t, p in sorted(per.items(), key=lambda kv: -kv[1]["ms"])[:10]:
    print(f"{t:26s} cases {p['n']:4d} signatures {len(p['sig']):3d} compile {p['comp']:6.1f} s "
          f"checking {p['ms']:6.1f} s")
def rank(v):
    r = [0] * len(v)
    for k, i in enumerate(sorted(range(len(v)), key=lambda i: v[i])):
        r[i] = k
    return r
ms = [p["ms"] for p in per.values()]
for name, xs in (("signatures", [len(p["sig"]) for p in per.values()]),
                 ("cases", [p["n"] for p in per.values()]),
                 ("compile", [p["comp"] for p in per.values()])):
    print(f"Spearman({name}, checking time) over {len(ms)} tasks: "
          f"{statistics.correlation(rank(xs), rank(ms)):.2f}")

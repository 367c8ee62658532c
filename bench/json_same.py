#!/usr/bin/env python3
"""json_same.py — run two iogauge builds on the same small workloads with
fixed seeds and compare what they wrote: the JSON's keys (every path), and
every figure that is not a timing (counts, bytes, sizes, configuration).
Timings (latencies, rates, elapsed and CPU times, time series, the
environment's volatile fields) are masked. A report, not a test.

  A=old/iogauge B=new/iogauge DIR=/dev/shm python3 bench/json_same.py
"""
import json, os, re, subprocess, sys, tempfile

A, B = os.environ["A"], os.environ["B"]
BASE = os.environ.get("DIR", "/dev/shm")

# name, what is compared (all: keys and every figure that is not a timing;
# keys: the keys only, for runs that stop on a duration, whose counts are
# as timing-bound as their rates), arguments ({d}: the work directory)
CASES = [
    ("run", "all", ["run", "--dir", "{d}", "--ops", "20000", "--seed", "7", "--unique-bytes", "8M", "-p", "2"]),
    ("run null", "all", ["run", "--dir", "{d}", "--engine", "null", "--ops", "100000", "--fsync", "every=7"]),
    ("iostone", "all", ["iostone", "--dir", "{d}"]),
    ("scientific", "all", ["scientific", "--dir", "{d}", "--size", "16M"]),
    ("bonnie", "all", ["bonnie", "-d", "{d}", "-s", "16", "-z", "3"]),
    ("bonnie++", "all", ["bonnie", "--flavor", "bonnie++", "-d", "{d}", "-s", "16:4096", "-n", "1", "-r", "8", "-z", "3"]),
    ("iozone", "all", ["iozone", "--dir", "{d}", "-s", "1m", "-r", "64k", "-i", "0", "-i", "1", "-i", "2"]),
    ("iozone -t", "keys", ["iozone", "--dir", "{d}", "-t", "2", "-s", "1m", "-r", "64k", "-i", "0", "-i", "1"]),
    ("postmark", "all", ["postmark", "{rc}"]),
    ("tpcb", "keys", ["tpcb", "--dir", "{d}", "--duration", "1s", "--seed", "5", "--terminals", "2"]),
    ("laddis", "keys", ["laddis", "--dir", "{d}", "--duration", "1s", "--seed", "5", "--procs", "2"]),
    ("andrew", "all", ["andrew", "--dir", "{d}"]),
    ("sdet", "keys", ["sdet", "--dir", "{d}", "--max-procs", "2", "--duration", "1s", "--max-reps", "1"]),
]

# keys whose values are timings or otherwise volatile
VOLATILE = re.compile(
    r"(_ns|_s|_per_s|per_s|latency|response|elapsed|cpu|started_at|timeseries|environment|"
    r"tool|io_time|rss|mean|stddev|p50|p90|p95|p99|p999|p9999|min|max|histogram|tps|mb|"
    r"rate|iostones|throughput|kb|speed|seconds|secs|time|util|iops|_at$|dir|path|command_line|"
    r"metrics\.csv|cells|^metrics\.(read|write|reread|rewrite|random_read|random_write|"
    r"backward_read|record_rewrite|stride_read|fwrite|fread|refwrite|refread|pwrite|pread))", re.I)


def flat(v, path=""):
    out = {}
    if isinstance(v, dict):
        for k, x in v.items():
            out.update(flat(x, f"{path}.{k}" if path else k))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out.update(flat(x, f"{path}[{i}]"))
    else:
        out[path] = v
    return out


def run(binary, args):
    with tempfile.TemporaryDirectory(dir=BASE) as d:
        rc = os.path.join(d, "pm.rc")
        with open(rc, "w") as f:
            f.write(f"set location {d}\nset seed 42\nrun\nquit\n")
        a = [x.replace("{d}", d).replace("{rc}", rc) for x in args]
        p = subprocess.run([binary] + a + ["--json", "-"], capture_output=True, text=True)
        if p.returncode != 0:
            return None, p.stderr.strip().splitlines()[-1:]
        return json.loads(p.stdout), None


same = True
for name, what, args in CASES:
    ja, ea = run(A, args)
    jb, eb = run(B, args)
    if ja is None or jb is None:
        print(f"{name:12} could not run: A {ea} B {eb}")
        same = False
        continue
    fa, fb = flat(ja), flat(jb)
    keys_a = {re.sub(r"\[\d+\]", "[]", k) for k in fa}
    keys_b = {re.sub(r"\[\d+\]", "[]", k) for k in fb}
    only_a, only_b = sorted(keys_a - keys_b), sorted(keys_b - keys_a)
    diffs = [
        (k, fa[k], fb[k])
        for k in sorted(set(fa) & set(fb))
        if what == "all" and not VOLATILE.search(k) and fa[k] != fb[k]
    ]
    ok = not only_a and not only_b and not diffs
    same &= ok
    print(f"{name:12} {'same' if ok else 'DIFFERS'} ({what}): {len(fa)} values, keys only in A {len(only_a)}, only in B {len(only_b)}, other figures differing {len(diffs)}")
    for k in only_a[:5]:
        print(f"    only A: {k}")
    for k in only_b[:5]:
        print(f"    only B: {k}")
    for k, x, y in diffs[:8]:
        print(f"    {k}: {x!r} -> {y!r}")
print("all the same apart from timings" if same else "differences above")

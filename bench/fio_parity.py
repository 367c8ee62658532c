#!/usr/bin/env python3
"""fio_parity.py — the summary of bench/fio_parity.sh: reads the results the
script left in its work directory and prints one aligned table (medians over
the repetitions, iogauge/peer ratios, the goals of issue 35), and the same as
JSON with --json PATH.

  python3 bench/fio_parity.py WORK --reps N [--sweep "1 2 4 ..."] [--json PATH]

WORK holds header.txt (the run's conditions), rows.tsv (row, peer, fio
latency, op, status, iogauge's and the peer's command lines) and res/ROW.TOOL.REP.{json,txt,err}: iogauge's and
fio's JSON, t/io_uring's text, or the one line of a failed run.
"""
import argparse
import json
import os
import re
import statistics
import sys

PCTS = (("p50", "50.000000"), ("p99", "99.000000"), ("p999", "99.900000"))


def load_json(path):
    """A JSON file; fio may put warnings before its JSON, so read from the first '{'."""
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("{"):])


def per_op_ns(seconds, ops):
    return seconds * 1e9 / ops if ops else None


def iogauge_figures(path, op):
    """IOPS, the percentiles of the total latency, and the process's CPU
    time per I/O over the measured phase."""
    j = load_json(path)
    lat, s = j["ops"][op]["latency_ns"], j["summary"]
    return {"iops": s["ops_per_s"], **{f"{k}_ns": lat[k] for k, _ in PCTS},
            "user_ns_per_op": per_op_ns(s["cpu_user_s"], s["ops"]),
            "sys_ns_per_op": per_op_ns(s["cpu_sys_s"], s["ops"])}


def fio_figures(path, op, lat):
    """Job 0 (numjobs > 1 runs with group_reporting): IOPS, the percentiles
    of lat_ns or clat_ns, and the CPU time per I/O: usr_cpu and sys_cpu are
    percentages of job_runtime (ms), both summed over the jobs (stat.c)."""
    job = load_json(path)["jobs"][0]
    d = job[op]
    pct = d[lat + "_ns"]["percentile"]
    return {"iops": d["iops"], **{f"{k}_ns": pct[key] for k, key in PCTS},
            "user_ns_per_op": per_op_ns(job["usr_cpu"] / 100 * job["job_runtime"] / 1e3, d["total_ios"]),
            "sys_ns_per_op": per_op_ns(job["sys_cpu"] / 100 * job["job_runtime"] / 1e3, d["total_ios"])}


def tiouring_figures(path):
    """t/io_uring prints IOPS=N, N.NNK or N.NNM once a second: the median of
    those lines, the first (a partial second, the ring filling) left out
    when there are others; and its Maximum IOPS line."""
    def value(s):
        m = re.fullmatch(r"([0-9.]+)([KM]?)", s)
        return float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]

    with open(path) as f:
        text = f.read()
    per_s = [value(v) for v in re.findall(r"^IOPS=([0-9.]+[KM]?),", text, re.M)]
    if not per_s:
        raise ValueError(f"no IOPS= line in {path}")
    top = re.search(r"^Maximum IOPS=([0-9.]+[KM]?)", text, re.M)
    return {"iops": statistics.median(per_s[1:] or per_s), "max_iops": value(top.group(1)) if top else None}


def collect(work, row, tool, reps, read):
    """Each repetition's figures of one tool, and the first failure's line."""
    got, failed = [], None
    stem = os.path.join(work, "res", f"{row}.{tool.replace('/', '_')}")
    for r in range(1, reps + 1):
        err = f"{stem}.{r}.err"
        if os.path.exists(err):
            with open(err) as f:
                failed = failed or f.read().strip()
            continue
        try:
            got.append(read(f"{stem}.{r}"))
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            failed = failed or f"cannot read {stem}.{r}: {e}"
    return got, failed


def medians(runs):
    if not runs:
        return None
    keys = [k for k in runs[0] if all(run.get(k) is not None for run in runs)]
    m = {k: statistics.median(run[k] for run in runs) for k in keys}
    m["iops_reps"] = [run["iops"] for run in runs]
    return m


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt_iops(x):
    if x is None:
        return "-"
    return f"{x / 1e6:.2f}M" if x >= 1e6 else f"{x / 1e3:.1f}k"


def fmt_ns(x):
    if x is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if x >= scale:
            v = x / scale
            return f"{v:.0f}{unit}" if v >= 100 else f"{v:.1f}{unit}" if v >= 10 else f"{v:.2f}{unit}"
    return f"{x:.0f}ns"


def fmt_ratio(x):
    return "-" if x is None else f"{x:.3f}"


def goal(peer, r):
    """Issue 35's goals: against fio, IOPS >= 1.0x and p50, p99 within 10 %;
    against t/io_uring, IOPS >= 0.95x. A closed loop that completes more
    I/O at the same depth waits less for each (Little's law), so latencies
    more than 10 % below fio's with IOPS above it pass, marked so."""
    if r["iops"] is None:
        return None
    if peer == "t/io_uring":
        return "PASS" if r["iops"] >= 0.95 else "FAIL"
    lat = [r[k] for k in ("p50", "p99")]
    if r["iops"] < 1.0 or any(x is None or x > 1.1 for x in lat):
        return "FAIL"
    return "PASS (lower lat)" if any(x < 0.9 for x in lat) else "PASS"


def summarize_row(work, reps, name, peer, lat, op, status, iog_cmd, peer_cmd):
    out = {"row": name, "peer": peer, "op": op,
           "fio_latency": f"{lat}_ns" if peer == "fio" else None, "status": status or "ok",
           "iogauge_command": iog_cmd, "peer_command": peer_cmd}
    if status:
        return out
    iog, iog_err = collect(work, name, "iogauge", reps, lambda s: iogauge_figures(s + ".json", op))
    if peer == "fio":
        oth, oth_err = collect(work, name, "fio", reps, lambda s: fio_figures(s + ".json", op, lat))
    else:
        oth, oth_err = collect(work, name, peer, reps, lambda s: tiouring_figures(s + ".txt"))
    out["reps_ok"] = {"iogauge": len(iog), "peer": len(oth)}
    out["iogauge"], out["peer_figures"] = medians(iog), medians(oth)
    if not iog or not oth:
        who, why = ("iogauge", iog_err) if not iog else (peer, oth_err)
        out["status"] = f"failed: {who}: {why}"
        return out
    a, b = out["iogauge"], out["peer_figures"]
    out["ratio"] = {"iops": ratio(a["iops"], b["iops"]), **{k: ratio(a.get(f"{k}_ns"), b.get(f"{k}_ns")) for k, _ in PCTS}}
    out["goal"] = goal(peer, out["ratio"])
    return out


def print_cpu(rows):
    """CPU time per I/O, user and system, where both tools report it."""
    done = [r for r in rows if r["status"] == "ok" and "sys_ns_per_op" in r["peer_figures"]
            and "sys_ns_per_op" in r["iogauge"]]
    if not done:
        return
    print()
    print("CPU time per I/O (ns, medians): the whole process over the measured phase")
    w = max(len(r["row"]) for r in done)
    print(f"{'row':<{w}}  {'iog user':>8}  {'iog sys':>8}  {'fio user':>8}  {'fio sys':>8}")
    for r in done:
        a, b = r["iogauge"], r["peer_figures"]
        cells = [a["user_ns_per_op"], a["sys_ns_per_op"], b["user_ns_per_op"], b["sys_ns_per_op"]]
        print(f"{r['row']:<{w}}  " + "  ".join(f"{c:>8.0f}" for c in cells))


def print_table(rows, reps):
    head = ["row", "vs", "iog IOPS", "peer IOPS", "ratio", "p50 iog", "p50 peer",
            "p99 iog", "p99 peer", "p99.9 iog", "p99.9 peer", "goal"]
    lines = []
    for r in rows:
        if r["status"] != "ok":
            lines.append([r["row"], r["peer"], r["status"]])
            continue
        a, b = r["iogauge"], r["peer_figures"]
        cells = [r["row"], r["peer"], fmt_iops(a["iops"]), fmt_iops(b["iops"]), fmt_ratio(r["ratio"]["iops"])]
        for k, _ in PCTS:
            cells += [fmt_ns(a.get(f"{k}_ns")), fmt_ns(b.get(f"{k}_ns"))]
        short = min(r["reps_ok"].values())
        cells.append((r["goal"] or "-") + ("" if short == reps else f" ({short}/{reps} reps)"))
        lines.append(cells)
    width = [max([len(head[i])] + [len(c[i]) for c in lines if i < 2 or len(c) == len(head)]) for i in range(len(head))]
    left = {0, 1, len(head) - 1}

    def fmt(cells):
        if len(cells) < len(head):  # a row that did not run: its reason after the name
            return f"{cells[0]:<{width[0]}}  {cells[1]:<{width[1]}}  {cells[2]}"
        return "  ".join(c.ljust(width[i]) if i in left else c.rjust(width[i]) for i, c in enumerate(cells)).rstrip()

    print(fmt(head))
    for c in lines:
        print(fmt(c))
    for r in rows:
        top = r["status"] == "ok" and r["peer_figures"].get("max_iops")
        if top:
            print(f"{r['row']}: t/io_uring's Maximum IOPS (the best second) {fmt_iops(top)}")


def summarize_sweep(work, reps, depths, rows):
    out = {"depths": []}
    best = None
    for d in depths:
        fio, _ = collect(work, f"sweep-{d}", "fio", reps, lambda s: fio_figures(s + ".json", "read", "lat"))
        tio, _ = collect(work, f"sweep-{d}", "t/io_uring", reps, lambda s: tiouring_figures(s + ".txt"))
        point = {"depth": d,
                 "fio_iops": statistics.median(x["iops"] for x in fio) if fio else None,
                 "tiouring_iops": statistics.median(x["iops"] for x in tio) if tio else None}
        out["depths"].append(point)
        for tool in ("fio", "tiouring"):
            v = point[f"{tool}_iops"]
            if v is not None and (best is None or v > best["iops"]):
                best = {"iops": v, "tool": "t/io_uring" if tool == "tiouring" else "fio", "depth": d}
    out["best"] = best
    ours = next((r for r in rows if r["row"] == "uring-direct-32" and r["status"] == "ok"), None)
    out["iogauge_direct_32_iops"] = ours["iogauge"]["iops"] if ours else None
    out["ratio"] = ratio(out["iogauge_direct_32_iops"], best["iops"] if best else None)
    return out


def print_sweep(s):
    print()
    print("device's best: O_DIRECT 4 KiB random reads, fio (io_uring) and t/io_uring (-s/-c min(D, 32)), median IOPS")
    print(f"{'depth':>5}  {'fio':>9}  {'t/io_uring':>10}")
    for p in s["depths"]:
        print(f"{p['depth']:>5}  {fmt_iops(p['fio_iops']):>9}  {fmt_iops(p['tiouring_iops']):>10}")
    b = s["best"]
    if b is None:
        print("no sweep run succeeded")
        return
    line = f"best: {fmt_iops(b['iops'])} ({b['tool']}, depth {b['depth']}); iogauge uring-direct-32: "
    if s["ratio"] is None:
        print(line + "not run")
    else:
        verdict = "PASS" if s["ratio"] >= 0.97 else "FAIL"
        print(line + f"{fmt_iops(s['iogauge_direct_32_iops'])} = {s['ratio']:.3f} of it (goal 0.97: {verdict})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work")
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--sweep", help="the sweep's depths, space-separated")
    ap.add_argument("--json", help="write the summary as JSON to this path")
    a = ap.parse_args()

    with open(os.path.join(a.work, "header.txt")) as f:
        header = f.read().splitlines()
    rows = []
    with open(os.path.join(a.work, "rows.tsv")) as f:
        for line in f:
            rows.append(summarize_row(a.work, a.reps, *line.rstrip("\n").split("\t")))

    print(f"medians over {a.reps} reps; ratio = iogauge/peer IOPS; latency: iogauge total against fio lat_ns,")
    print("null and psync against fio clat_ns; t/io_uring: IOPS only")
    print_table(rows, a.reps)
    print_cpu(rows)
    result = {"schema": "iogauge/fio_parity/v1", "header": header, "reps": a.reps, "rows": rows}
    if a.sweep:
        result["sweep"] = summarize_sweep(a.work, a.reps, [int(d) for d in a.sweep.split()], rows)
        print_sweep(result["sweep"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        print(f"\nJSON: {a.json}")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Read fio JSON the way fio-plot does, and say whether each file passes.

fio-plot (github.com/louwrentius/fio-plot, fio_plot/fiolib/jsonimport.py,
jsonparsing.py, jsonparsing_support.py) accepts a file when at least two of
"fio version", "global options", "client_stats", "jobs" are at its top, takes
each job's "job options" (merged with "global options") and needs "rw",
"iodepth", "numjobs" and "bs" there, then reads per direction (read or
write, chosen from rw) "bw", "iops", "iops_stddev", "lat_ns"."mean" and
"lat_ns"."stddev", and per job "latency_ns", "latency_us", "latency_ms",
"usr_cpu" and "sys_cpu"; "fio version" goes into each row. This script does
exactly that, with the same types (iodepth and numjobs through int()).

    bench/fio_json_check.py FILE.json...     # exit 0: every file reads

Use it on iogauge's `--fio-json` output and on fio's own as a control.
"""
import json
import sys

RW_MODES = {
    "randrw": ["read", "write"],
    "rw": ["read", "write"],
    "readwrite": ["read", "write"],
    "read": ["read"],
    "randread": ["read"],
    "write": ["write"],
    "randwrite": ["write"],
}


def check(path):
    with open(path) as f:
        doc = json.load(f)
    valid = ["fio version", "global options", "client_stats", "jobs"]
    if sum(k in doc for k in valid) < 2:
        raise ValueError("not fio JSON: fewer than 2 of " + ", ".join(valid))
    glob = doc.get("global options", {})
    if isinstance(glob, list):
        glob = glob[0] if glob else {}
    rows = []
    for job in doc["jobs"]:
        opts = {**job.get("job options", {}), **glob}
        for k in ("rw", "iodepth", "numjobs", "bs"):
            if k not in opts:
                raise ValueError(f"job {job['jobname']!r}: no {k!r} in job options")
        iodepth, numjobs = int(opts["iodepth"]), int(opts["numjobs"])
        for mode in RW_MODES[opts["rw"]]:
            d = job[mode]
            row = {
                "type": mode,
                "iodepth": iodepth,
                "numjobs": numjobs,
                "bs": opts["bs"],
                "rw": opts["rw"],
                "bw": d["bw"],
                "iops": d["iops"],
                "iops_stddev": d["iops_stddev"],
                "lat": d["lat_ns"]["mean"],
                "lat_stddev": d["lat_ns"]["stddev"],
                "latency_ms": job["latency_ms"],
                "latency_us": job["latency_us"],
                "latency_ns": job["latency_ns"],
                "cpu_usr": job["usr_cpu"],
                "cpu_sys": job["sys_cpu"],
                "fio_version": doc["fio version"],
            }
            for k in ("bw", "iops", "iops_stddev", "lat", "lat_stddev", "cpu_usr", "cpu_sys"):
                if not isinstance(row[k], (int, float)):
                    raise ValueError(f"{mode}.{k} is not a number: {row[k]!r}")
            for k in ("latency_ms", "latency_us", "latency_ns"):
                if not all(isinstance(v, (int, float)) for v in row[k].values()):
                    raise ValueError(f"{k} holds a value that is not a number")
            rows.append(row)
    return rows


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: fio_json_check.py FILE.json...", file=sys.stderr)
        return 2
    bad = 0
    for p in paths:
        try:
            rows = check(p)
        except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError) as e:
            print(f"{p}: FAIL: {type(e).__name__}: {e}")
            bad += 1
            continue
        for r in rows:
            print(
                f"{p}: ok: {r['rw']} {r['type']} bs={r['bs']} iodepth={r['iodepth']} "
                f"numjobs={r['numjobs']} iops={r['iops']:.0f} bw={r['bw']}KiB/s "
                f"lat={r['lat']:.0f}ns ({r['fio_version']})"
            )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

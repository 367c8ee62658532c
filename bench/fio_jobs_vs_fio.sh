#!/usr/bin/env bash
# fio_jobs_vs_fio.sh — the same job files run by fio and by `iogauge fio`,
# one after the other on the same directory, compared job by job: IOPS per
# direction, and the completion latency's p50 and p99.
#
#   bash bench/fio_jobs_vs_fio.sh FIO_SRC_DIR [SCRATCH_DIR]
#   REPS=3 LIMIT=60 bash bench/fio_jobs_vs_fio.sh ~/src/fio /var/tmp/fjv
#
# Two sets of job files:
#  1. every file of fio's examples/ directory. Each is first checked with
#     `iogauge fio --check` (read and planned, nothing made): refused ones are
#     counted with their reason. Accepted ones are run by fio under a limit of
#     LIMIT seconds (default 60); those fio finishes within it are run by
#     iogauge and compared. `directory=` lines are pointed at SCRATCH_DIR
#     (the examples name /data1, /mount-point-of-ssd): that is the only edit.
#  2. job files of this script's own (below), each well under a minute:
#     buffered and O_DIRECT, psync, libaio and io_uring, depth 1 to 32,
#     random and sequential, reads, writes and a mix, bssplit, a rate cap.
#
# An accepted example fio does not finish within LIMIT is compared in a
# shortened form when SHORT is set (default 10; SHORT=0 skips them): each
# job section gets runtime=SHORT and time_based, and every size or filesize
# above SHORT_SIZE (default 1g) is cut to it. Those lines say "short-".
#
# Each pair runs REPS times (default 3), alternating which tool goes first;
# the figures are the medians of the runs, the ratio iogauge/fio. The files
# each tool lays out are removed between runs (fio's layout is in neither
# tool's timing). The machine is shared and its virtio disk noisy: read the
# ratios as one measurement, not as a bound.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

src=${1:-}
[[ -n $src && -d $src/examples ]] || die "usage: fio_jobs_vs_fio.sh FIO_SRC_DIR [SCRATCH_DIR]"
scratch=${2:-/var/tmp/fio-jobs-vs-fio}
REPS=${REPS:-3}
LIMIT=${LIMIT:-60}
SHORT=${SHORT:-10}
SHORT_SIZE=${SHORT_SIZE:-1g}
ensure fio fio || die "fio is needed (apt-get install fio)"
command -v python3 >/dev/null || die "python3 is needed to compare the JSON"
iogauge_binary
IOGAUGE=$(cd "$(dirname "$IOGAUGE")" && pwd)/${IOGAUGE##*/}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
jobs_dir=$(mktemp -d)
trap 'rm -rf "$jobs_dir"' EXIT

say "fio_jobs_vs_fio.sh: fio and iogauge fio on the same job files, in $scratch"
say_iogauge
say "fio: $(fio --version)   REPS=$REPS LIMIT=${LIMIT}s   $(date -u +%FT%TZ)"
say ""

# ------------------------------------------------------------ own job files
cat >"$jobs_dir/own-randread-psync.fio" <<'EOF'
[randread-psync]
rw=randread
bs=4k
size=256m
ioengine=psync
runtime=10
time_based
EOF
cat >"$jobs_dir/own-randread-direct-uring32.fio" <<'EOF'
[randread-uring-qd32]
rw=randread
bs=4k
size=1g
direct=1
ioengine=io_uring
iodepth=32
runtime=10
time_based
EOF
cat >"$jobs_dir/own-randread-direct-libaio8.fio" <<'EOF'
[randread-libaio-qd8]
rw=randread
bs=4k
size=1g
direct=1
ioengine=libaio
iodepth=8
runtime=10
time_based
EOF
cat >"$jobs_dir/own-seqread-direct-128k.fio" <<'EOF'
[seqread-128k]
rw=read
bs=128k
size=1g
direct=1
ioengine=io_uring
iodepth=4
runtime=10
time_based
EOF
cat >"$jobs_dir/own-randwrite-direct-psync.fio" <<'EOF'
[randwrite-direct]
rw=randwrite
bs=4k
size=512m
direct=1
ioengine=psync
runtime=10
time_based
EOF
cat >"$jobs_dir/own-randrw-bssplit-libaio.fio" <<'EOF'
[randrw-bssplit]
rw=randrw
rwmixread=70
bssplit=4k/50:16k/30:64k/20
size=1g
direct=1
ioengine=libaio
iodepth=16
runtime=10
time_based
EOF
cat >"$jobs_dir/own-seqwrite-buffered.fio" <<'EOF'
[seqwrite-buffered]
rw=write
bs=1m
size=1g
ioengine=psync
end_fsync=1
EOF
cat >"$jobs_dir/own-null-qd1.fio" <<'EOF'
[null]
rw=randread
bs=4k
size=1g
ioengine=null
runtime=5
time_based
EOF
cat >"$jobs_dir/own-rate-iops.fio" <<'EOF'
[rate-iops]
rw=randread
bs=4k
size=256m
direct=1
ioengine=psync
rate_iops=2000
runtime=10
time_based
EOF

# ------------------------------------------------------------ running
# run_one TOOL JOBFILE OUT: run TOOL on JOBFILE in the scratch directory,
# JSON to OUT; prints the seconds it took, or "limit" / "failed".
run_one() {
    local tool=$1 job=$2 out=$3 t0 t1 rc=0
    t0=$(date +%s.%N)
    if [[ $tool == fio ]]; then
        (cd "$scratch" && timeout "$((LIMIT + 5))" fio --output-format=json --output="$out" "$job" >/dev/null 2>&1) || rc=$?
    else
        (cd "$scratch" && timeout "$((LIMIT * 3))" "$IOGAUGE" fio --output-format=json --output="$out" "$job" >/dev/null 2>"$out.err") || rc=$?
    fi
    t1=$(date +%s.%N)
    # what either tool left in the scratch directory goes
    find "$scratch" -mindepth 1 -maxdepth 1 ! -name '*.json' ! -name '*.err' -exec rm -rf {} +
    if [[ $rc == 124 ]]; then echo limit
    elif [[ $rc != 0 ]]; then echo failed
    else python3 -c "print(f'{$t1 - $t0:.1f}')"; fi
}

# compare NAME: the medians of the REPS pairs of JSON files NAME.{fio,iog}.N.json
compare() {
    python3 - "$scratch" "$1" "$REPS" <<'EOF'
import json, statistics as st, sys
scratch, name, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
def load(tool, i):
    try:
        return json.load(open(f"{scratch}/{name}.{tool}.{i}.json"))
    except Exception:
        return None
runs = {t: [d for d in (load(t, i) for i in range(reps)) if d] for t in ("fio", "iog")}
if not runs["fio"] or not runs["iog"]:
    print(f"  {name}: no pair to compare")
    sys.exit(0)
def figures(doc):
    out = {}
    for j in doc["jobs"]:
        for d in ("read", "write", "trim"):
            x = j.get(d) or {}
            if x.get("total_ios", 0) == 0:
                continue
            pct = (x.get("clat_ns") or {}).get("percentile") or {}
            out[(j["jobname"], d)] = (x["iops"], pct.get("50.000000"), pct.get("99.000000"))
    return out
f = [figures(d) for d in runs["fio"]]
g = [figures(d) for d in runs["iog"]]
for key in f[0]:
    def med(rs, k):
        vs = [r[key][k] for r in rs if key in r and r[key][k] is not None]
        return st.median(vs) if vs else None
    cells = []
    for k, label in ((0, "IOPS"), (1, "p50"), (2, "p99")):
        a, b = med(f, k), med(g, k)
        if a is None or b is None or a == 0:
            cells.append(f"{label} -")
        else:
            cells.append(f"{label} {b / a:5.3f}")
    fi, gi = med(f, 0), med(g, 0)
    print(f"  {name:<36} {key[0][:22]:<22} {key[1]:<5} fio {fi:>10.0f} IOPS  iogauge {gi if gi is not None else 0:>10.0f} IOPS   " + "  ".join(cells))
EOF
}

pair() {
    local name=$1 job=$2 i first second ta tb
    for ((i = 0; i < REPS; i++)); do
        if ((i % 2 == 0)); then first=fio second=iog; else first=iog second=fio; fi
        for t in $first $second; do
            local tool=$t; [[ $t == iog ]] && tool=iogauge
            ta=$(run_one "$tool" "$job" "$scratch/$name.$t.$i.json")
            if [[ $ta == limit || $ta == failed ]]; then
                say "  $name: $tool $ta (run $i)"
                [[ $t == fio ]] && return 1
            fi
        done
    done
    compare "$name"
}

# shorten SRC DST: SRC with runtime=SHORT and time_based at the end of each
# job section, and sizes above SHORT_SIZE cut to it
shorten() {
    python3 - "$1" "$2" "$SHORT" "$SHORT_SIZE" <<'PY'
import re, sys
src, dst, short, cap = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def size(v):
    m = re.fullmatch(r"\s*(\d+)\s*([kmgtp]?)i?b?\s*", v, re.I)
    if not m:
        return None
    return int(m.group(1)) * 1024 ** ("kmgtp".find(m.group(2).lower()) + 1) if m.group(2) else int(m.group(1))
limit = size(cap)
out, section = [], None
def close():
    if section and section.lower() != "global":
        out.extend([f"runtime={short}", "time_based=1"])
for line in open(src).read().splitlines():
    m = re.match(r"\s*\[(.+)\]\s*$", line)
    if m:
        close()
        section = m.group(1)
    else:
        kv = re.match(r"\s*(size|filesize|io_size|io_limit)\s*=\s*(.+)$", line)
        if kv and (n := size(kv.group(2))) is not None and n > limit:
            line = f"{kv.group(1)}={cap}"
    out.append(line)
close()
open(dst, "w").write("\n".join(out) + "\n")
PY
}

# ------------------------------------------------------------ fio's examples
say "1. fio's examples ($src/examples):"
accepted=0 refused=0 compared=0 over=0 shortened=0
reasons=()
for f in "$src"/examples/*.fio; do
    name=${f##*/}
    name=${name%.fio}
    job="$jobs_dir/ex-$name.fio"
    sed -E "s|^([[:space:]]*directory[[:space:]]*=).*|\1$scratch|" "$f" >"$job"
    # includes are relative to the job file
    for inc in $(grep -Eo '^[[:space:]]*include[[:space:]]+[^ ]+' "$f" | awk '{print $2}'); do
        [[ -f $src/examples/$inc ]] && cp "$src/examples/$inc" "$jobs_dir/"
    done
    if err=$(cd "$scratch" && "$IOGAUGE" fio --check "$job" 2>&1 >/dev/null); then
        accepted=$((accepted + 1))
        # fio alone first, under the limit: does it finish in a minute?
        t=$(run_one fio "$job" "$scratch/probe.json")
        rm -f "$scratch/probe.json"
        if [[ $t == limit && $SHORT != 0 ]]; then
            over=$((over + 1))
            shorten "$job" "$jobs_dir/short-$name.fio"
            say "  $name: accepted; fio runs longer than ${LIMIT}s: shortened (runtime=${SHORT}, sizes <= $SHORT_SIZE)"
            t=$(run_one fio "$jobs_dir/short-$name.fio" "$scratch/probe.json")
            rm -f "$scratch/probe.json"
            if [[ $t == limit || $t == failed ]]; then
                say "  short-$name: fio $t on the shortened form: not compared"
            else
                shortened=$((shortened + 1))
                pair "short-$name" "$jobs_dir/short-$name.fio" || true
            fi
        elif [[ $t == limit ]]; then
            over=$((over + 1))
            say "  $name: accepted; fio runs longer than ${LIMIT}s: not compared"
        elif [[ $t == failed ]]; then
            say "  $name: accepted; fio fails on it here: not compared"
        else
            compared=$((compared + 1))
            pair "ex-$name" "$job" || true
        fi
    else
        refused=$((refused + 1))
        first=${err%%$'\n'*}
        first=${first#iogauge: }
        cause=$(sed -E "s/^[^ ]+:[0-9]+: //; s/^command line, argument [0-9]+: //" <<<"$first")
        case $cause in
        "fio option '"*) cause=${cause%% is not supported*}" is not supported" ;;
        "ioengine: ioengine="*) cause=${cause%% (it runs*} ;;
        esac
        reasons+=("$cause")
    fi
done
say ""
say "  files: $((accepted + refused))  accepted: $accepted  refused: $refused"
say "  of the accepted: compared $compared, over ${LIMIT}s with fio $over (of which compared shortened: $shortened)"
say "  refusals by cause (count, cause):"
((${#reasons[@]})) && printf '%s\n' "${reasons[@]}" | sort | uniq -c | sort -rn | sed 's/^/    /'
say ""

# ------------------------------------------------------------ own job files
say "2. job files of this script's own (ratios iogauge/fio, medians of $REPS):"
for job in "$jobs_dir"/own-*.fio; do
    name=${job##*/}
    name=${name%.fio}
    pair "$name" "$job" || true
done
rm -f "$scratch"/*.json "$scratch"/*.err

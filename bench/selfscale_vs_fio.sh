#!/usr/bin/env bash
# selfscale_vs_fio.sh — how close the self-scaling benchmark's predictions
# come to an independent measurement.
#
# Per file system (tmpfs, and ext4 with the page cache bounded by a memory
# cgroup so that uniqueBytes reaches past it):
#   0. draw N random workloads: uniqueBytes log-uniform in [UMIN, UMAX],
#      sizeMean log-uniform 4–256 KiB (512 B multiples), readFrac and
#      seqFrac uniform (two decimals), processNum 1, 2 or 4; measure each
#      once with `iogauge run` (EARLY=1);
#   1. build a model: `iogauge selfscale --size-cv 0` (full, and --quick);
#   3. predict them all with each model (`iogauge predict --csv`);
#   4. measure each workload with fio and with `iogauge run` (twice:
#      repeatability), interleaved, the order alternating, in this one run,
#      with matching semantics: one shared file of uniqueBytes laid out
#      by 1 MiB writes and synced (for fio too: on ext4 the size of the
#      writes that made a cached file sets the speed of copying from it),
#      fixed request size, 512 B-aligned offsets (iogauge's default alignment,
#      fio's blockalign=512), readFrac as rwmixread, 1 − seqFrac as
#      percentage_random, processNum jobs (threads), psync, 1 s ramp;
#      on ext4 every measurement runs in the same memory cgroup;
#      the first model's focal workloads are measured by `iogauge run`
#      before and after them (how far the machine moved since the model);
#   5. print a table per workload (predicted, iogauge run, fio, both errors)
#      and the medians: prediction vs fio, prediction vs iogauge run,
#      iogauge run vs fio, and iogauge run vs itself (repeatability); and,
#      as a diagnostic, the median predicted / fio ratio (a level shift of
#      the machine) and the error with it taken out.
# A report, not a test: the exit status is 0 whatever the figures.
#
# Environment:
#   IOGAUGE     the binary (default: built from this tree)
#   FS          file systems to do (default "tmpfs ext4")
#   TMPFS_DIR   a tmpfs directory (default /dev/shm)
#   EXT4_DIR    an ext4 directory (default: the current directory)
#   MEMLIMIT    the memory cgroup's limit on ext4 (default 1G; needs root
#               and cgroup v1's memory controller or cgroup v2)
#   N           workloads per file system (default 30)
#   MODES       models to build (default "full quick")
#   RUNTIME     seconds per measurement (default 4)
#   SEED        seed of the workloads (default 1)
#   EARLY       1 (default): measure the workloads once with `iogauge run`
#               before the models too (how far the machine moves while
#               they are built); 0: not
#   KEEP        a directory to copy each file system's models, workloads,
#               predictions and measurements into (default: none kept)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

FS=${FS:-tmpfs ext4}
TMPFS_DIR=${TMPFS_DIR:-/dev/shm}
EXT4_DIR=${EXT4_DIR:-$PWD}
MEMLIMIT=${MEMLIMIT:-1G}
N=${N:-30}
MODES=${MODES:-full quick}
RUNTIME=${RUNTIME:-4}
SEED=${SEED:-1}
EARLY=${EARLY:-1}
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || die "N must be a whole number > 0"
[[ $EARLY == 0 || $EARLY == 1 ]] || die "EARLY must be 0 or 1"
[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME must be a whole number of seconds > 0"
ensure fio fio || die "fio is needed (apt-get install fio)"
command -v python3 >/dev/null || die "python3 is needed"
iogauge_binary

say "selfscale_vs_fio.sh: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) CPUs, L3 $(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo unknown), load $(cut -d' ' -f1-3 /proc/loadavg)"
say_iogauge
say "fio: $(fio --version); N=$N RUNTIME=${RUNTIME}s SEED=$SEED MODES='$MODES'"

# ---------------------------------------------------------------- cgroup
CG=
cg_make() { # a memory cgroup limited to MEMLIMIT; CG = its procs file
    local bytes
    bytes=$(python3 -c "import sys; u={'K':1<<10,'M':1<<20,'G':1<<30}; s=sys.argv[1]; print(int(float(s[:-1])*u[s[-1]]) if s[-1] in u else int(s))" "$MEMLIMIT")
    if [[ -d /sys/fs/cgroup/memory ]]; then
        local d=/sys/fs/cgroup/memory/iogauge-bench-$$
        mkdir "$d" && echo "$bytes" >"$d/memory.limit_in_bytes" && CG=$d/cgroup.procs
    elif [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
        local d=/sys/fs/cgroup/iogauge-bench-$$
        mkdir "$d" && echo "$bytes" >"$d/memory.max" && CG=$d/cgroup.procs
    fi
    [[ -n $CG ]] || die "no memory cgroup for MEMLIMIT=$MEMLIMIT"
}
cg_remove() { [[ -n $CG ]] && rmdir "$(dirname "$CG")" 2>/dev/null; CG=; return 0; }
# in_cg CMD...: run CMD inside the cgroup (when there is one)
in_cg() {
    if [[ -n $CG ]]; then
        (echo "$BASHPID" >"$CG" && exec "$@")
    else
        "$@"
    fi
}

# python3 -c "$LAYOUT" PATH BYTES: write PATH in 1 MiB requests, then fsync
LAYOUT='
import os, sys
path, left = sys.argv[1], int(sys.argv[2])
buf = os.urandom(1 << 20)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
while left > 0:
    left -= os.write(fd, buf[: min(left, len(buf))])
os.fsync(fd)
os.close(fd)
'

# ---------------------------------------------------------------- one file system
one_fs() {
    local fs=$1 dir=$2 umin=$3 umax=$4 limit_args=()
    make_workdir_in "$dir"
    say
    say "================ $fs: $dir ($(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null | head -1 || stat -f -c %T "$dir")), uniqueBytes $umin … $umax"
    if [[ $fs == ext4 ]]; then
        cg_make
        limit_args=(--memory-limit "$MEMLIMIT")
        say "page cache bounded to $MEMLIMIT (the models by --memory-limit, the runs in a memory cgroup)"
    fi
    # 0. the workloads, and (EARLY=1) each measured by `iogauge run` before
    # the models are built: set against fio's measurement after them, the
    # error of a perfect model of the machine as it was when the models
    # were built
    {
        echo "uniqueBytes,sizeMean,readFrac,seqFrac,processNum"
        draw_workloads "$N" "$SEED" "$umin" "$umax"
    } >"$W/workloads.csv"
    : >"$W/early.csv"
    if [[ $EARLY == 1 ]]; then
        local k=0 eu es erf esf epn
        while IFS=, read -r eu es erf esf epn; do
            [[ $eu == uniqueBytes ]] && continue
            k=$((k + 1))
            io_run "$eu" "$es" "$erf" "$esf" "$epn" "$k" >>"$W/early.csv"
        done <"$W/workloads.csv"
        say "the workloads measured by iogauge run before the models: $(date -u +%H:%M:%S)"
    fi
    # 1. models
    local m t0
    for m in $MODES; do
        t0=$(date +%s)
        local q=()
        [[ $m == quick ]] && q=(--quick)
        "$IOGAUGE" selfscale "$W" --out "$W/model-$m" --size-cv 0 --max-bytes "$umax" "${q[@]}" "${limit_args[@]}" -q \
            || die "selfscale ($m) failed"
        say "model $m: $(($(date +%s) - t0)) s, $(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(len(m['regions']), 'regions:', ', '.join(str(r['lo_bytes']>>20)+'-'+str(r['hi_bytes']>>20)+' MiB' for r in m['regions']))" "$W/model-$m/model.json")"
    done
    # 3. predictions
    for m in $MODES; do
        "$IOGAUGE" predict "$W/model-$m/model.json" --csv "$W/workloads.csv" --json "$W/pred-$m.json" -q
    done
    # 4. measurements, between two measurements of the first model's focal
    # workloads (how far the machine moved since the model was built)
    local i=0 line u s rf sf pn
    focal_runs before
    : >"$W/measured.csv"
    while IFS=, read -r u s rf sf pn; do
        [[ $u == uniqueBytes ]] && continue
        i=$((i + 1))
        local order="fio io io2"
        ((i % 2)) && order="io fio io2"
        local io= io2= f=
        for tool in $order; do
            case $tool in
                io | io2)
                    local v
                    v=$(io_run "$u" "$s" "$rf" "$sf" "$pn" "$i")
                    if [[ $tool == io ]]; then io=$v; else io2=$v; fi
                    ;;
                fio)
                    local rnd
                    rnd=$(python3 -c "print(round((1 - $sf) * 100))")
                    # the file as iogauge lays it out (1 MiB writes, then
                    # fsync): the size of the writes that made a cached file
                    # sets its folio size on ext4, and with it the speed
                    in_cg python3 -c "$LAYOUT" "$W/fio.data" "$u"
                    in_cg fio --name=w --directory="$W" --filename=fio.data --size="$u" --bs="$s" \
                        --rw=randrw --rwmixread="$(python3 -c "print(round($rf * 100))")" \
                        --percentage_random="$rnd" --numjobs="$pn" --thread --ioengine=psync \
                        --blockalign=512 --norandommap --randrepeat=0 --time_based \
                        --runtime="$RUNTIME" --ramp_time=1 --group_reporting --invalidate=0 \
                        --output-format=json --output="$W/fio.json" >/dev/null
                    rm -f "$W/fio.data"
                    f=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0]; print((j['read']['bw_bytes']+j['write']['bw_bytes'])/1e6)" "$W/fio.json")
                    ;;
            esac
        done
        echo "$u,$s,$rf,$sf,$pn,$io,$io2,$f" >>"$W/measured.csv"
    done <"$W/workloads.csv"
    focal_runs after
    # 5. the table
    python3 - "$W" "$MODES" <<'EOF'
import json, math, statistics, sys
w, modes = sys.argv[1], sys.argv[2].split()
rows = [l.strip().split(",") for l in open(f"{w}/measured.csv") if l.strip()]
preds = {m: json.load(open(f"{w}/pred-{m}.json")) for m in modes}
err = lambda p, m: abs(p - m) / m if m > 0 else float("inf")
def mib(b):
    b = int(b)
    return f"{b >> 20}M" if b >= 1 << 20 else f"{b >> 10}K"
head = f"{'#':>3} {'uniqueB':>8} {'size':>6} {'rf':>5} {'sf':>5} {'pn':>2} {'run':>9} {'run2':>9} {'fio':>9}"
for m in modes:
    head += f" {'pred ' + m:>11} {'vs fio':>7} {'vs run':>7}"
print(head)
e = {m: ([], []) for m in modes}
# the thrashing zones (where a cliff's transition lies) of the first model
zones = [b["transition"] for b in json.load(open(f"{w}/model-{modes[0]}/model.json"))["boundaries"] if b["cliff"]]
thrash = lambda u: any(lo < int(u) < hi for lo, hi in zones)
run_fio, rep, plateau = [], [], []
for k, r in enumerate(rows):
    u, s, rf, sf, pn, io, io2, f = r
    io, io2, f = float(io), float(io2), float(f)
    plateau.append(not thrash(u))
    z = " " if plateau[-1] else "~"
    line = f"{k + 1:>3} {mib(u):>7}{z} {mib(s):>6} {rf:>5} {sf:>5} {pn:>2} {io:>9.1f} {io2:>9.1f} {f:>9.1f}"
    run_fio.append(err(io, f))
    rep.append(err(io2, io))
    for m in modes:
        p = preds[m][k]["predicted_mb_per_s"]
        a, b = err(p, f), err(p, io)
        e[m][0].append(a)
        e[m][1].append(b)
        x = "!" if preds[m][k]["warnings"] else " "
        line += f" {p:>10.1f}{x} {a * 100:>6.1f}% {b * 100:>6.1f}%"
    print(line)
print("(MB/s = 10^6 B/s of reads + writes; ! = the prediction extrapolates;")
print(f" ~ = in a thrashing zone of the {modes[0]} model, where a cliff's transition lies)")
med = lambda v: statistics.median(v) * 100 if v else float("nan")
for m in modes:
    goal = 10 if m == "full" else 15
    out = [x for x, p in zip(e[m][0], plateau) if p]
    print(f"median error, {m} model: vs fio {med(e[m][0]):.1f} % (goal <= {goal} %), vs iogauge run {med(e[m][1]):.1f} %;"
          f" vs fio outside thrashing zones {med(out):.1f} % ({len(out)} workloads)")
print(f"iogauge run vs fio: median {med(run_fio):.1f} %; iogauge run vs itself (repeatability): median {med(rep):.1f} %")
early = [float(l) for l in open(f"{w}/early.csv") if l.strip()]
if len(early) == len(rows):
    print(f"iogauge run before the models vs fio after them: median {med([err(a, float(r[7])) for a, r in zip(early, rows)]):.1f} %"
          " (the error of a perfect model of the machine as it was when the models were built)")
# the machine's level: a model right in shape but built while the machine
# ran faster or slower than during the measurements is off by a constant
# factor; the median ratio shows it, and the error without it what is left
for m in modes:
    lr = [math.log(preds[m][k]["predicted_mb_per_s"] / float(r[7])) for k, r in enumerate(rows)]
    b = statistics.median(lr)
    print(f"{m} model: median predicted / fio {math.exp(b):.3f}; median error with that factor taken out {med([abs(math.exp(x - b) - 1) for x in lr]):.1f} % (a diagnostic, not the goal's figure)")
for l in open(f"{w}/focal.csv"):
    n, model, before, after = l.strip().split(",")
    print(f"region {n} focal workload of the {modes[0]} model: {float(model):.1f} MB/s in the model; iogauge run before the workloads {float(before):.1f}, after {float(after):.1f}")
EOF
    if [[ -n ${KEEP:-} ]]; then
        mkdir -p "$KEEP/$fs"
        cp -r "$W"/model-* "$W"/workloads.csv "$W"/pred-*.json "$W"/measured.csv "$W"/focal.csv "$W"/early.csv "$KEEP/$fs/"
    fi
    cg_remove
}

# io_run U S RF SF PN SEED: MB/s of `iogauge run` of that workload in $W
io_run() {
    local j="$W/run.json"
    in_cg "$IOGAUGE" run --dir "$W" --unique-bytes "$1" --size-mean "$2" --size-cv 0 \
        --read-frac "$3" --seq-frac "$4" -p "$5" --duration "${RUNTIME}s" --ramp 1s \
        --seed "$6" -q --json "$j"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['summary']; print((r['read_bytes_per_s']+r['write_bytes_per_s'])/1e6)" "$j"
}

# focal_runs before|after: measure the first model's focal workloads with
# `iogauge run`; before: start $W/focal.csv (region, model MB/s, MB/s),
# after: add a column
focal_runs() {
    local first=${MODES%% *} n u s rf sf pn mb v
    local out=()
    while IFS=, read -r n u s rf sf pn mb; do
        v=$(io_run "$u" "$s" "$rf" "$sf" "$pn" 1)
        out+=("$n,$mb,$v")
    done < <(python3 -c "
import json, sys
for r in json.load(open(sys.argv[1]))['regions']:
    f = r['focal']
    if r.get('focal_point'):
        print(r['number'], f['unique_bytes'], f['size_mean'], f['read_frac'], f['seq_frac'], f['process_num'], r['focal_point']['mb_per_s'], sep=',')
" "$W/model-$first/model.json")
    if [[ $1 == before ]]; then
        printf '%s\n' "${out[@]}" >"$W/focal.csv"
    else
        local k=0 l
        while read -r l; do
            echo "$l,${out[k]##*,}"
            k=$((k + 1))
        done <"$W/focal.csv" >"$W/focal2.csv"
        mv "$W/focal2.csv" "$W/focal.csv"
    fi
}

# make_workdir_in DIR: W = a fresh directory under DIR, removed at exit
WS=()
make_workdir_in() {
    W=$(mktemp -d "$1/selfscale-vs-fio.XXXXXX")
    WS+=("$W")
}
cleanup() {
    cg_remove
    local d
    for d in "${WS[@]}"; do rm -rf -- "$d"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for fs in $FS; do
    case $fs in
        tmpfs) one_fs tmpfs "$TMPFS_DIR" 16M 256M ;;
        ext4) one_fs ext4 "$EXT4_DIR" 16M 2G ;;
        *) die "FS: tmpfs or ext4, not '$fs'" ;;
    esac
done

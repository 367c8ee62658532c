#!/usr/bin/env bash
# selfscale_repeat.sh — where the run-to-run spread of a measurement comes
# from, on tmpfs (no device, no write-back: what is left is CPU, memory and
# the measuring tool).
#
# Draws N workloads as selfscale_vs_fio.sh does (uniqueBytes log-uniform in
# [UMIN, UMAX], sizeMean 4–256 KiB, readFrac and seqFrac uniform,
# processNum 1, 2 or 4) and measures each one K times under every
# condition of CONDS, round-robin (workload, then condition, then the next
# repetition), so that slow drifts of the machine fall on every condition
# alike:
#   run     iogauge run, RUNTIME s after a 1 s ramp, a fresh file each time
#   runlong iogauge run, 3 × RUNTIME s after a 1 s ramp
#   fio     fio with the same semantics, a fresh file each time
#   fiokeep fio, the file laid out once and kept over the repetitions
# For every measurement it records the steal time the hypervisor took from
# this VM and the CPU time the rest of the machine used meanwhile (busy
# time of both CPUs minus the tool's own).
#
# It prints, per condition: the repeatability as selfscale_vs_fio.sh
# defines it (median over workloads of |second − first| / first), the
# median coefficient of variation over the K repetitions, and both again
# for workloads whose uniqueBytes lies below and above 1.5 × the L3 cache.
# A report, not a test: the exit status is 0 whatever the figures.
#
# Environment:
#   IOGAUGE   the binary (default: built from this tree)
#   DIR       a tmpfs directory (default /dev/shm)
#   N         workloads (default 10)      K  repetitions (default 4)
#   RUNTIME   seconds per measurement (default 4)
#   CONDS     conditions (default "run runlong fio fiokeep")
#   UMIN UMAX uniqueBytes range (default 16M 256M)   SEED (default 1)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

DIR=${DIR:-/dev/shm}
N=${N:-10}
K=${K:-4}
RUNTIME=${RUNTIME:-4}
CONDS=${CONDS:-run runlong fio fiokeep}
UMIN=${UMIN:-16M}
UMAX=${UMAX:-256M}
SEED=${SEED:-1}
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || die "N must be a whole number > 0"
[[ $K =~ ^[0-9]+$ && $K -gt 1 ]] || die "K must be a whole number > 1"
[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME must be a whole number of seconds > 0"
for c in $CONDS; do
    [[ $c =~ ^(run|runlong|fio|fiokeep)$ ]] || die "CONDS: run, runlong, fio or fiokeep, not '$c'"
done
ensure fio fio || die "fio is needed (apt-get install fio)"
command -v python3 >/dev/null || die "python3 is needed"
iogauge_binary

l3=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo unknown)
say "selfscale_repeat.sh: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) CPUs, L3 $l3, load $(cut -d' ' -f1-3 /proc/loadavg)"
say_iogauge
say "fio: $(fio --version); DIR=$DIR ($(stat -f -c %T "$DIR")) N=$N K=$K RUNTIME=${RUNTIME}s CONDS='$CONDS' SEED=$SEED"

W=$(mktemp -d "$DIR/selfscale-repeat.XXXXXX")
trap 'rm -rf -- "$W"' EXIT
trap 'exit 130' INT TERM

draw_workloads "$N" "$SEED" "$UMIN" "$UMAX" >"$W/workloads.csv"


fio_job() { # fio_job U S RF SF PN SECS
    local rnd mix
    rnd=$(python3 -c "print(round((1 - $4) * 100))")
    mix=$(python3 -c "print(round($3 * 100))")
    fio --name=w --directory="$W" --filename=fio.data --size="$1" --bs="$2" \
        --rw=randrw --rwmixread="$mix" --percentage_random="$rnd" --numjobs="$5" --thread \
        --ioengine=psync --blockalign=512 --norandommap --randrepeat=0 --time_based \
        --runtime="$6" --ramp_time=1 --group_reporting --invalidate=0 \
        --output-format=json --output="$W/fio.json" >/dev/null
    python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0]; print((j['read']['bw_bytes']+j['write']['bw_bytes'])/1e6)" "$W/fio.json"
}

: >"$W/measured.csv"
i=0
while IFS=, read -r u s rf sf pn; do
    i=$((i + 1))
    for ((k = 1; k <= K; k++)); do
        for c in $CONDS; do
            read -r busy0 steal0 < <(cpu_now)
            self_ticks "$W/times" >"$W/own0"
            case $c in
                run | runlong)
                    secs=$RUNTIME
                    [[ $c == runlong ]] && secs=$((3 * RUNTIME))
                    "$IOGAUGE" run --dir "$W" --unique-bytes "$u" --size-mean "$s" --size-cv 0 \
                        --read-frac "$rf" --seq-frac "$sf" -p "$pn" --duration "${secs}s" --ramp 1s \
                        --seed "$i" -q --json "$W/run.json"
                    v=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['summary']; print((r['read_bytes_per_s']+r['write_bytes_per_s'])/1e6)" "$W/run.json")
                    ;;
                fio)
                    v=$(fio_job "$u" "$s" "$rf" "$sf" "$pn" "$RUNTIME")
                    rm -f "$W/fio.data"
                    ;;
                fiokeep)
                    v=$(fio_job "$u" "$s" "$rf" "$sf" "$pn" "$RUNTIME")
                    ;;
            esac
            read -r busy1 steal1 < <(cpu_now)
            self_ticks "$W/times" >"$W/own1"
            own0=$(<"$W/own0") own1=$(<"$W/own1")
            echo "$i,$u,$s,$rf,$sf,$pn,$c,$k,$v,$((steal1 - steal0)),$((busy1 - busy0 - (own1 - own0)))" >>"$W/measured.csv"
        done
    done
    rm -f "$W/fio.data"
done <"$W/workloads.csv"

python3 - "$W/measured.csv" "$CONDS" "$l3" "$RUNTIME" <<'EOF'
import collections, statistics, sys
path, conds, l3, runtime = sys.argv[1], sys.argv[2].split(), sys.argv[3], int(sys.argv[4])
def size(s):
    u = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    return int(s[:-1]) * u[s[-1]] if s and s[-1] in u else 32 << 20
l3b = size(l3)
rows = [l.strip().split(",") for l in open(path) if l.strip()]
by = collections.defaultdict(list)
meta, other, steal = {}, collections.defaultdict(list), collections.defaultdict(list)
for r in rows:
    i, u, s, rf, sf, pn, c, k, v, st, ot = r
    by[(int(i), c)].append(float(v))
    meta[int(i)] = (int(u), int(s), rf, sf, pn)
    steal[c].append(int(st))
    other[c].append(int(ot))
def mib(b):
    return f"{b >> 20}M" if b >= 1 << 20 else f"{b >> 10}K"
print(f"{'#':>3} {'uniqueB':>8} {'size':>6} {'rf':>5} {'sf':>5} {'pn':>2}" + "".join(f" {c + ' MB/s (cv)':>24}" for c in conds))
for i in sorted(meta):
    u, s, rf, sf, pn = meta[i]
    line = f"{i:>3} {mib(u):>8} {mib(s):>6} {rf:>5} {sf:>5} {pn:>2}"
    for c in conds:
        v = by[(i, c)]
        cv = statistics.stdev(v) / statistics.mean(v)
        line += f" {statistics.median(v):>15.1f} ({cv * 100:>4.1f}%)"
    print(line)
print(f"(median of the K repetitions; cv = standard deviation / mean over them; L3 = {l3})")
print()
def rep(ids, c):
    return statistics.median(abs(by[(i, c)][1] - by[(i, c)][0]) / by[(i, c)][0] for i in ids) * 100
def cv(ids, c):
    return statistics.median(statistics.stdev(by[(i, c)]) / statistics.mean(by[(i, c)]) for i in ids) * 100
ids = sorted(meta)
small = [i for i in ids if meta[i][0] < 1.5 * l3b]
large = [i for i in ids if meta[i][0] >= 1.5 * l3b]
print(f"{'condition':<9} {'repeat.':>8} {'cv':>6}   {'< 1.5xL3':>17}   {'>= 1.5xL3':>17}   {'steal':>6} {'others':>7}")
print(f"{'':<9} {'all':>8} {'all':>6}   {'repeat.':>8} {'cv':>8}   {'repeat.':>8} {'cv':>8}   {'ticks':>6} {'ticks':>7}")
for c in conds:
    part = lambda f, xs: f"{f(xs, c):>7.1f}%" if xs else f"{'-':>8}"
    print(f"{c:<9} {rep(ids, c):>7.1f}% {cv(ids, c):>5.1f}%   {part(rep, small)} {part(cv, small)}   {part(rep, large)} {part(cv, large)}"
          f"   {statistics.median(steal[c]):>6.0f} {statistics.median(other[c]):>7.0f}")
print(f"(repeat. = median over workloads of |2nd - 1st| / 1st; {len(small)} workloads below 1.5 x L3, {len(large)} above;")
print(" steal = ticks the hypervisor took per measurement, others = busy ticks of the machine not spent by the tool; 100 ticks = 1 CPU-second)")
EOF

#!/usr/bin/env bash
# selfscale_drift.sh — how far this machine's own level moves over minutes,
# by where the data lie: well inside the last-level CPU cache, about half
# of it, and well past it (on tmpfs: no device, no write-back, so what moves
# is the CPUs and the memory system, not iogauge).
#
# Three workloads that differ only in uniqueBytes (L3/16, L3/2 and 4 × L3,
# L3 read from sysfs; 256 KiB requests, half reads, half sequential, two
# processes: bound by copying memory) are measured by `iogauge run`, round
# robin, ROUNDS times. A self-scaling model anchors each region at one
# measurement of its focal workload; when the level of a region moves
# between the model and the workloads, every prediction in it moves too,
# and this shows by how much each kind of region can move on this machine.
# Per measurement it records the steal time the hypervisor took and the
# CPU time the rest of the machine used meanwhile.
#
# It prints each round, then per workload: median, coefficient of
# variation, min, max and max / min over the rounds, and the median of
# |round-to-round change|; the error a model perfect in every other respect
# would make on that workload from the machine alone (anchored at one round,
# checked at another: the median over pairs of rounds of |ratio - 1|); and
# the correlation of each pair of series (a level that moves with the others
# is the machine's speed; one that moves alone is the share of a cache it
# gets).
# A report, not a test: the exit status is 0 whatever the figures.
#
# Environment:
#   IOGAUGE   the binary (default: built from this tree)
#   DIR       a tmpfs directory (default /dev/shm)
#   ROUNDS    rounds (default 30)     RUNTIME  seconds per measurement (default 2)
#   SIZES     the three uniqueBytes (default: L3/16, L3/2, 4 × L3)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

DIR=${DIR:-/dev/shm}
ROUNDS=${ROUNDS:-30}
RUNTIME=${RUNTIME:-2}
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -gt 1 ]] || die "ROUNDS must be a whole number > 1"
[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME must be a whole number of seconds > 0"
[[ -d $DIR && -w $DIR ]] || die "DIR=$DIR is not a writable directory"
command -v python3 >/dev/null || die "python3 is needed"

l3=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo unknown)
if [[ -z ${SIZES:-} ]]; then
    [[ $l3 != unknown ]] || die "this machine does not say its L3's size (sysfs); give SIZES"
    l3b=$(python3 -c "import sys; s=sys.argv[1]; u={'K':1<<10,'M':1<<20,'G':1<<30}; print(int(s[:-1])*u[s[-1]] if s[-1] in u else int(s))" "$l3")
    SIZES="$((l3b / 16 / 1048576 * 1048576)) $((l3b / 2 / 1048576 * 1048576)) $((l3b * 4 / 1048576 * 1048576))"
fi
read -r -a sizes <<<"$SIZES"
[[ ${#sizes[@]} -eq 3 ]] || die "SIZES must name three uniqueBytes, not '$SIZES'"
iogauge_binary

say "selfscale_drift.sh: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) CPUs, L3 $l3, load $(cut -d' ' -f1-3 /proc/loadavg)"
say_iogauge
say "DIR=$DIR ($(stat -f -c %T "$DIR")) ROUNDS=$ROUNDS RUNTIME=${RUNTIME}s SIZES='$SIZES' (256 KiB, half reads, half sequential, 2 processes)"

W=$(mktemp -d "$DIR/selfscale-drift.XXXXXX")
trap 'rm -rf -- "$W"' EXIT
trap 'exit 130' INT TERM


: >"$W/measured.csv"
t0=$(date +%s)
for ((k = 1; k <= ROUNDS; k++)); do
    line=$(printf '%5d %6ds' "$k" "$(($(date +%s) - t0))")
    for u in "${sizes[@]}"; do
        read -r busy0 steal0 < <(cpu_now)
        self_ticks "$W/times" >"$W/own0"
        "$IOGAUGE" run --dir "$W" --unique-bytes "$u" --size-mean 256K --size-cv 0 \
            --read-frac 0.5 --seq-frac 0.5 -p 2 --duration "${RUNTIME}s" --ramp 1s \
            --seed 1 -q --json "$W/run.json"
        v=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['summary']; print(round((r['read_bytes_per_s']+r['write_bytes_per_s'])/1e6, 1))" "$W/run.json")
        read -r busy1 steal1 < <(cpu_now)
        self_ticks "$W/times" >"$W/own1"
        own0=$(<"$W/own0") own1=$(<"$W/own1")
        echo "$k,$u,$v,$((steal1 - steal0)),$((busy1 - busy0 - (own1 - own0)))" >>"$W/measured.csv"
        line+=$(printf ' %10.1f' "$v")
    done
    say "$line"
done

python3 - "$W/measured.csv" <<'EOF2'
import collections, math, statistics, sys
rows = [l.strip().split(",") for l in open(sys.argv[1]) if l.strip()]
series = collections.defaultdict(list)
steal = other = 0
for k, u, v, st, ot in rows:
    series[int(u)].append(float(v))
    steal += int(st)
    other += int(ot)
mib = lambda u: f"{u / 1048576:.0f}M"
print(f"(columns: round, seconds since the start, MB/s at {', '.join(mib(u) for u in series)})")
print()
print(f"{'uniqueBytes':>11} {'median':>9} {'cv':>6} {'min':>9} {'max':>9} {'max/min':>8} {'step':>6}")
for u, v in series.items():
    m = statistics.mean(v)
    cv = statistics.stdev(v) / m
    step = statistics.median(abs(b - a) / a for a, b in zip(v, v[1:]))
    print(f"{mib(u):>11} {statistics.median(v):>9.1f} {cv * 100:>5.1f}% {min(v):>9.1f} {max(v):>9.1f} {max(v) / min(v):>8.2f} {step * 100:>5.1f}%")
print("(cv = standard deviation / mean over the rounds; step = median |change| from one round to the next)")
# a model anchored at one round and checked at another: the error a model
# right in every other respect would make, from the machine alone
floor = {u: statistics.median(abs(b / a - 1) for i, a in enumerate(v) for b in v[i + 1:])
         for u, v in series.items()}
print("error of a perfect model from the machine alone (median over pairs of rounds of |later / earlier - 1|): "
      + ", ".join(f"{mib(u)} {e * 100:.1f} %" for u, e in floor.items()))
us = list(series)
def corr(a, b):
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    ma, mb = statistics.mean(la), statistics.mean(lb)
    num = sum((x - ma) * (y - mb) for x, y in zip(la, lb))
    den = math.sqrt(sum((x - ma) ** 2 for x in la) * sum((y - mb) ** 2 for y in lb))
    return num / den if den > 0 else float("nan")
print("correlation of the series (of log MB/s): " + ", ".join(
    f"{mib(a)}–{mib(b)} {corr(series[a], series[b]):+.2f}" for i, a in enumerate(us) for b in us[i + 1:]))
n = len(rows)
print(f"steal: {steal / n:.1f} ticks per measurement; the rest of the machine: {other / n:.1f} busy ticks per measurement (100 ticks = 1 CPU-second)")
EOF2

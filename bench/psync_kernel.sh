#!/usr/bin/env bash
# psync_kernel.sh — why a page-cached 4 KiB pread(2) costs iogauge more system
# time than fio, and what iogauge's own clock costs.
#
#   1. pread_cost.c: the fastest of 300 batches of 2000 random 4 KiB preads,
#      per read, single-threaded ("-") against: another thread in the
#      process (t: shared descriptor table), the same after
#      unshare(CLONE_FILES) (tu), posix_fadvise(POSIX_FADV_RANDOM) as fio
#      does (r), O_NOATIME (n), a second file laid out alike (file2), and
#      a file written 4 KiB at a time, fio's own layout (file4k).
#   2. clock_gettime(CLOCK_MONOTONIC) (iogauge's now_ns) against rdtsc.
#   3. iogauge (A, and B when given) and fio on the same workload, psync,
#      one worker, RUNTIME seconds: IOPS, user and system CPU per op, and
#      the read latency's min and p50 (the call itself: the min and p50 are
#      what a busy machine moves least).
# All in rounds (REPS), the order inside a round fixed, medians reported.
# It is a report, not a test: the exit status is 0 whatever the figures.
#
# Environment (all optional):
#   DIR      parent of the work directory (default: the current directory)
#   REPS     rounds (default 5)
#   RUNTIME  seconds per run of part 3 (default 5)
#   A, B     iogauge binaries for part 3 (default A: `cargo build --release`
#            of this repo, with CARGO_TARGET_DIR, default /tmp/bench-target)
# Needs gcc, fio and jq (installed with apt-get when run as root).
set -euo pipefail

REPS=${REPS:-5}
RUNTIME=${RUNTIME:-5}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # lib.sh builds iogauge in $repo
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME must be a whole number of seconds > 0"
ensure gcc gcc || die "gcc is not installed (apt-get install gcc)"
ensure fio fio || die "fio is not installed (apt-get install fio)"
ensure jq jq || die "jq is not installed (apt-get install jq)"
if [[ -z ${A:-} ]]; then
    iogauge_binary
    A=$IOGAUGE
fi
[[ -x $A ]] || die "A=$A is not an executable"
[[ -z ${B:-} || -x $B ]] || die "B=$B is not an executable"

make_workdir psync_kernel
gcc -O2 -o "$WORK/pread_cost" "$here/pread_cost.c" -lpthread || die "gcc failed on pread_cost.c"
layout() { # file bs
    fio --name=layout --ioengine=psync --rw=write --bs="$2" --size=1g --filename="$1" --end_fsync=1 \
        --output-format=json --output=/dev/null >/dev/null
    cat "$1" >/dev/null
}
layout "$WORK/f1" 1M
layout "$WORK/f2" 1M
layout "$WORK/f4k" 4k

say "psync_kernel — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "kernel $(uname -r), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)   REPS=$REPS RUNTIME=${RUNTIME}s"
say "fio: $(fio --version)   A: $A${B:+   B: $B}   work dir on $(df -T "$WORK" | awk 'NR==2 {print $2}')"
say ""

# ---------------------------------------------------------------- 1
declare -A cost
modes=(- t tu r n)
for ((r = 1; r <= REPS; r++)); do
    for m in "${modes[@]}"; do cost[$m]+=" $("$WORK/pread_cost" "$WORK/f1" "$m")"; done
    cost[file2]+=" $("$WORK/pread_cost" "$WORK/f2" -)"
    cost[file4k]+=" $("$WORK/pread_cost" "$WORK/f4k" -)"
done
say "=== 1. one page-cached 4 KiB pread, ns (fastest batch; median of $REPS) ==="
# shellcheck disable=SC2086 # word splitting of the lists is intended
base=$(median ${cost[-]})
for k in - t tu r n file2 file4k; do
    # shellcheck disable=SC2086
    m=$(median ${cost[$k]})
    printf '  %-7s %7.1f  %+6.1f ns vs -   (runs:%s)\n' "$k" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN {print a-b}')" "${cost[$k]}"
done
say "  -: one thread; t: a second thread (shared table); tu: t, then unshare(CLONE_FILES);"
say "  r: POSIX_FADV_RANDOM; n: O_NOATIME; file2: another file laid out alike; file4k: written 4 KiB at a time"
say ""

# ---------------------------------------------------------------- 2
say "=== 2. the clock (fastest of 200 loops of 100 000 reads) ==="
say "  $("$WORK/pread_cost" clock)"
say ""

# ---------------------------------------------------------------- 3
iog() { # label binary
    "$2" run --unique-bytes 1G --size-mean 4k --size-cv 0 --read-frac 1 --seq-frac 0 --align 4k \
        --duration "$RUNTIME" --engine psync --dir "$WORK" -q --json "$WORK/i.json"
    jq -r --arg l "$1" '"\($l) \(.summary.ops_per_s) \(.summary.cpu_user_s*1e9/.summary.ops) \(.summary.cpu_sys_s*1e9/.summary.ops) \(.ops.read.latency_ns.min) \(.ops.read.latency_ns.p50)"' "$WORK/i.json"
}
fio_run() {
    cat "$WORK/f1" >/dev/null
    fio --name=r --ioengine=psync --rw=randread --bs=4k --size=1g --time_based --runtime="$RUNTIME" \
        --filename="$WORK/f1" --invalidate=0 --output-format=json --output="$WORK/f.json" >/dev/null
    jq -r '.jobs[0] | "fio \(.read.iops) \(.usr_cpu/100*.job_runtime*1e6/.read.total_ios) \(.sys_cpu/100*.job_runtime*1e6/.read.total_ios) \(.read.clat_ns.min) \(.read.clat_ns.percentile["50.000000"])"' "$WORK/f.json"
}
rows=$WORK/rows
for ((r = 1; r <= REPS; r++)); do
    fio_run
    iog A "$A"
    [[ -z ${B:-} ]] || iog B "$B"
done >"$rows"
say "=== 3. cached 4 KiB random reads, psync, 1 worker, ${RUNTIME} s (median of $REPS) ==="
printf '  %-4s %10s %9s %9s %9s %9s\n' tool IOPS "user/op" "sys/op" "lat min" "lat p50"
for t in fio A B; do
    grep -q "^$t " "$rows" || continue
    row=()
    for c in 2 3 4 5 6; do
        # shellcheck disable=SC2046
        row+=("$(median $(awk -v t="$t" -v c="$c" '$1 == t {print $c}' "$rows"))")
    done
    printf '  %-4s %10.0f %9.0f %9.0f %9.0f %9.0f\n' "$t" "${row[@]}"
done
say "  (ns; fio's latency is clat, which for psync spans the pread call plus a little of fio)"
exit 0

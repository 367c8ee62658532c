#!/usr/bin/env bash
# ab.sh — compare two iogauge builds (A and B) on the same workloads, in one
# run, alternating, to show that a change costs nothing in the hot loop:
#
#   a. the null engine, 1 worker, 50 M ops: iogauge's own cost per op
#   b. 4 KiB random reads from a page-cached 1 GiB file, psync, 1 worker
#   c. PostMark 1.53's defaults (500 files, 500 transactions): ~15 ms runs,
#      dominated by start-up, so REPS_SHORT repetitions; its transactions per
#      second (the loop alone) and the whole process's wall time, exec to exit
#   d. PostMark, 20 000 files and 50 000 transactions
#
# A and B alternate within each repetition, and which goes first alternates
# between repetitions. Figures are medians; the ratio is B/A. A report, not a
# test: the exit status is 0 whatever the figures.
#
# Environment:
#   A, B        the two binaries (required), e.g. a build of the previous
#               commit and of this one
#   DIR         where to work (default: the current directory); the script
#               makes its own ab.XXXXXX directory there and removes only that
#   RUNTIME     seconds of (b) (default 10)
#   REPS        repetitions of (a), (b), (d) (default 3)
#   REPS_SHORT  repetitions of (c) (default 15)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

RUNTIME=${RUNTIME:-10}
REPS=${REPS:-3}
REPS_SHORT=${REPS_SHORT:-15}
[[ -x ${A:-} && -x ${B:-} ]] || die "set A and B to two iogauge binaries"
[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME must be a whole number of seconds > 0"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
[[ $REPS_SHORT =~ ^[0-9]+$ && $REPS_SHORT -gt 0 ]] || die "REPS_SHORT must be a whole number > 0"
json_reader

base=${DIR:-.}
[[ -d $base ]] || die "DIR=$base is not a directory"
work=$(mktemp -d "$base/ab.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "ab.sh: A = $A ($("$A" --version))"
say "       B = $B ($("$B" --version))"
say "       in $work; RUNTIME=$RUNTIME REPS=$REPS REPS_SHORT=$REPS_SHORT; load $(cut -d' ' -f1-3 /proc/loadavg)"

# one measurement: prints the figure (a metric path of the JSON result)
null_ops() { "$1" run --engine null --ops 50000000 --size-cv 0 --seq-frac 1 --dir "$work" --json "$work/r.json" -q && jget "$work/r.json" .summary.ops_per_s; }
cached() { "$1" run --unique-bytes 1G --size-mean 4k --size-cv 0 --read-frac 1 --seq-frac 0 --duration "${RUNTIME}s" --dir "$work" --json "$work/r.json" -q && jget "$work/r.json" .summary.ops_per_s; }
pm() {
    { printf 'set location %s\n' "$work"; [[ -n $2 ]] && printf '%s\n' "$2"; printf 'run\nquit\n'; } >"$work/pm.rc"
    "$1" postmark "$work/pm.rc" --json "$work/r.json" -q >/dev/null && jget "$work/r.json" .metrics.transactions_per_s
}
pm_defaults() { pm "$1" ""; }
# the whole process, exec to exit, in µs (PostMark's defaults last ~15 ms: start-up shows)
pm_wall() {
    printf 'set location %s\nrun\nquit\n' "$work" >"$work/pmw.rc"
    local t0 t1
    t0=$(date +%s%N)
    "$1" postmark "$work/pmw.rc" -q >/dev/null
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
}
pm_20k() { pm "$1" $'set number 20000\nset transactions 50000'; }

declare -A fig
measure() { # NAME FUNC REPS
    local name=$1 f=$2 n=$3 i first second va vb
    fig[$name.A]=""
    fig[$name.B]=""
    # the 1 GiB file is laid out by each run; drop nothing: both see the same cache
    for ((i = 0; i < n; i++)); do
        if ((i % 2)); then first=B second=A; else first=A second=B; fi
        va=$($f "${!first}")
        vb=$($f "${!second}")
        fig[$name.$first]+=" $va"
        fig[$name.$second]+=" $vb"
    done
    # shellcheck disable=SC2086
    local ma mb
    ma=$(median ${fig[$name.A]})
    mb=$(median ${fig[$name.B]})
    printf '  %-34s %14.0f %14.0f %8s\n' "$name" "$ma" "$mb" "$(ratio "$mb" "$ma")"
}

say ""
printf '  %-34s %14s %14s %8s\n' "workload (medians)" "A" "B" "B/A"
measure "null engine, ops/s" null_ops "$REPS"
measure "cached 4 KiB randread, IO/s" cached "$REPS"
measure "postmark defaults, tx/s" pm_defaults "$REPS_SHORT"
measure "postmark defaults, process µs" pm_wall "$REPS_SHORT"
measure "postmark 20k/50k, tx/s" pm_20k "$REPS"
say ""
say "  every figure (A | B):"
for k in "null engine, ops/s" "cached 4 KiB randread, IO/s" "postmark defaults, tx/s" "postmark defaults, process µs" "postmark 20k/50k, tx/s"; do
    say "  $k: A${fig[$k.A]} | B${fig[$k.B]}"
done

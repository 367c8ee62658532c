#!/usr/bin/env bash
# verify_cost.sh — goal (c) of --verify: what checking costs in throughput.
# Two cases, each run without and with --verify, alternating (which goes
# first alternates between repetitions), REPS times; figures are medians of
# MB/s, the ratio is with/without:
#
#   a. device-bound: O_DIRECT io_uring at depth 32, 4 KiB random requests,
#      half reads, on DIR's disk (SIZE of data)
#   b. cached: psync, 4 KiB random requests, half reads, a 64 MiB file in
#      the page cache: no device time hides the CPU cost of making and
#      checking every unit
#
# A report, not a test: the exit status is 0 whatever the figures.
#
# Environment:
#   DIR      where to work (default: /var/tmp; must be on a disk for (a))
#   SIZE     data of (a) (default 1G)
#   RUNTIME  seconds of each run (default 5)
#   REPS     repetitions (default 5)
#   BIN      the iogauge binary (default: target/release/iogauge)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

DIR=${DIR:-/var/tmp}
SIZE=${SIZE:-1G}
RUNTIME=${RUNTIME:-5}
REPS=${REPS:-5}
BIN=${BIN:-$repo/target/release/iogauge}
[[ -x $BIN ]] || die "no $BIN; build with cargo build --release"
work=$(mktemp -d "$DIR/verify_cost.XXXXXX")
trap 'rm -rf "$work"' EXIT

mbps() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metrics"]["mb_per_s"])' "$1"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

case_run() { # NAME ARGS...: REPS alternating pairs; prints the medians
    local name=$1; shift
    local off=() on=() r first
    for ((r = 0; r < REPS; r++)); do
        for first in 0 1; do
            if (( (r + first) % 2 == 0 )); then
                "$BIN" run --dir "$work" "$@" -q --json "$work/off.json"
                off+=("$(mbps "$work/off.json")")
            else
                "$BIN" run --dir "$work" "$@" --verify -q --json "$work/on.json"
                on+=("$(mbps "$work/on.json")")
            fi
        done
    done
    local a b
    a=$(median "${off[@]}") b=$(median "${on[@]}")
    say "$name"
    say "  without --verify: ${off[*]} MB/s, median $a"
    say "  with --verify:    ${on[*]} MB/s, median $b"
    python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print("  ratio %.3f (cost %.1f %%)" % (b/a, 100*(1-b/a)))' "$a" "$b"
}

say "verify_cost.sh: $(date -u +%FT%TZ), $(nproc) CPUs, $DIR on $(df --output=source,fstype "$DIR" | tail -1), REPS=$REPS, RUNTIME=${RUNTIME}s"
case_run "a. O_DIRECT io_uring depth 32, 4 KiB random, read-frac 0.5, $SIZE" \
    --engine io_uring --iodepth 32 --direct --unique-bytes "$SIZE" \
    --size-mean 4K --size-cv 0 --seq-frac 0 --read-frac 0.5 --duration "$RUNTIME"
case_run "b. cached psync, 4 KiB random, read-frac 0.5, 64 MiB" \
    --engine psync --unique-bytes 64M \
    --size-mean 4K --size-cv 0 --seq-frac 0 --read-frac 0.5 --duration "$RUNTIME"

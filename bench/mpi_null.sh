#!/usr/bin/env bash
# mpi_null.sh — the cost of coordinating ranks: the null engine on N MPI
# ranks of one worker each (`mpirun -np N iogauge run --engine null`) against
# N worker processes of one iogauge (`iogauge run --engine null -p N
# --workers-as processes`), both for TIME, alternating, which goes first
# alternating between repetitions. The null engine does no I/O, so what
# differs is iogauge's own: MPI's start, the controlling loop's turns (every
# 5 ms on a rank, each testing the end word; 10 ms on a process run) and the
# merge. Per configuration: ops/s per worker (the result's ops / elapsed /
# N), the elapsed time, the start spread (MPI); medians of REPS; the ratio
# MPI / local (the issue wants it within 1 %). A report, not a test: the
# exit status is 0 whatever the figures.
#
# Environment:
#   IOGAUGE  an iogauge built with --features mpi (default: built from this
#            tree with --features mpi)
#   N        ranks, and local worker processes (default 4)
#   REPS     repetitions (default 5)
#   TIME     each run's duration (default 5s)
#   DIR      where to work (default: the current directory); the script makes
#            its own mpi_null.XXXXXX directory there and removes only that
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

N=${N:-4}
REPS=${REPS:-5}
TIME=${TIME:-5s}
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || die "N must be a whole number > 0"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
command -v mpirun >/dev/null || die "mpirun not found (Debian: apt-get install openmpi-bin libopenmpi-dev)"
json_reader
iogauge_binary mpi
make_workdir mpi_null

# one run of configuration $1 (mpi or local) into $2; prints ops/s per worker
one() {
    local how=$1 j=$2
    if [[ $how == mpi ]]; then
        mpirun --allow-run-as-root --oversubscribe -np "$N" "$IOGAUGE" run --engine null \
            --dir "$WORK" --duration "$TIME" --json "$j" >/dev/null 2>"$WORK/err"
    else
        "$IOGAUGE" run --engine null -p "$N" --workers-as processes \
            --dir "$WORK" --duration "$TIME" --json "$j" >/dev/null 2>"$WORK/err"
    fi || die "the $how run failed: $(grep -v 'Epoll MOD' "$WORK/err" | tail -20)"
    awk -v o="$(jget "$j" .summary.ops)" -v e="$(jget "$j" .elapsed_s)" -v n="$N" \
        'BEGIN {printf "%.0f", o / e / n}'
}

say "# mpi_null.sh: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
say_iogauge
say "# null engine, $N workers, $TIME each; alternating; medians of $REPS"
printf '%4s %14s %14s %8s %10s %10s %14s %8s\n' rep "mpi ops/s/w" "local ops/s/w" ratio "mpi el s" "loc el s" "mpi spread ms" load
mpi=() loc=() mel=() lel=()
for ((i = 0; i < REPS; i++)); do
    if ((i % 2 == 0)); then order="mpi local"; else order="local mpi"; fi
    for how in $order; do
        v=$(one "$how" "$WORK/$how-$i.json")
        if [[ $how == mpi ]]; then a=$v; else b=$v; fi
    done
    mpi+=("$a") loc+=("$b")
    mel+=("$(jget "$WORK/mpi-$i.json" .elapsed_s)") lel+=("$(jget "$WORK/local-$i.json" .elapsed_s)")
    printf '%4s %14s %14s %8s %10.3f %10.3f %14.3f %8s\n' "$i" "$a" "$b" "$(ratio "$a" "$b")" \
        "${mel[-1]}" "${lel[-1]}" \
        "$(awk -v s="$(jget "$WORK/mpi-$i.json" .cluster.phases[0].start_spread_s)" 'BEGIN {print s * 1000}')" \
        "$(cut -d' ' -f1 /proc/loadavg)"
done
a=$(median "${mpi[@]}") b=$(median "${loc[@]}")
say "median: mpi $a, local $b ops/s per worker; mpi / local = $(ratio "$a" "$b")"
say "median elapsed: mpi $(median "${mel[@]}") s, local $(median "${lel[@]}") s"

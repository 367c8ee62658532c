#!/usr/bin/env bash
# mpi_gather.sh — what rank 0's gathering of the ranks' reports costs, for
# `mpirun -np N iogauge run` on this machine (every rank on one host), and
# that the merge is right: the merged op count must be the ranks' sum.
#
# Per rank count, REPS runs of `run --duration TIME` (4 KiB, half reads, in
# 1 MiB per rank); from each run's `cluster.phases[0]`: the bytes all ranks
# sent (`gather.bytes`), the largest rank's (`gather.max_rank_bytes`), their
# mean per rank, and the gathering's time on rank 0 (`gather.seconds`: the
# lengths' gather and the variable-count gather of the reports). Medians.
# A report, not a test: the exit status is 0 whatever the figures.
#
# Environment:
#   IOGAUGE  an iogauge built with --features mpi (default: built from this
#            tree with --features mpi)
#   RANKS    rank counts (default "4 16 64")
#   REPS     runs per count (default 3)
#   TIME     each run's duration (default 2s)
#   DIR      where to work (default: the current directory); the script makes
#            its own mpi_gather.XXXXXX directory there and removes only that
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

RANKS=${RANKS:-"4 16 64"}
REPS=${REPS:-3}
TIME=${TIME:-2s}
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
[[ -x /usr/bin/time ]] || ensure /usr/bin/time time || die "GNU time (/usr/bin/time) is needed"
command -v mpirun >/dev/null || die "mpirun not found (Debian: apt-get install openmpi-bin libopenmpi-dev)"
json_reader
iogauge_binary mpi
make_workdir mpi_gather

say "# mpi_gather.sh: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
say_iogauge
say "# run --duration $TIME --unique-bytes 1M --size-mean 4K per rank; medians of $REPS"
printf '%6s %10s %12s %14s %12s %14s %12s %14s %8s\n' ranks ops "sum ok" "bytes total" "bytes/rank" "max rank B" "gather ms" "rank 0 RSS KiB" load
for n in $RANKS; do
    [[ $n =~ ^[0-9]+$ && $n -gt 0 ]] || die "RANKS must hold whole numbers > 0"
    tot=() max=() sec=() ok=yes ops=() rss=()
    for ((i = 0; i < REPS; i++)); do
        j=$WORK/r$n-$i.json
        args=(run --dir "$WORK" --duration "$TIME" --unique-bytes 1M --size-mean 4K --json "$j")
        rest=()
        ((n > 1)) && rest=(: -np $((n - 1)) "$IOGAUGE" "${args[@]}")
        mpirun --allow-run-as-root --oversubscribe -np 1 /usr/bin/time -f %M -o "$WORK/rss" \
            "$IOGAUGE" "${args[@]}" "${rest[@]}" >/dev/null 2>"$WORK/err" ||
            die "mpirun -np $n failed: $(grep -v 'Epoll MOD' "$WORK/err" | tail -20)"
        rss+=("$(tail -1 "$WORK/rss")")
        o=$(jget "$j" .summary.ops)
        s=0
        for ((r = 0; r < n; r++)); do s=$((s + $(jget "$j" ".cluster.phases[0].per_rank[$r].ops"))); done
        [[ $s == "$o" ]] || ok="NO ($o != $s)"
        ops+=("$o")
        tot+=("$(jget "$j" .cluster.phases[0].gather.bytes)")
        max+=("$(jget "$j" .cluster.phases[0].gather.max_rank_bytes)")
        sec+=("$(jget "$j" .cluster.phases[0].gather.seconds)")
    done
    t=$(median "${tot[@]}")
    printf '%6s %10s %12s %14s %12.0f %14s %12.3f %14s %8s\n' "$n" "$(median "${ops[@]}")" "$ok" "$t" \
        "$(awk -v t="$t" -v n="$n" 'BEGIN {print t / n}')" "$(median "${max[@]}")" \
        "$(awk -v s="$(median "${sec[@]}")" 'BEGIN {print s * 1000}')" "$(median "${rss[@]}")" \
        "$(cut -d' ' -f1 /proc/loadavg)"
    say "  gather ms of each run: $(for s in "${sec[@]}"; do awk -v s="$s" 'BEGIN {printf "%.3f ", s * 1000}'; done)"
done

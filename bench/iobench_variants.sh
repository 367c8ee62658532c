#!/usr/bin/env bash
# iobench_variants.sh — what IOBENCH's ioserver costs: Variant 0 (users lock
# shared memory themselves) against Variant 1 (`--server`: every lock is a
# request to the ioserver over System V message queues), on the same
# workload, alternating, in one run.
#
# Workloads (files in the page cache, so locking is a large share of the
# work and its cost shows):
#   fig1   the paper's Figure 1 run: 3 files of 10 000 records of 1024 B,
#          8 users, 10 000 locks per file, R = W = 1, CP = 0
#   hot    the same with one lock per file: users queue at the lock
#
# Per variant and workload it prints the medians of: transactions per second,
# the lock's mean and p99 latency (the round trip to the server in Variant
# 1), Total CP per transaction (users + server), and in Variant 1 the
# server's CPU per lock request. Then the cost of the server per lock: the
# difference in Total CP per transaction over the locks per transaction.
# A report, not a test: the exit status is 0 whatever the figures.
#
# Environment:
#   IOGAUGE   the binary (default: built from this tree)
#   DIR       where to work (default: the current directory)
#   RUNTIME   seconds per run (default 10)
#   REPS      repetitions (default 5)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

RUNTIME=${RUNTIME:-10}
REPS=${REPS:-5}
[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME must be a whole number of seconds > 0"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
json_reader
iogauge_binary
make_workdir iobench-variants

say "iobench_variants.sh: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
say_iogauge
say "RUNTIME=${RUNTIME}s REPS=$REPS, variants alternating (which goes first alternates)"
say

printf 'USERS = 8; FILES = 3; NRECS = 10000; RECLEN = 1024; LOCKS = 10000; END = 0;\n' >"$WORK/fig1"
printf 'USERS = 8; FILES = 3; NRECS = 10000; RECLEN = 1024; LOCKS = 1; END = 0;\n' >"$WORK/hot"

declare -A tps lock_mean lock_p99 cp_tx srv_lock
for wl in fig1 hot; do
    for v in 0 1; do tps[$wl$v]= lock_mean[$wl$v]= lock_p99[$wl$v]= cp_tx[$wl$v]= srv_lock[$wl$v]=; done
    for ((i = 0; i < REPS; i++)); do
        order="0 1"
        ((i % 2)) && order="1 0"
        for v in $order; do
            flag=()
            [[ $v == 1 ]] && flag=(--server)
            j=$WORK/$wl.$v.$i.json
            (cd "$WORK" && "$IOGAUGE" iobench "$WORK/$wl" "${flag[@]}" --ignore-env \
                --duration "${RUNTIME}s" --dir "$WORK" -o "$WORK/results" -q --json "$j")
            tps[$wl$v]+=" $(jget "$j" .metrics.transactions_per_s)"
            lock_mean[$wl$v]+=" $(jget "$j" .ops.lock.latency_ns.mean)"
            lock_p99[$wl$v]+=" $(jget "$j" .ops.lock.latency_ns.p99)"
            cp_tx[$wl$v]+=" $(jget "$j" .metrics.cp_ms_per_transaction)"
            if [[ $v == 1 ]]; then
                srv_lock[$wl$v]+=" $(awk -v c="$(jget "$j" .metrics.server_cp_seconds)" -v n="$(jget "$j" .metrics.server.lock_requests)" 'BEGIN {printf "%.3f", c * 1e6 / n}')"
            fi
        done
    done
done

printf '%-5s %-8s %12s %14s %13s %16s %18s\n' workload variant "tx/s" "lock mean µs" "lock p99 µs" "Total CP ms/tx" "server CP µs/lock"
for wl in fig1 hot; do
    for v in 0 1; do
        # shellcheck disable=SC2086 # word lists by design
        printf '%-5s %-8s %12.0f %14.2f %13.2f %16.4f %18s\n' "$wl" "$v" \
            "$(median ${tps[$wl$v]})" \
            "$(awk -v x="$(median ${lock_mean[$wl$v]})" 'BEGIN {print x / 1000}')" \
            "$(awk -v x="$(median ${lock_p99[$wl$v]})" 'BEGIN {print x / 1000}')" \
            "$(median ${cp_tx[$wl$v]})" \
            "$([[ $v == 1 ]] && median ${srv_lock[$wl$v]} || echo -)"
    done
done
say
for wl in fig1 hot; do
    # shellcheck disable=SC2086
    a=$(median ${cp_tx[${wl}0]}) b=$(median ${cp_tx[${wl}1]}) t0=$(median ${tps[${wl}0]}) t1=$(median ${tps[${wl}1]})
    say "$wl: Variant 1 adds $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", (b - a) * 1000}') µs of Total CP per lock (1 lock per transaction); throughput ratio V1/V0 = $(ratio "$t1" "$t0")"
done

#!/usr/bin/env bash
# pvsync_vs_fio.sh — fio and `iogauge fio` on the same job with
# ioengine=pvsync and ioengine=pvsync2 (and psync as the reference): 4 KiB
# random reads with O_DIRECT of one file of SIZE, RUNTIME seconds each,
# one worker; IOPS and the completion latency's p50 and p99 from each
# tool's fio JSON, and the ratio iogauge/fio.
#
#   bash bench/pvsync_vs_fio.sh [SCRATCH_DIR]
#   SIZE=256m RUNTIME=5 REPS=1 bash bench/pvsync_vs_fio.sh /var/tmp/pvs
#
# The file is written once and read by both tools (neither lays it out).
# Each pair runs REPS times (default 1), fio first, then iogauge; with more
# reps the figures are the medians. The machine is shared and its virtio
# disk noisy: read a ratio as one measurement, not as a bound.
# Needs fio and jq (installed with apt-get when run as root).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

scratch=${1:-/var/tmp/pvsync-vs-fio}
SIZE=${SIZE:-256m}
RUNTIME=${RUNTIME:-5}
REPS=${REPS:-1}
ensure fio fio || die "needs fio"
ensure jq jq || die "needs jq"
iogauge_binary
bin=$IOGAUGE
mkdir -p "$scratch"
file=$scratch/data
trap 'rm -f "$file" "$scratch"/out.json; rmdir "$scratch" 2>/dev/null || true' EXIT
fio --name=layout --filename="$file" --size="$SIZE" --rw=write --bs=1m \
    --ioengine=psync --end_fsync=1 --output=/dev/null

say "4 KiB random reads, O_DIRECT, $SIZE file, ${RUNTIME} s, 1 worker, $REPS run(s); $(fio --version)"
say_iogauge
printf '%-8s  %10s %10s %6s  %9s %9s  %9s %9s\n' engine "fio IOPS" "iog IOPS" ratio \
    "fio p50" "iog p50" "fio p99" "iog p99"
for engine in psync pvsync pvsync2; do
    fi=() ii=() f50=() i50=() f99=() i99=()
    for _ in $(seq "$REPS"); do
        args=(--name=r --filename="$file" --size="$SIZE" --rw=randread --bs=4k
              --direct=1 --ioengine="$engine" --runtime="$RUNTIME" --time_based
              --output-format=json)
        fio "${args[@]}" --output="$scratch/out.json" >/dev/null
        fi+=("$(jq '.jobs[0].read.iops' "$scratch/out.json")")
        f50+=("$(jq '.jobs[0].read.clat_ns.percentile["50.000000"]' "$scratch/out.json")")
        f99+=("$(jq '.jobs[0].read.clat_ns.percentile["99.000000"]' "$scratch/out.json")")
        "$bin" fio "${args[@]}" --output="$scratch/out.json" >/dev/null
        ii+=("$(jq '.jobs[0].read.iops' "$scratch/out.json")")
        i50+=("$(jq '.jobs[0].read.clat_ns.percentile["50.000000"]' "$scratch/out.json")")
        i99+=("$(jq '.jobs[0].read.clat_ns.percentile["99.000000"]' "$scratch/out.json")")
    done
    a=$(median "${fi[@]}") b=$(median "${ii[@]}")
    printf '%-8s  %10.0f %10.0f %6s  %7.1fµs %7.1fµs  %7.1fµs %7.1fµs\n' "$engine" "$a" "$b" \
        "$(ratio "$b" "$a")" \
        "$(awk -v n="$(median "${f50[@]}")" 'BEGIN{print n/1000}')" \
        "$(awk -v n="$(median "${i50[@]}")" 'BEGIN{print n/1000}')" \
        "$(awk -v n="$(median "${f99[@]}")" 'BEGIN{print n/1000}')" \
        "$(awk -v n="$(median "${i99[@]}")" 'BEGIN{print n/1000}')"
done

#!/usr/bin/env bash
# fio_buffers_cost.sh — what fio's buffer options cost `iogauge fio` per
# write, in ab.sh's manner: the same job run alternately with each setting,
# medians of REPS runs, ratios against the first setting.
#
#   a. ioengine=null, bs=4k, a write job of 4 M requests: iogauge's own cost
#      per write, nothing reaches the kernel
#   b. psync, bs=4k buffered writes over a 64 MiB file in DIR (the page
#      cache holds it), time-based
#
# Settings: scramble_buffers=0 (the buffer as it is), the default (each
# write scrambled: 3 stores per 512-byte sector), refill_buffers (new random
# bytes per write), buffer_compress_percentage=50. With A set to another
# iogauge binary (say a build of main, which neither scrambles nor fills),
# its default run is added as the first column.
#
# Environment:
#   B        the iogauge binary measured (default: built from this tree)
#   A        optional: an older binary to compare the default with
#   DIR      where the file goes (default /tmp; iogauge fio takes a path
#            under /dev as a device, so not /dev/shm)
#   RUNTIME  seconds of (b) (default 5)
#   REPS     repetitions (default 5)
#   JOBS     which of them (default "null cached")
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

RUNTIME=${RUNTIME:-5}
REPS=${REPS:-5}
[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME must be a whole number of seconds > 0"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
if [[ -z ${B:-} ]]; then
    (cd "$repo" && cargo build --release -q) || die "cannot build iogauge"
    B=$repo/target/release/iogauge
fi
[[ -x $B ]] || die "B=$B is not an executable"
[[ -z ${A:-} || -x $A ]] || die "A=$A is not an executable"
json_reader

base=${DIR:-/tmp}
[[ -d $base ]] || die "DIR=$base is not a directory"
work=$(mktemp -d "$base/fbuf.XXXXXX")
trap 'rm -rf "$work"' EXIT

settings=("--scramble_buffers=0" "" "--refill_buffers" "--buffer_compress_percentage=50")
names=("scramble=0" "default" "refill" "compress50")

# one run: BIN JOB SETTING → write IOPS
run() {
    local bin=$1 job=$2 set=$3 args
    case $job in
        null) args=(--ioengine=null --rw=write --bs=4k --size=16g) ;;
        cached) args=(--ioengine=psync --rw=write --bs=4k --size=64m --time_based "--runtime=$RUNTIME" "--directory=$work" --filename=f) ;;
    esac
    rm -f "$work/o.json"
    # shellcheck disable=SC2086
    "$bin" fio --name=w "${args[@]}" $set --output-format=json --output="$work/o.json" >/dev/null ||
        die "$bin fio ${args[*]} $set failed"
    jget "$work/o.json" '.jobs[0].write.iops'
    rm -f "$work/f"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

say "fio_buffers_cost.sh: B = $B ($("$B" --version))${A:+; A = $A ($("$A" --version))}"
say "  in $work; RUNTIME=$RUNTIME REPS=$REPS; load $(cut -d' ' -f1-3 /proc/loadavg)"
for job in ${JOBS:-null cached}; do
    declare -A got=()
    for ((r = 0; r < REPS; r++)); do
        [[ -n ${A:-} ]] && got[A]+="$(run "$A" "$job" "") "
        for i in "${!settings[@]}"; do
            got[$i]+="$(run "$B" "$job" "${settings[$i]}") "
        done
    done
    line="$job:"
    ref=
    if [[ -n ${A:-} ]]; then
        ref=$(tr ' ' '\n' <<<"${got[A]}" | grep . | median)
        line+=$(printf ' A-default %.0f IOPS;' "$ref")
    fi
    for i in "${!settings[@]}"; do
        m=$(tr ' ' '\n' <<<"${got[$i]}" | grep . | median)
        [[ -z $ref ]] && ref=$m
        line+=$(printf ' %s %.0f (%.3f)' "${names[$i]}" "$m" "$(awk -v a="$m" -v b="$ref" 'BEGIN {print a/b}')")
    done
    say "$line"
    say "  runs: $(for k in "${!got[@]}"; do printf '%s=[%s] ' "$k" "${got[$k]% }"; done)"
    unset got
done

#!/usr/bin/env bash
# How well `iogauge compare` judges --repeat series:
#  (a) power: a true 5 % slowdown is flagged (significantly slower, 95 %
#      confidence) from 5 repeats a side;
#  (b) false alarms: at most 1 in 20 same-against-same comparisons.
#
# Workload: `iogauge run --engine null` paced open loop (--rate) with
# Poisson arrivals. The null engine does no I/O, so the machine's own
# noise barely enters; the rate sets the throughput, so "5 % slower" is
# exact (rate × 0.95), and the Poisson arrivals give each run a real,
# known noise (a count of about RATE × DURATION has a CV of
# 1/√(RATE × DURATION)). Run it when nothing else is building.
#
# usage: bench/compare_power.sh [RATE] [DURATION] [TRIALS_A]
# writes bench/results-compare_power.txt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${IOGAUGE:-$here/../target/release/iogauge}
rate=${1:-20000}
dur=${2:-1s}
trials_a=${3:-5}
slow=$(awk -v r="$rate" 'BEGIN { printf "%.3f", r * 0.95 }')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=1
series() { # OUT RATE
    "$bin" run --engine null --rate "$2" --duration "$dur" -p 1 --seed "$seed" \
        --repeat 5 -q --dir "$tmp" --json "$1"
    seed=$((seed + 5))
}
cmp() { # BASE NEW -> prints the exit code
    set +e
    "$bin" compare "$1" "$2" --metric summary.ops_per_s --fail-if-slower 0% -q
    echo $?
    set -e
}
# (b): 8 series at the same rate, 20 of their 28 pairs
for i in $(seq 1 8); do series "$tmp/same$i.json" "$rate"; done
alarms=0; n_b=0
for i in $(seq 1 8); do for j in $(seq $((i + 1)) 8); do
    [ "$n_b" -ge 20 ] && break 2
    n_b=$((n_b + 1))
    [ "$(cmp "$tmp/same$i.json" "$tmp/same$j.json")" = 1 ] && alarms=$((alarms + 1))
done; done
# (a): series at 95 % of the rate against the base series
flagged=0
for i in $(seq 1 "$trials_a"); do
    series "$tmp/slow$i.json" "$slow"
    [ "$(cmp "$tmp/same$i.json" "$tmp/slow$i.json")" = 1 ] && flagged=$((flagged + 1))
done
cv=$("$bin" show "$tmp/same1.json" | awk '/^summary.ops_per_s /{ print $(NF-1), $NF }' | tail -1)
{
    echo "# compare power ($(date -u +%F), $(uname -r))"
    echo
    echo "command: bench/compare_power.sh $rate $dur $trials_a"
    echo "(iogauge run --engine null --rate R --duration $dur --repeat 5; compare --fail-if-slower 0%)"
    echo
    echo "- run-to-run CV of ops/s in one series: $cv"
    echo "- (a) true 5 % slowdown flagged: $flagged of $trials_a (goal: all)"
    echo "- (b) false alarms, same against same: $alarms of $n_b (goal: at most 1)"
} | tee "$here/results-compare_power.txt"

#!/usr/bin/env bash
# dist.sh — iogauge's skewed offsets (--distribution) against fio's
# random_distribution: fio runs a random read job on a 64 MiB file with
# 4 KiB blocks and write_iolog, which logs every offset; iogauge's sampler
# draws as many blocks (examples/dist_draws.rs). For each distribution the
# script prints the share of all requests that the hottest 1 %, 5 %, 10 %
# and 25 % of the file's blocks took, for both. Output: bench/results-dist.txt.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib.sh"
ensure fio fio || die "fio is needed"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
blocks=16384          # 64 MiB of 4 KiB blocks
n=${N:-200000}
(cd "$repo" && cargo build --release --quiet --example dist_draws)
draws="${CARGO_TARGET_DIR:-$repo/target}/release/examples/dist_draws"
truncate -s 64M "$work/file"
shares() { # block numbers on stdin → the shares of the top 1/5/10/25 % of all blocks
    # hottest first; plain POSIX awk (no gawk asort)
    sort -n | uniq -c | sort -rn | awk -v B=$blocks '{h[NR]=$1; t+=$1} END {
        split("1 5 10 25", p, " ");
        for (i=1;i<=4;i++) { k=int(B*p[i]/100); c=0; for (j=1;j<=k && j<=NR;j++) c+=h[j]; printf " %6.2f", 100*c/t }
    }'
}
say "fio $(fio --version), $n random 4 KiB reads over $blocks blocks; % of requests on the hottest 1/5/10/25 % of blocks"
printf '%-22s %-8s %6s %6s %6s %6s\n' distribution tool 1% 5% 10% 25%
for d in zipf:1.2 zipf:0.8 pareto:0.2 normal:5 zoned:60/10:30/20:8/30:2/40; do
    rm -f "$work/log"   # fio appends to an existing iolog
    fio --name=d --filename="$work/file" --size=64M --bs=4k --rw=randread --ioengine=null \
        --norandommap --random_distribution="$d" --number_ios=$n --io_size=$((n * 4096)) \
        --write_iolog="$work/log" \
        --output=/dev/null
    # iolog v2: "file read OFFSET LEN"; v3 (fio 3.31 on): "TIME file read OFFSET LEN"
    got=$(awk '$2=="read" || $3=="read"' "$work/log" | wc -l)
    [ "$got" -eq "$n" ] || die "fio logged $got reads of $n"
    fio_s=$(awk '$2=="read" {print int($3/4096)} $3=="read" {print int($4/4096)}' "$work/log" | shares)
    ig_s=$("$draws" "$d" $blocks $n | shares)
    printf '%-22s %-8s%s\n' "$d" fio "$fio_s"
    printf '%-22s %-8s%s\n' "" iogauge "$ig_s"
done

#!/usr/bin/env bash
# fio_logs.sh — iogauge's fio-format per-I/O logs read by fio's own log
# parser (tools/fiologparser.py), beside fio's logs of the same workload:
# the same files, parsed the same way, with comparable figures.
#
#   bash bench/fio_logs.sh FIO_SRC_DIR [DIR]
#   IOGAUGE=target/release/iogauge bash bench/fio_logs.sh ~/src/fio /mnt/scratch
#
# FIO_SRC_DIR is a checkout of fio's source (for tools/fiologparser.py), of
# fio 3.34 or later: the parser of 3.33 and before reads four fields, not the
# five fio 3.33 itself writes (fio's commit 5f2a90b8 fixed it); from a bare
# mirror: mkdir fio && git --git-dir=MIRROR archive HEAD tools | tar x -C fio
# DIR (default: a temporary directory) holds the data files and the logs.
# Both tools run 4 KiB random reads and writes (70 % reads) on psync over a
# 64 MiB file for 20000 I/Os, once with a line per I/O and once with 100 ms
# windows (log_avg_msec=100); fio is installed with apt-get when it is
# missing and can be. For every log: its lines, its first line, the mean
# of its values and what fiologparser.py makes of it; then the bandwidth
# per 100 ms window as fiologparser.py sums it. The figures of the two
# tools are of runs one after the other, not a comparison of speed (see
# vs_fio.sh for that). Exit status 0 whatever the figures; 1 when a file
# does not parse.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

src=${1:-}
parser=$src/tools/fiologparser.py
[[ -n $src && -f $parser ]] || die "usage: fio_logs.sh FIO_SRC_DIR [DIR] (a fio source tree with tools/fiologparser.py)"
command -v python3 >/dev/null || die "fiologparser.py needs python3"
iogauge_binary
IOGAUGE=$(cd "$(dirname "$IOGAUGE")" && pwd)/${IOGAUGE##*/}
work=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/fio_logs.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "fio_logs.sh: fio-format logs through fio's tools/fiologparser.py"
say_iogauge
have_fio=0
if ensure fio fio; then
    have_fio=1
    say "fio: $(fio --version)"
else
    say "fio: not installed (only iogauge's logs are parsed)"
fi
say "work: $work"
say ""

ops=20000
(cd "$work" && "$IOGAUGE" run --engine psync --size-mean 4K --size-cv 0 --read-frac 0.7 --seq-frac 0 \
    --unique-bytes 64M --ops $ops --dir "$work" -q \
    --write-lat-log ig --write-bw-log ig --write-iops-log ig)
(cd "$work" && "$IOGAUGE" run --engine psync --size-mean 4K --size-cv 0 --read-frac 0.7 --seq-frac 0 \
    --unique-bytes 64M --duration 1s --dir "$work" -q \
    --write-lat-log igw --write-bw-log igw --write-iops-log igw --log-avg-msec 100)
if ((have_fio)); then
    # invalidate=0: the file stays in the page cache, as iogauge (without --cold) leaves it
    common=(--ioengine=psync --rw=randrw --rwmixread=70 --bs=4k --size=64M --directory="$work" --invalidate=0
        --randrepeat=0 --output=/dev/null)
    (cd "$work" && fio --name=fl "${common[@]}" --number_ios=$ops \
        --write_lat_log=fio --write_bw_log=fio --write_iops_log=fio)
    (cd "$work" && fio --name=fw "${common[@]}" --runtime=1 --time_based \
        --write_lat_log=fiow --write_bw_log=fiow --write_iops_log=fiow --log_avg_msec=100)
fi

bad=0
say "mean: the plain mean of the values (awk); fiologparser.py: its default output, the values"
say "spread over the time since the line before and averaged over the run (for a log with a"
say "line per I/O, that adds the values of the I/Os of each ms; for windows, it is the mean)"
say ""
printf '%-22s %8s  %-30s %14s  %s\n' log lines "first line" mean "fiologparser.py"
for prefix in ig fio igw fiow; do
    for kind in lat clat slat bw iops; do
        f=$work/${prefix}_$kind.1.log
        [[ -f $f ]] || continue
        lines=$(wc -l <"$f")
        first=$(head -1 "$f")
        avg=$(awk -F', ' '{ s += $2 } END { if (NR) printf "%.1f", s / NR; else print "-" }' "$f")
        if ((lines == 0)); then
            mean="(empty: no submission step on a synchronous engine)"
        elif ! mean=$(python3 "$parser" "$f" 2>&1 | tail -1); then
            mean="DOES NOT PARSE: $mean"
            bad=1
        fi
        printf '%-22s %8s  %-30s %14s  %s\n' "${f##*/}" "$lines" "$first" "$avg" "$mean"
    done
done
say ""
say "per 100 ms window, read and write bandwidth summed (fiologparser.py -s -i 100):"
for prefix in igw fiow; do
    f=$work/${prefix}_bw.1.log
    [[ -f $f ]] || continue
    if sums=$(python3 "$parser" -s -i 100 "$f" 2>&1); then
        say "  ${f##*/} (KiB/s): $(head -11 <<<"$sums" | cut -d, -f2 | tr -d ' ' | paste -sd' ')"
    else
        say "  ${f##*/}: DOES NOT PARSE: $(tail -1 <<<"$sums")"
        bad=1
    fi
done
exit $bad

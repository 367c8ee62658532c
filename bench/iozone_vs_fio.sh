#!/usr/bin/env bash
# iozone_vs_fio.sh — `iogauge iozone` (IOzone 3.489's flags) against fio 3.x's
# equivalent jobs: IOzone's write, read, random read and random write tests on
# a 64 MiB file in 64 KiB records, on this machine, in one script run.
#
# What is compared, per repetition and variant:
#
#   iogauge  iogauge iozone --dir WORK -i 0 -i 1 -i 2 -s 64m -r 64k -+n [-I] --json FILE
#            One process, four timed passes (-+n drops rewrite and reread):
#            metrics.write, .read, .random_read, .random_write (IOzone's kB/s:
#            bytes / elapsed >> 10, i.e. KiB/s) and per pass
#            metrics.tests.<test>.ops.<read|write>.latency_ns.p50/p99.
#   fio      four jobs, one fio process each, on one file WORK/fio.tmp, all with
#            --ioengine=sync --bs=64k --size=64m --numjobs=1 --iodepth=1
#            --direct=0|1 --invalidate=0 --fadvise_hint=0 --scramble_buffers=0
#            --end_fsync=0 --fsync_on_close=0 --output-format=json:
#              write         --rw=write --fallocate=none --create_on_open=1,
#                            after `rm -f` of the file
#              read          --rw=read --allow_file_create=0
#              random_read   --rw=randread --allow_file_create=0
#              random_write  --rw=randwrite --allow_file_create=0
#            jobs[0].write.bw / jobs[0].read.bw (KiB/s) and
#            clat_ns.percentile["50.000000"] / ["99.000000"].
#
# What IOzone does in each pass, and how the fio jobs match it:
#   - The file is opened before the timer starts and fsynced and closed after
#     it stops (both untimed). fio has no untimed fsync, so the script runs
#     `sync FILE` (coreutils: fsync of the file) after every fio job, and a
#     plain `sync` before fio's write, as IOzone calls sync() before each file.
#   - write: a new file (IOzone unlinks the old one and creates it before the
#     timer), written front to back in 64 KiB write(2) calls, so the blocks are
#     allocated inside the timing. fio: the file is removed first and
#     create_on_open=1 opens it with O_CREAT when the job starts, so fio does
#     not lay it out (no ftruncate to 64 MiB, no fallocate; fallocate=none in
#     case) and the file grows with each write, as IOzone's does.
#   - read: the file just written, so page-cached (without -I), read front to
#     back with read(2). fio's default invalidate=1 would drop the file from
#     the page cache first and read it from the disk; invalidate=0 keeps it.
#   - random read, then random write: every 64 KiB record exactly once, in a
#     random order, on the existing file (cached), via lseek + read/write.
#     fio's default random map (norandommap=0) gives each block once too;
#     allow_file_create=0 makes fio fail rather than lay out a file of its own
#     should the write job have left none.
#   - Engine: IOzone 3.489's Linux build issues lseek(2) + read(2)/write(2)
#     for these tests, and iogauge's `sync` engine does the same. fio's `sync`
#     engine (not psync, whose pread/pwrite would save the lseek) issues the
#     same calls, and both skip the lseek when the file offset is already at
#     the record: the sequential passes make one call per record, the random
#     ones two (but for the odd record that follows the one before). So
#     iogauge's per-record lseek costs the two tools the same in throughput.
#   - fadvise_hint=0: fio otherwise calls posix_fadvise(SEQUENTIAL/RANDOM) on
#     the file, which IOzone does not. scramble_buffers=0: fio otherwise
#     rewrites a few bytes of its buffer before every write; IOzone writes
#     the same buffer over and over.
#   - Variants: buffered (the page cache: these are memory-copy figures,
#     20-50 ms per pass here) and O_DIRECT (iogauge -I, fio --direct=1): the
#     disk's figures, and the fairest comparison.
#
# Where the workloads still differ:
#   - fio's time base. fio keeps a job's runtime in whole milliseconds,
#     rounded up (backend.c update_runtime: (us + 999) / 1000), and its bw is
#     bytes * 1000 / runtime. At ~30 ms per buffered pass that alone can read
#     up to ~3 % low for fio. Its clock also runs from just before its I/O
#     loop (the file's open with create_on_open included) to after it.
#     iogauge's clock counts nanoseconds from the first operation to the last.
#     The script prints fio's runtime (ms) beside the figures.
#   - Latency. iogauge times the whole sync-engine call, lseek included; fio's
#     clat (and lat) start after its prep step, which is where the sync
#     engine's lseek happens. So in the random passes iogauge's latencies
#     include one lseek(2) that fio's do not; the sequential passes have none.
#   - The random order: IOzone's MT19937-64 permutation against fio's
#     tausworthe generator with its random map. Each record once in both, in
#     different orders (it matters little in the page cache).
#   - IOzone's read test first reads record 0 untimed and seeks back (iogauge
#     does it through a second descriptor); fio does not.
#   - iogauge runs the four passes in one process; fio starts a process per
#     job (untimed). Each tool's file is removed at the end of its sequence
#     (IOzone removes its file unless -w), so neither leaves dirty pages or
#     freed blocks to the other beyond what the next `sync` flushes.
#
# Noise control: within each repetition and variant iogauge and fio run back
# to back, and which one goes first alternates between repetitions (iogauge
# in odd ones). Figures are medians over REPS; ratios are iogauge/fio. A
# workload is "same" when the ratio of the medians is within 10 %, else
# "DIFFERS", with a hint. It is a report, not a test: the exit status is 0
# whatever the verdicts. The output goes to stdout only (save it as
# bench/results-iozone_vs_fio.txt).
#
# Environment (all optional):
#   DIR      where to put the work directory (default: the current directory).
#            The script makes its own iozone_vs_fio.XXXXXX directory in there
#            (both tools' files go there, ~128 MiB at most) and removes only
#            that (and DIR itself if the script created it).
#   REPS     repetitions (default 7: a buffered pass lasts 20-50 ms and is noisy)
#   DIRECT   which variants: unset or "both" (default) buffered and O_DIRECT;
#            0 buffered only; 1 O_DIRECT only
#   IOGAUGE  the iogauge binary, with the `iozone` subcommand (default:
#            `cargo build --release` in this repo, with CARGO_TARGET_DIR,
#            default /tmp/bench-target)
#   SIZE     the file size, in MiB with an m (default 64m); smaller only to
#            check the script itself
#
# Needs fio (Debian's package is installed with apt-get when run as root and
# it is missing), coreutils' sync with file arguments, and jq or python3.
set -euo pipefail

REPS=${REPS:-7}
DIRECT=${DIRECT:-both}
SIZE=${SIZE:-64m}
RECORD=64k
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
[[ $SIZE =~ ^[0-9]+[mM]$ && $((10#${SIZE%[mM]})) -gt 0 ]] || die "SIZE must be a whole number of MiB with an m, e.g. 64m"
SIZE=$((10#${SIZE%[mM]}))m
RECORDS=$((${SIZE%m} * 1024 / 64)) # 64 KiB records in the file
case $DIRECT in
    both) variants=(buffered direct) ;;
    0) variants=(buffered) ;;
    1) variants=(direct) ;;
    *) die "DIRECT must be 'both', 0 (buffered only) or 1 (O_DIRECT only)" ;;
esac
tests=(write read random_read random_write)
declare -A op=([write]=write [read]=read [random_read]=read [random_write]=write)
declare -A fio_rw=([write]=write [read]=read [random_read]=randread [random_write]=randwrite)

# ---------------------------------------------------------------- tools
ensure fio fio || die "fio is not installed (apt-get install fio)"
json_reader
iogauge_binary
if ! help_out=$("$IOGAUGE" iozone --help 2>&1); then
    die "'$IOGAUGE iozone --help' failed: this iogauge has no iozone subcommand (yet?). It said: $(printf '%s' "$help_out" | head -n 3 | tr '\n' ' ')"
fi

# ---------------------------------------------------------------- work directory
make_workdir iozone_vs_fio
# fio splits --filename at ':' (a list of files)
[[ $WORK != *:* ]] || die "the work directory $WORK has a ':' in its path, which fio reads as a list of files; pick another DIR"
FIOFILE=$WORK/fio.tmp

# ---------------------------------------------------------------- arithmetic
int() { awk -v a="$1" 'BEGIN {printf "%.0f", a}'; }
# med V...: the median of the numbers among V (empty or missing ones left out), "-" if none
med() {
    local nums=() x
    for x in "$@"; do [[ $x =~ ^[0-9.]+([eE][-+]?[0-9]+)?$ ]] && nums+=("$x"); done
    if ((${#nums[@]})); then median "${nums[@]}"; else echo -; fi
}
# int0 V: V rounded to a whole number, "-" for a missing value
int0() { if [[ $1 == - || -z $1 ]]; then echo -; else int "$1"; fi; }
# us NS: nanoseconds as microseconds with one decimal, "-" for a missing value
us() { if [[ $1 == - || -z $1 ]]; then echo -; else awk -v a="$1" 'BEGIN {printf "%.1f", a / 1000}'; fi; }
# spread V...: (max - min) / median, in %
spread() {
    local m
    m=$(med "$@")
    [[ $m == - ]] && { echo -; return; }
    printf '%s\n' "$@" | grep -E '^[0-9.]+([eE][-+]?[0-9]+)?$' | sort -g | awk -v m="$m" 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f", (hi - lo) / m * 100}'
}
# spread_pct V...: spread with a % sign, "-" when there is none
spread_pct() {
    local x
    x=$(spread "$@")
    if [[ $x == - ]]; then echo -; else echo "$x%"; fi
}
within10() { awk -v r="$1" 'BEGIN {print (r != "n/a" && r >= 0.9 && r <= 1.1) ? "same" : "DIFFERS"}'; }

# ---------------------------------------------------------------- header
vlabel() { [[ $1 == direct ]] && echo "O_DIRECT (iogauge -I, fio --direct=1): the disk" || echo "buffered: through the page cache"; }
load() { say "$1: load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
say "iogauge iozone vs fio — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
say_iogauge
say "fio: $(fio --version)   JSON via $JSON"
say "work dir: $WORK ($(findmnt -n -o FSTYPE,SOURCE,OPTIONS -T "$WORK" | awk '{print $1 " on " $2 ", " $3}'))"
say "REPS=$REPS, file $SIZE, records $RECORD ($RECORDS per pass), variants: ${variants[*]}"
say "iogauge: $IOGAUGE iozone --dir $WORK -i 0 -i 1 -i 2 -s $SIZE -r $RECORD -+n [-I] --json FILE"
say "fio:     sync; rm -f $FIOFILE; then four jobs, each followed by an untimed \`sync $FIOFILE\`:"
say "         fio --name=TEST --filename=$FIOFILE --ioengine=sync --rw=RW --bs=$RECORD --size=$SIZE"
say "             --numjobs=1 --iodepth=1 --direct=0|1 --invalidate=0 --fadvise_hint=0 --scramble_buffers=0"
say "             --end_fsync=0 --fsync_on_close=0 --output-format=json"
say "             write: --rw=write --fallocate=none --create_on_open=1; read, random_read, random_write:"
say "             --rw=read|randread|randwrite --allow_file_create=0; then rm -f $FIOFILE"
load "before"
say ""

# ---------------------------------------------------------------- the runs
# iog_run VARIANT REP
iog_run() {
    local v=$1 r=$2 tag=$WORK/iog.$1.$2 flags=()
    [[ $v == direct ]] && flags=(-I)
    if ! "$IOGAUGE" iozone --dir "$WORK" -i 0 -i 1 -i 2 -s "$SIZE" -r "$RECORD" -+n "${flags[@]}" \
        --json "$tag.json" >"$tag.out" 2>&1 </dev/null; then
        say "error: iogauge iozone ($v, rep $r) failed; its last lines:"
        tail -n 8 "$tag.out" || true
        die "iogauge iozone failed"
    fi
    [[ -s $tag.json ]] || die "iogauge iozone ($v, rep $r) wrote no JSON to $tag.json"
    leftover=$(find "$WORK" -maxdepth 1 -type f ! -name '*.json' ! -name '*.out' ! -name '*.err' -print)
    if [[ -n $leftover ]]; then
        say "warning: iogauge left files in $WORK: $leftover (removed)"
        printf '%s\n' "$leftover" | while read -r f; do rm -f -- "$f"; done
    fi
}

# fio_job VARIANT REP TEST EXTRA...: one job, then the untimed fsync of the file
fio_job() {
    local v=$1 r=$2 t=$3 d=0 tag
    shift 3
    tag=$WORK/fio.$v.$r.$t
    [[ $v == direct ]] && d=1
    if ! fio --name="$t" --filename="$FIOFILE" --ioengine=sync --rw="${fio_rw[$t]}" --bs="$RECORD" \
        --size="$SIZE" --numjobs=1 --iodepth=1 --direct="$d" --invalidate=0 --fadvise_hint=0 \
        --scramble_buffers=0 --end_fsync=0 --fsync_on_close=0 "$@" \
        --output-format=json --output="$tag.json" >"$tag.err" 2>&1 </dev/null; then
        say "error: fio $t ($v, rep $r) failed; its last lines:"
        tail -n 8 "$tag.err" || true
        die "fio failed"
    fi
    sync -- "$FIOFILE" # IOzone's untimed fsync (and close) after each pass
}

# fio_run VARIANT REP: IOzone's sequence as four fio jobs
fio_run() {
    local size
    sync # IOzone: sync() before each file
    rm -f -- "$FIOFILE"
    fio_job "$1" "$2" write --fallocate=none --create_on_open=1
    size=$(stat -c %s -- "$FIOFILE")
    ((size == ${SIZE%m} * 1048576)) || die "fio's write job left a file of $size bytes, not $SIZE"
    fio_job "$1" "$2" read --allow_file_create=0
    fio_job "$1" "$2" random_read --allow_file_create=0
    fio_job "$1" "$2" random_write --allow_file_create=0
    rm -f -- "$FIOFILE" # IOzone removes its file at the end (no -w)
}

declare -a first
for ((r = 1; r <= REPS; r++)); do
    if ((r % 2)); then first[r]=iogauge; else first[r]=fio; fi
    for v in "${variants[@]}"; do
        say "rep $r/$REPS, $v (${first[r]} first) ..."
        if [[ ${first[r]} == iogauge ]]; then iog_run "$v" "$r"; fio_run "$v" "$r"; else fio_run "$v" "$r"; iog_run "$v" "$r"; fi
    done
done
load "after"
say ""

# ---------------------------------------------------------------- extract
# keys: VARIANT.TEST.REP
declare -A I_BW F_BW I_P50 F_P50 I_P99 F_P99 F_RT
for v in "${variants[@]}"; do
    for ((r = 1; r <= REPS; r++)); do
        ij=$WORK/iog.$v.$r.json
        for t in "${tests[@]}"; do
            k=$v.$t.$r o=${op[$t]} fj=$WORK/fio.$v.$r.$t.json
            I_BW[$k]=$(jget "$ij" ".metrics.$t")
            I_P50[$k]=$(jget "$ij" ".metrics.tests.$t.ops.$o.latency_ns.p50")
            I_P99[$k]=$(jget "$ij" ".metrics.tests.$t.ops.$o.latency_ns.p99")
            F_BW[$k]=$(jget "$fj" ".jobs[0].$o.bw")
            F_P50[$k]=$(jget "$fj" ".jobs[0].$o.clat_ns.percentile[\"50.000000\"]")
            F_P99[$k]=$(jget "$fj" ".jobs[0].$o.clat_ns.percentile[\"99.000000\"]")
            F_RT[$k]=$(jget "$fj" ".jobs[0].$o.runtime")
            [[ -n ${I_BW[$k]} ]] || say "warning: no metrics.$t in $ij"
            n=$(jget "$fj" ".jobs[0].$o.total_ios")
            [[ $n == "$RECORDS" ]] || say "warning: fio $t ($v, rep $r) did $n I/Os, not $RECORDS"
        done
    done
done

# ---------------------------------------------------------------- report
# hint VARIANT TEST RATIO: why a workload may differ
hint() {
    local v=$1 t=$2 rt=$3 h
    h=$(awk -v r="$rt" 'BEGIN {if (r > 1) printf "iogauge %.0f %% faster", (r - 1) * 100; else printf "iogauge %.0f %% slower", (1 - r) * 100}')
    case $v.$t in
        buffered.write) h+="; both files new (allocation in the timing): is other writeback running? fio's write grows the file with create_on_open" ;;
        buffered.read) h+="; was fio's file cached? (invalidate=0; a disk-like fio p50 says no)" ;;
        buffered.random_read) h+="; orders differ (MT19937-64 vs tausworthe); iogauge's latency includes the lseek" ;;
        buffered.random_write) h+="; overwrites of cached pages: writeback of the previous pass still running?" ;;
        direct.*) h+="; O_DIRECT: the disk's own variation, see the per-rep figures" ;;
    esac
    printf '%s' "$h"
}

n_same=0 n_all=0
for v in "${variants[@]}"; do
    say "=== $(vlabel "$v"): $SIZE file, $RECORD records ==="
    say "per repetition, KiB/s (iogauge | fio) and fio's runtime in ms:"
    printf '%-4s %-8s' rep first
    for t in "${tests[@]}"; do printf ' %30s' "$t"; done
    printf '\n'
    for ((r = 1; r <= REPS; r++)); do
        printf '%-4s %-8s' "$r" "${first[r]}"
        for t in "${tests[@]}"; do
            k=$v.$t.$r
            printf ' %10s | %-9s %4s ms' "${I_BW[$k]:--}" "${F_BW[$k]:--}" "${F_RT[$k]:--}"
        done
        printf '\n'
    done
    printf '%-13s' "spread"
    for t in "${tests[@]}"; do
        a=() b=()
        for ((r = 1; r <= REPS; r++)); do a+=("${I_BW[$v.$t.$r]}"); b+=("${F_BW[$v.$t.$r]}"); done
        printf ' %10s | %-9s %7s' "$(spread_pct "${a[@]}")" "$(spread_pct "${b[@]}")" ""
    done
    printf '\n'
    say "(spread: (max - min) / median over the repetitions)"
    say ""
    say "medians over $REPS repetitions; latencies in µs (iogauge: the whole call, lseek included;"
    say "fio: clat, which starts after the sync engine's lseek); ratio = iogauge / fio"
    printf '%-13s %12s %12s %7s %9s %9s %9s %9s %7s  %s\n' workload "iog KiB/s" "fio KiB/s" ratio \
        "iog p50" "fio p50" "iog p99" "fio p99" "fio ms" verdict
    for t in "${tests[@]}"; do
        ib=() fb=() i5=() f5=() i9=() f9=() rt=()
        for ((r = 1; r <= REPS; r++)); do
            k=$v.$t.$r
            ib+=("${I_BW[$k]}") fb+=("${F_BW[$k]}") i5+=("${I_P50[$k]}") f5+=("${F_P50[$k]}")
            i9+=("${I_P99[$k]}") f9+=("${F_P99[$k]}") rt+=("${F_RT[$k]}")
        done
        m_ib=$(med "${ib[@]}") m_fb=$(med "${fb[@]}") m_rt=$(med "${rt[@]}")
        if [[ $m_ib == - || $m_fb == - ]]; then
            rto=n/a verdict="no figure"
        else
            rto=$(ratio "$m_ib" "$m_fb")
            verdict=$(within10 "$rto")
        fi
        n_all=$((n_all + 1))
        if [[ $verdict == same ]]; then
            n_same=$((n_same + 1))
        elif [[ $verdict == DIFFERS ]]; then
            verdict+=" ($(hint "$v" "$t" "$rto"))"
            # fio's whole-millisecond runtime, rounded up: worth saying when the pass was short
            if [[ $m_rt != - ]] && awk -v m="$m_rt" 'BEGIN {exit !(m < 100)}'; then
                verdict+="; fio's runtime is whole ms rounded up: at $(int "$m_rt") ms up to $(awk -v m="$m_rt" 'BEGIN {printf "%.1f", 100 / m}') % low"
            fi
            sb=$(spread "${ib[@]}") sf=$(spread "${fb[@]}")
            if awk -v a="$sb" -v b="$sf" 'BEGIN {exit !((a != "-" && a > 20) || (b != "-" && b > 20))}'; then
                verdict+="; noisy (spread $sb % / $sf %): more REPS"
            fi
        fi
        printf '%-13s %12s %12s %7s %9s %9s %9s %9s %7s  %s\n' "$t" "$(int0 "$m_ib")" "$(int0 "$m_fb")" "$rto" "$(us "$(med "${i5[@]}")")" "$(us "$(med "${f5[@]}")")" \
            "$(us "$(med "${i9[@]}")")" "$(us "$(med "${f9[@]}")")" "$m_rt" "$verdict"
    done
    say ""
done
say "=> $n_same of $n_all workloads the same (iogauge/fio within 10 %)"
exit 0

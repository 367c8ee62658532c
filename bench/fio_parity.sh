#!/usr/bin/env bash
# fio_parity.sh — iogauge against fio, and against fio's peak tool t/io_uring,
# on identical workloads, in one run: the queue-depth engines (io_uring,
# libaio) and the sync ones (null, psync) side by side.
#
# Rows (ROWS picks a subset by these names):
#   null                  the null engine, 4 KiB "random reads" (no I/O)
#   psync-1, psync-2      4 KiB random reads of the page-cached file, psync,
#                         1 and 2 workers
#   uring-buf-D           io_uring, buffered (page-cached), 4 KiB random reads
#                         at depth D = 1, 8, 32, 128
#   uring-direct-D        the same with O_DIRECT
#   libaio-direct-32      libaio, O_DIRECT, 4 KiB random reads at depth 32
#   seqread-1m, seqwrite-1m
#                         1 MiB sequential reads / writes, O_DIRECT, io_uring,
#                         depth 8
#   tiouring-direct, tiouring-buf
#                         fio's t/io_uring (depth 128, batches of 32,
#                         registered buffers and files, O_NOATIME, no
#                         polling) against iogauge with the same options,
#                         both on one core (taskset), O_DIRECT and buffered
#
# One file of SIZE is laid out once (1 MiB writes and an fsync, as iogauge
# lays out its own) and read by both tools; buffered rows `cat` it into the
# page cache before each run. (An iogauge without `run --file` lays out its
# own file in each run instead, the same way; the header says so.) Within a
# repetition every row runs both tools, one after the other, and which tool
# goes first swaps between repetitions. Figures are medians over REPS.
#
# Latency: iogauge's total (issued to reaped, `ops.KIND.latency_ns`) against
# fio's `lat_ns` (start to completion); for the sync engines (null, psync)
# against fio's `clat_ns`, the call itself, as vs_fio.sh does. t/io_uring
# reports IOPS only: the median of its per-second figures, the first second
# left out. Rows that need an iogauge flag the binary lacks print
# "n/a: iogauge has no --X" and are not run.
#
# --sweep adds "the device's best": fio (io_uring, O_DIRECT) and t/io_uring
# (O_DIRECT) at depths 1 to 256; the best median IOPS of either at any depth,
# against iogauge's uring-direct-32 row (the goal is 0.97 of it).
#
# Usage: bash bench/fio_parity.sh [--sweep] [--json PATH]
#
# Environment (all optional):
#   R        seconds per run (default 5)
#   REPS     repetitions (default 3)
#   SIZE     the file (default 1g; fio's size syntax, powers of 1024)
#   DIR      where the script makes its own fio_parity.XXXXXX work directory
#            (default /var/tmp); it removes only that at exit
#   IOGAUGE  the iogauge binary (default: `cargo build --release` of this tree)
#   ROWS     space-separated row names (default: all)
#   CPU      the core of the one-core rows (default: the last one)
#   FIO_SRC  a directory to keep fio's source and t/io_uring in between runs;
#            without it they are built in the work directory and removed
#
# t/io_uring comes from the Debian source package of the installed fio
# (apt-get source through the machine's own mirrors, as deb-src), built with
# `make t/io_uring`. Needs fio, python3, taskset; dpkg-dev, gcc and make for
# t/io_uring. A report, not a test: the exit status is 0 whatever the figures.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

SWEEP='' JSON_OUT=''
while (($#)); do
    case $1 in
    --sweep) SWEEP=yes ;;
    --json)
        (($# > 1)) || die "--json needs a path"
        JSON_OUT=$2
        shift
        ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *) die "unknown argument '$1' (try --help)" ;;
    esac
    shift
done

R=${R:-5}
REPS=${REPS:-3}
SIZE=${SIZE:-1g}
DIR=${DIR:-/var/tmp}
[[ $R =~ ^[0-9]+$ && $R -gt 0 ]] || die "R must be a whole number of seconds > 0"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
[[ $SIZE =~ ^[0-9]+[kKmMgGtT]?$ ]] || die "SIZE must be a number with an optional k, m, g or t, e.g. 1g"
CPU=${CPU:-$(($(nproc) - 1))}
[[ $CPU =~ ^[0-9]+$ && $CPU -lt $(nproc) ]] || die "CPU must be a core number below $(nproc)"
if [[ -n $JSON_OUT ]]; then
    json_dir=$(cd "$(dirname -- "$JSON_OUT")" 2>/dev/null && pwd) ||
        die "--json: the directory of $JSON_OUT does not exist"
    JSON_OUT=$json_dir/${JSON_OUT##*/}
fi

ALL_ROWS="null psync-1 psync-2 uring-buf-1 uring-buf-8 uring-buf-32 uring-buf-128 \
uring-direct-1 uring-direct-8 uring-direct-32 uring-direct-128 libaio-direct-32 \
seqread-1m seqwrite-1m tiouring-direct tiouring-buf"
ROWS=${ROWS:-$ALL_ROWS}
for row in $ROWS; do
    [[ " $ALL_ROWS " == *" $row "* ]] || die "ROWS: no row '$row' (rows: $ALL_ROWS)"
done
SWEEP_DEPTHS="1 2 4 8 16 32 64 128 256"

# ---------------------------------------------------------------- tools
ensure fio fio || die "fio is not installed (apt-get install fio)"
command -v python3 >/dev/null || die "python3 is needed to read the results"
command -v taskset >/dev/null || die "taskset is not installed (apt-get install util-linux)"
iogauge_binary
"$IOGAUGE" run --help >/dev/null 2>&1 || die "$IOGAUGE run --help failed: is it an iogauge binary?"
# The long flags `iogauge run` has: those that start a line of its help
# (its help text may name a flag that does not exist yet).
IOG_FLAGS=" $("$IOGAUGE" run --help | grep -oE '^ +(-[[:alnum:]], )?--[a-z][a-z0-9-]*' |
    grep -oE -- '--[a-z][a-z0-9-]*' | tr '\n' ' ') "
has_flag() { [[ $IOG_FLAGS == *" $1 "* ]]; }

make_workdir fio_parity
mkdir "$WORK/res"
F=$WORK/data

# ---------------------------------------------------------------- the rows
RAND=(--size-mean 4k --size-cv 0 --read-frac 1 --seq-frac 0 --align 4k)
FIO_COMMON=(--size="$SIZE" --time_based --runtime="$R" --lat_percentiles=1 --slat_percentiles=1
    --percentile_list=50:99:99.9 --output-format=json)

# row NAME: sets what a row runs.
#   IOG      iogauge's `run` arguments (the file, duration and output are added)
#   PEER     fio or t/io_uring;  PEER_ARGS its arguments (for fio: besides FIO_COMMON)
#   LAT      lat or clat: fio's latency to compare with iogauge's total
#   OP       read or write;  CACHED 1 when the file must be in the page cache
#   PIN      1 when both tools run on core CPU only
row() {
    local d=${1##*-}
    IOG=() PEER=fio PEER_ARGS=() LAT=lat OP=read CACHED=0 PIN=0
    case $1 in
    null)
        IOG=(--engine null "${RAND[@]}")
        PEER_ARGS=(--name=n --ioengine=null --rw=randread --bs=4k)
        LAT=clat
        ;;
    psync-*)
        IOG=(--engine psync -p "$d" "${RAND[@]}")
        PEER_ARGS=(--name=p --ioengine=psync --rw=randread --bs=4k --filename="$F" --invalidate=0
            --numjobs="$d" --group_reporting)
        LAT=clat CACHED=1
        ;;
    uring-buf-*)
        IOG=(--engine io_uring --iodepth "$d" "${RAND[@]}")
        PEER_ARGS=(--name=u --ioengine=io_uring --rw=randread --bs=4k --filename="$F" --invalidate=0
            --direct=0 --iodepth="$d")
        CACHED=1
        ;;
    uring-direct-*)
        IOG=(--engine io_uring --direct --iodepth "$d" "${RAND[@]}")
        PEER_ARGS=(--name=u --ioengine=io_uring --rw=randread --bs=4k --filename="$F" --direct=1
            --iodepth="$d")
        ;;
    libaio-direct-32)
        IOG=(--engine libaio --direct --iodepth 32 "${RAND[@]}")
        PEER_ARGS=(--name=a --ioengine=libaio --rw=randread --bs=4k --filename="$F" --direct=1
            --iodepth=32)
        ;;
    seqread-1m | seqwrite-1m)
        local rf=1 rw=read
        [[ $1 == seqwrite-1m ]] && rf=0 rw=write OP=write
        IOG=(--engine io_uring --direct --iodepth 8 --size-mean 1M --size-cv 0 --seq-frac 1
            --read-frac "$rf")
        # the shared file is the script's own: iogauge may write it
        [[ $rw == write ]] && has_flag --file && IOG+=(--allow-write)
        PEER_ARGS=(--name=s --ioengine=io_uring --rw="$rw" --bs=1m --filename="$F" --direct=1 --iodepth=8)
        ;;
    tiouring-direct | tiouring-buf)
        local direct=(--direct) o=1
        [[ $1 == tiouring-buf ]] && direct=() o=0 CACHED=1
        IOG=(--engine io_uring --iodepth 128 --iodepth-batch 32 --iodepth-batch-complete 32
            --fixedbufs --registerfiles --noatime "${direct[@]}" "${RAND[@]}")
        PEER=t/io_uring PIN=1
        PEER_ARGS=(-d128 -s32 -c32 -b4096 -p0 -B1 -F1 -n1 -R1 -X1 -O"$o")
        ;;
    esac
}

# missing_flags: the flags of IOG that `iogauge run` lacks, space-separated.
missing_flags() {
    local a m=()
    for a in "${IOG[@]}"; do [[ $a == --* ]] && ! has_flag "$a" && m+=("$a"); done
    echo "${m[*]}"
}

# iogauge reads the shared file when it can; otherwise it lays out its own.
if has_flag --file; then
    IOG_FILE=(--file "$F" --unique-bytes "$SIZE")
    FILE_NOTE="both tools read $F"
else
    IOG_FILE=(--unique-bytes "$SIZE")
    FILE_NOTE="iogauge has no 'run --file': it lays out its own $SIZE file in each run (1 MiB writes + fsync, as fio's)"
fi

# Each row's status: empty when it runs, else why not ("n/a: ...").
declare -A STATUS
need_tiouring=$SWEEP
for row in $ROWS; do
    row "$row"
    lacks=$(missing_flags)
    if [[ -n $lacks ]]; then
        STATUS[$row]="n/a: iogauge has no ${lacks// /, }"
    elif [[ $PEER == t/io_uring ]]; then
        need_tiouring=yes
    fi
done

# ---------------------------------------------------------------- t/io_uring
# build_tiouring: sets TIOURING to fio's t/io_uring of the installed fio's
# version, built from its Debian source package; or TIOURING_WHY to the reason not.
build_tiouring() {
    local s=${FIO_SRC:-$WORK/fio-src} version up list
    version=$(dpkg-query -W -f='${Version}' fio 2>/dev/null) || {
        TIOURING_WHY="fio is not a Debian package here"
        return
    }
    up=${version#*:} up=${up%-*} # the upstream version: dpkg-source unpacks into fio-$up
    mkdir -p "$s/lists/partial" || {
        TIOURING_WHY="cannot make $s"
        return
    }
    [[ -x $s/fio-$up/t/io_uring ]] && TIOURING=$s/fio-$up/t/io_uring && return
    can_apt || {
        TIOURING_WHY="building t/io_uring needs root and apt-get"
        return
    }
    if ! { ensure dpkg-source dpkg-dev && ensure gcc gcc && ensure make make; }; then
        TIOURING_WHY="dpkg-dev, gcc or make is missing"
        return
    fi
    # The machine's own mirrors, as deb-src, in a list of the script's own.
    if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
        list=$s/src.sources
        sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$list"
    else
        list=$s/src.list
        sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$list"
    fi
    # (the download runs as root: apt's own user cannot reach a work directory of mode 700)
    local apt=(-o Dir::Etc::SourceList="$list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$s/lists"
        -o APT::Sandbox::User=root)
    say "building t/io_uring from Debian's source package fio=$version in $s ..."
    if ! apt-get "${apt[@]}" update -qq >"$s/build.log" 2>&1 ||
        ! (cd "$s" && apt-get "${apt[@]}" source -qq "fio=$version") >>"$s/build.log" 2>&1; then
        TIOURING_WHY="apt-get source fio=$version failed ($(tail -1 "$s/build.log"))"
        return
    fi
    # configure builds with -march=native
    if ! (cd "$s/fio-$up" && ./configure && make -j"$(nproc)" t/io_uring) >>"$s/build.log" 2>&1; then
        TIOURING_WHY="make t/io_uring failed ($(tail -1 "$s/build.log"))"
        return
    fi
    TIOURING=$s/fio-$up/t/io_uring
}
TIOURING='' TIOURING_WHY=''
if [[ -n $need_tiouring ]]; then
    build_tiouring
    if [[ -z $TIOURING ]]; then
        say "note: no t/io_uring: $TIOURING_WHY"
        for row in $ROWS; do
            row "$row"
            [[ $PEER == t/io_uring && -z ${STATUS[$row]:-} ]] && STATUS[$row]="n/a: $TIOURING_WHY"
        done
        [[ -n $SWEEP ]] && say "note: the sweep runs fio only"
    fi
fi

# ---------------------------------------------------------------- header
# dev_queue DIR: the block device under DIR, its scheduler and io_poll.
dev_queue() {
    local dev sys
    dev=$(stat -c '%Hd:%Ld' "$1")
    sys=/sys/dev/block/$dev
    [[ -e $sys ]] || {
        echo "no block device (device $dev)"
        return
    }
    sys=$(readlink -f "$sys")
    [[ -f $sys/partition ]] && sys=$(dirname "$sys")
    printf '%s (%s, %s): scheduler %s, io_poll %s\n' "${sys##*/}" "$dev" "$(findmnt -no FSTYPE -T "$1")" \
        "$(xargs <"$sys/queue/scheduler" 2>/dev/null || echo '?')" "$(cat "$sys/queue/io_poll" 2>/dev/null || echo '?')"
}
{
    say "iogauge vs fio, parity — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    say "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    say "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    say_iogauge
    say "fio: $(fio --version)$([[ -n $TIOURING ]] && echo ", t/io_uring: $TIOURING")"
    say "device: $(dev_queue "$WORK")"
    say "work dir $WORK, SIZE=$SIZE, R=${R}s, REPS=$REPS, one-core rows on CPU $CPU"
    say "file: $FILE_NOTE"
} | tee "$WORK/header.txt"
say ""

# ---------------------------------------------------------------- the runs
say "laying out $F ($SIZE: 1 MiB writes + fsync) ..."
fio --name=layout --ioengine=psync --rw=write --bs=1M --size="$SIZE" --filename="$F" --end_fsync=1 \
    --output-format=json --output="$WORK/layout.json" >/dev/null

# out ROW TOOL REP: the result file's stem
out() { echo "$WORK/res/$1.${2//\//_}.$3"; }

# commands: IOG_CMD and PEER_CMD, the row's two command lines (without
# their output files).
commands() {
    local pin=()
    ((PIN)) && pin=(taskset -c "$CPU")
    local where=(--dir "$WORK")
    [[ ${IOG_FILE[0]} == --file ]] && where=()
    IOG_CMD=("${pin[@]}" "$IOGAUGE" run "${IOG[@]}" "${IOG_FILE[@]}" --duration "$R" "${where[@]}" -q)
    if [[ $PEER == fio ]]; then
        PEER_CMD=(fio "${PEER_ARGS[@]}" "${FIO_COMMON[@]}")
    else # one second more: its first line, a partial second, is left out
        PEER_CMD=("${pin[@]}" "$TIOURING" "${PEER_ARGS[@]}" -r $((R + 1)) "$F")
    fi
}

# A run that takes this long has hung (iogauge's runs include laying out SIZE).
LIMIT=$((3 * R + 300))

# run_tool ROW TOOL REP: one run; its output in `out`.json (.txt for
# t/io_uring), or its error in `out`.err.
run_tool() {
    local o rc=0
    o=$(out "$1" "$2" "$3")
    commands
    ((CACHED)) && cat "$F" >/dev/null
    # --foreground: Ctrl-C still reaches the tool
    local limit=(timeout --foreground -k 10 "$LIMIT")
    case $2 in
    iogauge) "${limit[@]}" "${IOG_CMD[@]}" --json "$o.json" 2>"$o.log" || rc=$? ;;
    # the null engine opens no file, but fio may make its name: in WORK
    fio) (cd "$WORK" && "${limit[@]}" "${PEER_CMD[@]}" --output="$o.json") >"$o.log" 2>&1 || rc=$? ;;
    t/io_uring) "${limit[@]}" "${PEER_CMD[@]}" >"$o.txt" 2>"$o.log" || rc=$? ;;
    esac
    ((rc == 130)) && exit 130 # the tool stopped on Ctrl-C: so does the script
    if ((rc == 124)); then
        echo "timed out after $LIMIT s" >"$o.err"
    elif ((rc)); then
        echo "exit $rc: $(grep -v '^$' "$o.log" | tail -1)" >"$o.err"
    fi
    if ((rc)); then
        rm -f "$o.json" "$o.txt"
        say "  $1 $2: failed, $(cat "$o.err")"
    fi
    return 0
}

for ((r = 1; r <= REPS; r++)); do
    if ((r % 2)); then first=iogauge; else first=peer; fi
    say "rep $r/$REPS ($first first)"
    for row in $ROWS; do
        [[ -n ${STATUS[$row]:-} ]] && continue
        row "$row"
        say "  $row"
        if [[ $first == iogauge ]]; then
            run_tool "$row" iogauge "$r"
            run_tool "$row" "$PEER" "$r"
        else
            run_tool "$row" "$PEER" "$r"
            run_tool "$row" iogauge "$r"
        fi
    done
    [[ -z $SWEEP ]] && continue
    for d in $SWEEP_DEPTHS; do
        say "  sweep depth $d"
        b=$((d < 32 ? d : 32))
        IOG=() PEER=fio PEER_ARGS=(--name=u --ioengine=io_uring --rw=randread --bs=4k --filename="$F" --direct=1
            --iodepth="$d") CACHED=0 PIN=0
        run_tool "sweep-$d" fio "$r"
        if [[ -n $TIOURING ]]; then
            PEER=t/io_uring PEER_ARGS=(-d"$d" -s"$b" -c"$b" -b4096 -p0 -B1 -F1 -n1 -R1 -X1 -O1) PIN=1
            run_tool "sweep-$d" t/io_uring "$r"
        fi
    done
done
say ""

# ---------------------------------------------------------------- report
# What each row was, for the summary: name, peer, fio latency, op, status,
# and the two command lines.
for row in $ROWS; do
    row "$row"
    commands
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$row" "$PEER" "$LAT" "$OP" "${STATUS[$row]:-}" \
        "${IOG_CMD[*]}" "${PEER_CMD[*]}"
done >"$WORK/rows.tsv"
say "end: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$WORK/header.txt"
args=("$WORK" --reps "$REPS")
[[ -n $SWEEP ]] && args+=(--sweep "$SWEEP_DEPTHS")
[[ -n $JSON_OUT ]] && args+=(--json "$JSON_OUT")
python3 "$here/fio_parity.py" "${args[@]}"
exit 0

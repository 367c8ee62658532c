#!/usr/bin/env bash
# bonnie_vs_ref.sh — `iogauge bonnie --flavor bonnie++` against Debian's
# bonnie++ 2.00a on the same directory, file size, seek count, seed and
# small-file count, on this machine, in one script run. Beside them, the
# original Bonnie (`iogauge bonnie`, its default flavor) on the same file size.
#
# Each repetition makes three kinds of run, and both bonnie++s get the same
# command line in each (bonnie++ also gets -u root; iogauge also gets
# --json FILE):
#
#   big file     -d DIR -s SIZE_MIB:8k:SEEKS -r RAM_MIB -n 0 -m bench -z SEED -q
#                per-char write, block write, rewrite, per-char read, block
#                read, SEEKS random seeks by 5 seekers, 8 KiB chunks; no
#                small-file tests.
#   small files  -d SMALLDIR -s 0 -n FILES -m bench -z SEED -q, and again with
#                -n FILES2: FILES × 1024 empty files in one directory, created,
#                stat'ed and deleted in order and in random order; no big file.
#   classic      `iogauge bonnie -d DIR -s SIZE_MIB -r RAM_MIB -m bench -z SEED
#                --json FILE`: 16 KiB chunks, stdio-like per-char I/O, 4000
#                seeks by 3 processes, no fsync.
#   page cache   -d DIR -s CACHE_MIB:8k:SEEKS -r CACHE_MIB/2 -n 0 -f -m bench
#                -z SEED -q, outside the memory group: a file the page cache
#                holds whole (the issue's -s 4g -r 2048 by default), so the
#                block tests and the seeks run at memory speed and what each
#                tool does around the I/O shows (for the seeks, the ticket
#                pipe and the freeing of the file); no per-char tests.
#   O_DIRECT     the big-file command with -f -D, in the memory group:
#                bonnie++ 2.00a's -D, O_DIRECT for the block write only (the
#                rewrite, block read and seeks go through the page cache);
#                -f, because 2.00a's per-char write fails under -D.
#
# Seeks. bonnie++ prints "+++++" instead of a figure for a test that took
# under 0.5 s. Its default 8192 seeks finish in under 0.5 s on this machine's
# virtio disk in both tools, so they gave no figure and no verdict. The
# big-file runs therefore ask for SEEKS seeks (default 65536, ~1.7 s here at
# ~40 000 seeks/s); both tools get the same -s SIZE:8k:SEEKS. The output
# prints how long the seek test lasted in each tool.
#
# Small files: a journaled ext4 of their own. /work here is ext4 *without a
# journal*. Without a journal, ext4's inode allocator skips inodes freed in
# the last 60 s (longer while their inode-table block is dirty) and scans past
# them from the start of the group on every create (recently_deleted(),
# find_inode_bit()): perf put 30-50 % of a slow run's CPU in that scan. The
# create rates then depend on what the run before freed, and both tools swung
# between a fast and a slow mode with the same command. With a journal the
# allocator does not do that. So the small-file runs happen on an ext4 made
# for the purpose: a sparse image file of SMALLFS_SIZE (default 4G) next to
# DIR, `mkfs.ext4 -q -F` (journal on, the default), loop-mounted
# (`mount -o loop`) at a temporary mount point; the tools work in a directory
# on it. The image is unmounted, its loop device detached and the image
# deleted at the end, also on an error or an interrupt. The mount options (and
# whether there is a journal) of both file systems are printed. If the image
# cannot be made or mounted (or SMALLFS_SIZE=0), the small-file runs use DIR,
# and the output says so; SMALL_PAUSE (seconds to wait before each small-file
# run, default 0) then helps: over 60 s lets the inodes the run before freed
# age out.
#
# Why two small-file series: FILES (default 16, the issue's -n 16) makes most
# of the six tests take under 0.5 s here (+++++ in both tools), which gives no
# verdict; FILES2 (default 128; 0 for none) gives real figures for the creates
# and deletes. The stat tests can stay +++++ at 128 (~500 000 stat/s here).
#
# The page cache (big-file runs). The file must be at least twice the page
# cache the run can use, or the read tests measure memory. This machine has
# far more RAM than disk space to spare, so the script bounds the page cache
# instead: it makes the cgroup v1 memory group
# /sys/fs/cgroup/memory/iogauge-bonnie-bench with memory.limit_in_bytes =
# MEM_LIMIT (default 512M) and runs the big-file and classic runs inside it
# (the subshell that execs the tool writes its own pid to cgroup.procs). The
# page cache a process faults in is charged to its memory group, so the tools
# see MEM_LIMIT of memory, page cache included. SIZE_MIB defaults to twice
# that, and -r is MEM_LIMIT in MiB (bonnie++ refuses a file smaller than twice
# -r). After each run the script prints the group's peak usage and how often
# it hit the limit, to show the bound held. If the group cannot be made, the
# output says so loudly: the big-file figures are then the page cache's
# unless SIZE_MIB is twice the RAM (-D is no way out: bonnie++ 2.00a's -D
# covers the block write only). The page-cache series runs outside the
# group on purpose; the small-file runs have no big file and run outside it
# too. The group is removed at the end.
#
# Noise control: before each run the script syncs and drops the page cache
# (echo 3 > /proc/sys/vm/drop_caches). Within each repetition bonnie++ and
# iogauge run back to back in each kind of run, and which one goes first
# alternates between repetitions; the classic Bonnie runs after the big-file
# pair. Figures are medians over REPS. The load average and /proc/pressure/io
# are printed before and after.
#
# What is compared: each tool's CSV line (bonnie++'s 50-field layout; for
# bonnie++ the last line starting with "1.98,"), field by field: the big-file
# fields from the big-file runs, the small-file fields from each small-file
# series. "+++++" means the test took under 0.5 s; it counts as faster than
# any figure when taking medians, and a test that is +++++ in either tool's
# median gets no verdict. Verdicts on the ratio iogauge/bonnie++ of the
# medians:
#   block write, rewrite, block read, seeks     within 15 % (0.85 … 1.15),
#                                               in each of the big-file, page
#                                               cache and O_DIRECT series
#   the six small-file tests, each series      within 20 % (0.80 … 1.20)
#   per-char write and read                    no verdict: printed beside.
# (iogauge's bonnie++ flavor issues the same 1-byte read(2)/write(2) calls;
# docs/bonnie.md explains the differences.) As context: the %CPU and worst
# latency from the CSV lines, and iogauge's per-op counts and latencies from
# its JSON. The classic Bonnie's figures (from its JSON, metrics.<test>.rate
# and cpu_percent) are printed beside, with no verdict: it is another program.
#
# It is a report, not a test: the exit status is 0 whatever the verdicts.
# The whole output also goes to RESULTS.
#
# Environment (all optional):
#   DIR          the directory of the big-file runs (default /work/bonnie-bench).
#                The script makes it if it is missing and then removes it at
#                the end; an existing DIR must be empty, and is left (empty).
#   REPS         repetitions (default 3)
#   MEM_LIMIT    the memory group's limit, with a K, M or G suffix (default 512M)
#   SIZE_MIB     the big file in MiB (default: twice MEM_LIMIT, 1024)
#   SEEKS        random seeks in the big-file runs (default 65536; bonnie++'s
#                own default, 8192, is +++++ here)
#   CACHE_MIB    the page-cache series' file in MiB (default 4096; 0: no such
#                series); it should be well under the free memory
#   ODIRECT      1 (default): the O_DIRECT series; 0: none
#   FILES        the first small-file series, in units of 1024 files (default 16)
#   FILES2       the second small-file series (default 128; 0: none)
#   SMALLFS_SIZE the small-file file system's image, with a K, M or G suffix
#                (default 4G; sparse); 0: run the small-file tests in DIR
#   SMALLFS_DIR  where the image goes (default: DIR's parent, /work)
#   SMALL_PAUSE  seconds to wait before each small-file run (default 0)
#   SEED         the seed of both tools' random numbers (default 12345)
#   IOGAUGE      the iogauge binary (default $repo/target/release/iogauge; the
#                script does not build it)
#   BONNIE       bonnie++ 2.00a (default /usr/sbin/bonnie++; Debian's package
#                bonnie++ is installed with apt-get when it is missing)
#   RESULTS      where the output is copied (default bench/results-bonnie_vs_ref.txt)
#
# Needs root (bonnie++ -u root, the memory group, drop_caches, mount), losetup
# and mkfs.ext4 (e2fsprogs), and jq or python3 to read iogauge's JSON (the
# per-op table needs jq). Takes ~8 minutes with the defaults on this machine's
# virtio disk (the page-cache series writes 4 GiB a run); longer on a slower
# one. For a verdict, run it on a quiet machine: the seeks' figures in
# particular swing with whatever else is running.
set -euo pipefail

REPS=${REPS:-3}
MEM_LIMIT=${MEM_LIMIT:-512M}
SEEKS=${SEEKS:-65536}
CACHE_MIB=${CACHE_MIB:-4096}
ODIRECT=${ODIRECT:-1}
FILES=${FILES:-16}
FILES2=${FILES2:-128}
SMALLFS_SIZE=${SMALLFS_SIZE:-4G}
SMALL_PAUSE=${SMALL_PAUSE:-0}
SEED=${SEED:-12345}
DIR=${DIR:-/work/bonnie-bench}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
RESULTS=${RESULTS:-$here/results-bonnie_vs_ref.txt}
CG=/sys/fs/cgroup/memory/iogauge-bonnie-bench

# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $(id -u) -eq 0 ]] || die "run as root (bonnie++ -u root, the memory cgroup, drop_caches, mount)"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
[[ $SEEKS =~ ^[0-9]+$ && $SEEKS -gt 0 ]] || die "SEEKS must be a whole number > 0"
[[ $CACHE_MIB =~ ^[0-9]+$ ]] || die "CACHE_MIB must be a whole number of MiB (0: no page-cache series)"
((CACHE_MIB == 0 || CACHE_MIB >= 2)) || die "CACHE_MIB must be at least 2 (bonnie++ -r is half of it)"
[[ $ODIRECT == [01] ]] || die "ODIRECT must be 0 or 1"
[[ $FILES =~ ^[0-9]+$ && $FILES -gt 0 ]] || die "FILES must be a whole number > 0"
[[ $FILES2 =~ ^[0-9]+$ ]] || die "FILES2 must be a whole number (0: no second series)"
[[ $SMALL_PAUSE =~ ^[0-9]+$ ]] || die "SMALL_PAUSE must be a whole number of seconds"
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be a whole number"
# mib SIZE: SIZE (with a K, M or G suffix) in MiB
mib() {
    case $1 in
        *[kK]) echo $((${1%[kK]} / 1024)) ;;
        *[mM]) echo "${1%[mM]}" ;;
        *[gG]) echo $((${1%[gG]} * 1024)) ;;
        *) return 1 ;;
    esac
}
MEM_MIB=$(mib "$MEM_LIMIT") || die "MEM_LIMIT must end in K, M or G (e.g. 512M)"
[[ $MEM_MIB =~ ^[0-9]+$ && $MEM_MIB -gt 0 ]] || die "MEM_LIMIT=$MEM_LIMIT is not a size"
SIZE_MIB=${SIZE_MIB:-$((2 * MEM_MIB))}
[[ $SIZE_MIB =~ ^[0-9]+$ ]] || die "SIZE_MIB must be a whole number of MiB"
((SIZE_MIB >= 2 * MEM_MIB)) || die "SIZE_MIB=$SIZE_MIB is less than twice MEM_LIMIT ($MEM_MIB MiB)"
if [[ $SMALLFS_SIZE == 0 ]]; then
    SMALLFS_MIB=0
else
    SMALLFS_MIB=$(mib "$SMALLFS_SIZE") || die "SMALLFS_SIZE must end in K, M or G (e.g. 4G), or be 0"
    [[ $SMALLFS_MIB =~ ^[0-9]+$ ]] && ((SMALLFS_MIB >= 64)) || die "SMALLFS_SIZE=$SMALLFS_SIZE: want at least 64M"
fi

# ---------------------------------------------------------------- tools
BONNIE=${BONNIE:-/usr/sbin/bonnie++}
ensure "$BONNIE" bonnie++ || die "bonnie++ is not installed (apt-get install bonnie++)"
[[ -x $BONNIE ]] || BONNIE=$(command -v "$BONNIE")
json_reader
built=
iog_default=
if [[ -z ${IOGAUGE:-} ]]; then IOGAUGE=$repo/target/release/iogauge; iog_default=yes; fi
[[ -x $IOGAUGE ]] || die "IOGAUGE=$IOGAUGE is not an executable (build it, or pass IOGAUGE=...)"
if ((SMALLFS_MIB > 0)); then
    command -v mkfs.ext4 >/dev/null && command -v losetup >/dev/null ||
        die "mkfs.ext4 and losetup are needed for the small-file file system (or SMALLFS_SIZE=0)"
fi

# ---------------------------------------------------------------- output, work dirs, cleanup
exec > >(tee "$RESULTS") 2>&1
tee_pid=$!
t_start=$SECONDS

made_dir=
if [[ -e $DIR ]]; then
    [[ -d $DIR ]] || die "DIR=$DIR is not a directory"
    [[ -z $(ls -A "$DIR") ]] || die "DIR=$DIR is not empty; the script removes what the tools leave there, so it wants it empty"
else
    mkdir -p "$DIR"
    made_dir=yes
fi
DIR=$(cd "$DIR" && pwd)
SMALLFS_DIR=${SMALLFS_DIR:-$(dirname "$DIR")}
TMP=$(mktemp -d /tmp/bonnie_vs_ref.XXXXXX)
IMG= MNT= SDIR=$DIR tool_pid=

# smallfs_remove: unmount the small-file file system, detach its loop device,
# remove its mount point and image
smallfs_remove() {
    local l
    if [[ -n $MNT ]]; then
        if mountpoint -q "$MNT"; then
            umount "$MNT" 2>/dev/null || { sleep 2; umount "$MNT"; } || say "warning: could not unmount $MNT"
        fi
        mountpoint -q "$MNT" || rmdir "$MNT" 2>/dev/null || say "warning: could not remove the mount point $MNT"
    fi
    if [[ -n $IMG ]]; then
        for l in $(losetup -n -O NAME -j "$IMG" 2>/dev/null); do
            losetup -d "$l" 2>/dev/null || say "warning: could not detach $l"
        done
        rm -f -- "$IMG"
    fi
    MNT= IMG=
}

cleanup() {
    local pid
    trap '' INT TERM
    if [[ -n $tool_pid ]]; then
        # an interrupted run: the tool we started last
        kill "$tool_pid" 2>/dev/null || true
        wait "$tool_pid" 2>/dev/null || true
    fi
    if [[ -d $CG ]]; then
        # only our own tool processes can be in the group (after an interrupt)
        for pid in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
        for _ in 1 2 3 4 5 6 7 8 9 10; do [[ -z $(cat "$CG/cgroup.procs" 2>/dev/null) ]] && break; sleep 0.5; done
        rmdir "$CG" 2>/dev/null || say "warning: could not remove the memory cgroup $CG"
    fi
    smallfs_remove
    if [[ -n $made_dir ]]; then
        rm -rf -- "$DIR"
    elif [[ -d $DIR ]]; then
        find "$DIR" -mindepth 1 -delete 2>/dev/null || true
    fi
    rm -rf -- "$TMP"
    exec 1>&- 2>&-
    wait "$tee_pid" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- bounding the page cache
bounded=
if [[ -d ${CG%/*} ]] && { [[ -d $CG ]] || mkdir "$CG" 2>/dev/null; } &&
    echo "$MEM_LIMIT" >"$CG/memory.limit_in_bytes" 2>/dev/null; then
    bounded=yes
else
    rmdir "$CG" 2>/dev/null || true
fi

# ---------------------------------------------------------------- the small-file file system
smallfs=
smallfs_why=
files_max=$((FILES > FILES2 ? FILES : FILES2))
if ((SMALLFS_MIB > 0)); then
    # enough inodes for the larger series (mkfs gives one per 16 KiB by default)
    inodes=()
    need=$((files_max * 1024 + 4096))
    ((need > SMALLFS_MIB * 64)) && inodes=(-N "$need")
    if IMG=$(mktemp --suffix=.img "$SMALLFS_DIR/bonnie_vs_ref-smallfs.XXXXXX") &&
        truncate -s "${SMALLFS_MIB}M" "$IMG" &&
        mkfs.ext4 -q -F "${inodes[@]}" "$IMG" &&
        MNT=$(mktemp -d /tmp/bonnie_vs_ref-mnt.XXXXXX) &&
        mount -o loop "$IMG" "$MNT" &&
        mkdir "$MNT/bench"; then
        smallfs=yes
        SDIR=$MNT/bench
    else
        smallfs_why="the loop-mounted ext4 could not be made"
        smallfs_remove
        SDIR=$DIR
    fi
else
    smallfs_why="SMALLFS_SIZE=0"
fi

# fsinfo DIR: the file system DIR is on, its mount options, and whether it has a journal
fsinfo() {
    local src fstype opts dev jr
    read -r src fstype opts < <(findmnt -n -o SOURCE,FSTYPE,OPTIONS -T "$1")
    dev=${src##*/}
    if [[ $fstype == ext[34] ]]; then
        if compgen -G "/proc/fs/jbd2/$dev-*" >/dev/null; then jr="WITH a journal"; else jr="WITHOUT a journal"; fi
    else
        jr="journal: -"
    fi
    printf '%s on %s, %s; mount options %s' "$fstype" "$src" "$jr" "$opts"
}

# ---------------------------------------------------------------- CSV helpers
tests=(putc put_block rewrite getc get_block seeks seq_create seq_stat seq_del ran_create ran_stat ran_del)
big_tests=(putc put_block rewrite getc get_block seeks)
block_tests=(put_block rewrite get_block seeks)
small_tests=(seq_create seq_stat seq_del ran_create ran_stat ran_del)
declare -A col=([putc]=9 [put_block]=11 [rewrite]=13 [getc]=15 [get_block]=17 [seeks]=19
    [seq_create]=26 [seq_stat]=28 [seq_del]=30 [ran_create]=32 [ran_stat]=34 [ran_del]=36)
declare -A lat=([putc]=38 [put_block]=39 [rewrite]=40 [getc]=41 [get_block]=42 [seeks]=43
    [seq_create]=44 [seq_stat]=45 [seq_del]=46 [ran_create]=47 [ran_stat]=48 [ran_del]=49)
declare -A label=([putc]="per-char write" [put_block]="block write" [rewrite]="rewrite"
    [getc]="per-char read" [get_block]="block read" [seeks]="random seeks"
    [seq_create]="seq. create" [seq_stat]="seq. stat" [seq_del]="seq. delete"
    [ran_create]="random create" [ran_stat]="random stat" [ran_del]="random delete")
declare -A unit=([putc]=K/s [put_block]=K/s [rewrite]=K/s [getc]=K/s [get_block]=K/s [seeks]=/s
    [seq_create]=/s [seq_stat]=/s [seq_del]=/s [ran_create]=/s [ran_stat]=/s [ran_del]=/s)
declare -A tol=([put_block]=0.15 [rewrite]=0.15 [get_block]=0.15 [seeks]=0.15
    [seq_create]=0.20 [seq_stat]=0.20 [seq_del]=0.20 [ran_create]=0.20 [ran_stat]=0.20 [ran_del]=0.20)

# the series: big (the big-file runs), cache (page cache), odirect (-D),
# s1 (-n FILES), s2 (-n FILES2)
series=(big)
((CACHE_MIB > 0)) && series+=(cache)
[[ $ODIRECT == 1 ]] && series+=(odirect)
series+=(s1)
((FILES2 > 0)) && series+=(s2)
declare -A s_files=([s1]=$FILES [s2]=$FILES2)
is_small() { [[ $1 == s1 || $1 == s2 ]]; }
s_tests() {
    case $1 in
        big) echo "${big_tests[@]}" ;;
        cache | odirect) echo "${block_tests[@]}" ;;
        *) echo "${small_tests[@]}" ;;
    esac
}
s_label() {
    case $1 in
        big) echo "big file" ;;
        cache) echo "page cache" ;;
        odirect) echo "-D" ;;
        *) echo "-n ${s_files[$1]}" ;;
    esac
}
# the rows of the tables: SERIES:TEST
rows=()
for s in "${series[@]}"; do for t in $(s_tests "$s"); do rows+=("$s:$t"); done; done
rlabel() {
    local s=${1%%:*} t=${1#*:}
    case $s in
        big) echo "${label[$t]}" ;;
        cache) echo "${label[$t]}, cache" ;;
        odirect) echo "${label[$t]}, -D" ;;
        *) echo "${label[$t]} n${s_files[$s]}" ;;
    esac
}

# field FILE IDX: the 0-based field IDX of the CSV line in FILE
field() { awk -F, -v i="$2" '{print $(i + 1)}' "$1"; }
# latency in microseconds of a CSV latency field; bonnie++ writes NNus, NNms or NNs
lat_us() {
    awk -v s="$1" 'BEGIN {
        if (s ~ /us$/) { sub(/us$/, "", s); print s + 0 }
        else if (s ~ /ms$/) { sub(/ms$/, "", s); print s * 1000 }
        else if (s ~ /s$/) { sub(/s$/, "", s); print s * 1000000 } }'
}
# medp V...: the median of CSV figures; "+++++" (under 0.5 s) counts as faster
# than any figure; empty values are left out
medp() {
    printf '%s\n' "$@" | awk '
        /^\+/ { p++; next }
        /^[0-9.]+([eE][-+]?[0-9]+)?$/ { v[++n] = $1 + 0; next }
        END {
            t = n + p
            if (t == 0) { print "-"; exit }
            for (i = 2; i <= n; i++) { x = v[i]; j = i - 1; while (j > 0 && v[j] > x) { v[j + 1] = v[j]; j-- } v[j + 1] = x }
            if (t % 2) { k = (t + 1) / 2; if (k <= n) printf "%.3f\n", v[k]; else print "+++++" }
            else { k = t / 2; if (k + 1 <= n) printf "%.3f\n", (v[k] + v[k + 1]) / 2; else print "+++++" }
        }'
}
isnum() { [[ $1 =~ ^[0-9.]+$ ]]; }
within() { awk -v r="$1" -v t="$2" 'BEGIN {print (r >= 1 - t && r <= 1 + t) ? "PASS" : "FAIL"}'; }
fmt0() { isnum "$1" && awk -v a="$1" 'BEGIN {printf "%.0f", a}' || printf '%s' "$1"; }

# ---------------------------------------------------------------- header
say "iogauge bonnie --flavor bonnie++ vs bonnie++ 2.00a — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2 / 1048576}' /proc/meminfo)"
say_iogauge
[[ -n $iog_default ]] && say "         (the default \$repo/target/release/iogauge; the script does not build it)"
say "bonnie++: $BONNIE ($(dpkg-query -W -f='${Package} ${Version}' bonnie++ 2>/dev/null || echo 'version unknown'))"
say "REPS=$REPS, SIZE_MIB=$SIZE_MIB, SEEKS=$SEEKS, FILES=$FILES, FILES2=$FILES2, SMALLFS_SIZE=$SMALLFS_SIZE, SMALL_PAUSE=$SMALL_PAUSE, SEED=$SEED"
say "big-file dir:   $DIR ($(df -h "$DIR" | awk 'NR==2 {print $4}') free)"
say "                $(fsinfo "$DIR")"
if [[ -n $smallfs ]]; then
    say "small-file dir: $SDIR, on a $SMALLFS_SIZE sparse image $IMG"
    say "                (mkfs.ext4 -q -F${inodes[*]:+ ${inodes[*]}}, mount -o loop at $MNT; $(df -i "$SDIR" | awk 'NR==2 {print $2}') inodes)"
    say "                $(fsinfo "$SDIR")"
else
    say "small-file dir: $SDIR: NOT a file system of its own ($smallfs_why)"
    say "                $(fsinfo "$SDIR")"
fi
say "seeks:   -s $SIZE_MIB:8k:$SEEKS in both tools: bonnie++'s default 8192 seeks finish in under 0.5 s on this disk,"
say "         so bonnie++ itself prints +++++ (no figure); $SEEKS seeks last long enough for a figure"
say "small files: separate runs (-s 0) on a journaled ext4: on ext4 without a journal the inode allocator"
say "         skips and scans past inodes freed in the last 60 s, and the create rates swing with what the"
say "         run before freed. -n $FILES is mostly +++++ (under 0.5 s) here$( ((FILES2 > 0)) && echo ", hence also -n $FILES2")"
if [[ -n $bounded ]]; then
    say "page cache: bounded for the big-file and classic runs. They run in the cgroup v1 memory group"
    say "            $CG with memory.limit_in_bytes=$MEM_LIMIT ($(cat "$CG/memory.limit_in_bytes") bytes), which the page"
    say "            cache is charged to; the file is $SIZE_MIB MiB = $(awk -v s="$SIZE_MIB" -v m="$MEM_MIB" 'BEGIN {printf "%.1f", s / m}')x that, and -r $MEM_MIB."
    say "            The small-file runs (no big file) run outside the group."
else
    say "page cache: NOT bounded: the memory cgroup $CG could not be made. Unless the"
    say "            $SIZE_MIB MiB file is twice the RAM, the big-file and -D figures are the page cache's"
fi
declare -A BARGS
ARGS=(-d "$DIR" -s "$SIZE_MIB:8k:$SEEKS" -r "$MEM_MIB" -n 0 -m bench -z "$SEED" -q)
CARGS=(-d "$DIR" -s "$SIZE_MIB" -r "$MEM_MIB" -m bench -z "$SEED")
BARGS[big]="${ARGS[*]}"
BARGS[cache]="-d $DIR -s $CACHE_MIB:8k:$SEEKS -r $((CACHE_MIB / 2)) -n 0 -f -m bench -z $SEED -q"
BARGS[odirect]="-d $DIR -s $SIZE_MIB:8k:$SEEKS -r $MEM_MIB -n 0 -f -D -m bench -z $SEED -q"
for s in s1 s2; do BARGS[$s]="-d $SDIR -s 0 -n ${s_files[$s]} -m bench -z $SEED -q"; done
say "bonnie++:        $BONNIE ${BARGS[big]} -u root"
say "iogauge:         $IOGAUGE bonnie --flavor bonnie++ ${BARGS[big]} --json FILE"
say "classic Bonnie:  $IOGAUGE bonnie ${CARGS[*]} --json FILE"
for s in "${series[@]:1}"; do
    case $s in
        cache) say "page cache:      $BONNIE ${BARGS[$s]} -u root   (outside the memory group)" ;;
        odirect) say "O_DIRECT:        $BONNIE ${BARGS[$s]} -u root$([[ -n $bounded ]] && echo "   (in the memory group)")" ;;
        *) say "small files:     $BONNIE ${BARGS[$s]} -u root" ;;
    esac
    say "                 $IOGAUGE bonnie --flavor bonnie++ ${BARGS[$s]} --json FILE"
done
if ((CACHE_MIB > 0)); then
    avail=$(awk '/^MemAvailable:/ {printf "%d", $2 / 1024}' /proc/meminfo)
    say "page cache: the $CACHE_MIB MiB file against $avail MiB of available memory now$( ((avail < 2 * CACHE_MIB)) && echo ": LESS than twice the file, so part of it may not stay in the page cache (lower CACHE_MIB)")"
fi
say "before each run: $( ((SMALL_PAUSE > 0)) && echo "(small-file runs: sleep $SMALL_PAUSE;) ")sync; echo 3 > /proc/sys/vm/drop_caches"
load() { say "$1: load average $(cut -d' ' -f1-3 /proc/loadavg)$([[ -r /proc/pressure/io ]] && awk '{printf ", I/O pressure %s %s %s %s", $1, $2, $3, $4}' /proc/pressure/io)"; }
load "before"
say ""

# ---------------------------------------------------------------- runs
# one_run TOOL SERIES TAG: run TOOL (bpp, iog or classic) on SERIES (big, s1,
# s2); its stdout goes to TAG.out, stderr to TAG.err, iogauge's JSON to
# TAG.json, the wall time (s) to TAG.wall, and for the runs in the memory
# group its peak usage and limit hits to TAG.cg
one_run() {
    local tool=$1 s=$2 tag=$TMP/$3 t0 t1 rc=0 dir ingroup= args
    if [[ $s == big ]]; then
        dir=$DIR
        [[ -n $bounded ]] && ingroup=yes
        args=("${ARGS[@]}")
    elif [[ $s == cache || $s == odirect ]]; then
        dir=$DIR
        [[ $s == odirect && -n $bounded ]] && ingroup=yes
        read -r -a args <<<"${BARGS[$s]}"
    else
        dir=$SDIR
        read -r -a args <<<"${BARGS[$s]}"
        ((SMALL_PAUSE > 0)) && sleep "$SMALL_PAUSE"
    fi
    sync
    echo 3 >/proc/sys/vm/drop_caches
    if [[ -n $ingroup ]]; then
        echo 0 >"$CG/memory.max_usage_in_bytes"
        echo 0 >"$CG/memory.failcnt"
    fi
    t0=$(date +%s%N)
    (
        if [[ -n $ingroup ]]; then echo "$BASHPID" >"$CG/cgroup.procs"; fi
        case $tool in
            bpp) exec "$BONNIE" "${args[@]}" -u root ;;
            iog) exec "$IOGAUGE" bonnie --flavor bonnie++ "${args[@]}" --json "$tag.json" ;;
            classic) exec "$IOGAUGE" bonnie "${CARGS[@]}" --json "$tag.json" ;;
        esac
    ) >"$tag.out" 2>"$tag.err" </dev/null &
    tool_pid=$!
    wait "$tool_pid" || rc=$?
    tool_pid=
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f\n", (b - a) / 1e9}' >"$tag.wall"
    if [[ -n $ingroup ]]; then
        printf '%s %s %s\n' "$(awk '{printf "%.0f", $1 / 1048576}' "$CG/memory.max_usage_in_bytes")" \
            "$(cat "$CG/memory.failcnt")" "$(awk '/^oom_kill / {print $2}' "$CG/memory.oom_control")" >"$tag.cg"
    fi
    if ((rc != 0)); then
        say "error: $tool exited with status $rc; its last lines:"
        tail -n 5 "$tag.err" "$tag.out" || true
        die "$tool failed"
    fi
    if [[ -n $(ls -A "$dir") ]]; then
        say "warning: $tool left files in $dir: $(ls -A "$dir" | head -5 | tr '\n' ' ')"
        find "$dir" -mindepth 1 -delete
    fi
    if [[ $tool != classic ]]; then
        grep '^1\.98,' "$tag.out" | tail -1 >"$tag.csv" || true
        [[ -s $tag.csv ]] || die "$tool printed no CSV line (see $tag.out)"
    fi
}

run_line() {
    local tag=$TMP/$1
    printf '  %-8s %-9s %6s s' "$2" "$3" "$(cat "$tag.wall")"
    [[ -f $tag.cg ]] && read -r mib hits ooms <"$tag.cg" &&
        printf ', memory group peak %s MiB, limit hit %s times, OOM kills %s' "$mib" "$hits" "${ooms:-?}"
    printf '\n'
}

declare -a first
for ((r = 1; r <= REPS; r++)); do
    if ((r % 2)); then first[r]=bpp; order=(bpp iog); else first[r]=iog; order=(iog bpp); fi
    say "rep $r/$REPS ($([[ ${first[r]} == bpp ]] && echo "bonnie++, then iogauge" || echo "iogauge, then bonnie++") in each kind of run) ..."
    for s in "${series[@]}"; do
        for t in "${order[@]}"; do
            one_run "$t" "$s" "$t.$s.$r"
            run_line "$t.$s.$r" "$t" "$(s_label "$s")"
        done
        if [[ $s == big ]]; then
            one_run classic big "classic.$r"
            run_line "classic.$r" classic "big file"
        fi
    done
done
say ""
say "the CSV lines (bonnie++ and iogauge, in the order they ran):"
for ((r = 1; r <= REPS; r++)); do
    if [[ ${first[r]} == bpp ]]; then o=(bpp iog); else o=(iog bpp); fi
    for s in "${series[@]}"; do
        for t in "${o[@]}"; do printf '  %-3s %s\n' "$t" "$(cat "$TMP/$t.$s.$r.csv")"; done
    done
done
say ""

# ---------------------------------------------------------------- report
# per-rep figures
say "=== per repetition (CSV figures; bonnie++ | iogauge) ==="
printf '%-19s %-5s' test unit
for ((r = 1; r <= REPS; r++)); do printf ' %21s' "rep $r (${first[r]} 1st)"; done
printf '\n'
declare -A M_B M_I C_B C_I L_B L_I
for row in "${rows[@]}"; do
    s=${row%%:*} t=${row#*:} c=${col[${row#*:}]}
    vb=() vi=() cb=() ci=() lb=() li=()
    printf '%-19s %-5s' "$(rlabel "$row")" "${unit[$t]}"
    for ((r = 1; r <= REPS; r++)); do
        fb=$TMP/bpp.$s.$r.csv fg=$TMP/iog.$s.$r.csv
        b=$(field "$fb" "$c") g=$(field "$fg" "$c")
        vb+=("$b") vi+=("$g")
        cb+=("$(field "$fb" $((c + 1)))") ci+=("$(field "$fg" $((c + 1)))")
        lb+=("$(lat_us "$(field "$fb" "${lat[$t]}")")") li+=("$(lat_us "$(field "$fg" "${lat[$t]}")")")
        printf ' %10s|%-10s' "$b" "$g"
    done
    printf '\n'
    M_B[$row]=$(medp "${vb[@]}") M_I[$row]=$(medp "${vi[@]}")
    C_B[$row]=$(medp "${cb[@]}") C_I[$row]=$(medp "${ci[@]}")
    L_B[$row]=$(medp "${lb[@]}") L_I[$row]=$(medp "${li[@]}")
done
say ""

say "=== context: median %CPU and median worst latency (CSV fields 38-49) ==="
printf '%-19s %9s %9s %14s %14s\n' test "bpp %CPU" "iog %CPU" "bpp max lat" "iog max lat"
for row in "${rows[@]}"; do
    printf '%-19s %9s %9s %12s us %12s us\n' "$(rlabel "$row")" "$(fmt0 "${C_B[$row]}")" "$(fmt0 "${C_I[$row]}")" \
        "$(fmt0 "${L_B[$row]}")" "$(fmt0 "${L_I[$row]}")"
done
say ""

# how long the seek test lasted: bonnie++'s from SEEKS / its rate, iogauge's
# from its JSON (metrics.seeks.elapsed_s)
for s in "${series[@]}"; do
    is_small "$s" && continue
    sb=() si=()
    for ((r = 1; r <= REPS; r++)); do
        v=$(field "$TMP/bpp.$s.$r.csv" "${col[seeks]}")
        isnum "$v" && sb+=("$(awk -v n="$SEEKS" -v x="$v" 'BEGIN {printf "%.2f", n / x}')") || sb+=("<0.5")
        si+=("$(jget "$TMP/iog.$s.$r.json" ".metrics.seeks.elapsed_s" | awk '{printf "%.2f", $1}')")
    done
    say "the seek test ($SEEKS seeks, $(s_label "$s")) lasted: bonnie++ ${sb[*]} s (SEEKS / its rate), iogauge ${si[*]} s (its elapsed_s), by repetition"
done
say ""

# iogauge's per-op latencies from its JSON (the median repetition's is not
# defined per op; the last repetition's is shown)
say "=== context: iogauge's ops per test (rep $REPS, from --json: count, p50, p99, max) ==="
for s in "${series[@]}"; do
    j=$TMP/iog.$s.$REPS.json
    for t in $(s_tests "$s"); do
        if [[ $JSON == jq ]]; then
            jq -r --arg t "$t" --arg row "$(rlabel "$s:$t")" '.metrics[$t] as $m | ($m.ops // {}) | to_entries[] |
                "\($row)\t\(.key)\t\(.value.count)\t\(.value.latency_ns.p50)\t\(.value.latency_ns.p99)\t\(.value.latency_ns.max)\t\($m.elapsed_s)"' "$j"
        fi
    done
done | awk -F'\t' '
    BEGIN { printf "%-19s %-7s %9s %11s %11s %11s %9s\n", "test", "op", "count", "p50 us", "p99 us", "max us", "elapsed s" }
    { printf "%-19s %-7s %9d %11.1f %11.1f %11.1f %9.3f\n", (prev == $1 ? "" : $1), $2, $3, $4 / 1000, $5 / 1000, $6 / 1000, $7; prev = $1 }'
[[ $JSON == jq ]] || say "(needs jq)"
say ""

# the classic Bonnie beside
say "=== the classic Bonnie (iogauge bonnie, default flavor) beside bonnie++: medians, no verdict ==="
say "(Bonnie: 16 KiB chunks, per-char through a stdio-like buffer, 4000 seeks by 3 processes, no fsync;"
say " bonnie++: 8 KiB chunks, per-char as 1-byte read/write calls on 3 MiB, $SEEKS seeks by 5 processes, fsync)"
printf '%-15s %-5s %14s %6s %14s %6s %14s %6s\n' test unit "bonnie++" "%CPU" "iog bonnie++" "%CPU" "classic Bonnie" "%CPU"
declare -A K_C P_C
for t in "${big_tests[@]}"; do
    kc=() pc=()
    for ((r = 1; r <= REPS; r++)); do
        kc+=("$(jget "$TMP/classic.$r.json" ".metrics.$t.rate")")
        pc+=("$(jget "$TMP/classic.$r.json" ".metrics.$t.cpu_percent")")
    done
    K_C[$t]=$(medp "${kc[@]}") P_C[$t]=$(medp "${pc[@]}")
    printf '%-15s %-5s %14s %6s %14s %6s %14s %6s\n' "${label[$t]}" "${unit[$t]}" "$(fmt0 "${M_B[big:$t]}")" "$(fmt0 "${C_B[big:$t]}")" \
        "$(fmt0 "${M_I[big:$t]}")" "$(fmt0 "${C_I[big:$t]}")" "$(fmt0 "${K_C[$t]}")" "$(awk -v a="${P_C[$t]}" 'BEGIN {printf "%.1f", a}')"
done
say "the classic Bonnie's table row, medians over $REPS runs:"
say "              -------Sequential Output-------- ---Sequential Input-- --Random--"
say "              -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---"
say "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU"
printf '%-8s %4s' bench "$SIZE_MIB"
for t in putc put_block rewrite getc get_block; do printf ' %5.0f %4.1f' "${K_C[$t]}" "${P_C[$t]}"; done
printf ' %5.1f %4.1f\n' "${K_C[seeks]}" "${P_C[seeks]}"
say ""

if command -v bon_csv2txt >/dev/null; then
    say "=== bon_csv2txt of all the CSV lines (bonnie++'s own formatter), named b<rep> for bonnie++ and i<rep> for iogauge ==="
    for s in "${series[@]}"; do
        say "--- $(s_label "$s") ---"
        for ((r = 1; r <= REPS; r++)); do
            if [[ ${first[r]} == bpp ]]; then o=(bpp iog); else o=(iog bpp); fi
            for t in "${o[@]}"; do sed "s/^\(1\.98,2\.00a,\)bench,/\1${t:0:1}$r,/" "$TMP/$t.$s.$r.csv"; done
        done | bon_csv2txt || true
    done
    say ""
fi

load "after"
[[ -n $bounded ]] && say "page cache: bounded by the memory cgroup for the big-file runs ($MEM_LIMIT; file $SIZE_MIB MiB)" ||
    say "page cache: NOT bounded (no memory cgroup): the big-file and -D figures may be the page cache's"
say "big-file dir:   $(fsinfo "$DIR")"
say "small-file dir: $(fsinfo "$SDIR")$([[ -z $smallfs ]] && echo " (NOT a file system of its own: $smallfs_why)")"
say ""
say "=== results: medians over $REPS repetitions, ratio = iogauge / bonnie++ ==="
say "(big file: -s $SIZE_MIB:8k:$SEEKS -n 0$([[ -n $bounded ]] && echo " in the $MEM_LIMIT memory group")$( ((CACHE_MIB > 0)) && echo "; cache: -s $CACHE_MIB:8k:$SEEKS -r $((CACHE_MIB / 2)) -f, in the page cache")$([[ $ODIRECT == 1 ]] && echo "; -D: the big file with -f -D");"
say " small files: -s 0 -n N$([[ -n $smallfs ]] && echo " on the journaled loop ext4"))"
printf '%-19s %-5s %12s %12s %7s  %s\n' test unit "bonnie++" iogauge ratio verdict
for row in "${rows[@]}"; do
    t=${row#*:}
    b=${M_B[$row]} g=${M_I[$row]}
    if isnum "$b" && isnum "$g"; then rt=$(ratio "$g" "$b"); else rt=-; fi
    if [[ -z ${tol[$t]:-} ]]; then
        v="(beside, no verdict)"
    elif [[ $rt == - || $rt == n/a ]]; then
        v="n/a (+++++: under 0.5 s)"
    else
        v="$(within "$rt" "${tol[$t]}") (within $(awk -v t="${tol[$t]}" 'BEGIN {printf "%d", t * 100}') %)"
    fi
    printf '%-19s %-5s %12s %12s %7s  %s\n' "$(rlabel "$row")" "${unit[$t]}" "$(fmt0 "$b")" "$(fmt0 "$g")" "$rt" "$v"
done
for s in "${series[@]}"; do
    is_small "$s" || continue
    n=0
    for t in "${small_tests[@]}"; do [[ ${M_B[$s:$t]} == +* && ${M_I[$s:$t]} == +* ]] && n=$((n + 1)); done
    say "-n ${s_files[$s]}: $n of 6 small-file tests +++++ (under 0.5 s) in both tools' medians"
done
say ""
say "run time: $(((SECONDS - t_start) / 60)) min $(((SECONDS - t_start) % 60)) s"
exit 0

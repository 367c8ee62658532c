#!/usr/bin/env bash
# bonnie_vs_ref.sh — `iogauge bonnie --flavor bonnie++` against Debian's
# bonnie++ 2.00a on the same directory, file size, seed and small-file
# count, on this machine, in one script run. Beside them, the original Bonnie
# (`iogauge bonnie`, its default flavor) on the same file size.
#
# Both bonnie++s run the same command line:
#     -d DIR -s SIZE_MIB -r RAM_MIB -n FILES -m bench -z SEED -q
# (bonnie++ also gets -u root; iogauge also gets --json FILE). That is the
# big-file tests (per-char write, block write, rewrite, per-char read, block
# read, 8192 random seeks by 5 seekers, 8 KiB chunks) and the small-file tests
# (FILES × 1024 empty files in one directory: create, stat, delete, in order
# and in random order). The classic Bonnie runs `-d DIR -s SIZE_MIB -r RAM_MIB
# -m bench -z SEED --json FILE`: 16 KiB chunks, stdio-like per-char I/O,
# 4000 seeks by 3 processes, no fsync.
#
# The page cache. The file must be at least twice the page cache the run can
# use, or the read tests measure memory. This machine has far more RAM than
# disk space to spare, so the script bounds the page cache instead: it makes
# the cgroup v1 memory group /sys/fs/cgroup/memory/iogauge-bonnie-bench with
# memory.limit_in_bytes = MEM_LIMIT (default 512M) and runs every tool inside
# it (the subshell that execs the tool writes its own pid to cgroup.procs).
# The page cache a process faults in is charged to its memory group, so the
# tools see MEM_LIMIT of memory, page cache included. SIZE_MIB defaults to
# twice that, and -r is MEM_LIMIT in MiB (bonnie++ refuses a file smaller
# than twice -r). After each run the script prints the group's peak usage and
# how often it hit the limit, to show the bound held. If the group cannot be
# made, both tools get -D (O_DIRECT for the block tests, the rewrite and the
# seeks; per-char I/O cannot use it) instead, and the output says so. The
# group is removed at the end.
#
# Noise control: before each run the script syncs and drops the page cache
# (echo 3 > /proc/sys/vm/drop_caches). Within each repetition bonnie++ and
# iogauge run back to back, and which one goes first alternates between
# repetitions; the classic Bonnie runs third. Figures are medians over REPS.
# The load average and /proc/pressure/io are printed before and after.
#
# What is compared: each tool's CSV line (bonnie++'s 50-field layout; for
# bonnie++ the last line starting with "1.98,"), field by field. "+++++" means
# the test took under 0.5 s; it counts as faster than any figure when taking
# medians, and a test that is +++++ in either tool's median gets no verdict.
# Verdicts on the ratio iogauge/bonnie++ of the medians:
#   block write, rewrite, block read, seeks     within 15 % (0.85 … 1.15)
#   the six small-file tests                   within 20 % (0.80 … 1.20)
#   per-char write and read                    no verdict: printed beside.
# (iogauge's bonnie++ flavor issues the same 1-byte read(2)/write(2) calls;
# docs/bonnie.md explains the differences.) The classic Bonnie's figures
# (from its JSON, metrics.<test>.rate and cpu_percent) are printed beside,
# with no verdict: it is another program.
#
# It is a report, not a test: the exit status is 0 whatever the verdicts.
# The whole output also goes to RESULTS.
#
# Environment (all optional):
#   DIR        the directory the tools work in (default /work/bonnie-bench).
#              The script makes it if it is missing and then removes it at the
#              end; an existing DIR must be empty, and is left (empty) there.
#   REPS       repetitions (default 3)
#   MEM_LIMIT  the memory group's limit, with a K, M or G suffix (default 512M)
#   SIZE_MIB   the big file in MiB (default: twice MEM_LIMIT, 1024)
#   FILES      the small-file tests' count in units of 1024 files (default 16)
#   SEED       the seed of both tools' random numbers (default 12345)
#   IOGAUGE    the iogauge binary (default $repo/target/release/iogauge; the
#              script does not build it)
#   BONNIE     bonnie++ 2.00a (default /usr/sbin/bonnie++; Debian's package
#              bonnie++ is installed with apt-get when it is missing)
#   RESULTS    where the output is copied (default bench/results-bonnie_vs_ref.txt)
#
# Needs root (bonnie++ -u root, the memory group, drop_caches), and jq or
# python3 to read iogauge's JSON (the per-op table needs jq). Takes ~2 minutes
# with the defaults on this machine's virtio disk; longer on a slower one.
set -euo pipefail

REPS=${REPS:-3}
MEM_LIMIT=${MEM_LIMIT:-512M}
FILES=${FILES:-16}
SEED=${SEED:-12345}
DIR=${DIR:-/work/bonnie-bench}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
RESULTS=${RESULTS:-$here/results-bonnie_vs_ref.txt}
CG=/sys/fs/cgroup/memory/iogauge-bonnie-bench

# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $(id -u) -eq 0 ]] || die "run as root (bonnie++ -u root, the memory cgroup, drop_caches)"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
[[ $FILES =~ ^[0-9]+$ && $FILES -gt 0 ]] || die "FILES must be a whole number > 0"
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be a whole number"
case $MEM_LIMIT in
    *[kK]) MEM_MIB=$((${MEM_LIMIT%[kK]} / 1024)) ;;
    *[mM]) MEM_MIB=${MEM_LIMIT%[mM]} ;;
    *[gG]) MEM_MIB=$((${MEM_LIMIT%[gG]} * 1024)) ;;
    *) die "MEM_LIMIT must end in K, M or G (e.g. 512M)" ;;
esac
[[ $MEM_MIB =~ ^[0-9]+$ && $MEM_MIB -gt 0 ]] || die "MEM_LIMIT=$MEM_LIMIT is not a size"
SIZE_MIB=${SIZE_MIB:-$((2 * MEM_MIB))}
[[ $SIZE_MIB =~ ^[0-9]+$ ]] || die "SIZE_MIB must be a whole number of MiB"
((SIZE_MIB >= 2 * MEM_MIB)) || die "SIZE_MIB=$SIZE_MIB is less than twice MEM_LIMIT ($MEM_MIB MiB)"

# ---------------------------------------------------------------- tools
BONNIE=${BONNIE:-/usr/sbin/bonnie++}
ensure "$BONNIE" bonnie++ || die "bonnie++ is not installed (apt-get install bonnie++)"
[[ -x $BONNIE ]] || BONNIE=$(command -v "$BONNIE")
json_reader
built=
iog_default=
if [[ -z ${IOGAUGE:-} ]]; then IOGAUGE=$repo/target/release/iogauge; iog_default=yes; fi
[[ -x $IOGAUGE ]] || die "IOGAUGE=$IOGAUGE is not an executable (build it, or pass IOGAUGE=...)"

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
TMP=$(mktemp -d /tmp/bonnie_vs_ref.XXXXXX)

cleanup() {
    local pid
    if [[ -d $CG ]]; then
        # only our own tool processes can be in the group (after an interrupt)
        for pid in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
        for _ in 1 2 3 4 5 6 7 8 9 10; do [[ -z $(cat "$CG/cgroup.procs" 2>/dev/null) ]] && break; sleep 0.5; done
        rmdir "$CG" 2>/dev/null || say "warning: could not remove the memory cgroup $CG"
    fi
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
DIRECT=()
if [[ -d ${CG%/*} ]] && { [[ -d $CG ]] || mkdir "$CG" 2>/dev/null; } &&
    echo "$MEM_LIMIT" >"$CG/memory.limit_in_bytes" 2>/dev/null; then
    bounded=yes
else
    rmdir "$CG" 2>/dev/null || true
    DIRECT=(-D)
fi

# ---------------------------------------------------------------- CSV helpers
tests=(putc put_block rewrite getc get_block seeks seq_create seq_stat seq_del ran_create ran_stat ran_del)
declare -A col=([putc]=9 [put_block]=11 [rewrite]=13 [getc]=15 [get_block]=17 [seeks]=19
    [seq_create]=26 [seq_stat]=28 [seq_del]=30 [ran_create]=32 [ran_stat]=34 [ran_del]=36)
declare -A label=([putc]="per-char write" [put_block]="block write" [rewrite]="rewrite"
    [getc]="per-char read" [get_block]="block read" [seeks]="random seeks"
    [seq_create]="seq. create" [seq_stat]="seq. stat" [seq_del]="seq. delete"
    [ran_create]="random create" [ran_stat]="random stat" [ran_del]="random delete")
declare -A unit=([putc]=K/s [put_block]=K/s [rewrite]=K/s [getc]=K/s [get_block]=K/s [seeks]=/s
    [seq_create]=/s [seq_stat]=/s [seq_del]=/s [ran_create]=/s [ran_stat]=/s [ran_del]=/s)
declare -A tol=([put_block]=0.15 [rewrite]=0.15 [get_block]=0.15 [seeks]=0.15
    [seq_create]=0.20 [seq_stat]=0.20 [seq_del]=0.20 [ran_create]=0.20 [ran_stat]=0.20 [ran_del]=0.20)

# field FILE IDX: the 0-based field IDX of the CSV line in FILE
field() { awk -F, -v i="$2" '{print $(i + 1)}' "$1"; }
# latency field of test number N (0..11) in microseconds; bonnie++ writes NNus, NNms or NNs
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
say "work dir: $DIR ($(df -T "$DIR" | awk 'NR==2 {print $2 " on " $1}'), $(df -h "$DIR" | awk 'NR==2 {print $4}') free), REPS=$REPS, SIZE_MIB=$SIZE_MIB, FILES=$FILES, SEED=$SEED"
if [[ -n $bounded ]]; then
    say "page cache: bounded. Every tool runs in the cgroup v1 memory group $CG with"
    say "            memory.limit_in_bytes=$MEM_LIMIT ($(cat "$CG/memory.limit_in_bytes") bytes), which the page cache is charged to;"
    say "            the file is $SIZE_MIB MiB = $(awk -v s="$SIZE_MIB" -v m="$MEM_MIB" 'BEGIN {printf "%.1f", s / m}')x that, and -r $MEM_MIB"
else
    say "page cache: NOT bounded: the memory cgroup $CG could not be made. Instead both"
    say "            tools run with -D (O_DIRECT for the block tests, rewrite and seeks; the per-char"
    say "            tests and the small-file tests still go through the page cache)"
fi
ARGS=(-d "$DIR" -s "$SIZE_MIB" -r "$MEM_MIB" -n "$FILES" -m bench -z "$SEED" -q "${DIRECT[@]}")
CARGS=(-d "$DIR" -s "$SIZE_MIB" -r "$MEM_MIB" -m bench -z "$SEED" "${DIRECT[@]}")
say "bonnie++:        $BONNIE ${ARGS[*]} -u root"
say "iogauge:         $IOGAUGE bonnie --flavor bonnie++ ${ARGS[*]} --json FILE"
say "classic Bonnie:  $IOGAUGE bonnie ${CARGS[*]} --json FILE"
say "before each run: sync; echo 3 > /proc/sys/vm/drop_caches"
load() { say "$1: load average $(cut -d' ' -f1-3 /proc/loadavg)$([[ -r /proc/pressure/io ]] && awk '{printf ", I/O pressure %s %s %s %s", $1, $2, $3, $4}' /proc/pressure/io)"; }
load "before"
say ""

# ---------------------------------------------------------------- runs
# one_run TOOL TAG: run TOOL (bpp, iog or classic) in the memory group; its
# stdout goes to TAG.out, stderr to TAG.err, iogauge's JSON to TAG.json, the
# wall time (s) to TAG.wall, the group's peak usage and limit hits to TAG.cg
one_run() {
    local tool=$1 tag=$TMP/$2 t0 t1 rc=0
    sync
    echo 3 >/proc/sys/vm/drop_caches
    if [[ -n $bounded ]]; then
        echo 0 >"$CG/memory.max_usage_in_bytes"
        echo 0 >"$CG/memory.failcnt"
    fi
    t0=$(date +%s%N)
    (
        if [[ -n $bounded ]]; then echo "$BASHPID" >"$CG/cgroup.procs"; fi
        case $tool in
            bpp) exec "$BONNIE" "${ARGS[@]}" -u root ;;
            iog) exec "$IOGAUGE" bonnie --flavor bonnie++ "${ARGS[@]}" --json "$tag.json" ;;
            classic) exec "$IOGAUGE" bonnie "${CARGS[@]}" --json "$tag.json" ;;
        esac
    ) >"$tag.out" 2>"$tag.err" </dev/null || rc=$?
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f\n", (b - a) / 1e9}' >"$tag.wall"
    if [[ -n $bounded ]]; then
        printf '%s %s %s\n' "$(awk '{printf "%.0f", $1 / 1048576}' "$CG/memory.max_usage_in_bytes")" \
            "$(cat "$CG/memory.failcnt")" "$(awk '/^oom_kill / {print $2}' "$CG/memory.oom_control")" >"$tag.cg"
    fi
    if ((rc != 0)); then
        say "error: $tool exited with status $rc; its last lines:"
        tail -n 5 "$tag.err" "$tag.out" || true
        die "$tool failed"
    fi
    if [[ -n $(ls -A "$DIR") ]]; then
        say "warning: $tool left files in $DIR: $(ls -A "$DIR" | head -5 | tr '\n' ' ')"
        find "$DIR" -mindepth 1 -delete
    fi
    if [[ $tool != classic ]]; then
        grep '^1\.98,' "$tag.out" | tail -1 >"$tag.csv" || true
        [[ -s $tag.csv ]] || die "$tool printed no CSV line (see $tag.out)"
    fi
}

run_line() {
    local tag=$TMP/$1
    printf '  %-8s %6s s' "$2" "$(cat "$tag.wall")"
    [[ -f $tag.cg ]] && read -r mib hits ooms <"$tag.cg" &&
        printf ', memory group peak %s MiB, limit hit %s times, OOM kills %s' "$mib" "$hits" "${ooms:-?}"
    printf '\n'
}

declare -a first
for ((r = 1; r <= REPS; r++)); do
    if ((r % 2)); then first[r]=bpp; order=(bpp iog); else first[r]=iog; order=(iog bpp); fi
    say "rep $r/$REPS ($([[ ${first[r]} == bpp ]] && echo "bonnie++, then iogauge" || echo "iogauge, then bonnie++"), then the classic Bonnie) ..."
    for t in "${order[@]}" classic; do
        one_run "$t" "$t.$r"
        run_line "$t.$r" "$t"
    done
done
say ""
say "the CSV lines (bonnie++ and iogauge, in the order they ran):"
for ((r = 1; r <= REPS; r++)); do
    if [[ ${first[r]} == bpp ]]; then o=(bpp iog); else o=(iog bpp); fi
    for t in "${o[@]}"; do printf '  %-3s %s\n' "$t" "$(cat "$TMP/$t.$r.csv")"; done
done
say ""

# ---------------------------------------------------------------- report
# per-rep figures
say "=== per repetition (CSV figures; bonnie++ | iogauge) ==="
printf '%-15s %-5s' test unit
for ((r = 1; r <= REPS; r++)); do printf ' %21s' "rep $r (${first[r]} 1st)"; done
printf '\n'
declare -A M_B M_I C_B C_I L_B L_I
for i in "${!tests[@]}"; do
    t=${tests[i]} c=${col[${tests[i]}]}
    vb=() vi=() cb=() ci=() lb=() li=()
    printf '%-15s %-5s' "${label[$t]}" "${unit[$t]}"
    for ((r = 1; r <= REPS; r++)); do
        b=$(field "$TMP/bpp.$r.csv" "$c") g=$(field "$TMP/iog.$r.csv" "$c")
        vb+=("$b") vi+=("$g")
        cb+=("$(field "$TMP/bpp.$r.csv" $((c + 1)))") ci+=("$(field "$TMP/iog.$r.csv" $((c + 1)))")
        lb+=("$(lat_us "$(field "$TMP/bpp.$r.csv" $((38 + i)))")") li+=("$(lat_us "$(field "$TMP/iog.$r.csv" $((38 + i)))")")
        printf ' %10s|%-10s' "$b" "$g"
    done
    printf '\n'
    M_B[$t]=$(medp "${vb[@]}") M_I[$t]=$(medp "${vi[@]}")
    C_B[$t]=$(medp "${cb[@]}") C_I[$t]=$(medp "${ci[@]}")
    L_B[$t]=$(medp "${lb[@]}") L_I[$t]=$(medp "${li[@]}")
done
say ""

say "=== context: median %CPU and median worst latency (CSV fields 38-49) ==="
printf '%-15s %9s %9s %14s %14s\n' test "bpp %CPU" "iog %CPU" "bpp max lat" "iog max lat"
for t in "${tests[@]}"; do
    printf '%-15s %9s %9s %12s us %12s us\n' "${label[$t]}" "$(fmt0 "${C_B[$t]}")" "$(fmt0 "${C_I[$t]}")" \
        "$(fmt0 "${L_B[$t]}")" "$(fmt0 "${L_I[$t]}")"
done
say ""

# iogauge's per-op latencies from its JSON (the median repetition's is not
# defined per op; the last repetition's is shown)
j=$TMP/iog.$REPS.json
say "=== context: iogauge's ops per test (rep $REPS, from --json: count, p50, p99, max) ==="
for t in "${tests[@]}"; do
    if [[ $JSON == jq ]]; then
        jq -r --arg t "$t" '.metrics[$t] as $m | ($m.ops // {}) | to_entries[] |
            "\($t)\t\(.key)\t\(.value.count)\t\(.value.latency_ns.p50)\t\(.value.latency_ns.p99)\t\(.value.latency_ns.max)\t\($m.elapsed_s)"' "$j"
    fi
done | awk -F'\t' -v lab="$(for t in "${tests[@]}"; do printf '%s=%s;' "$t" "${label[$t]}"; done)" '
    BEGIN { n = split(lab, a, ";"); for (i = 1; i <= n; i++) { split(a[i], kv, "="); L[kv[1]] = kv[2] }
            printf "%-15s %-7s %9s %11s %11s %11s %9s\n", "test", "op", "count", "p50 us", "p99 us", "max us", "elapsed s" }
    { printf "%-15s %-7s %9d %11.1f %11.1f %11.1f %9.3f\n", (prev == $1 ? "" : L[$1]), $2, $3, $4 / 1000, $5 / 1000, $6 / 1000, $7; prev = $1 }'
[[ $JSON == jq ]] || say "(needs jq)"
say ""

# the classic Bonnie beside
say "=== the classic Bonnie (iogauge bonnie, default flavor) beside bonnie++: medians, no verdict ==="
say "(Bonnie: 16 KiB chunks, per-char through a stdio-like buffer, 4000 seeks by 3 processes, no fsync;"
say " bonnie++: 8 KiB chunks, per-char as 1-byte read/write calls on 3 MiB, 8192 seeks by 5 processes, fsync)"
printf '%-15s %-5s %14s %6s %14s %6s %14s %6s\n' test unit "bonnie++" "%CPU" "iog bonnie++" "%CPU" "classic Bonnie" "%CPU"
declare -A K_C P_C
for t in putc put_block rewrite getc get_block seeks; do
    kc=() pc=()
    for ((r = 1; r <= REPS; r++)); do
        kc+=("$(jget "$TMP/classic.$r.json" ".metrics.$t.rate")")
        pc+=("$(jget "$TMP/classic.$r.json" ".metrics.$t.cpu_percent")")
    done
    K_C[$t]=$(medp "${kc[@]}") P_C[$t]=$(medp "${pc[@]}")
    printf '%-15s %-5s %14s %6s %14s %6s %14s %6s\n' "${label[$t]}" "${unit[$t]}" "$(fmt0 "${M_B[$t]}")" "$(fmt0 "${C_B[$t]}")" \
        "$(fmt0 "${M_I[$t]}")" "$(fmt0 "${C_I[$t]}")" "$(fmt0 "${K_C[$t]}")" "$(awk -v a="${P_C[$t]}" 'BEGIN {printf "%.1f", a}')"
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
    for ((r = 1; r <= REPS; r++)); do
        if [[ ${first[r]} == bpp ]]; then o=(bpp iog); else o=(iog bpp); fi
        for t in "${o[@]}"; do sed "s/^\(1\.98,2\.00a,\)bench,/\1${t:0:1}$r,/" "$TMP/$t.$r.csv"; done
    done | bon_csv2txt || true
    say ""
fi

load "after"
[[ -n $bounded ]] && say "page cache: bounded by the memory cgroup ($MEM_LIMIT; file $SIZE_MIB MiB)" ||
    say "page cache: not bounded (no memory cgroup); both tools ran with -D"
say ""
say "=== results: medians over $REPS repetitions, ratio = iogauge / bonnie++ ==="
printf '%-15s %-5s %12s %12s %7s  %s\n' test unit "bonnie++" iogauge ratio verdict
for t in "${tests[@]}"; do
    b=${M_B[$t]} g=${M_I[$t]}
    if isnum "$b" && isnum "$g"; then rt=$(ratio "$g" "$b"); else rt=-; fi
    if [[ -z ${tol[$t]:-} ]]; then
        v="(beside, no verdict)"
    elif [[ $rt == - || $rt == n/a ]]; then
        v="n/a (+++++: under 0.5 s)"
    else
        v="$(within "$rt" "${tol[$t]}") (within $(awk -v t="${tol[$t]}" 'BEGIN {printf "%d", t * 100}') %)"
    fi
    printf '%-15s %-5s %12s %12s %7s  %s\n' "${label[$t]}" "${unit[$t]}" "$(fmt0 "$b")" "$(fmt0 "$g")" "$rt" "$v"
done
say ""
say "run time: $(((SECONDS - t_start) / 60)) min $(((SECONDS - t_start) % 60)) s"
exit 0

#!/usr/bin/env bash
# ffsb_vs_ref.sh — `iogauge ffsb` against FFSB 6.0-rc2 itself (the reference
# C program, built from its source) on the same profile files, on this
# machine, in one script run.
#
# What is compared, per profile and repetition: both tools run the same
# profile file, rewritten for the run (FFSB has no --location or --time):
#   - every file system's `location` becomes a fresh, empty directory under
#     the work directory (one file system: RUN/fs; several: RUN/fs0, RUN/fs1,
#     ..., with `bindfs` and `clone` following their file system), made
#     before the run (FFSB does not make it) and removed, whole, after it;
#   - `time` becomes TIME.
# The rewrite is an awk script rather than a sed one-liner so that profiles
# with several file systems (examples/ffsb/database.ffsb) keep their
# bindfs/clone pointing at the right one; comments are dropped from the
# rewritten lines only.
#
#   FFSB     (cd RUN && $FFSB PROFILE)       its text report
#   iogauge  $IOGAUGE ffsb PROFILE --seed S --json FILE [--engine ENGINE]
#            S = SEED + rep - 1, so each repetition has its own choices
#            (FFSB seeds itself from /dev/urandom)
#
# From FFSB's text report (the "Total Results" section, which both tools
# print in the same layout) the script takes:
#   N Transactions per Second            total transactions/s
#   Read Throughput: X/sec               read bytes/s   (absent: 0)
#   Write Throughput: X/sec              write bytes/s  (absent: 0)
#   <op> : <transactions> <trans/s> ...  per-op trans/s, and the per-op
#                                        throughput (write, write_fsync)
#   Benchmark took N sec                 the run's time
# Sizes are FFSB's ffsb_printsize(): "%.3g" then GB, MB, KB or B in powers
# of 1024 (so "1e+03KB" is 1000 KiB); 3 significant digits, ±0.5 %.
# From iogauge's JSON: metrics.transactions_per_s, .read_bytes_per_s,
# .write_bytes_per_s, .total.ops.<op>.transactions_per_s and .bytes_per_s;
# its "Benchmark took" from its text report. As a check of the parser, the
# same parser reads iogauge's text report too, and the output says whether
# it agrees with iogauge's JSON.
#
# Default profiles (PROFILES): FFSB's own examples/profile_everything
# (examples/ffsb/profile_everything.ffsb: FFSB's file unchanged below a
# comment; agefs=0, 100 MiB of files, eleven operations with [stats]), the
# slides' example 2 (slides-example2: two 64 MiB files, reads and writes of
# the whole file in 4 KiB calls), and two of iogauge's models of real loads
# (mailserver: small files, create_fsync, append_fsync, readall, delete;
# fileserver: create, append, readall, delete, stat, 50 threads).
#
# Known differences (docs/ffsb.md, src/suites/ffsb/bench.rs), printed beside
# the figures:
#   - FFSB rc2 counts the whole file's size as the bytes of each write and
#     write_fsync operation, not write_size: its write throughput is inflated
#     where those operations run on files larger than write_size (not in the
#     slides' examples, whose write_size is the file's 64 MiB). iogauge
#     counts the bytes written. The script also compares the write
#     throughput without those two operations.
#   - FFSB does not count a read operation's short last call as a
#     transaction: a readall of a file smaller than read_blocksize counts 0
#     (the mail and file server models read in 1 MiB calls, so FFSB shows no
#     readall row at all). iogauge counts every call. Total transactions/s
#     differ by as much.
#   - FFSB's "Benchmark took" (the divisor of every rate) includes the final
#     sync, and its thread groups poll the clock once a second; iogauge's
#     ends when the last operation in progress at `time` ends, without the
#     sync. Write-heavy profiles therefore read lower in FFSB.
#   - FFSB fills its write buffers from /dev/urandom and re-uses those bytes;
#     iogauge draws its own. (No effect on ext4 without compression.)
#   - Engine: FFSB calls lseek + read/write; iogauge's default engine is
#     psync (pread/pwrite at the same offsets). ENGINE=sync makes it issue
#     FFSB's calls.
#
# Page cache: before every run the script calls `sync` and, when run as root
# and DROP_CACHES=1 (the default), `echo 3 > /proc/sys/vm/drop_caches`, so
# that each tool starts without the other's dirty pages, dentries and
# inodes. Each tool builds its file set (untimed) right before its timed run,
# so the files it then reads are in the page cache in both tools alike.
#
# Noise control: within each repetition the two tools run back to back on
# each profile, and which one goes first alternates between repetitions
# (iogauge in odd ones). Figures are medians over REPS; ratios are
# iogauge/FFSB. A figure is "same" when the ratio of the medians is within
# 10 %, else "DIFFERS" with a hint. It is a report, not a test: the exit
# status is 0 whatever the verdicts (and a run that fails is reported and
# left out of the medians). The output goes to stdout only (save it as
# bench/results-ffsb_vs_ref.txt).
#
# Environment:
#   FFSB         FFSB 6.0-rc2's binary (required; it is in no distribution:
#                build it from its source with ./configure && make)
#   IOGAUGE      the iogauge binary, with the `ffsb` subcommand (default:
#                `cargo build --release` in this repo, with CARGO_TARGET_DIR,
#                default /tmp/bench-target)
#   DIR          where to put the work directory (default: the current
#                directory). The script makes its own ffsb_vs_ref.XXXXXX in
#                there (~300 MiB at a time, one run's file set) and removes
#                only that (and DIR itself if the script created it).
#   REPS         repetitions (default 3)
#   TIME         seconds of each timed run, the profiles' `time` (default 10)
#   PROFILES     profiles, space-separated: names in examples/ffsb (without
#                .ffsb) or paths (default: profile_everything slides-example2
#                mailserver fileserver)
#   SEED         iogauge's seed in repetition 1 (default 1)
#   DROP_CACHES  1 (default): drop the page cache before each run when root;
#                0: only sync
#   ENGINE       iogauge's --engine (default: none given, i.e. psync)
#
# Needs jq or python3. Takes about REPS × profiles × 2 × (TIME + 5 s):
# ~6 min with the defaults here.
set -euo pipefail

REPS=${REPS:-3}
TIME=${TIME:-10}
SEED=${SEED:-1}
DROP_CACHES=${DROP_CACHES:-1}
ENGINE=${ENGINE:-}
PROFILES=${PROFILES:-profile_everything slides-example2 mailserver fileserver}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
TIME=${TIME%s}
[[ $TIME =~ ^[0-9]+$ && $TIME -gt 0 ]] || die "TIME must be a whole number of seconds > 0 (FFSB's time is whole seconds)"
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be a whole number"
[[ $DROP_CACHES == [01] ]] || die "DROP_CACHES must be 0 or 1"
# FFSB's operations, in the order of its report
ALL_OPS=(read readall write create append delete metaop createdir stat writeall writeall_fsync
    open_close write_fsync create_fsync append_fsync)

# ---------------------------------------------------------------- tools
if [[ -z ${FFSB:-} || ! -x ${FFSB:-} ]]; then
    die "$([[ -n ${FFSB:-} ]] && echo "FFSB=$FFSB is not an executable" || echo "FFSB is not set"): give the reference binary as FFSB=/path/to/ffsb.
FFSB 6.0-rc2 is in no distribution; build it from its source (https://sourceforge.net/projects/ffsb/,
mirror https://github.com/jrsantos/FFSB), in the source directory:
    ./configure && make
then run e.g. FFSB=\$PWD/ffsb bash $here/ffsb_vs_ref.sh"
fi
FFSB=$(cd "$(dirname -- "$FFSB")" && pwd)/$(basename -- "$FFSB")
json_reader
iogauge_binary
if ! help_out=$("$IOGAUGE" ffsb --help 2>&1); then
    die "'$IOGAUGE ffsb --help' failed: this iogauge has no ffsb subcommand. It said: $(printf '%s' "$help_out" | head -n 3 | tr '\n' ' ')"
fi
drop=
[[ $DROP_CACHES == 1 && $(id -u) -eq 0 ]] && drop=yes

# the profiles: names (in examples/ffsb) or paths
declare -a pnames
declare -A pfile
for p in $PROFILES; do
    if [[ -f $p ]]; then f=$p
    elif [[ -f $repo/examples/ffsb/$p.ffsb ]]; then f=$repo/examples/ffsb/$p.ffsb
    elif [[ -f $repo/examples/ffsb/$p ]]; then f=$repo/examples/ffsb/$p
    else die "profile '$p': neither a file nor a name in $repo/examples/ffsb"; fi
    n=$(basename -- "$f" .ffsb)
    [[ -z ${pfile[$n]:-} ]] || die "profile '$p': two profiles named $n"
    [[ $n =~ ^[A-Za-z0-9._-]+$ ]] || die "profile '$p': want a name of letters, digits, '.', '_' or '-'"
    pnames+=("$n")
    pfile[$n]=$(cd "$(dirname -- "$f")" && pwd)/$(basename -- "$f")
done
((${#pnames[@]})) || die "PROFILES is empty"

# ---------------------------------------------------------------- work directory
make_workdir ffsb_vs_ref
# FFSB's parser drops all white space in a line and cuts it at '#'
[[ $WORK =~ ^[A-Za-z0-9/._+-]+$ ]] || die "the work directory $WORK has characters an FFSB profile cannot hold (white space, '#', ...); pick another DIR"

# ---------------------------------------------------------------- profiles and reports
# rewrite PROFILE OUT RUN: PROFILE with its locations under RUN and time=TIME,
# to OUT; prints the directories to make, one a line
rewrite() {
    awk -v run="$3" -v t="$TIME" -v out="$2" '
        function body(l) { sub(/#.*/, "", l); return l }
        function key(l,   k) { l = body(l); if (!index(l, "=")) return ""; k = substr(l, 1, index(l, "=") - 1); gsub(/[ \t\r]/, "", k); return k }
        function val(l,   v) { l = body(l); v = substr(l, index(l, "=") + 1); gsub(/[ \t\r]/, "", v); return v }
        function lead(l) { match(l, /^[ \t]*/); return substr(l, 1, RLENGTH) }
        NR == FNR {
            if (key($0) == "location" && !(val($0) in map)) { order[++n] = val($0); map[val($0)] = "" }
            if (key($0) == "time") hastime = 1
            next
        }
        FNR == 1 {
            for (i = 1; i <= n; i++) map[order[i]] = (n == 1) ? run "/fs" : run "/fs" (i - 1)
            print "# rewritten by ffsb_vs_ref.sh: location under " run ", time=" t > out
            if (!hastime) print "time=" t > out
        }
        { k = key($0) }
        k == "time" { print lead($0) "time=" t > out; next }
        (k == "location" || k == "bindfs" || k == "clone") && (val($0) in map) { print lead($0) k "=" map[val($0)] > out; next }
        { print > out }
        END { for (i = 1; i <= n; i++) print map[order[i]] }
    ' "$1" "$1"
}

# parse REPORT: FFSB's text report (FFSB's or iogauge's), its last "Total
# Results" section, as lines "tps N", "read B/s", "write B/s", "took S",
# "op NAME TRANS/S BYTES/S|-", "version V"; nothing but the version and the
# time if there is no such section (the run failed)
parse() {
    awk '
        # ffsb_printsize: "%.3g" and GB, MB, KB or B (powers of 1024); "-" for NA
        function bytes(s,   u, m) {
            sub(/\/sec$/, "", s)
            if (!match(s, /[KMG]?B$/)) return "-"
            u = substr(s, RSTART); s = substr(s, 1, RSTART - 1)
            m = (u == "GB") ? 1073741824 : (u == "MB") ? 1048576 : (u == "KB") ? 1024 : 1
            return sprintf("%.6f", s * m)
        }
        /^FFSB version / { sub(/^FFSB version /, ""); sub(/ started$/, ""); print "version " $0 }
        /^Benchmark took [0-9.]+ sec/ { took = $3 }
        /^Total Results/ { sect = 1; nop = 0; rd = 0; wr = 0; tps = ""; next }
        sect == 1 && /^ *[a-z_]+ : +[0-9]+[ \t]/ { op[++nop] = $1 " " $4 " " bytes($7); next }
        sect == 1 && /^[0-9.]+ Transactions per Second/ { tps = $1; sect = 2; next }
        sect == 2 && /^Read Throughput: / { rd = bytes($3) }
        sect == 2 && /^Write Throughput: / { wr = bytes($3) }
        END {
            if (took != "") print "took " took
            if (tps == "") exit
            print "tps " tps; print "read " rd; print "write " wr
            for (i = 1; i <= nop; i++) print "op " op[i]
        }
    ' "$1"
}

# ---------------------------------------------------------------- arithmetic
# med V...: the median of the numbers among V (empty or "-" left out), "-" if none
med() {
    local nums=() x
    for x in "$@"; do [[ $x =~ ^[0-9.]+([eE][-+]?[0-9]+)?$ ]] && nums+=("$x"); done
    if ((${#nums[@]})); then median "${nums[@]}"; else echo -; fi
}
# spread V...: (max - min) / median, in %
spread() {
    local m
    m=$(med "$@")
    [[ $m == - ]] && { echo -; return; }
    printf '%s\n' "$@" | grep -E '^[0-9.]+([eE][-+]?[0-9]+)?$' | sort -g |
        awk -v m="$m" 'NR == 1 {lo = $1} {hi = $1} END {if (m == 0) print 0; else printf "%.0f", (hi - lo) / m * 100}'
}
within10() { awk -v r="$1" 'BEGIN {print (r != "n/a" && r >= 0.9 && r <= 1.1) ? "same" : "DIFFERS"}'; }
# fmt FIGURE V: a rate as trans/s (one decimal), bytes/s as MiB/s, seconds
fmt() {
    [[ $2 == - || -z $2 ]] && { echo -; return; }
    case $1 in
        read | write | write_x | opB.*) awk -v a="$2" 'BEGIN {printf "%.2f", a / 1048576}' ;;
        took | wall) awk -v a="$2" 'BEGIN {printf "%.2f", a}' ;;
        *) awk -v a="$2" 'BEGIN {printf "%.1f", a}' ;;
    esac
}
label() {
    case $1 in
        tps) echo "transactions/s" ;;
        read) echo "read MiB/s" ;;
        write) echo "write MiB/s" ;;
        write_x) echo "write MiB/s w/o write ops" ;;
        took) echo "benchmark took (s)" ;;
        wall) echo "wall time of the run (s)" ;;
        opB.*) echo "  ${1#opB.} MiB/s" ;;
        op.*) echo "  ${1#op.} trans/s" ;;
    esac
}

# ---------------------------------------------------------------- header
load() { say "$1: load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
say "iogauge ffsb vs FFSB 6.0-rc2 — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
say_iogauge
say "FFSB:    $FFSB (the version line of its first run is printed below)"
say "JSON via $JSON"
say "work dir: $WORK ($(findmnt -n -o FSTYPE,SOURCE,OPTIONS -T "$WORK" | awk '{print $1 " on " $2 ", " $3}'))"
say "REPS=$REPS, TIME=$TIME s, SEED=$SEED (iogauge --seed SEED+rep-1), engine: ${ENGINE:-the default, psync}"
say "profiles: $(for n in "${pnames[@]}"; do printf '%s ' "${pfile[$n]#"$repo"/}"; done)"
say "each run: the profile with location under a fresh WORK/run.TOOL.PROFILE.REP and time=$TIME; that directory made"
say "          before the run and removed, whole, after it (FFSB removes data/ and meta/ only at its next start)"
say "FFSB:     (cd RUN && $FFSB PROFILE)"
say "iogauge:  $IOGAUGE ffsb PROFILE --seed S${ENGINE:+ --engine $ENGINE} --json FILE"
if [[ -n $drop ]]; then
    say "before each run: sync; echo 3 > /proc/sys/vm/drop_caches"
else
    say "before each run: sync (no drop of the page cache: $([[ $DROP_CACHES == 0 ]] && echo "DROP_CACHES=0" || echo "not root"))"
fi
say "known differences (docs/ffsb.md), printed again where they bear on a figure:"
say "  - FFSB rc2 counts the whole file's size for each write/write_fsync op (not write_size): its write"
say "    throughput is inflated where those ops run on files larger than write_size; iogauge counts bytes written"
say "  - FFSB does not count a read op's short last call as a transaction (a readall of a file smaller than"
say "    read_blocksize counts none); iogauge counts every call"
say "  - FFSB's \"Benchmark took\", the divisor of its rates, includes the final sync (and it polls the clock"
say "    once a second); iogauge's ends with the last operation, without the sync"
say "  - FFSB re-uses random bytes from /dev/urandom for its writes; iogauge draws them from --seed"
load "before"
say ""

# ---------------------------------------------------------------- the runs
# run_one TOOL PROFILE REP: one run; TAG.out its output, TAG.json iogauge's
# JSON, TAG.rc its exit status
run_one() {
    local tool=$1 p=$2 r=$3 tag=$WORK/$1.$2.$3 run=$WORK/run.$1.$2.$3 rc=0 d t0 t1
    mkdir -- "$run"
    rewrite "${pfile[$p]}" "$tag.ffsb" "$run" >"$tag.dirs"
    while read -r d; do mkdir -p -- "$d"; done <"$tag.dirs"
    sync
    [[ -n $drop ]] && echo 3 >/proc/sys/vm/drop_caches
    t0=$(date +%s%N)
    if [[ $tool == ffsb ]]; then
        (cd "$run" && exec "$FFSB" "$tag.ffsb") >"$tag.out" 2>&1 </dev/null || rc=$?
    else
        "$IOGAUGE" ffsb "$tag.ffsb" --seed $((SEED + r - 1)) ${ENGINE:+--engine "$ENGINE"} \
            --json "$tag.json" >"$tag.out" 2>&1 </dev/null || rc=$?
    fi
    t1=$(date +%s%N)
    echo "$rc" >"$tag.rc"
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f\n", (b - a) / 1e9}' >"$tag.wall"
    printf '  %-8s %-20s rep %s: exit %s, %s s wall\n' "$tool" "$p" "$r" "$rc" "$(cat "$tag.wall")"
    if ((rc != 0)); then
        say "  warning: $tool failed on $p (rep $r); left out of the medians. Its last lines:"
        tail -n 6 "$tag.out" | sed 's/^/    | /'
    fi
    rm -rf -- "$run" # FFSB's data/ and meta/ (and anything iogauge left)
}

declare -a first
for ((r = 1; r <= REPS; r++)); do
    if ((r % 2)); then first[r]=iogauge; order=(iogauge ffsb); else first[r]=ffsb; order=(ffsb iogauge); fi
    say "rep $r/$REPS (${first[r]} first on each profile) ..."
    for p in "${pnames[@]}"; do
        for t in "${order[@]}"; do run_one "$t" "$p" "$r"; done
    done
done
load "after"
say ""

# ---------------------------------------------------------------- extract
# V[TOOL.PROFILE.REP.FIGURE]; FIGURE: tps read write took op.NAME opB.NAME
declare -A V HAS
ffsb_version=
n_check=0 n_check_ok=0
check_bad=()
for p in "${pnames[@]}"; do
    for ((r = 1; r <= REPS; r++)); do
        # FFSB: its text report
        tag=$WORK/ffsb.$p.$r
        V[ffsb.$p.$r.wall]=$(cat "$tag.wall")
        parse "$tag.out" >"$tag.parsed"
        ok=
        while read -r k a b c; do
            case $k in
                version) [[ -n $ffsb_version ]] || ffsb_version="$a${b:+ $b}${c:+ $c}" ;;
                took) V[ffsb.$p.$r.took]=$a ;;
                tps | read | write) V[ffsb.$p.$r.$k]=$a ok=yes ;;
                op) V[ffsb.$p.$r.op.$a]=$b V[ffsb.$p.$r.opB.$a]=$c HAS[$p.$a]=1 ;;
            esac
        done <"$tag.parsed"
        if [[ -n $ok && $(cat "$tag.rc") == 0 ]]; then # an op left out of FFSB's table counted none
            for o in "${ALL_OPS[@]}"; do [[ -n ${V[ffsb.$p.$r.op.$o]:-} ]] || V[ffsb.$p.$r.op.$o]=0; done
        else # a failed run: no figures
            for k in tps read write "${ALL_OPS[@]/#/op.}" "${ALL_OPS[@]/#/opB.}"; do V[ffsb.$p.$r.$k]=-; done
        fi
        # iogauge: its JSON, and its text report through the same parser as a check
        tag=$WORK/iogauge.$p.$r
        V[iogauge.$p.$r.wall]=$(cat "$tag.wall")
        parse "$tag.out" >"$tag.parsed"
        declare -A T=()
        while read -r k a b c; do
            case $k in
                took) V[iogauge.$p.$r.took]=$a ;;
                tps | read | write) T[$k]=$a ;;
                op) T[op.$a]=$b ;;
            esac
        done <"$tag.parsed"
        if [[ $(cat "$tag.rc") == 0 && -s $tag.json ]]; then
            V[iogauge.$p.$r.tps]=$(jget "$tag.json" .metrics.transactions_per_s)
            V[iogauge.$p.$r.read]=$(jget "$tag.json" .metrics.read_bytes_per_s)
            V[iogauge.$p.$r.write]=$(jget "$tag.json" .metrics.write_bytes_per_s)
            for o in "${ALL_OPS[@]}"; do
                v=$(jget "$tag.json" ".metrics.total.ops.$o.transactions_per_s")
                V[iogauge.$p.$r.op.$o]=${v:-0}
                V[iogauge.$p.$r.opB.$o]=$(jget "$tag.json" ".metrics.total.ops.$o.bytes_per_s")
                [[ -n $v ]] && HAS[$p.$o]=1
            done
            # the parser check: text (FFSB's %.2f and %.3g) against JSON, within 0.5 % (or 0.01 absolute)
            for k in tps read write "${ALL_OPS[@]/#/op.}"; do
                j=${V[iogauge.$p.$r.$k]} x=${T[$k]:-0}
                [[ $k == op.* && -z ${T[$k]:-} && $j == 0 ]] && continue
                n_check=$((n_check + 1))
                if awk -v a="$x" -v b="$j" 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 || d <= 0.005 * b)}'; then
                    n_check_ok=$((n_check_ok + 1))
                else
                    check_bad+=("$p rep $r $k: text $x, JSON $j")
                fi
            done
        else
            for k in tps read write; do V[iogauge.$p.$r.$k]=-; done
        fi
        unset T
    done
done

# ---------------------------------------------------------------- report
# vals TOOL PROFILE FIGURE: the figure over the repetitions
vals() { local r; for ((r = 1; r <= REPS; r++)); do printf '%s\n' "${V[$1.$2.$r.$3]:--}"; done; }
# medof TOOL PROFILE FIGURE
medof() { local a; mapfile -t a < <(vals "$1" "$2" "$3"); med "${a[@]}"; }
spreadof() { local a; mapfile -t a < <(vals "$1" "$2" "$3"); spread "${a[@]}"; }
# write_x: write bytes/s without the write and write_fsync ops' bytes
for p in "${pnames[@]}"; do
    [[ -n ${HAS[$p.write]:-}${HAS[$p.write_fsync]:-} ]] || continue
    for t in iogauge ffsb; do
        for ((r = 1; r <= REPS; r++)); do
            w=${V[$t.$p.$r.write]:--}
            [[ $w == - ]] && { V[$t.$p.$r.write_x]=-; continue; }
            V[$t.$p.$r.write_x]=$(awk -v w="$w" -v a="${V[$t.$p.$r.opB.write]:-0}" -v b="${V[$t.$p.$r.opB.write_fsync]:-0}" \
                'BEGIN {a = (a == "-") ? 0 : a; b = (b == "-") ? 0 : b; x = w - a - b; printf "%.6f", (x < 0) ? 0 : x}')
        done
    done
done

# hint PROFILE FIGURE RATIO IOGAUGE FFSB: why a figure may differ (the
# known differences that push it the way it went)
hint() {
    local p=$1 f=$2 rt=$3 mi=$4 mf=$5 h=() ti tf si sf up=
    if [[ $rt == n/a ]]; then
        h+=("FFSB counted none") up=yes
    else
        h+=("iogauge $(awk -v r="$rt" 'BEGIN {if (r > 1) printf "%.0f %% higher", 100 * r - 100; else printf "%.0f %% lower", 100 - 100 * r}')")
        awk -v r="$rt" 'BEGIN {exit !(r > 1)}' && up=yes
    fi
    if [[ -n $up ]]; then
        case $f in
            op.readall | op.read)
                h+=("FFSB counts no transaction for a read op's short last call, iogauge counts every call (a file smaller than read_blocksize: FFSB counts none)") ;;
            tps)
                if [[ -n ${HAS[$p.read]:-}${HAS[$p.readall]:-} ]]; then
                    h+=("the reads' short last calls are transactions in iogauge only")
                fi ;;
        esac
        ti=$(medof iogauge "$p" took) tf=$(medof ffsb "$p" took)
        if [[ $ti != - && $tf != - ]] && awk -v i="$ti" -v f="$tf" 'BEGIN {exit !(f > i * 1.02)}'; then
            h+=("FFSB's rates divide by $tf s against iogauge's $ti s: FFSB's time includes the final sync")
        fi
    elif [[ $f == write || $f == opB.write || $f == opB.write_fsync ]] && [[ -n ${HAS[$p.write]:-}${HAS[$p.write_fsync]:-} ]]; then
        h+=("FFSB rc2 counts the file's whole size for each write/write_fsync op, not write_size")
    fi
    ((${#h[@]} > 1)) || h+=("none of the known differences explains it")
    si=$(spreadof iogauge "$p" "$f") sf=$(spreadof ffsb "$p" "$f")
    if ((REPS < 3)); then
        h+=("only $REPS repetition(s): no spread to judge by")
    elif awk -v a="$si" -v b="$sf" 'BEGIN {exit !((a != "-" && a > 20) || (b != "-" && b > 20))}'; then
        h+=("noisy (spread $si % / $sf %): more REPS or a longer TIME")
    fi
    local i
    printf '%s' "${h[0]}"
    for ((i = 1; i < ${#h[@]}; i++)); do printf '; %s' "${h[i]}"; done
}

n_same=0 n_all=0 n_none=0
for p in "${pnames[@]}"; do
    figs=(tps read write)
    [[ -n ${HAS[$p.write]:-}${HAS[$p.write_fsync]:-} ]] && figs+=(write_x)
    for o in "${ALL_OPS[@]}"; do [[ -n ${HAS[$p.$o]:-} ]] && figs+=("op.$o"); done
    for o in write write_fsync; do [[ -n ${HAS[$p.$o]:-} ]] && figs+=("opB.$o"); done
    say "=== $p (${pfile[$p]#"$repo"/}, time=$TIME) ==="
    say "per repetition (iogauge | FFSB):"
    printf '%-4s %-8s %23s %23s %23s %19s %19s\n' rep first "transactions/s" "read MiB/s" "write MiB/s" "took s" "wall s"
    for ((r = 1; r <= REPS; r++)); do
        printf '%-4s %-8s' "$r" "${first[r]}"
        for f in tps read write took wall; do
            w=11
            [[ $f == took || $f == wall ]] && w=9
            printf ' %*s|%-*s' "$w" "$(fmt "$f" "${V[iogauge.$p.$r.$f]:--}")" "$w" "$(fmt "$f" "${V[ffsb.$p.$r.$f]:--}")"
        done
        printf '\n'
    done
    say ""
    say "medians over $REPS repetitions; ratio = iogauge / FFSB"
    printf '%-27s %12s %12s %7s  %s\n' figure iogauge FFSB ratio verdict
    for f in "${figs[@]}"; do
        mi=$(medof iogauge "$p" "$f") mf=$(medof ffsb "$p" "$f")
        # when the write ops' bytes are all the writes (but for FFSB's 3-digit
        # rounding), there is nothing left to compare
        if [[ $f == write_x && $mi != - && $mf != - ]] && awk -v a="$mi" -v b="$mf" \
            -v wa="$(medof iogauge "$p" write)" -v wb="$(medof ffsb "$p" write)" 'BEGIN {exit !(a <= 0.01 * wa && b <= 0.01 * wb)}'; then
            continue
        fi
        if [[ $mi == - || $mf == - ]]; then
            rt=n/a
        else
            rt=$(ratio "$mi" "$mf")
        fi
        if [[ $mi == - || $mf == - ]]; then
            verdict="no figure ($([[ $mi == - ]] && echo iogauge || echo FFSB) failed in every repetition)"
            n_none=$((n_none + 1))
            printf '%-27s %12s %12s %7s  %s\n' "$(label "$f")" "$(fmt "$f" "$mi")" "$(fmt "$f" "$mf")" "$rt" "$verdict"
            continue
        elif awk -v a="$mi" -v b="$mf" 'BEGIN {exit !(a == 0 && b == 0)}'; then
            verdict="same (none in either)"
        else
            verdict=$(within10 "$rt")
        fi
        n_all=$((n_all + 1))
        if [[ $verdict == same* ]]; then
            n_same=$((n_same + 1))
        else
            verdict+=" ($(hint "$p" "$f" "$rt" "$mi" "$mf"))"
        fi
        printf '%-27s %12s %12s %7s  %s\n' "$(label "$f")" "$(fmt "$f" "$mi")" "$(fmt "$f" "$mf")" "$rt" "$verdict"
    done
    for f in took wall; do
        printf '%-27s %12s %12s\n' "$(label "$f")" "$(fmt "$f" "$(medof iogauge "$p" "$f")")" "$(fmt "$f" "$(medof ffsb "$p" "$f")")"
    done
    say "(took: the divisor of the rates; FFSB's includes the final sync, iogauge's does not. wall: the"
    say " whole process, the file set's creation and removal included; no verdict on either)"
    if [[ -n ${HAS[$p.write]:-}${HAS[$p.write_fsync]:-} ]]; then
        say "(\"write MiB/s w/o write ops\": the write throughput less the write and write_fsync ops' own,"
        say " which FFSB rc2 counts as whole files: where write_size is smaller than the files, only this compares)"
    fi
    say ""
done

say "FFSB's version line: ${ffsb_version:-none seen} (FFSB 6.0-rc2's configure.in still says 6.0-RC1)"
say "parser check: $n_check_ok of $n_check figures of iogauge's text report, read with the FFSB parser, agree with its JSON (0.5 %)"
for b in "${check_bad[@]}"; do say "  differs: $b"; done
say "=> $n_same of $n_all figures the same (iogauge/FFSB within 10 %)$( ((n_none)) && echo "; $n_none without a figure (a tool failed)")"
exit 0

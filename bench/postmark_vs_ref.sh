#!/usr/bin/env bash
# postmark_vs_ref.sh — `iogauge postmark` against Debian's PostMark 1.53 on
# the same configurations, on this machine, in one script run.
#
#   a. PostMark's defaults (500 files, 500 transactions)
#   b. 20 000 files, 50 000 transactions (sizes 500..10000, as by default)
#   c. 1 000 000 files, 1 000 000 transactions, sizes 100..1000, terse
#      (tests/fixtures/postmark/million.pmrc): elapsed time and peak RSS
#
# Each run starts in a fresh, empty directory at the same depth for both
# tools: PostMark runs in RUN/pm/ (it works in its current directory),
# iogauge in RUN/ (it makes its own RUN/iogauge-postmark-<pid>-<n>/). Each
# run comes after a sync and is timed from outside with the wall clock
# (PostMark's own timer counts whole seconds). Transactions per second =
# transactions / wall-clock seconds of the whole run (creation, transactions
# and deletion): the only rate both tools can be timed on alike. The tools
# alternate within each repetition, and which one goes first alternates
# between repetitions; figures are medians over the repetitions. (c) runs each tool
# once (REPS_MILLION), under /usr/bin/time -v, each after a sync and a
# 65-second pause: ext4 skips inodes freed in the last 60 s when it
# allocates new ones, which makes a run right after another one's million
# deletions slower. The order alternates between repetitions too. It is a
# report, not a test: the exit status is 0 whatever the verdicts.
#
# Run it on an otherwise idle machine: other CPU or I/O load skews one
# tool's runs more than the other's. The load average and the I/O pressure
# (/proc/pressure/io) are printed before and after, to tell.
#
# Environment (all optional):
#   DIR           where to put the work directory (default: the current
#                 directory). The script makes its own pm_vs_ref.XXXXXX in
#                 there and removes only that.
#   REPS          repetitions of (b) (default 3)
#   REPS_DEFAULTS repetitions of (a) (default 15: its runs last ~15 ms, and
#                 one scheduling hiccup of a shared machine moves one by 10 %)
#   REPS_MILLION  repetitions of (c) (default 1; 0 skips it: ~6 min per tool on disk)
#   IOGAUGE       the iogauge binary (default: `cargo build --release` in this
#                 repo, with CARGO_TARGET_DIR, default /tmp/bench-target)
#   POSTMARK      PostMark 1.53 (default: postmark on the PATH; Debian's
#                 package is installed with apt-get when run as root)
set -euo pipefail

REPS=${REPS:-3}
REPS_DEFAULTS=${REPS_DEFAULTS:-15}
REPS_MILLION=${REPS_MILLION:-1}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
[[ $REPS_DEFAULTS =~ ^[0-9]+$ && $REPS_DEFAULTS -gt 0 ]] || die "REPS_DEFAULTS must be a whole number > 0"
[[ $REPS_MILLION =~ ^[0-9]+$ ]] || die "REPS_MILLION must be a whole number"

# ---------------------------------------------------------------- tools
if [[ -z ${POSTMARK:-} ]]; then
    ensure postmark postmark || die "PostMark is not installed (apt-get install postmark)"
    POSTMARK=$(command -v postmark)
fi
[[ -x $POSTMARK ]] || die "POSTMARK=$POSTMARK is not an executable"
ensure /usr/bin/time time || die "GNU time (/usr/bin/time) is not installed (apt-get install time)"
json_reader
iogauge_binary

# ---------------------------------------------------------------- work directory
parent=${DIR:-$PWD}
[[ -d $parent ]] || die "DIR=$parent is not a directory"
WORK=$(mktemp -d "$parent/pm_vs_ref.XXXXXX")
WORK=$(cd "$WORK" && pwd)
trap 'rm -rf -- "$WORK"' EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- arithmetic
f2() { awk -v a="$1" 'BEGIN {printf "%.2f", a}'; }
f3() { awk -v a="$1" 'BEGIN {printf "%.3f", a}'; }

# ---------------------------------------------------------------- header
say "iogauge postmark vs PostMark 1.53 — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
say_iogauge
say "postmark: $POSTMARK ($(dpkg-query -W -f='${Package} ${Version}' postmark 2>/dev/null || echo 'version unknown'); banner: $(echo quit | "$POSTMARK" 2>/dev/null | head -1))"
say "work dir: $WORK ($(df -T "$WORK" | awk 'NR==2 {print $2 " on " $1}')), REPS_DEFAULTS=$REPS_DEFAULTS, REPS=$REPS, REPS_MILLION=$REPS_MILLION"
load() { say "$1: load average $(cut -d' ' -f1-3 /proc/loadavg)$([[ -r /proc/pressure/io ]] && echo ", I/O pressure $(awk '/^some/ {print $2, $3}' /proc/pressure/io)")"; }
load "before"
say ""

# ---------------------------------------------------------------- configurations
printf 'run\nquit\n' >"$WORK/defaults.pmrc"
printf 'set number 20000\nset transactions 50000\nrun\nquit\n' >"$WORK/n20k-t50k.pmrc"
printf 'set number 1000000\nset transactions 1000000\nset size 100 1000\nset report terse\nrun\nquit\n' >"$WORK/million.pmrc"
declare -A TX=([defaults]=500 [n20k-t50k]=50000 [million]=1000000)

# one_run TOOL CFG TAG: run TOOL on CFG.pmrc in a fresh directory; the wall
# time (ns) goes to TAG.ns, the output to TAG.out, iogauge's JSON to TAG.json,
# /usr/bin/time -v's report to TAG.time.
one_run() {
    local tool=$1 cfg=$2 tag=$WORK/$3
    local d=$WORK/run.$3
    mkdir "$d"
    # PostMark's directory is made here, iogauge's by iogauge: one each in RUN
    if [[ $tool == postmark ]]; then mkdir "$d/pm"; fi
    sync
    if [[ $cfg == million ]]; then sleep 65; fi
    local t0 t1
    t0=$(date +%s%N)
    if [[ $tool == postmark ]]; then
        (cd "$d/pm" && /usr/bin/time -v -o "$tag.time" "$POSTMARK" "$WORK/$cfg.pmrc" >"$tag.out" 2>&1 </dev/null)
    else
        (cd "$d" && /usr/bin/time -v -o "$tag.time" "$IOGAUGE" postmark "$WORK/$cfg.pmrc" \
            --json "$tag.json" >"$tag.out" 2>&1 </dev/null)
    fi
    t1=$(date +%s%N)
    echo $((t1 - t0)) >"$tag.ns"
    rmdir "$d/pm" 2>/dev/null || true
    if [[ -n $(ls -A "$d") ]]; then say "warning: $tool left files in $d"; fi
    rm -rf -- "$d"
}

# PostMark's own transaction rate, from its verbose report
pm_rate() { awk '/seconds of transactions/ {gsub(/[()]/, "", $5); print $5; exit}' "$1"; }
rss_of() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }

declare -a first
declare -A NREPS=([defaults]=$REPS_DEFAULTS [n20k-t50k]=$REPS)
for cfg in defaults n20k-t50k; do
    for ((r = 1; r <= NREPS[$cfg]; r++)); do
        if ((r % 2)); then first[r]=postmark; else first[r]=iogauge; fi
        say "$cfg, rep $r/${NREPS[$cfg]} (${first[r]} first) ..."
        if [[ ${first[r]} == postmark ]]; then
            one_run postmark "$cfg" "$cfg.pm.$r"; one_run iogauge "$cfg" "$cfg.ig.$r"
        else
            one_run iogauge "$cfg" "$cfg.ig.$r"; one_run postmark "$cfg" "$cfg.pm.$r"
        fi
    done
done
for ((r = 1; r <= REPS_MILLION; r++)); do
    if ((r % 2)); then
        say "million, rep $r/$REPS_MILLION (postmark, then iogauge; minutes each) ..."
        one_run postmark million "million.pm.$r"; one_run iogauge million "million.ig.$r"
    else
        say "million, rep $r/$REPS_MILLION (iogauge, then postmark; minutes each) ..."
        one_run iogauge million "million.ig.$r"; one_run postmark million "million.pm.$r"
    fi
done
say ""

# ---------------------------------------------------------------- report
declare -A verdict
for cfg in defaults n20k-t50k; do
    T=${TX[$cfg]}
    say "=== $cfg: $(tr '\n' ';' <"$WORK/$cfg.pmrc" | sed 's/;/; /g')==="
    printf '%-4s %-9s %10s %10s %12s %12s %14s %14s\n' rep first "pm wall s" "iog wall s" "pm tx/s" "iog tx/s" "pm own tx/s" "iog own tx/s"
    pm_r=() ig_r=() pm_w=() ig_w=()
    for ((r = 1; r <= NREPS[$cfg]; r++)); do
        pw=$(awk -v n="$(cat "$WORK/$cfg.pm.$r.ns")" 'BEGIN {print n/1e9}')
        iw=$(awk -v n="$(cat "$WORK/$cfg.ig.$r.ns")" 'BEGIN {print n/1e9}')
        pm_w+=("$pw") ig_w+=("$iw")
        pr=$(awk -v t="$T" -v w="$pw" 'BEGIN {print t/w}')
        ir=$(awk -v t="$T" -v w="$iw" 'BEGIN {print t/w}')
        pm_r+=("$pr") ig_r+=("$ir")
        own=$(jget "$WORK/$cfg.ig.$r.json" .metrics.transactions_per_s)
        printf '%-4s %-9s %10s %10s %12s %12s %14s %14s\n' "$r" "${first[r]}" "$(f3 "$pw")" "$(f3 "$iw")" \
            "$(f2 "$pr")" "$(f2 "$ir")" "$(pm_rate "$WORK/$cfg.pm.$r.out")" "$(f2 "${own:-0}")"
    done
    m_p=$(median "${pm_r[@]}") m_i=$(median "${ig_r[@]}")
    printf '%-14s %10s %10s %12s %12s\n' median "$(f3 "$(median "${pm_w[@]}")")" "$(f3 "$(median "${ig_w[@]}")")" "$(f2 "$m_p")" "$(f2 "$m_i")"
    printf '%-14s %34s\n' "iogauge/pm" "$(ratio "$m_i" "$m_p")"
    # the two runs of one repetition share the machine's state: their ratio
    # is steadier than the ratio of medians when the load drifts
    pair=()
    for ((r = 0; r < ${#ig_r[@]}; r++)); do pair+=("$(ratio "${ig_r[r]}" "${pm_r[r]}")"); done
    printf '%-14s %34s\n' "paired ratio" "$(median "${pair[@]}") (median of each repetition's iogauge/pm)"
    say "(tx/s = $T transactions / wall-clock seconds of the whole run; 'own' = each tool's"
    say " figure: PostMark's whole-second one, iogauge's from the nanosecond clock)"
    verdict[$cfg]="$(ge "$m_i" "$m_p") $(f2 "$m_i") vs $(f2 "$m_p") tx/s (ratio $(ratio "$m_i" "$m_p"))"
    say ""
done

if ((REPS_MILLION > 0)); then
    say "=== million: set number 1000000; set transactions 1000000; set size 100 1000; terse ==="
    printf '%-4s %-9s %10s %14s %20s\n' rep tool "wall s" "peak RSS KiB" "terse report"
    ig_rss=()
    for ((r = 1; r <= REPS_MILLION; r++)); do
        for t in pm ig; do
            w=$(awk -v n="$(cat "$WORK/million.$t.$r.ns")" 'BEGIN {printf "%.1f", n/1e9}')
            rss=$(rss_of "$WORK/million.$t.$r.time")
            [[ $t == ig ]] && ig_rss+=("$rss")
            terse=$(grep -E '^[0-9]+ [0-9]+ [0-9.]+( [0-9.]+){10}$' "$WORK/million.$t.$r.out" | head -1)
            printf '%-4s %-9s %10s %14s   %s\n' "$r" "$([[ $t == pm ]] && echo postmark || echo iogauge)" "$w" "$rss" "$terse"
        done
        j=$WORK/million.ig.$r.json
        say "     iogauge: created $(jget "$j" .metrics.files_created), read $(jget "$j" .metrics.files_read), appended $(jget "$j" .metrics.files_appended), deleted $(jget "$j" .metrics.files_deleted), $(f2 "$(jget "$j" .metrics.transactions_per_s)") tx/s (nanosecond clock), complete $(jget "$j" .complete)"
    done
    max_rss=$(printf '%s\n' "${ig_rss[@]}" | sort -g | tail -1)
    verdict[million]="$(lt "$max_rss" $((256 * 1024))) $max_rss KiB peak RSS"
    say ""
fi

load "after"
say ""
say "=== verdicts ==="
printf '  %s  defaults: iogauge tx/s >= PostMark (median)\n' "${verdict[defaults]}"
printf '  %s  20000 files / 50000 transactions: iogauge tx/s >= PostMark (median)\n' "${verdict[n20k-t50k]}"
if ((REPS_MILLION > 0)); then
    printf '  %s  1M files / 1M transactions: iogauge peak RSS < 256 MiB\n' "${verdict[million]}"
fi
exit 0

#!/usr/bin/env bash
# ffsb_shares.sh — does `iogauge ffsb` run a profile's operations in the
# shares FFSB 6.0-rc2 runs them? Counts, not timing: each tool runs each
# profile for TIME seconds, REPS times, and the script compares the
# "% Op Weight" column of their reports (each operation's share of the
# operations run) with each other and with two predictions:
#
#   weight   the operation's weight over the sum of the weights
#   draw     FFSB's draw, exactly: n = 1 + getrandom(sum), getrandom taking
#            as few random bytes as the sum needs (one below 256, two below
#            65536) modulo the sum, so that the numbers below 256 mod sum
#            (or 65536 mod sum) come from one more byte value than the
#            others; the operations take the numbers in FFSB's order
#
# FFSB draws from 20480 bytes of /dev/urandom that each thread uses over and
# over; iogauge fills the same buffer from --seed and uses it the same way.
# Both therefore sample the draw's shares through one buffer per thread: a
# run is off the draw by about a percentage point at most, and FFSB's runs
# and iogauge's by as much from each other. The verdict is "same" when the
# medians of the two tools are within 1.5 percentage points for every
# operation. It is a report, not a test: the exit status is 0 whatever the
# verdicts.
#
# Default profiles (PROFILES): two mixes written by the script to show the
# bias (mix30: read 14, write 6, create 5, stat 5, whose sum 30 leaves
# 256 mod 30 = 16 numbers favoured; mix200: read 56, stat 144, where read
# runs 43.75 % of the time against a weight of 28 %), and the shipped
# mailserver and fileserver models. Any profile with one file system can be
# given (names in examples/ffsb or paths); its `location` and `time` are
# rewritten to a fresh directory and TIME.
#
# Environment:
#   FFSB      FFSB 6.0-rc2's binary (required; build it from its source with
#             ./configure && make, e.g. in /tmp)
#   IOGAUGE   the iogauge binary (default: cargo build --release here)
#   DIR       where to make the work directory (default: the current one);
#             a file set of up to ~100 MiB at a time, removed after each run
#   REPS      runs of each tool per profile (default 3)
#   TIME      seconds of each run (default 3)
#   PROFILES  space-separated (default: mix30 mix200 mailserver fileserver)
#
# Takes about PROFILES × REPS × 2 × (TIME + 1) s: ~1.5 min with the defaults.
set -euo pipefail

REPS=${REPS:-3}
TIME=${TIME:-3}
PROFILES=${PROFILES:-mix30 mix200 mailserver fileserver}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
TIME=${TIME%s}
[[ $TIME =~ ^[0-9]+$ && $TIME -gt 0 ]] || die "TIME must be a whole number of seconds > 0"
[[ -n ${FFSB:-} && -x ${FFSB:-} ]] || die "give FFSB 6.0-rc2's binary as FFSB=/path/to/ffsb (build it from its source: ./configure && make)"
FFSB=$(cd "$(dirname -- "$FFSB")" && pwd)/$(basename -- "$FFSB")
iogauge_binary
make_workdir ffsb_shares
[[ $WORK =~ ^[A-Za-z0-9/._+-]+$ ]] || die "the work directory $WORK has characters an FFSB profile cannot hold; pick another DIR"

# FFSB's operations, in the order it walks the weights
OPS=(read readall write create append delete metaop createdir stat writeall writeall_fsync
    open_close write_fsync create_fsync append_fsync)

# the script's own mixes
mix() {
    local weights=$1
    printf 'time=1\n[filesystem]\n\tlocation=/placeholder\n\tnum_files=500\n\tnum_dirs=4\n'
    printf '\tmin_filesize=16k\n\tmax_filesize=16k\n[end]\n[threadgroup]\n\tnum_threads=4\n'
    printf '%b' "$weights"
    printf '\tread_size=4k\n\tread_blocksize=4k\n\twrite_size=4k\n\twrite_blocksize=4k\n[end]\n'
}
declare -A src
for p in $PROFILES; do
    case $p in
        mix30) mix '\tread_weight=14\n\twrite_weight=6\n\tcreate_weight=5\n\tstat_weight=5\n' >"$WORK/mix30.ffsb"
            src[$p]=$WORK/mix30.ffsb ;;
        mix200) mix '\tread_weight=56\n\tstat_weight=144\n' >"$WORK/mix200.ffsb"
            src[$p]=$WORK/mix200.ffsb ;;
        *) if [[ -f $p ]]; then src[$p]=$p
           elif [[ -f $repo/examples/ffsb/$p.ffsb ]]; then src[$p]=$repo/examples/ffsb/$p.ffsb
           else die "profile '$p': neither a file nor a name in examples/ffsb"; fi ;;
    esac
    n=$(grep -cE '^[[:space:]]*location[[:space:]]*=' "${src[$p]}" || true)
    [[ $n == 1 ]] || die "profile '$p': has $n locations; this script takes profiles with one file system"
done

# rewrite PROFILE RUN OUT: location=RUN, time=TIME
rewrite() {
    awk -v run="$2" -v t="$TIME" '
        BEGIN { print "time=" t }
        /^[ \t]*time[ \t]*=/ { next }
        /^[ \t]*location[ \t]*=/ { print "\tlocation=" run; next }
        { print }
    ' "$1" >"$3"
}

# shares REPORT: "op share" lines from the Total Results table
shares() {
    awk '
        /^Total Results/ { on = 1; next }
        # op : transactions trans/s %trans %opweight throughput
        on && /^ *[a-z_]+ : +[0-9]+/ { s = $6; sub(/%$/, "", s); print $1, s }
        on && /Transactions per Second/ { exit }
    ' "$1"
}

# predict PROFILE: "op weight% draw%" for the first thread group's weights
predict() {
    awk -v order="${OPS[*]}" '
        BEGIN { n = split(order, op, " ") }
        /^[ \t]*\[threadgroup/ { tg++ }
        tg == 1 && /_weight[ \t]*=/ { l = $0; sub(/#.*/, "", l); gsub(/[ \t]/, "", l)
            split(l, kv, "="); name = kv[1]; sub(/_weight$/, "", name); w[name] = kv[2] + 0 }
        /^[ \t]*\[end/ && tg == 1 { tg = 2 }
        END {
            for (i = 1; i <= n; i++) sum += w[op[i]]
            span = (sum < 256) ? 256 : 65536
            base = int(span / sum); extra = span % sum; v = 0
            for (i = 1; i <= n; i++) {
                c = 0
                for (k = 0; k < w[op[i]]; k++) { c += base + ((v < extra) ? 1 : 0); v++ }
                if (w[op[i]] > 0) printf "%s %.3f %.3f\n", op[i], 100 * w[op[i]] / sum, 100 * c / span
            }
        }
    ' "$1"
}

say "ffsb_shares — iogauge ffsb's operation shares against FFSB 6.0-rc2's, $(date -u '+%Y-%m-%d %H:%M UTC')"
say_iogauge
say "FFSB:    $FFSB"
say "REPS=$REPS, TIME=$TIME s, work dir $WORK"
say ""
declare -A V INFERRED
for p in $PROFILES; do
    for ((r = 1; r <= REPS; r++)); do
        for tool in ffsb iogauge; do
            run=$WORK/run.$tool
            rm -rf "$run"
            mkdir -p "$run"
            rewrite "${src[$p]}" "$run" "$WORK/p.ffsb"
            if [[ $tool == ffsb ]]; then
                (cd "$WORK" && "$FFSB" p.ffsb >"$WORK/out" 2>&1) || say "  ffsb $p rep $r: exit $?"
            else
                "$IOGAUGE" ffsb "$WORK/p.ffsb" --seed "$r" >"$WORK/out" 2>&1 || say "  iogauge $p rep $r: exit $?"
            fi
            while read -r o s; do V[$p.$tool.$o.$r]=$s; done < <(shares "$WORK/out")
            # FFSB prints no row for an operation with no transaction (a
            # readall of files smaller than read_blocksize counts none),
            # though its share counts: one such operation has the rest
            missing=() rest=100
            while read -r o _ _; do
                if [[ -z ${V[$p.$tool.$o.$r]:-} ]]; then missing+=("$o")
                else rest=$(awk -v a="$rest" -v b="${V[$p.$tool.$o.$r]}" 'BEGIN {print a - b}'); fi
            done < <(predict "${src[$p]}")
            if ((${#missing[@]} == 1)) && grep -q 'Transactions per Second' "$WORK/out"; then
                V[$p.$tool.${missing[0]}.$r]=$(awk -v a="$rest" 'BEGIN {printf "%.3f", a}')
                INFERRED[$p.$tool.${missing[0]}]=yes
            fi
            rm -rf "$run"
        done
    done
    say "=== $p: % of the operations run (medians of $REPS runs; FFSB | iogauge, each run) ==="
    printf '%-15s %8s %8s %8s %8s %7s  %s\n' op weight draw FFSB iogauge diff "runs"
    worst=0
    while read -r o w d; do
        f=() i=()
        for ((r = 1; r <= REPS; r++)); do
            f+=("${V[$p.ffsb.$o.$r]:-0}")
            i+=("${V[$p.iogauge.$o.$r]:-0}")
        done
        mf=$(median "${f[@]}") mi=$(median "${i[@]}")
        diff=$(awk -v a="$mi" -v b="$mf" 'BEGIN {printf "%+.2f", a - b}')
        worst=$(awk -v a="$diff" -v w="$worst" 'BEGIN {a = (a < 0) ? -a : a; print (a > w) ? a : w}')
        printf '%-15s %8s %8s %8.3f %8.3f %7s  %s | %s\n' "$o" "$w" "$d" "$mf" "$mi" "$diff" "${f[*]}" "${i[*]}"
    done < <(predict "${src[$p]}")
    for o in "${OPS[@]}"; do
        for tool in ffsb iogauge; do
            [[ -n ${INFERRED[$p.$tool.$o]:-} ]] && say "($tool printed no $o row, for it had no transaction: its share is 100 % less the others')"
        done
    done
    say "=> $(awk -v w="$worst" 'BEGIN {print (w <= 1.5) ? "same" : "DIFFERS"}') (largest difference of the medians: $worst percentage points)"
    say ""
done
exit 0

#!/usr/bin/env bash
# postmark_phases.sh — where the wall-clock time of a short PostMark run goes,
# for `iogauge postmark` and Debian's PostMark 1.53, from kernel tracepoints.
#
# A run of PostMark's defaults lasts ~10 ms, so the fixed cost of starting and
# ending a process weighs on the whole-run rate that postmark_vs_ref.sh
# compares. This script splits each run into three phases, with `perf record`
# on the tracepoints sched_process_exec, sys_enter_openat, sys_enter_unlink
# and sys_enter_exit_group (no sampling, a few hundred ns per event):
#
#   start  exec → the first create of a PostMark file (open with O_CREAT)
#   loop   that → the last unlink (creation, transactions, deletion)
#   end    that → exit_group (report, clean-up)
#
# The tools alternate; medians over REPS runs each. Tracing adds the same
# per-event cost to both loops (they make the same system calls), so compare
# the two tools' phases with each other, not with untraced timings.
#
# Environment (all optional):
#   DIR       where to work (default: /dev/shm); a pm_phases.XXXXXX directory
#             is made there and removed
#   REPS      runs per tool (default 15)
#   CONFIG    a PostMark configuration file (default: `run` with the defaults)
#   IOGAUGE   the iogauge binary (default: `cargo build --release` in this
#             repo, with CARGO_TARGET_DIR, default /tmp/bench-target)
#   POSTMARK  PostMark 1.53 (default: postmark on the PATH)
# Needs root (or perf_event_paranoid <= -1) for the tracepoints.
set -euo pipefail

REPS=${REPS:-15}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"
if [[ -z ${POSTMARK:-} ]]; then
    ensure postmark postmark || die "PostMark is not installed (apt-get install postmark)"
    POSTMARK=$(command -v postmark)
fi
ensure perf linux-perf || die "perf is needed (apt-get install linux-perf)"
iogauge_binary

WORK=$(mktemp -d "${DIR:-/dev/shm}/pm_phases.XXXXXX")
trap 'rm -rf -- "$WORK"' EXIT
if [[ -n ${CONFIG:-} ]]; then cp -- "$CONFIG" "$WORK/cfg"; else printf 'run\nquit\n' >"$WORK/cfg"; fi

# one traced run of "$@" in $WORK/run; prints "start loop end" in ms
phases() {
    mkdir "$WORK/run"
    (cd "$WORK/run" && perf record -q -o "$WORK/trace.data" \
        -e sched:sched_process_exec,syscalls:sys_enter_openat,syscalls:sys_enter_unlink,syscalls:sys_enter_exit_group \
        -- "$@" "$WORK/cfg" >/dev/null 2>&1)
    rm -rf -- "$WORK/run"
    perf script -i "$WORK/trace.data" -F comm,time,event,trace 2>/dev/null | awk '
        $1 != "iogauge" && $1 != "postmark" { next }
        { t = $2 + 0 }
        /sched_process_exec/ { ex = t }
        # O_WRONLY|O_CREAT|O_TRUNC (0x241), with or without O_CLOEXEC
        /sys_enter_openat/ && /flags: 0x000[08]0241/ && !first { first = t }
        /sys_enter_unlink/ { last = t }
        /sys_enter_exit_group/ { eg = t }
        END { printf "%.3f %.3f %.3f\n", (first - ex) * 1e3, (last - first) * 1e3, (eg - last) * 1e3 }'
}

for ((r = 1; r <= REPS; r++)); do
    if ((r % 2)); then
        echo "postmark $(phases "$POSTMARK")"; echo "iogauge $(phases "$IOGAUGE" postmark)"
    else
        echo "iogauge $(phases "$IOGAUGE" postmark)"; echo "postmark $(phases "$POSTMARK")"
    fi
done >"$WORK/phases.txt"

echo "postmark phases, $(uname -r), work dir $(df -T "$WORK" | awk 'NR==2 {print $2}'), $REPS runs each, alternating"
echo "config: $(tr '\n' ';' <"$WORK/cfg")"
echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %10s %10s %10s %10s   (medians, ms)\n' tool start loop end total
for tool in postmark iogauge; do
    m=()
    for col in 2 3 4; do
        # shellcheck disable=SC2046 # one number a word
        m+=("$(median $(awk -v tool="$tool" -v c="$col" '$1 == tool { print $c }' "$WORK/phases.txt"))")
    done
    printf '%-9s %10.2f %10.2f %10.2f %10.2f\n' "$tool" "${m[0]}" "${m[1]}" "${m[2]}" \
        "$(awk -v a="${m[0]}" -v b="${m[1]}" -v c="${m[2]}" 'BEGIN {print a + b + c}')"
done

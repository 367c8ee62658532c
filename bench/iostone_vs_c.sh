#!/usr/bin/env bash
# iostone_vs_c.sh — `iogauge iostone` (C/1) against Park & Lipton's own C
# program, on the same directory, alternating, and the ratio of the medians.
#
#   bench/iostone_vs_c.sh PAPER [REPS]
#
# PAPER is a text copy of Park & Lipton, "IOStone: A Synthetic File System
# Performance Benchmark" (Princeton CS-TR-074-87, 1987). Its Appendix A is the
# C/1 listing. The listing carries no licence, so this repository does not
# hold it: the script cuts it out of the text you give and compiles it with
# gcc -O2. A copy made from a scan has known damage, which the script repairs
# and checks: each repair must match once, or the script stops and says
# which one did not.
#
# Changes to the program, all in where it runs and how it is timed, none in
# what it does:
#   - time(2) counts whole seconds and a run takes milliseconds, so the
#     timer is CLOCK_MONOTONIC in microseconds. It starts and stops where
#     time(0) did: after init() (creating and writing the 4 MiB file), around
#     the 4 passes. iogauge times the same span.
#   - random(SEED), which does not seed on BSD or glibc, becomes
#     srandom(SEED): iogauge's default `--seeding srandom`.
#   - /tmp/iostone_temp_file becomes iostone_temp_file in the run's
#     directory, DIR, where iogauge also runs.
#
# Each repetition runs both, in alternating order, each after a sync. The
# figure is iostones per second, 400 000 / timed seconds; the medians of REPS
# (default 5) repetitions and their ratio (iogauge / C; ≥ 1 means iogauge is
# as fast or faster). A run takes 5–20 ms and measures system-call and copy
# speed (the file is in the page cache): a shared machine moves single runs
# by tens of percent, so use REPS of 21 or more there, and read the spread
# printed beside each median.
#
# Environment (all optional):
#   DIR      where the runs happen (default: a fresh directory under the
#            current one, removed at the end)
#   IOGAUGE  the iogauge binary (default: `cargo build --release` in this
#            repository, with CARGO_TARGET_DIR, default /tmp/bench-target)
#   CC       the C compiler (default gcc)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/bench/lib.sh"

paper=${1:-}
reps=${2:-5}
[[ -n $paper ]] || die "usage: $0 PAPER [REPS] (PAPER: a text copy of Park & Lipton's IOStone report, with its Appendix A)"
[[ -r $paper ]] || die "cannot read $paper"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive number, not '$reps'"
CC=${CC:-gcc}
command -v "$CC" >/dev/null || die "no C compiler '$CC'; install gcc"
command -v python3 >/dev/null || die "need python3 to cut the listing out of $paper"

iogauge_binary

own_dir=
if [[ -z ${DIR:-} ]]; then
    DIR=$(mktemp -d "$PWD/iostone_vs_c.XXXXXX")
    own_dir=$DIR
fi
[[ -d $DIR ]] || die "DIR $DIR is not a directory"
build=$(mktemp -d)
trap 'rm -rf "$build" ${own_dir:+"$own_dir"}' EXIT

# Cut Appendix A out of the text, drop the Markdown fences a text copy puts
# around code, repair the scan and retime it.
python3 - "$paper" "$build/iostone.c" <<'EOF'
import re, sys

text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
start = text.find("Appendix A: IOStone Code")
if start < 0:
    sys.exit(f"{sys.argv[1]}: no 'Appendix A: IOStone Code' in it; give the IOStone report's text")
lines = [l for l in text[start:].splitlines()[1:] if not l.startswith("```")]
src = "\n".join(lines) + "\n"


def repair(what, old, new, regex=False):
    global src
    n = len(re.findall(old, src)) if regex else src.count(old)
    if n != 1:
        sys.exit(f"{sys.argv[1]}: the listing differs from the known copy ({what}: found {n} times, expected once)")
    src = re.sub(old, lambda _: new, src) if regex else src.replace(old, new)


# The header comment lost its opening "/*".
src = "/*\n" + src
# The nested "/*define if no time function*/" comment opens inside a
# comment; the scan also lost the NOTIME/TIME choice's closing "*/".
repair("NOTIME comment", "/*#define NOTIME", "/* #define NOTIME */")
repair("nested comment", "/*define if no time function in library*/", "")
# Escapes from the text conversion.
repair("escaped loop", r"for(i=0;i\!<\!bfreq[j];i++)\{", "for(i=0;i<bfreq[j];i++){")
repair("split operator", "totaltime! = 0", "totaltime != 0")
# The declarations of time(), starttime and totaltime, split over lines.
repair("time declarations", r"#ifdef TIME\s+time\(\);\s+long\s+long\s+starttime;\s+long\s+totaltime;\s+#endif",
       "#ifdef TIME\nlong starttime;\nlong totaltime;\n#endif", regex=True)
# Blocks whose closing braces the scan dropped.
repair("init open check", 'printf("init: Cannot open temporary file\\n");\n        exit(1);',
       'printf("init: Cannot open temporary file\\n");\n        exit(1);\n    }')
repair("init end", "random(SEED);", "srandom(SEED);\n}")
for kind in ("read", "write"):
    n = src.count(f'printf("readswrites: {kind} error\\n");')
    if n != (2 if kind == "read" else 1):
        sys.exit(f"{sys.argv[1]}: the listing differs from the known copy (readswrites {kind} errors: {n})")
src = re.sub(r'(printf\("readswrites: (?:read|write) error\\n"\);\s*exit\(1\);)', r"\1 }", src)
src = src.rstrip() + "\n   }\n}\n"
# Where it runs and how it is timed (see the script's header).
repair("file name", '"/tmp/iostone_temp_file"', '"iostone_temp_file"')
repair("start time", "starttime = time(0);", "starttime = now_us();")
repair("stop time", "totaltime = time(0) - starttime;", "totaltime = now_us() - starttime;")
prelude = """#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
/* Microseconds of CLOCK_MONOTONIC: time(2)'s whole seconds read 0 today. */
static long now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}
void init(void);
void readswrites(void);
"""
src = prelude + src
src = src.replace("main() {", "int main(void) {", 1)
src = src.replace("\ninit() {", "\nvoid init(void) {", 1)
src = src.replace("\nreadswrites() {", "\nvoid readswrites(void) {", 1)
open(sys.argv[2], "w").write(src)
EOF
"$CC" -O2 -o "$build/iostone" "$build/iostone.c" ||
    die "$CC could not compile the listing cut from $paper"

# One run of each; prints iostones per second.
run_c() {
    local out us
    out=$(cd "$DIR" && "$build/iostone")
    us=$(sed -n 's/^total time = \([0-9]*\)$/\1/p' <<<"$out")
    [[ -n $us && $us -gt 0 ]] || die "the C program printed no time: $out"
    python3 -c "print(400000 / ($us / 1e6))"
}
run_iogauge() {
    local j=$build/iogauge.json
    "$IOGAUGE" iostone --dir "$DIR" -q --json "$j" || die "iogauge iostone failed"
    json_reader >/dev/null
    jget "$j" .metrics.iostones_per_s
}

say_iogauge
say "C program: Appendix A of $paper, $("$CC" --version | head -1), -O2"
say "directory: $DIR ($(stat -f -c %T "$DIR")); $reps repetitions"
say "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
c_runs=() ig_runs=()
for ((r = 0; r < reps; r++)); do
    if ((r % 2 == 0)); then order="c iogauge"; else order="iogauge c"; fi
    for who in $order; do
        sync
        if [[ $who == c ]]; then c_runs+=("$(run_c)"); else ig_runs+=("$(run_iogauge)"); fi
    done
done

python3 - "${c_runs[*]}" "${ig_runs[*]}" <<'EOF'
import statistics, sys
c = [float(x) for x in sys.argv[1].split()]
g = [float(x) for x in sys.argv[2].split()]
for name, v in (("C program (gcc -O2)", c), ("iogauge iostone", g)):
    print(f"{name:20} median {statistics.median(v):14.0f} iostones/s  (min {min(v):.0f}, max {max(v):.0f}, n={len(v)})")
print(f"ratio iogauge / C: {statistics.median(g) / statistics.median(c):.2f}")
EOF
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# ci_time.sh — where a fresh clone's CI run (.ci/run) spends its time.
#
# Clones this repository into a temporary directory with an empty target
# directory and runs .ci/run's steps one at a time, timing each:
#   fmt        cargo fmt --check
#   clippy     cargo clippy --release --all-targets --features mpi -- -D
#              warnings (only checks; in the release profile its build
#              scripts and procedural macros are the tests' own)
#   test-build cargo test --release --features mpi --no-run --timings (the dependencies,
#              the library, its unit tests, the binary and the one
#              integration-test binary; cargo's timings name the slowest)
#   test-run   cargo test --release --features mpi (compiled already: only the tests)
# then the slowest compilation units, and the test binaries that link the
# whole crate. The sum of the steps is .ci/run's time (the same commands,
# split). Then, apart and not in the sum, what a user's first command
# (`cargo build --release`, in a target directory of its own) costs.
#
# Run it on a quiet machine: a build beside it moves every figure.
#
#   bash bench/ci_time.sh            # writes bench/results-ci_time.txt
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/bench/results-ci_time.txt
work=$(mktemp -d /tmp/ci_time.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
cd "$work/clone"
export CARGO_TARGET_DIR=$work/target

{
    echo "# bench/ci_time.sh, $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)"
    echo "# $(nproc) cores, $(rustc --version)"
    echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out.tmp"

total=0
step() {
    local name=$1
    shift
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$work/$name.log" 2>&1 || { tail -20 "$work/$name.log"; exit 1; }
    t1=$(date +%s.%N)
    local s
    s=$(echo "$t1 - $t0" | bc)
    total=$(echo "$total + $s" | bc)
    printf '%-11s %7.1f s\n' "$name" "$s" | tee -a "$out.tmp"
}

step fmt cargo fmt --check
step clippy cargo clippy --release --all-targets --features mpi -- -D warnings
step test-build cargo test --release --features mpi --no-run --timings
step test-run cargo test --release --features mpi
printf '%-11s %7.1f s   (.ci/run)\n' total "$total" | tee -a "$out.tmp"
CARGO_TARGET_DIR=$work/target-build step build cargo build --release --timings

{
    echo
    echo "# test binaries (each links the crate):"
    grep -c 'Executable' "$work/test-build.log" | sed 's/^/#   /'
    grep 'Executable' "$work/test-build.log" | sed 's/^ *Executable /#   /'
    echo
    # each cargo --timings report embeds its units as JSON
    for html in "$CARGO_TARGET_DIR"/cargo-timings/cargo-timing-2*.html \
        "$work"/target-build/cargo-timings/cargo-timing-2*.html; do
        case $html in
        */target-build/*) echo "# slowest units of the build step (cargo --timings, seconds):" ;;
        *) echo "# slowest units of the test-build step (cargo --timings, seconds):" ;;
        esac
        python3 - "$html" <<'EOF'
import json, re, sys
text = open(sys.argv[1]).read()
m = re.search(r'const UNIT_DATA = (\[.*?\]);', text, re.S)
units = json.loads(m.group(1)) if m else []
units.sort(key=lambda u: -u["duration"])
for u in units[:8]:
    print(f"#   {u['duration']:6.1f}  {u['name']} {u['version']}{u.get('target', '')}")
print(f"#   ({len(units)} units, {sum(u['duration'] for u in units):.0f} CPU-seconds in all)")
EOF
        echo
    done
    echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"

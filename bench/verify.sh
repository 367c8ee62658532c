#!/usr/bin/env bash
# verify.sh — goal (b) of --verify: no false positive in N randomized runs
# (default 1000). Each run draws its engine (psync, io_uring or libaio at
# depth 32), O_DIRECT or not, the unit, the request size, the read and
# sequential fractions, 1 to 4 workers as threads or processes, and a seed;
# it runs tiny (--ops, a few MiB) and must end with exit code 0 and no
# mismatch. A run that reports one is printed with its command line (and its
# JSON kept) so it can be run again. Exit status: 0 when every run was clean,
# 1 otherwise.
#
# Environment:
#   N      runs (default 1000)
#   DIR    where to work (default: /tmp); the script makes its own
#          verify.XXXXXX directory there and removes only that
#   SEED   seed of the draw (default 1): the same seed draws the same runs
#   BIN    the iogauge binary (default: target/release/iogauge, built if absent)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

N=${N:-1000}
SEED=${SEED:-1}
BIN=${BIN:-$repo/target/release/iogauge}
if [[ ! -x $BIN ]]; then
    (cd "$repo" && cargo build --release -q) || die "cannot build iogauge"
fi
work=$(mktemp -d "${DIR:-/tmp}/verify.XXXXXX")
trap 'rm -rf "$work"' EXIT
RANDOM=$SEED

pick() { local a=("$@"); printf '%s' "${a[RANDOM % ${#a[@]}]}"; }

bad=0 refused=0 checked=0 raced=0
for ((i = 1; i <= N; i++)); do
    engine=$(pick psync io_uring libaio)
    depth=32
    [[ $engine == psync ]] && depth=1
    args=(run --dir "$work" --verify -q
        --engine "$engine" --iodepth "$depth"
        --verify-interval "$(pick 4K 4K 8K 16K 64K)"
        --unique-bytes "$(pick 1M 2M 4M)"
        --size-mean "$(pick 4K 8K 16K 64K 128K)"
        --size-cv "$(pick 0 1 2)"
        --read-frac "$(pick 0 0.2 0.5 0.8 1)"
        --seq-frac "$(pick 0 0.5 1)"
        -p "$(pick 1 1 2 3 4)"
        --files "$(pick 1 2)"
        --workers-as "$(pick threads processes)"
        --seed "$((RANDOM * 32768 + RANDOM))"
        --ops "$(pick 500 2000 5000)")
    [[ $(pick 0 1) == 1 ]] && args+=(--direct)
    out=$work/run.json
    code=0
    "$BIN" "${args[@]}" --json "$out" 2>"$work/err" || code=$?
    if [[ $code -ne 0 ]]; then
        # a refusal (a combination the run cannot make) is not a verdict
        if [[ $code -eq 2 ]]; then
            refused=$((refused + 1))
            continue
        fi
        bad=$((bad + 1))
        say "run $i: exit code $code: iogauge ${args[*]}"
        sed 's/^/    /' "$work/err"
        cp "$out" "$work/../verify-failed-$i.json" 2>/dev/null || true
        continue
    fi
    c=$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verify"]; print(v["units_checked"], v["not_checked"]["raced"], v["mismatches"])' "$out")
    read -r ch ra mm <<<"$c"
    checked=$((checked + ch)) raced=$((raced + ra))
    if [[ $mm -ne 0 ]]; then
        bad=$((bad + 1))
        say "run $i: $mm mismatch(es): iogauge ${args[*]}"
    fi
    ((i % 100 == 0)) && say "$i runs, $bad with a mismatch or a failure, $checked units checked, $raced not checked (raced)"
done
say "verify.sh: $N runs (seed $SEED), $refused refused as bad usage, $bad with a mismatch or a failure; $checked units checked, $raced raced with a write in flight and not judged"
[[ $bad -eq 0 ]]

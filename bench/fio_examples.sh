#!/usr/bin/env bash
# fio_examples.sh — `iogauge fio --parse-only` over every job file of fio's
# own examples/ directory: which iogauge reads (parsed) and which it refuses,
# with the first refusal of each (its file:line and the option), then the
# counts and the refusals grouped by cause.
#
#   bash bench/fio_examples.sh FIO_SRC_DIR
#   IOGAUGE=target/release/iogauge bash bench/fio_examples.sh ~/src/fio
#
# FIO_SRC_DIR is a checkout of fio's source (github.com/axboe/fio); from a
# bare mirror: mkdir fio && git --git-dir=MIRROR archive HEAD examples | tar x -C fio
# Each file is read in its own directory (an include is relative to it), with
# the environment variables the examples use unset (fio substitutes nothing
# for them, as iogauge does). Nothing is run: --parse-only stops after the
# parse. Exit status 0 whatever the counts (a report, as every script here).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

src=${1:-}
[[ -n $src && -d $src/examples ]] || die "usage: fio_examples.sh FIO_SRC_DIR (a fio source tree with examples/)"
iogauge_binary
IOGAUGE=$(cd "$(dirname "$IOGAUGE")" && pwd)/${IOGAUGE##*/}
say "fio_examples.sh: iogauge fio --parse-only on $src/examples/*.fio"
say_iogauge
if git -C "$src" rev-parse --short HEAD >/dev/null 2>&1; then
    say "fio: $(git -C "$src" rev-parse --short HEAD)"
fi
say ""

parsed=0 refused=0
causes=()
for f in "$src"/examples/*.fio; do
    name=${f##*/}
    if err=$(cd "$src/examples" && "$IOGAUGE" fio --parse-only "$name" 2>&1 >/dev/null); then
        parsed=$((parsed + 1))
        printf '%-40s parsed\n' "$name"
    else
        refused=$((refused + 1))
        first=${err%%$'\n'*}
        first=${first#iogauge: }
        printf '%-40s refused  %s\n' "$name" "$first"
        # the cause without its place: the option or engine named
        cause=$(sed -E "s/^[^ ]+:[0-9]+: //; s/^command line, argument [0-9]+: //" <<<"$first")
        case $cause in
        "fio option '"*) cause=${cause%% is not supported*}" is not supported" ;;
        "ioengine: ioengine="*) cause=${cause%% (it runs*} ;;
        esac
        causes+=("$cause")
    fi
done
total=$((parsed + refused))
say ""
say "files: $total  parsed: $parsed  refused: $refused"
say ""
say "refusals by cause (count, cause):"
printf '%s\n' "${causes[@]}" | sort | uniq -c | sort -rn | sed 's/^/  /'

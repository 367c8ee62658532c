# lib.sh — what the bench scripts share. Source it after setting `repo` (the
# repository's root); it defines functions and nothing else runs.

say() { printf '%s\n' "$*"; }
die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 2; }

# ---------------------------------------------------------------- tools
can_apt() { [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; }

# ensure CMD PKG: install Debian package PKG when CMD is missing; 0 if CMD is there after.
ensure() {
    local cmd=$1 pkg=$2
    [[ -x $cmd ]] || command -v "$cmd" >/dev/null && return 0
    if can_apt; then
        say "note: $cmd not found; installing Debian package '$pkg' with apt-get"
        apt-get install -y -qq "$pkg" >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$pkg" >/dev/null 2>&1; } || true
    fi
    [[ -x $cmd ]] || command -v "$cmd" >/dev/null
}

# json_reader: sets JSON to jq (installed if it can be) or python3.
json_reader() {
    if ensure jq jq; then
        JSON=jq
    elif command -v python3 >/dev/null; then
        JSON=python3
        say "note: jq unavailable; parsing JSON with python3"
    else
        die "need jq or python3 to read JSON"
    fi
}

# jget FILE PATH: one value from a JSON file; PATH is a jq path such as
# .a.b[0]["50.000000"]. Prints nothing when the value is absent or null.
jget() {
    if [[ $JSON == jq ]]; then
        jq -r "($2) // empty" "$1"
    else
        python3 - "$1" "$2" <<'EOF'
import json, re, sys
v = json.load(open(sys.argv[1]))
for name, idx, key in re.findall(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\["([^"]*)"\]', sys.argv[2]):
    try:
        v = v[int(idx)] if idx else v[name or key]
    except (KeyError, IndexError, TypeError):
        v = None
        break
if v is not None:
    print(v)
EOF
    fi
}

# iogauge_binary [FEATURES]: IOGAUGE as given, or built from this tree
# (built=yes), with the cargo features named (e.g. mpi).
iogauge_binary() {
    built=
    local features=()
    [[ -n ${1:-} ]] && features=(--features "$1")
    if [[ -z ${IOGAUGE:-} ]]; then
        built=yes
        export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/bench-target}
        say "building iogauge: cargo build --release ${features[*]} in $repo (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
        (cd "$repo" && cargo build --release "${features[@]}" --quiet) || die "cargo build failed"
        IOGAUGE=$CARGO_TARGET_DIR/release/iogauge
    fi
    [[ -x $IOGAUGE ]] || die "IOGAUGE=$IOGAUGE is not an executable"
}

# say_iogauge: which binary, and from which commit.
say_iogauge() {
    local commit dirty
    commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
    dirty=$(git -C "$repo" status --porcelain --untracked-files=all -- src Cargo.toml Cargo.lock build.rs 2>/dev/null | wc -l || true)
    say "iogauge: $IOGAUGE ($("$IOGAUGE" --version 2>/dev/null))"
    if [[ -n $built ]]; then
        say "         built from the working tree at commit $commit$([[ $dirty -gt 0 ]] && echo ", with uncommitted changes to src/ or build files")"
    else
        say "         given as IOGAUGE (repo HEAD is $commit)"
    fi
}

# ---------------------------------------------------------------- arithmetic
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b+0 == 0) print "n/a"; else printf "%.3f", a/b}'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN {print (a+0 >= b+0) ? "PASS" : "FAIL"}'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN {print (a+0 < b+0) ? "PASS" : "FAIL"}'; }

# ---------------------------------------------------------------- work directory
# make_workdir TAG: WORK = a new directory TAG.XXXXXX under DIR (made, with
# its parents, when missing) or else the current directory. On exit WORK is
# removed, and so are the directories of DIR the script made if they are
# left empty; Ctrl-C exits 130 through the same cleanup.
make_workdir() {
    _made_dir= # the topmost directory of DIR that the script had to create
    local parent=$PWD
    if [[ -n ${DIR:-} ]]; then
        local d=$DIR
        while [[ ! -d $d ]]; do _made_dir=$d d=$(dirname -- "$d"); done
        mkdir -p -- "$DIR"
        parent=$DIR
    fi
    WORK=$(mktemp -d "$parent/$1.XXXXXX")
    WORK=$(cd "$WORK" && pwd)
    trap _remove_workdir EXIT
    trap 'exit 130' INT TERM
}

# shellcheck disable=SC2317 # run by the EXIT trap
_remove_workdir() {
    rm -rf -- "$WORK"
    if [[ -n $_made_dir ]]; then # remove what mkdir -p made, if still empty
        local d=$DIR
        while rmdir -- "$d" 2>/dev/null && [[ $d != "$_made_dir" ]]; do d=$(dirname -- "$d"); done
    fi
    return 0
}

# draw_workloads N SEED UMIN UMAX: N random workloads of the self-scaling
# benchmark's space, one CSV line each (uniqueBytes,sizeMean,readFrac,
# seqFrac,processNum; no header): uniqueBytes log-uniform in [UMIN, UMAX]
# (512 B multiples), sizeMean log-uniform 4-256 KiB (512 B multiples),
# readFrac and seqFrac uniform (two decimals), processNum 1, 2 or 4
draw_workloads() {
    python3 - "$@" <<'EOF'
import math, random, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
def size(s):
    u = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    return int(float(s[:-1]) * u[s[-1]]) if s[-1] in u else int(s)
lo, hi = size(sys.argv[3]), size(sys.argv[4])
r = random.Random(seed)
for _ in range(n):
    u = int(math.exp(r.uniform(math.log(lo), math.log(hi)))) // 512 * 512
    s = max(1, round(math.exp(r.uniform(math.log(4096), math.log(262144))) / 512)) * 512
    print(f"{u},{s},{round(r.random(), 2)},{round(r.random(), 2)},{r.choice([1, 2, 4])}")
EOF
}

# ---------------------------------------------------------------- CPU time
# cpu_now: "busy steal" ticks of the whole machine from /proc/stat
cpu_now() { awk '/^cpu /{print $2+$3+$4+$7+$8, $9; exit}' /proc/stat; }
# self_ticks SCRATCH: user+sys ticks of the finished children of the calling
# shell (bash's `times` builtin, run in that shell: its second line is the
# children's user and sys); SCRATCH is a file it may overwrite. Call it
# directly (`self_ticks F >OUT`), not in $( ): a subshell has its own times.
self_ticks() {
    times >"$1"
    awk 'NR == 2 { t = 0; for (f = 1; f <= 2; f++) { split($f, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d\n", t * 100 }' "$1"
}

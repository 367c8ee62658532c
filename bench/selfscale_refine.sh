#!/usr/bin/env bash
# selfscale_refine.sh — the self-scaling benchmark's own validation, and
# what `--refine` does to it, in and out of sample.
#
# Per file system (tmpfs, and ext4 with the page cache bounded to MEMLIMIT):
#   1. build a model: `iogauge selfscale DIR` (ext4: --memory-limit);
#   2. validate it on N random workloads (seed 1) and refine it with up to
#      K more points: `--validate N --model M/model.json --refine K`
#      (in sample: the corrections are fitted to these workloads' errors);
#   3. validate the refined model on N other workloads (seed 2): out of
#      sample, the error without the corrections (the model as built, with
#      its measured interactions) against the error with them.
# It prints the time of each step and a table: median, 75th-percentile and
# enhanced error, repeatability, the best single number, and the refine
# rows. A report, not a test: the exit status is 0 whatever the figures.
#
# Environment:
#   IOGAUGE    the binary (default: built from this tree)
#   FS         file systems to do (default "tmpfs ext4")
#   TMPFS_DIR  a tmpfs directory (default /dev/shm)
#   EXT4_DIR   an ext4 directory (default: the current directory)
#   MEMLIMIT   the page-cache bound on ext4 (default 1G; needs root and a
#              memory cgroup)
#   N          workloads per validation (default 50)
#   K          refinement points (default 16)
#   KEEP       a directory to copy each file system's outputs into
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

FS=${FS:-tmpfs ext4}
TMPFS_DIR=${TMPFS_DIR:-/dev/shm}
EXT4_DIR=${EXT4_DIR:-$PWD}
MEMLIMIT=${MEMLIMIT:-1G}
N=${N:-50}
K=${K:-16}
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || die "N must be a whole number > 0"
[[ $K =~ ^[0-9]+$ && $K -gt 0 ]] || die "K must be a whole number > 0"
command -v python3 >/dev/null || die "python3 is needed"
iogauge_binary

say "selfscale_refine.sh: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) CPUs, L3 $(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo unknown), load $(cut -d' ' -f1-3 /proc/loadavg)"
say_iogauge
say "N=$N K=$K"

WS=()
cleanup() {
    local d
    for d in "${WS[@]}"; do rm -rf -- "$d"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# timed LABEL CMD...: run CMD, print how long it took
timed() {
    local label=$1 t0
    shift
    t0=$(date +%s)
    "$@" || die "$label failed"
    say "$label: $(($(date +%s) - t0)) s"
}

one_fs() {
    local fs=$1 dir=$2 limit=()
    local W
    W=$(mktemp -d "$dir/selfscale-refine.XXXXXX")
    WS+=("$W")
    local out
    out=$(mktemp -d /tmp/selfscale-refine-out.XXXXXX)
    WS+=("$out")
    say
    say "================ $fs: $dir"
    [[ $fs == ext4 ]] && limit=(--memory-limit "$MEMLIMIT")
    timed "model" "$IOGAUGE" selfscale "$W" "${limit[@]}" --out "$out/M" -q
    timed "validate $N (seed 1) + refine $K" "$IOGAUGE" selfscale "$W" --validate "$N" \
        --model "$out/M/model.json" --refine "$K" --out "$out/V" -q --json "$out/V.json"
    timed "validate $N (seed 2) of the refined model" "$IOGAUGE" selfscale "$W" --validate "$N" \
        --seed 2 --model "$out/V/model-refined.json" --out "$out/V2" -q --json "$out/V2.json"
    python3 - "$out" <<'EOF'
import json, statistics, sys
out = sys.argv[1]
m = json.load(open(f"{out}/M/model.json"))
v1 = json.load(open(f"{out}/V.json"))["metrics"]
v2 = json.load(open(f"{out}/V2.json"))["metrics"]
pc = lambda x: f"{100 * x:.1f} %"
print("model:", len(m["regions"]), "regions:", ", ".join(f"{r['lo_bytes'] >> 20}-{r['hi_bytes'] >> 20} MiB" for r in m["regions"]))
sep2 = statistics.median(r["error"] for r in v2["workloads"])
rows = [
    ("median error, seed 1 (model as built)", pc(v1["median_error"])),
    ("75th-percentile error, seed 1", pc(v1["p75_error"])),
    ("enhanced error (outside thrashing zones), seed 1", pc(v1["enhanced_error"])),
    ("repeatability error, seed 1", pc(v1["repeatability_error"])),
    ("refine, in sample (seed 1): before -> after",
     f"{pc(v1['refine']['before']['median_error'])} -> {pc(v1['refine']['after']['median_error'])}"
     if v1.get("refine", {}).get("after") else "(no refinement)"),
    ("out of sample (seed 2): as built -> refined", f"{pc(sep2)} -> {pc(v2['median_error'])}"),
    ("out of sample: 75th-percentile error, refined", pc(v2["p75_error"])),
    ("repeatability error, seed 2", pc(v2["repeatability_error"])),
    ("best single number, seed 2", pc(v2["best_constant_error"])),
]
w = max(len(a) for a, _ in rows)
for a, b in rows:
    print(f"  {a:<{w}}  {b}")
EOF
    if [[ -n ${KEEP:-} ]]; then
        mkdir -p "$KEEP/$fs"
        cp -r "$out"/* "$KEEP/$fs/"
    fi
}

for fs in $FS; do
    case $fs in
        tmpfs) one_fs tmpfs "$TMPFS_DIR" ;;
        ext4) one_fs ext4 "$EXT4_DIR" ;;
        *) die "FS: tmpfs or ext4, not '$fs'" ;;
    esac
done

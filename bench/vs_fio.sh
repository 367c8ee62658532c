#!/usr/bin/env bash
# vs_fio.sh — compare iogauge with fio 3.x on the same workloads, on this machine.
#
#   a. 4 KiB random reads from a page-cached 1 GiB file, one worker, psync
#      (IOPS and read-latency p50/p99)
#   b. the null engine (no I/O at all: the tool's own per-op cost)
#   c. peak RSS of `iogauge run` on the workload of (a)
#
# The tools alternate within each repetition (and which one goes first
# alternates between repetitions), so slow drifts of a shared, noisy machine
# hit both alike. Figures are medians over REPS; ratios are iogauge/fio.
# It is a report, not a test: the exit status is 0 whatever the verdicts.
#
# Environment (all optional):
#   DIR      where to put the work directory (default: the current directory).
#            The script makes its own vs_fio.XXXXXX directory in there and
#            removes only that (and DIR itself if the script created it).
#   RUNTIME  seconds per measurement of (a) and of fio's null run (default 10)
#   REPS     repetitions (default 3)
#   IOGAUGE  the iogauge binary (default: `cargo build --release` in this repo,
#            with CARGO_TARGET_DIR, default /tmp/bench-target)
#
# Needs fio and GNU time (/usr/bin/time); jq for JSON, else python3. Missing
# Debian packages (fio, time, jq) are installed with apt-get when run as root.
set -euo pipefail

RUNTIME=${RUNTIME:-10}
REPS=${REPS:-3}
NULL_OPS=50000000
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

# shellcheck source=lib.sh
. "$here/lib.sh"

[[ $RUNTIME =~ ^[0-9]+$ && $RUNTIME -gt 0 ]] || die "RUNTIME must be a whole number of seconds > 0"
[[ $REPS =~ ^[0-9]+$ && $REPS -gt 0 ]] || die "REPS must be a whole number > 0"

# ---------------------------------------------------------------- tools
ensure fio fio || die "fio is not installed (apt-get install fio)"
ensure /usr/bin/time time || die "GNU time (/usr/bin/time) is not installed (apt-get install time)"
json_reader
iogauge_binary

# ---------------------------------------------------------------- work directory
make_workdir vs_fio

# ---------------------------------------------------------------- arithmetic
# within10 R: PASS if R is a number within [0.90, 1.10]
within10() { awk -v r="$1" 'BEGIN {print (r != "n/a" && r >= 0.9 && r <= 1.1) ? "PASS" : "FAIL"}'; }
int() { awk -v a="$1" 'BEGIN {printf "%.0f", a}'; }
mops() { awk -v a="$1" 'BEGIN {printf "%.2f", a/1e6}'; }
pct() { awk -v r="$1" 'BEGIN {if (r == "n/a") print "n/a"; else printf "%+.1f%%", (r-1)*100}'; }

# ---------------------------------------------------------------- header
say "iogauge vs fio — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
say_iogauge
say "fio: $(fio --version)   JSON via $JSON"
say "work dir: $WORK ($(df -T "$WORK" | awk 'NR==2 {print $2}')), RUNTIME=${RUNTIME}s, REPS=$REPS"
say ""

# ---------------------------------------------------------------- the runs
FIOFILE=$WORK/fio.data
# Lay fio's file out the way iogauge lays out its own (1 MiB sequential writes,
# then fsync): how a file was written decides the size of its page-cache folios,
# and reading 4 KiB out of a file written 4 KiB at a time (fio's own layout) is
# ~40% slower per call than out of one written in 1 MiB chunks.
say "laying out fio's 1 GiB file (1 MiB writes + fsync, like iogauge's prefill) ..."
fio --name=layout --ioengine=psync --rw=write --bs=1M --size=1g --filename="$FIOFILE" \
    --end_fsync=1 --output-format=json --output="$WORK/layout.json" >/dev/null

iog_rand() { # rep
    # iogauge writes (and fsyncs) its own 1 GiB file before timing; it stays in the page cache.
    /usr/bin/time -v -o "$WORK/time.$1.txt" \
        "$IOGAUGE" run --unique-bytes 1G --size-mean 4k --size-cv 0 --read-frac 1 --seq-frac 0 \
        --align 4k --duration "$RUNTIME" --engine psync --dir "$WORK" -q --json "$WORK/iog_rand.$1.json"
}
fio_rand() { # rep
    cat "$FIOFILE" >/dev/null # (re)read it so it is cached
    # --invalidate=0: fio otherwise drops the file from the page cache before the job
    fio --name=r --ioengine=psync --rw=randread --bs=4k --size=1g --time_based --runtime="$RUNTIME" \
        --filename="$FIOFILE" --invalidate=0 --output-format=json --output="$WORK/fio_rand.$1.json" >/dev/null
}
iog_null() { # rep
    "$IOGAUGE" run --engine null --ops "$NULL_OPS" --size-cv 0 --seq-frac 1 --dir "$WORK" -q \
        --json - >"$WORK/iog_null.$1.json"
}
fio_null() { # rep
    (cd "$WORK" && fio --name=n --ioengine=null --rw=randread --bs=4k --size=1g --time_based \
        --runtime="$RUNTIME" --output-format=json --output="$WORK/fio_null.$1.json" >/dev/null)
}

declare -a first
for ((r = 1; r <= REPS; r++)); do
    if ((r % 2)); then first[r]=iogauge; else first[r]=fio; fi
    say "rep $r/$REPS (${first[r]} first): random reads ..."
    if [[ ${first[r]} == iogauge ]]; then iog_rand "$r"; fio_rand "$r"; else fio_rand "$r"; iog_rand "$r"; fi
    say "rep $r/$REPS (${first[r]} first): null engine ..."
    if [[ ${first[r]} == iogauge ]]; then iog_null "$r"; fio_null "$r"; else fio_null "$r"; iog_null "$r"; fi
done
say ""

# ---------------------------------------------------------------- extract
F='.jobs[0].read'
declare -a i_iops f_iops i_p50 f_p50 i_p99 f_p99 i_null f_null rss_time rss_self bufs
for ((r = 1; r <= REPS; r++)); do
    ij=$WORK/iog_rand.$r.json fj=$WORK/fio_rand.$r.json
    i_iops[r]=$(jget "$ij" .summary.ops_per_s)
    i_p50[r]=$(jget "$ij" .ops.read.latency_ns.p50)
    i_p99[r]=$(jget "$ij" .ops.read.latency_ns.p99)
    f_iops[r]=$(jget "$fj" "$F.iops")
    f_p50[r]=$(jget "$fj" "$F.clat_ns.percentile[\"50.000000\"]")
    f_p99[r]=$(jget "$fj" "$F.clat_ns.percentile[\"99.000000\"]")
    i_null[r]=$(jget "$WORK/iog_null.$r.json" .summary.ops_per_s)
    f_null[r]=$(jget "$WORK/fio_null.$r.json" "$F.iops")
    rss_time[r]=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.$r.txt")
    rss_self[r]=$(jget "$ij" .summary.max_rss_kib)
    # I/O buffers: one buffer of the largest request per worker
    bufs[r]=$(awk -v b="$(jget "$ij" .config.max_request_bytes)" -v p="$(jget "$ij" .config.workload.processes)" \
        'BEGIN {printf "%.0f", b*p/1024}')
done

# ---------------------------------------------------------------- report
say "=== a. 4 KiB random reads, page-cached 1 GiB file, 1 worker, psync, ${RUNTIME} s ==="
say "latency: iogauge = the whole pread(2) call (clock_gettime before and after it);"
say "         fio = clat. For a sync engine like psync fio records no slat and clat runs"
say "         from just before the engine's queue() to just after pread returns: it is the"
say "         whole pread too, plus a little of fio's own dispatch code."
printf '%-4s %-8s %12s %12s %9s %9s %9s %9s\n' rep first "iog IOPS" "fio IOPS" "iog p50" "fio p50" "iog p99" "fio p99"
for ((r = 1; r <= REPS; r++)); do
    printf '%-4s %-8s %12s %12s %9s %9s %9s %9s\n' "$r" "${first[r]}" "$(int "${i_iops[r]}")" "$(int "${f_iops[r]}")" \
        "${i_p50[r]}" "${f_p50[r]}" "${i_p99[r]}" "${f_p99[r]}"
done
m_i_iops=$(median "${i_iops[@]}") m_f_iops=$(median "${f_iops[@]}")
m_i_p50=$(median "${i_p50[@]}") m_f_p50=$(median "${f_p50[@]}")
m_i_p99=$(median "${i_p99[@]}") m_f_p99=$(median "${f_p99[@]}")
r_iops=$(ratio "$m_i_iops" "$m_f_iops") r_p50=$(ratio "$m_i_p50" "$m_f_p50") r_p99=$(ratio "$m_i_p99" "$m_f_p99")
printf '%-13s %12s %12s %9s %9s %9s %9s\n' median "$(int "$m_i_iops")" "$(int "$m_f_iops")" \
    "$(int "$m_i_p50")" "$(int "$m_f_p50")" "$(int "$m_i_p99")" "$(int "$m_f_p99")"
printf '%-13s %25s %19s %19s\n' "iogauge/fio" "$r_iops" "$r_p50" "$r_p99"
say "(latencies in ns)"
say ""

# Context: the rest of the distributions, the per-op CPU, fio's lat-clat gap (medians over reps).
say "--- context (medians over reps) ---"
declare -a a b
dist_row() { # label iogauge-path fio-path
    local r
    a=() b=()
    for ((r = 1; r <= REPS; r++)); do
        a+=("$(jget "$WORK/iog_rand.$r.json" "$2")")
        b+=("$(jget "$WORK/fio_rand.$r.json" "$3")")
    done
    printf '  %-8s iogauge %9s   fio clat %9s   ratio %s\n' "$1" "$(int "$(median "${a[@]}")")" \
        "$(int "$(median "${b[@]}")")" "$(ratio "$(median "${a[@]}")" "$(median "${b[@]}")")"
}
L=.ops.read.latency_ns P="$F.clat_ns.percentile"
dist_row min "$L.min" "$F.clat_ns.min"
dist_row p50 "$L.p50" "$P[\"50.000000\"]"
dist_row p90 "$L.p90" "$P[\"90.000000\"]"
dist_row p95 "$L.p95" "$P[\"95.000000\"]"
dist_row p99 "$L.p99" "$P[\"99.000000\"]"
dist_row p99.9 "$L.p999" "$P[\"99.900000\"]"
dist_row p99.99 "$L.p9999" "$P[\"99.990000\"]"
dist_row mean "$L.mean" "$F.clat_ns.mean"
a=() b=() c=() d=()
for ((r = 1; r <= REPS; r++)); do
    ij=$WORK/iog_rand.$r.json fj=$WORK/fio_rand.$r.json
    a+=("$(awk -v u="$(jget "$ij" .summary.cpu_user_s)" -v n="$(jget "$ij" .summary.ops)" 'BEGIN {print u*1e9/(n > 0 ? n : 1)}')")
    b+=("$(awk -v u="$(jget "$ij" .summary.cpu_sys_s)" -v n="$(jget "$ij" .summary.ops)" 'BEGIN {print u*1e9/(n > 0 ? n : 1)}')")
    c+=("$(awk -v u="$(jget "$fj" .jobs[0].usr_cpu)" -v t="$(jget "$fj" .jobs[0].job_runtime)" -v n="$(jget "$fj" "$F.total_ios")" 'BEGIN {print u/100*t*1e6/(n > 0 ? n : 1)}')")
    d+=("$(awk -v u="$(jget "$fj" .jobs[0].sys_cpu)" -v t="$(jget "$fj" .jobs[0].job_runtime)" -v n="$(jget "$fj" "$F.total_ios")" 'BEGIN {print u/100*t*1e6/(n > 0 ? n : 1)}')")
    e[r]=$(awk -v l="$(jget "$fj" "$F.lat_ns.mean")" -v c="$(jget "$fj" "$F.clat_ns.mean")" 'BEGIN {print l-c}')
done
printf '  CPU per op: iogauge user %s ns + sys %s ns;  fio user %s ns + sys %s ns\n' \
    "$(int "$(median "${a[@]}")")" "$(int "$(median "${b[@]}")")" "$(int "$(median "${c[@]}")")" "$(int "$(median "${d[@]}")")"
printf '  fio lat mean - clat mean (time before clat starts): %s ns\n' "$(int "$(median "${e[@]}")")"
say ""

say "=== b. null engine (no I/O: the tool's own cost per op) ==="
say "iogauge: run --engine null --ops $NULL_OPS --size-cv 0 --seq-frac 1;  fio: --ioengine=null --rw=randread --bs=4k, ${RUNTIME} s"
printf '%-4s %-8s %14s %14s\n' rep first "iog Mops/s" "fio Mops/s"
for ((r = 1; r <= REPS; r++)); do
    printf '%-4s %-8s %14s %14s\n' "$r" "${first[r]}" "$(mops "${i_null[r]}")" "$(mops "${f_null[r]}")"
done
m_i_null=$(median "${i_null[@]}") m_f_null=$(median "${f_null[@]}")
r_null=$(ratio "$m_i_null" "$m_f_null")
printf '%-13s %14s %14s\n' median "$(mops "$m_i_null")" "$(mops "$m_f_null")"
printf '%-13s %14s   (iogauge: %s ns/op)\n' "iogauge/fio" "$r_null" "$(awk -v x="$m_i_null" 'BEGIN {printf "%.0f", 1e9/x}')"
# CPU time per op (user+sys): the instrumentation cost itself, which time spent
# descheduled on a busy machine does not inflate (wall time per op does).
a=() b=()
for ((r = 1; r <= REPS; r++)); do
    ij=$WORK/iog_null.$r.json fj=$WORK/fio_null.$r.json
    a+=("$(awk -v u="$(jget "$ij" .summary.cpu_user_s)" -v s="$(jget "$ij" .summary.cpu_sys_s)" -v n="$(jget "$ij" .summary.ops)" 'BEGIN {print (u+s)*1e9/(n > 0 ? n : 1)}')")
    b+=("$(awk -v u="$(jget "$fj" .jobs[0].usr_cpu)" -v s="$(jget "$fj" .jobs[0].sys_cpu)" -v t="$(jget "$fj" .jobs[0].job_runtime)" -v n="$(jget "$fj" "$F.total_ios")" 'BEGIN {print (u+s)/100*t*1e6/(n > 0 ? n : 1)}')")
done
m_i_null_cpu=$(median "${a[@]}")
printf 'CPU time per op (user+sys, median): iogauge %s ns, fio %s ns\n' "$(int "$m_i_null_cpu")" "$(int "$(median "${b[@]}")")"
say ""

say "=== c. peak RSS of iogauge run (1 GiB, 4 KiB random reads, ${RUNTIME} s) ==="
printf '%-4s %16s %20s %14s %16s\n' rep "time -v (KiB)" "max_rss_kib (KiB)" "buffers (KiB)" "RSS-buffers MiB"
declare -a rss_net
for ((r = 1; r <= REPS; r++)); do
    top=$(( rss_time[r] > rss_self[r] ? rss_time[r] : rss_self[r] ))
    rss_net[r]=$(awk -v t="$top" -v b="${bufs[r]}" 'BEGIN {printf "%.2f", (t-b)/1024}')
    printf '%-4s %16s %20s %14s %16s\n' "$r" "${rss_time[r]}" "${rss_self[r]}" "${bufs[r]}" "${rss_net[r]}"
done
max_rss_net=$(printf '%s\n' "${rss_net[@]}" | sort -g | tail -1)
say "(largest of the two RSS figures, less one max-size I/O buffer per worker; page cache is not RSS)"
say ""

# ---------------------------------------------------------------- verdicts
v_iops=$(ge "$m_i_iops" "$m_f_iops")
v_p50=$(within10 "$r_p50")
v_p99=$(within10 "$r_p99")
v_null=$(ge "$m_i_null" 10000000)
v_rss=$(lt "$max_rss_net" 50)
say "=== verdicts ==="
printf '  %-4s  IOPS >= fio (median)           iogauge %s vs fio %s  (ratio %s)\n' "$v_iops" "$(int "$m_i_iops")" "$(int "$m_f_iops")" "$r_iops"
printf '  %-4s  p50 within 10%% of fio          iogauge %s ns vs fio %s ns  (%s)\n' "$v_p50" "$(int "$m_i_p50")" "$(int "$m_f_p50")" "$(pct "$r_p50")"
printf '  %-4s  p99 within 10%% of fio          iogauge %s ns vs fio %s ns  (%s)\n' "$v_p99" "$(int "$m_i_p99")" "$(int "$m_f_p99")" "$(pct "$r_p99")"
printf '  %-4s  null engine >= 10 M ops/s      %s M ops/s (%s ns/op wall; %s ns/op of CPU time)\n' "$v_null" "$(mops "$m_i_null")" "$(awk -v x="$m_i_null" 'BEGIN {printf "%.0f", 1e9/x}')" "$(int "$m_i_null_cpu")"
printf '  %-4s  peak RSS < 50 MiB (no buffers) %s MiB (worst rep)\n' "$v_rss" "$max_rss_net"
n_fail=$(printf '%s\n' "$v_iops" "$v_p50" "$v_p99" "$v_null" "$v_rss" | grep -c FAIL || true)
say "  => $((5 - n_fail))/5 targets met"
exit 0

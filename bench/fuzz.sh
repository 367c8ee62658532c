#!/usr/bin/env bash
# fuzz.sh — a mutation fuzz (MODE=mutation, the default) or a
# structure-aware fuzz (MODE=structured) of every parser of iogauge's input.
#
# MODE=structured runs the in-process harness of src/fuzz/ (one generator
# per parser that knows its grammar; see docs/architecture.md, "Bad input"):
# each parser for SECS seconds (default 600), rounds of 256 inputs with a
# fresh seed each (SEED: the first seed, default the clock), every broken
# property (a panic, a hang, an accepted value beyond its maximum, a refusal
# that is not one clean line naming where, a round trip that does not read
# back) shrunk to a minimal input and saved under tests/fuzz-corpus/<parser>/
# (SAVE=0: not saved), which `cargo test` replays in process and through
# the binary. One line of counts per parser, then each failure.
#   MODE=structured SECS=600 bash bench/fuzz.sh
#   MODE=structured SECS=60 PARSERS="ffsb iozone" bash bench/fuzz.sh
#
# The mutation mode:
# Each parser gets N mutated inputs (default 1000): the shipped and fixture
# inputs (PostMark configuration files, IOBENCH control and spectrum files,
# FFSB profiles, fio job files (`fio --parse-only`), IOzone flag lines, LADDIS mix files, a selfscale model)
# and typical size, duration and rate values, each changed one to four
# times at random: bits flipped, control bytes inserted (CR, LF, ESC, NUL,
# DEL, U+2028, U+202E, bytes that are not UTF-8), numbers replaced by huge,
# negative or odd ones, the text cut short, lines duplicated, deleted or
# swapped, keywords and random tokens inserted, a piece repeated into a
# very long line. Each input is given to the binary in a mode that parses
# and stops (`--check`; `predict` only reads its model), in a directory of
# its own, with a time limit (TIMEOUT, default 10 s).
#
# A case fails when iogauge
#   panics      exits 101, dies of a signal, or prints "panicked";
#   hangs       is still running at the time limit;
#   exit        exits with anything but 0 (accepted) or 2 (refused);
#   lines       refuses in more than one line on stderr (PostMark's session
#               prints one line per refused command: its last line must
#               be iogauge's);
#   control     prints a raw control byte on stderr (user text in a message
#               must be escaped);
#   left        leaves a file behind in its directory.
# Every failing input is saved under tests/fuzz-corpus/<parser>/ (SAVE=0:
# not saved), where the integration test `input::fuzz_corpus` runs each of
# them again; of the failures with the same parser, kinds and message shape
# (the first line of stderr with its numbers and quoted text masked) one
# input is saved, so that the corpus holds each distinct failure once.
# DUMP=1 prints the first line of stderr of every case.
#
#   bash bench/fuzz.sh                      # 1000 inputs per parser
#   N=200 PARSERS="postmark ffsb" bash bench/fuzz.sh
#   IOGAUGE=target/release/iogauge SEED=7 JOBS=2 bash bench/fuzz.sh
#
# Output: one line per parser with the counts, then every failure (parser,
# kind, saved file, the first line of stderr). Exit status 0 whatever the
# counts (a report, as every script here); the counts say the verdict.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

case ${MODE:=mutation} in
mutation) ;;
structured)
    # the harness is test code: built as the tests are, then run alone
    say "fuzz.sh: MODE=structured, SECS=${SECS:=600} per parser, PARSERS=${PARSERS:-all}, SEED=${SEED:-clock}"
    say "iogauge: repo HEAD is $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    cd "$repo"
    cargo test --release --lib --quiet --no-run 2>&1 | grep -v '^ *Executable' >&2 || true
    env IOGAUGE_FUZZ_SECS="$SECS" IOGAUGE_FUZZ_PARSERS="${PARSERS:-}" IOGAUGE_FUZZ_SAVE="${SAVE:-1}" \
        ${SEED:+IOGAUGE_FUZZ_SEED="$SEED"} \
        cargo test --release --lib --quiet fuzz::tests::long_run -- --ignored --nocapture \
        --test-threads 1 2>&1 | grep -v -e '^running [0-9]* test' -e '^test result:' -e '^$' -e '^\.$'
    exit 0
    ;;
*) die "MODE is mutation or structured, not '$MODE'" ;;
esac

command -v python3 >/dev/null || die "python3 is needed"
iogauge_binary
say "fuzz.sh: N=${N:=1000} inputs per parser, SEED=${SEED:=1}, JOBS=${JOBS:=2}, TIMEOUT=${TIMEOUT:=10}s"
say_iogauge
DIR=${DIR:-/tmp} make_workdir iogauge-fuzz

IOGAUGE=$IOGAUGE REPO=$repo WORK=$WORK N=$N SEED=$SEED JOBS=$JOBS TIMEOUT=$TIMEOUT \
    PARSERS=${PARSERS:-} SAVE=${SAVE:-1} DUMP=${DUMP:-0} python3 - <<'EOF'
import concurrent.futures as cf
import hashlib, json, os, random, re, shutil, subprocess, sys, time
from pathlib import Path

BIN = os.path.abspath(os.environ["IOGAUGE"])
REPO = Path(os.environ["REPO"])
WORK = Path(os.environ["WORK"])
N = int(os.environ["N"])
SEED = int(os.environ["SEED"])
JOBS = int(os.environ["JOBS"])
TIMEOUT = float(os.environ["TIMEOUT"])
SAVE = os.environ["SAVE"] != "0"
DUMP = os.environ.get("DUMP", "0") != "0"
CORPUS = REPO / "tests" / "fuzz-corpus"

# ------------------------------------------------------------------ seeds
def files(pattern):
    return [p.read_bytes() for p in sorted(REPO.glob(pattern))]

IOZONE_LINES = [
    "-a", "-A", "-a -n 1m -g 4m -i 0 -i 1 -R", "-i 0 -i 1 -s 64m -r 64k",
    "-i 0 -i 1 -i 2 -s 64m -r 64k -e -I", "-t 4 -i 0 -i 1 -s 16m -r 64k -R -b out.xlsx",
    "-a -n 1m -g 4m -y 4k -q 64k -z", "-s 1m -r 4k -i 0 -i 8 -+p 50",
    "-s 512k -r 4k -i 0 -i 5 -j 4 -c -w", "-s 1m -r 4k -i 0 -o -O",
    "-t 2 -T -s 1m -r 4k -i 0 -F a b -x -C", "-s 1m,2m -r 4k,8k -i 0 -i 2 -E",
    "-s 1m -r 4k -i 0 -l 1 -u 2 -d 10 -+n -+u", "-s 1m -r 4k -f file -i 0 -N -p",
]
SIZES = ["64M", "20K", "1.5K", "4096", "1g", "2TiB", "0", "512 B", "1T", "4 KiB", "100M"]
DURATIONS = ["30", "0.5", "30s", "500ms", "1m30s", "2h", "1d", "5m", "10 s", "1h 2m"]
RATES = ["10", "2.5", "1e4", "1000", "0.1", "250.75"]
MIXES = [
    b"# nhfsstone, as a file\nnull 0\ngetattr 13\nsetattr 1\nroot 0\nlookup 34\nreadlink 8\n"
    b"read 22\nwrcache 0\nwrite 15\ncreate 2\nremove 1\nrename 0\nlink 0\nsymlink 0\n"
    b"mkdir 0\nrmdir 0\nreaddir 3\nfsstat 1\n",
    b"lookup 50%\nread 30%\nwrite 20%\n",
    b"getattr 26\nsetattr 1\nlookup 36\nreadlink 7\nread 14\nwrite 7\ncreate 1\nremove 1\nreaddir 6\nfsstat 1\n",
]

def model_seed():
    out = WORK / "model-seed"
    d = WORK / "model-dir"
    d.mkdir(exist_ok=True)
    subprocess.run([BIN, "selfscale", str(d), "--engine", "null", "--quick", "--max-bytes", "4M",
                    "--point-time", "0.05s", "--out", str(out), "--quiet"],
                   check=True, timeout=300, stdin=subprocess.DEVNULL)
    return [(out / "model.json").read_bytes()]

# Each parser: its seeds, the words its language knows, how to run a case,
# and the file extension of a saved case. `None` as an extension: the case
# is command-line arguments, saved as a JSON list.
def parsers():
    return {
        "postmark": dict(
            seeds=files("tests/fixtures/postmark/*.pmrc"), ext="pmrc",
            words=["set size", "set number", "set seed", "set transactions", "set location",
                   "set subdirectories", "set read", "set write", "set buffering true",
                   "set bias read", "set bias create", "set report terse", "run", "load",
                   "show", "help", "quit", "+", "-", "true", "verbose"],
            cmd=lambda f, d: [BIN, "postmark", f, "--check", "--dir", d]),
        "iobench-control": dict(
            seeds=files("examples/iobench/*.ctl"), ext="ctl",
            words=["USERS", "FILES", "NRECS", "RECLEN", "READS", "WRITES", "LOCKS", "SLEEP",
                   "START", "END", "DURATION", "WORK", "RUN", "FILE0", "FILE1", "=", ";", "@",
                   "-1"],
            cmd=lambda f, d: [BIN, "iobench", f, "--check", "--ignore-env", "--dir", d,
                              "-o", d + "/r"]),
        "iobench-spectrum": dict(
            seeds=files("examples/iobench/*.spectrum"), ext="spectrum",
            words=["USERS=", "FILES=", "NRECS=", "RECLEN=", "READS=", "WRITES=", "LOCKS=",
                   "SLEEP=", "WORK=", "DURATION=", "RUN=", "#", ","],
            cmd=lambda f, d: [BIN, "iobench", "--spectrum", f, "--check", "--ignore-env",
                              "--dir", d, "-o", d + "/r"]),
        "ffsb": dict(
            seeds=files("examples/ffsb/*.ffsb"), ext="ffsb",
            words=["[filesystem0]", "[end0]", "[threadgroup0]", "[stats]", "[end]", "time=",
                   "location=", "num_files=", "min_filesize=", "max_filesize=", "num_dirs=",
                   "reuse=1", "agefs=1", "desired_util=", "num_threads=", "read_weight=",
                   "write_size=", "read_blocksize=", "size_weight 4k", "msec_range 1 2",
                   "directio=1", "bindfs=", "op_delay=", "alignio=1", "k", "MB", "g"],
            cmd=lambda f, d: [BIN, "ffsb", f, "--location", d, "--check"]),
        "fio-job": dict(
            seeds=files("tests/fixtures/fio/parse/*.fio"), ext="fio",
            words=["[global]", "[job]", "include", "bs=", "rw=randread", "size=", "numjobs=",
                   "ioengine=", "iodepth=", "runtime=", "time_based", "stonewall", "new_group",
                   "wait_for=", "bssplit=", "bsrange=", "rate=", "${HOME}", "$ncpus",
                   "$pagesize", "(2*1024)", "k", "KiB", "m", "%", "ms", ":", ",", "-", ";", "#"],
            cmd=lambda f, d: [BIN, "fio", "--parse-only", f]),
        "iozone": dict(
            seeds=[[a.encode() for a in l.split()] for l in IOZONE_LINES], ext=None,
            words=["-a", "-A", "-i", "-s", "-r", "-t", "-T", "-F", "-f", "-R", "-b", "-e", "-I",
                   "-n", "-g", "-y", "-q", "-z", "-j", "-+p", "-+x", "-d", "-l", "-u", "-U",
                   "-w", "-c", "-o", "-O", "-x", "-C", "-k", "-m", "64k", "1g", "0", "12",
                   "--json", "--settle", "--dir", "--engine", "null", "-"],
            cmd=lambda args, d: [BIN, "iozone", "--dir", d, "--check", *args]),
        "laddis-mix": dict(
            seeds=MIXES, ext="mix",
            words=["null", "getattr", "setattr", "root", "lookup", "readlink", "read",
                   "wrcache", "write", "create", "remove", "rename", "link", "symlink", "mkdir",
                   "rmdir", "readdir", "fsstat", "%", "#", "100"],
            cmd=lambda f, d: [BIN, "laddis", "--mix", f, "--check", "--dir", d]),
        "model": dict(
            seeds=None, ext="json",
            words=['"regions"', '"focal"', '"sweep"', '"points"', "null", "[]", "{}", '""',
                   "true", '"unique_bytes"', '"size_mean"', '"process_num"', ":", ","],
            cmd=lambda f, d: [BIN, "predict", f, "--workload", "uniqueBytes=2M",
                              "--workload", "readFrac=1"]),
        "size": dict(
            seeds=[[s.encode()] for s in SIZES], ext=None,
            words=["K", "M", "G", "T", "KiB", "B", ".", "e", "P"],
            cmd=lambda args, d: [BIN, "run", "--check", "--dir", d, "--unique-bytes", *args]),
        "duration": dict(
            seeds=[[s.encode()] for s in DURATIONS], ext=None,
            words=["s", "ms", "us", "ns", "m", "h", "d", "w", "y", "days", ".", "e"],
            cmd=lambda args, d: [BIN, "run", "--check", "--dir", d, "--duration", *args]),
        "rate": dict(
            seeds=[[s.encode()] for s in RATES], ext=None,
            words=["e", ".", "E", "+", "inf", "nan", "x"],
            cmd=lambda args, d: [BIN, "run", "--check", "--dir", d, "--rate", *args]),
    }

# ------------------------------------------------------------------ mutation
CONTROL = [b"\r", b"\n", b"\x1b", b"\x1b[2J", b"\x00", b"\x7f", b"\t", b"\x0b",
           "\u2028".encode(), "\u202e".encode(), "\u0085".encode(), b"\xff", b"\xc3", b"\x85"]
NUMBERS = [b"99999999999999999999999", b"18446744073709551616", b"18446744073709551615",
           b"4294967296", b"4294967295", b"2147483648", b"9223372036854775808", b"-1", b"0",
           b"-0", b"1e308", b"1e-308", b"1e20", b"NaN", b"inf", b"1.5", b"0.0000001",
           b"340282366920938463463374607431768211456", b"65536", b"1073741824",
           b"9" * 400]

def digit_runs(b):
    runs, i = [], 0
    while i < len(b):
        if 48 <= b[i] <= 57:
            j = i
            while j < len(b) and 48 <= b[j] <= 57:
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    return runs

def mutate_bytes(rng, b, words):
    op = rng.randrange(10)
    if op == 0 and b:                                   # flip bits
        i = rng.randrange(len(b))
        return b[:i] + bytes([b[i] ^ (1 << rng.randrange(8))]) + b[i + 1:]
    if op == 1:                                         # a control byte
        i = rng.randrange(len(b) + 1)
        return b[:i] + rng.choice(CONTROL) + b[i:]
    if op in (2, 3):                                    # a number
        runs = digit_runs(b)
        if runs:
            i, j = rng.choice(runs)
            return b[:i] + rng.choice(NUMBERS) + b[j:]
        i = rng.randrange(len(b) + 1)
        return b[:i] + rng.choice(NUMBERS) + b[i:]
    if op == 4 and b:                                   # cut short
        return b[:rng.randrange(len(b))]
    lines = b.split(b"\n")
    if op == 5:                                         # duplicate a line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return b"\n".join(lines)
    if op == 6 and len(lines) > 1:                      # delete a line
        del lines[rng.randrange(len(lines))]
        return b"\n".join(lines)
    if op == 7 and len(lines) > 1:                      # swap two lines
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    if op == 8:                                         # a word or a random token
        tok = rng.choice(words).encode() if rng.random() < 0.7 else bytes(
            rng.randrange(32, 127) for _ in range(rng.randrange(1, 8)))
        sep = rng.choice([b" ", b"", b"\n", b"=", b"\t"])
        i = rng.randrange(len(b) + 1)
        return b[:i] + sep + tok + sep + b[i:]
    # a piece repeated into a long line
    if not b:
        return b"x" * 5000
    i = rng.randrange(len(b))
    piece = b[i:i + rng.randrange(1, 16)]
    return b[:i] + piece * rng.randrange(20, 400) + b[i:]

JSON_NUMBERS = [10**30, 2**64, 2**63, 2**53 + 1, -1, 0, -0.0, 1e308, -1e308, 1e-308, 0.5, 4096]
JSON_STRINGS = ["", "\r\x1b[2J\u2028", "x" * 5000, "-1", "NaN", "../.."]

def mutate_json(rng, b):
    """Change one value of a JSON document (its numbers, strings, lists and
    objects), keeping it JSON: the mutations that reach past the parser."""
    try:
        doc = json.loads(b)
    except ValueError:
        return b
    slots = []                      # (container, key) of every value
    def walk(v):
        if isinstance(v, dict):
            for k in v:
                slots.append((v, k))
                walk(v[k])
        elif isinstance(v, list):
            for i in range(len(v)):
                slots.append((v, i))
                walk(v[i])
    walk(doc)
    if not slots:
        return b
    c, k = rng.choice(slots)
    v = c[k]
    op = rng.randrange(4)
    if op == 0 and isinstance(c, dict):
        del c[k]
    elif op == 1 and isinstance(v, list) and v:
        c[k] = [] if rng.random() < 0.5 else v[: rng.randrange(len(v))] + v
    elif isinstance(v, bool) or v is None:
        c[k] = rng.choice([0, 1, "true", None, []])
    elif isinstance(v, (int, float)):
        c[k] = rng.choice(JSON_NUMBERS)
    elif isinstance(v, str):
        c[k] = rng.choice(JSON_STRINGS + [v + rng.choice(["\u0000", "\r", "\u2028"])])
    else:
        c[k] = rng.choice(JSON_NUMBERS + JSON_STRINGS + [None, [], {}])
    return json.dumps(doc).encode()

def mutate_args(rng, args, words):
    args = list(args)
    op = rng.randrange(6)
    if op == 0 and len(args) > 1:
        del args[rng.randrange(len(args))]
    elif op == 1 and args:
        i = rng.randrange(len(args))
        args.insert(i, args[i])
    elif op == 2:
        args.insert(rng.randrange(len(args) + 1), rng.choice(words).encode())
    elif op == 3:
        args.insert(rng.randrange(len(args) + 1), rng.choice(NUMBERS))
    elif args:
        i = rng.randrange(len(args))
        args[i] = mutate_bytes(rng, args[i], words)
    # an argument cannot hold a NUL byte
    return [a.replace(b"\x00", b"") for a in args]

# ------------------------------------------------------------------ running
def has_control(text):
    return any((ord(c) < 32 and c != "\n") or 0x7f <= ord(c) <= 0x9f or c in "\u2028\u2029\u202e"
               for c in text)

def run_case(name, spec, case, k):
    d = WORK / f"{name}-{k}"
    d.mkdir()
    if spec["ext"] is None:
        f = None
        cmd = spec["cmd"]([a for a in case], str(d).encode())
    else:
        f = d / f"case.{spec['ext']}"
        f.write_bytes(case)
        cmd = spec["cmd"](str(f), str(d))
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
        code, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        code, err = None, e.stderr or b""
    took = time.monotonic() - t
    text = err.decode("utf-8", "replace")
    lines = text.splitlines()
    kinds = []
    if code is None:
        kinds.append("hangs")
    elif code == 101 or code < 0 or code > 128 or "panicked" in text:
        kinds.append("panics")
    elif code not in (0, 2):
        kinds.append("exit")
    if code == 2:
        if name == "postmark":
            if not lines or not lines[-1].startswith("iogauge: "):
                kinds.append("lines")
        elif len(text.split("\n")) != 2 or not text.startswith("iogauge: "):
            kinds.append("lines")
    if has_control(text):
        kinds.append("control")
    left = sorted(x.name for x in d.iterdir() if f is None or x != f)
    if left:
        kinds.append("left")
    shutil.rmtree(d, ignore_errors=True)
    first = lines[0] if lines else ""
    if "panics" in kinds:
        first = next((l for l in lines if "panicked" in l), first)
    return dict(code=code, kinds=kinds, first=first[:200], took=took, left=left)

def shape(name, kinds, first):
    """What makes two failures the same: parser, kinds, and the message with
    its paths, quoted text and numbers masked."""
    m = re.sub(re.escape(str(WORK)) + r"/\S*", "P", first)
    m = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"", "Q", m)
    m = re.sub(r"[0-9]+", "N", m)
    return (name, kinds, m[:120])

def save(name, spec, case):
    data = case if spec["ext"] is not None else json.dumps(
        [a.decode("utf-8", "surrogateescape") for a in case], ensure_ascii=True).encode()
    ext = spec["ext"] or "args.json"
    out = CORPUS / name / f"{hashlib.sha1(data).hexdigest()[:12]}.{ext}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return out.relative_to(REPO)

def main():
    all_parsers = parsers()
    chosen = os.environ["PARSERS"].split() or list(all_parsers)
    unknown = [p for p in chosen if p not in all_parsers]
    if unknown:
        sys.exit(f"fuzz.sh: unknown parser(s) {unknown}; the parsers are {list(all_parsers)}")
    kinds = ["panics", "hangs", "exit", "lines", "control", "left"]
    print(f"{'parser':<17}{'inputs':>7}{'exit 0':>8}{'exit 2':>8}" +
          "".join(f"{k:>8}" for k in kinds) + f"{'max s':>8}")
    failures = []
    for name in chosen:
        spec = all_parsers[name]
        if spec["seeds"] is None:
            spec["seeds"] = model_seed()
        rng = random.Random(f"{SEED}-{name}")
        cases = []
        for _ in range(N):
            case = rng.choice(spec["seeds"])
            for _ in range(rng.randrange(1, 5)):
                if spec["ext"] is None:
                    case = mutate_args(rng, case, spec["words"])
                elif spec["ext"] == "json" and rng.random() < 0.8:
                    case = mutate_json(rng, case)
                else:
                    case = mutate_bytes(rng, case, spec["words"])
            cases.append(case)
        with cf.ThreadPoolExecutor(JOBS) as pool:
            results = list(pool.map(lambda kc: run_case(name, spec, kc[1], kc[0]),
                                    enumerate(cases)))
        counts = {k: 0 for k in kinds}
        shapes = set()
        for case, r in zip(cases, results):
            for k in r["kinds"]:
                counts[k] += 1
            if r["kinds"]:
                s = shape(name, ",".join(r["kinds"]), r["first"])
                where = save(name, spec, case) if SAVE and s not in shapes else "-"
                shapes.add(s)
                failures.append((name, ",".join(r["kinds"]), where, r["first"], r["left"]))
        if DUMP:
            for r in results:
                print(f"  {name} exit {r['code']}: {r['first']!r}")
        ok0 = sum(r["code"] == 0 for r in results)
        ok2 = sum(r["code"] == 2 for r in results)
        print(f"{name:<17}{len(cases):>7}{ok0:>8}{ok2:>8}" +
              "".join(f"{counts[k]:>8}" for k in kinds) +
              f"{max(r['took'] for r in results):>8.2f}", flush=True)
    saved = sum(f[2] != "-" for f in failures)
    print(f"\nfailing inputs: {len(failures)}" +
          (f" ({saved} of distinct failures saved under tests/fuzz-corpus/)" if SAVE and failures else ""))
    for name, k, where, first, left in failures:
        extra = f" left {left}" if left else ""
        print(f"  {name} {k} {where}: {first!r}{extra}")

main()
EOF

#!/usr/bin/env python3
"""Runs the policy core microbenchmark (build/tools/sched_microbench), then fio's native engines
and schedengine on the same file, one after the other, and prints IOPS, the ratio to native, and
the peak RSS of the fio processes. Used by `make bench`.

BENCH_MICRO_ONLY=1: the microbenchmark only (no fio). BENCH_MICRO_ARGS: extra arguments for it
(e.g. "-r 3 -n 2000000"). BENCH_CALLGRIND=1: also instructions per request of each case, counted
by valgrind --tool=callgrind (slow: about five minutes). BENCH_CLOCKSOURCE: fio's clocksource for both
sides (default: cpu where the TSC is constant and nonstop, else clock_gettime)."""
import errno
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICRO_ONLY = os.environ.get("BENCH_MICRO_ONLY", "0") == "1"
FILE = os.environ.get("BENCH_FILE", "")
ENGINE = os.environ.get("BENCH_ENGINE", os.path.join(TOP, "build", "libschedengine.so"))
MICRO = os.environ.get("BENCH_MICRO", os.path.join(os.path.dirname(ENGINE), "tools", "sched_microbench"))
RUNTIME = os.environ.get("BENCH_RUNTIME", "10")
SIZE = os.environ.get("BENCH_SIZE", "1g")



def default_clocksource():
    """fio picks its clock per run: the TSC ("cpu") when its calibration finds it steady, else
    clock_gettime. On a loaded machine that choice flips between runs (perf showed fio_gettime at
    32% of one run's samples and clock_gettime in the next), and the side that got clock_gettime
    pays about 30 ns more per read, several reads per I/O: a confound in a ratio. Both sides are
    pinned to the clock a quiet machine would choose."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    return "cpu" if "constant_tsc" in flags and "nonstop_tsc" in flags else "clock_gettime"


CLOCKSOURCE = os.environ.get("BENCH_CLOCKSOURCE", "") or default_clocksource()
COMMON = ["--name=bench", f"--size={SIZE}", "--rw=randread", "--bs=4k", f"--clocksource={CLOCKSOURCE}",
          "--iodepth=64", "--time_based", f"--runtime={RUNTIME}",
          "--randrepeat=0", "--norandommap", "--output-format=json"]


def run(label, args):
    """One fio run in a child python, so ru_maxrss is this run's alone."""
    code = (
        "import json,resource,subprocess,sys\n"
        "p=subprocess.run(sys.argv[1:],capture_output=True,text=True)\n"
        "u=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'rc':p.returncode,'out':p.stdout,'err':p.stderr,'maxrss_kb':u.ru_maxrss,"
        "'cpu_s':u.ru_utime+u.ru_stime}))\n")
    res = json.loads(subprocess.run([sys.executable, "-c", code, "fio"] + COMMON + args,
                                    capture_output=True, text=True, check=True).stdout)
    if res["rc"] != 0:
        print(f"{label}: fio failed rc={res['rc']}: {res['err'].strip()[:300]}")
        return None
    out = res["out"]
    d = json.loads(out[out.index("{"):out.rindex("}") + 1])
    iops = sum(j["read"]["iops"] for j in d["jobs"])
    lat = d["jobs"][0]["read"]["clat_ns"]["mean"] / 1000.0
    ios = sum(j["read"]["total_ios"] for j in d["jobs"])
    return {"iops": iops, "lat_us": lat, "rss_kb": res["maxrss_kb"], "cpu_s": res["cpu_s"], "ios": ios}


def engine_args(backend, extra=()):
    return [f"--ioengine=external:{ENGINE}", f"--backend={backend}", "--sched=none",
            "--hw_queue_depth=64"] + list(extra)


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def compare(title, common_extra, pairs, rounds):
    """Runs each (native, engine) pair `rounds` times, alternating, and prints medians."""
    print(f"\n{title}")
    print(f"{'configuration':44} {'IOPS (median)':>13} {'clat us':>9} {'ratio':>7} {'peak RSS':>10}")
    ratios = {}
    for native_label, native_args, eng_label, eng_args in pairs:
        results = {native_label: [], eng_label: []}
        for r in range(rounds):
            order = [(native_label, native_args), (eng_label, eng_args)]
            if r % 2:
                order.reverse()
            for label, args in order:
                res = run(label, args + common_extra)
                if res:
                    results[label].append(res)
        # The ratio is the median of the per-round ratios: each round runs the two back to back
        # (alternating which goes first), so a noisy stretch of the machine hits both sides of
        # a round alike; a ratio of medians would pair runs from different rounds.
        per_round = [e["iops"] / n["iops"] for n, e in zip(results[native_label], results[eng_label])]
        med = {}
        for label in (native_label, eng_label):
            rs = results[label]
            if not rs:
                print(f"{label:44} {'failed':>13}")
                continue
            med[label] = median([x["iops"] for x in rs])
            ratio = f"{median(per_round):.3f}" if label == eng_label and per_round else ""
            print(f"{label:44} {med[label]:13.0f} {median([x['lat_us'] for x in rs]):9.1f} {ratio:>7} "
                  f"{max(x['rss_kb'] for x in rs) / 1024:8.1f}MiB")
        if len(med) == 2 and per_round:
            ratios[eng_label] = median(per_round)
            print(f"{'':44} per-round ratios: {' '.join(f'{x:.3f}' for x in per_round)} (ratio: their median)")
    return ratios


def null_vs_model(rounds):
    """fio's null engine against the engine on the null device model: only the engine's cost."""
    return compare("no device at all: fio's null engine vs device_model=null (the engine's own "
                   "cost per request)", ["--size=1g", f"--filename={FILE}"], [
        ("fio null (native)", ["--ioengine=null"],
         "schedengine sched=none device_model=null", [f"--ioengine=external:{ENGINE}",
                                                       "--sched=none", "--device_model=null"]),
    ], rounds)


def oversubscribed(rounds):
    """16 jobs on this machine's CPUs: descheduled owners must not hold the device."""
    jobs = ["--numjobs=16", "--iodepth=4", "--group_reporting=1", "--direct=1",
            f"--filename={FILE}"]
    return compare(f"16 jobs x QD4 on {os.cpu_count()} CPUs (oversubscribed), direct I/O on the file",
                   jobs, [
        ("fio io_uring (native)", ["--ioengine=io_uring"],
         "schedengine sched=none backend=io_uring", engine_args("io_uring")),
        ("fio io_uring (native) ", ["--ioengine=io_uring"],
         "schedengine sched=cfq backend=io_uring", [f"--ioengine=external:{ENGINE}",
                                                    "--backend=io_uring", "--sched=cfq"]),
    ], rounds)


# fio 3.33 holds at most 4088 jobs (REAL_MAX_JOBS 4096 in segments of 8, the last one unused):
# the 4096 row runs fio's maximum.
SCALE_JOBS = [int(x) for x in os.environ.get("BENCH_SCALE_JOBS", "64 256 1024 4088").split()]


def parse_size(v):
    """fio's size suffixes k/m/g (binary), for laying out the file."""
    m = re.fullmatch(r"(\d+)([kmgKMG]?)", v)
    if not m:
        sys.exit(f"bench: BENCH_SCALE_SIZE={v}: a size such as 1m or 16m")
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]


def jobs_scaling(rounds):
    """Hundreds of jobs (issue 36): N jobs x QD1 random 4k reads of one sparse 1 MiB file (the
    issue's own case), thread and fork, default engine options (pagecache=auto: these buffered
    reads go through the engine's page cache, one call into the domain each) and pagecache=none
    (each read a request through the scheduler), against fio's psync at the same N. IOPS as fio
    reports them for the whole run, jobs' start-up included, as a user running such a job sees
    them (with ramp_time, fio's group IOPS for thousands of staggered psync jobs exceed what two
    CPUs can do at the CPU time per I/O measured in the same run, so it is not used)."""
    runtime = os.environ.get("BENCH_SCALE_RUNTIME", "4")
    size = os.environ.get("BENCH_SCALE_SIZE", "1m")
    # Sparse: its reads are the page cache's (zeroed folios), never the disk's. A file of data
    # is not: this machine's DAMON reclaim evicts its pages between runs (psync on such a 16 MiB
    # file went from 2.5M to 0.2M IOPS, blocking in 0.4 context switches per read), and io_uring
    # hands a buffered read of an evicted page to an io-wq worker.
    path = os.path.join(os.path.dirname(FILE) if FILE else tempfile.gettempdir(), "jobs-sparse.dat")
    with open(path, "wb") as f:
        f.truncate(parse_size(size))
    common = [f"--filename={path}", f"--size={size}", "--iodepth=1", "--direct=0", "--group_reporting=1",
              f"--runtime={runtime}"]
    sides = [("psync", ["--ioengine=psync"]),
             ("engine", [f"--ioengine=external:{ENGINE}"]),
             ("pc=none", [f"--ioengine=external:{ENGINE}", "--pagecache=none"])]
    print(f"\njobs scaling: N jobs x QD1 4k random reads of a sparse {size} file, {runtime}s per job, "
          f"{rounds} alternating rounds;\nengine: default options (sched=none, backend=io_uring, "
          "pagecache=auto: the engine's page cache), pc=none: pagecache=none (every read through "
          "the scheduler);\nagainst fio's psync; CPU: user + system per I/O, whole run")
    print(f"{'jobs':>5} {'mode':6} {'psync IOPS':>11} {'engine IOPS':>12} {'of psync':>9} "
          f"{'of @' + str(SCALE_JOBS[0]):>7} {'pc=none IOPS':>13} {'of psync':>9} "
          f"{'of @' + str(SCALE_JOBS[0]):>7}  CPU us/IO: {'psync':>6} {'engine':>7} {'pc=none':>7}")
    out = {}
    for mode in ("thread", "fork"):
        flag = ["--thread"] if mode == "thread" else []
        base = {}
        for n in SCALE_JOBS:
            res = {k: [] for k, _ in sides}
            for r in range(rounds):
                order = sides[r % len(sides):] + sides[:r % len(sides)]
                if r % 2:
                    order.reverse()
                for label, args in order:
                    x = run(f"{n} {mode} jobs, {label}", flag + args + common + [f"--numjobs={n}"])
                    if x:
                        res[label].append(x)
            if not all(res.values()):
                print(f"{n:5} {mode:6} {'failed':>11}")
                continue
            med = {k: median([x["iops"] for x in v]) for k, v in res.items()}
            cpu = {k: median([x["cpu_s"] * 1e6 / max(x["ios"], 1) for x in v]) for k, v in res.items()}
            ratio = {k: median([e["iops"] / p["iops"] for p, e in zip(res["psync"], res[k])])
                     for k in ("engine", "pc=none")}
            for k in ("engine", "pc=none"):
                base.setdefault(k, med[k])
            out[(mode, n)] = (ratio["engine"], med["engine"] / base["engine"],
                              ratio["pc=none"], med["pc=none"] / base["pc=none"])
            print(f"{n:5} {mode:6} {med['psync']:11.0f} {med['engine']:12.0f} {ratio['engine']:9.3f} "
                  f"{med['engine'] / base['engine']:7.3f} {med['pc=none']:13.0f} {ratio['pc=none']:9.3f} "
                  f"{med['pc=none'] / base['pc=none']:7.3f}             {cpu['psync']:6.2f} "
                  f"{cpu['engine']:7.2f} {cpu['pc=none']:7.2f}")
    return out


def timer_lateness():
    """How late the policy's timers fire under CPU load: the case of issue 9 (a thinking
    sequential reader beside a random reader, sched=cfq, slice_idle=8), with CPU hogs on every
    CPU. The scheduler sees each timer at its due time; this is how late the engine ran it."""
    print("\npolicy timer lateness (fire time - due time), sched=cfq slice_idle=8 on the file, "
          f"job a: read, 20 ms think every 16 blocks (a short mean think time keeps its idle window, "
          f"each long think lets the idle timer fire), job b: randread QD1; "
          f"{os.cpu_count()} CPU hogs running")
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(os.cpu_count() or 2)]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            stats = os.path.join(tmp, "s.json")
            p = subprocess.run(["fio", f"--ioengine=external:{ENGINE}", "--sched=cfq",
                                "--rotational=1", "--slice_idle=8", f"--filename={FILE}",
                                "--direct=1", f"--size={SIZE}", "--time_based",
                                f"--runtime={RUNTIME}", f"--sched_stats={stats}",
                                "--output-format=json", "--name=a", "--rw=read",
                                "--thinktime=20000", "--thinktime_blocks=16", "--name=b",
                                "--rw=randread"],
                               capture_output=True, text=True)
            if p.returncode or not os.path.exists(stats):
                print(f"  fio failed rc={p.returncode}: {p.stderr.strip()[:200]}")
                return
            s = json.load(open(stats))
            late = s["timer_late_ns"]
            out = p.stdout
            d = json.loads(out[out.index("{"):out.rindex("}") + 1])
            b = [j for j in d["jobs"] if j["jobname"] == "b"][0]["read"]["clat_ns"]
            print(f"  {s['timer_events']} timers: late p50 {late['p50'] / 1e3:.1f} us, "
                  f"p99 {late['p99'] / 1e3:.1f} us, max {late['max'] / 1e3:.1f} us; "
                  f"b's clat p99.9 {b['percentile']['99.900000'] / 1e6:.2f} ms, "
                  f"max {b['max'] / 1e6:.2f} ms")
    finally:
        for h in hogs:
            h.kill()
            h.wait()


def reader_beside_writer(rounds):
    """The reader-beside-writer case of issue 8 (item 3) on a loop device, the kernel's
    mq-deadline and none against the embedded deadline and none on the same device: a direct 4k
    random reader at QD1 (pinned to one CPU) beside a direct 128k sequential writer at QD32
    (pinned to another). The goal is the issue's line, the embedded deadline's reader at 0.8 of
    the kernel mq-deadline's. tests/integration/test_loop_tags.sh asserts what is not speed (tags
    sized from sysfs, nothing held back) and a starvation floor. Needs root and a loop device."""
    print("\nreader beside writer on a loop device (issue 8, item 3): direct 4k randread QD1 "
          "beside a direct 128k write QD32, reader IOPS, kernel and embedded schedulers")
    if os.geteuid() != 0:
        print("  skipped: needs root for a loop device and its sysfs scheduler")
        return {}
    cpus = sorted(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(dir=os.path.dirname(FILE) or None) as tmp:
        img = os.path.join(tmp, "loop.img")
        with open(img, "wb") as f:
            f.truncate(1 << 30)
        # Direct I/O on the image, as the tests' loop devices: the page cache stays out of it.
        p = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", img],
                           capture_output=True, text=True)
        if p.returncode:
            print(f"  skipped: losetup refused: {p.stderr.strip()}")
            return {}
        dev = p.stdout.strip()
        sysq = f"/sys/block/{os.path.basename(dev)}/queue/scheduler"
        try:
            # The writer's region written once: first writes into the sparse image's holes
            # allocate blocks and would slow the writer of the first runs only.
            subprocess.run(["dd", "if=/dev/zero", f"of={dev}", "bs=1M", "seek=512", "count=512",
                            "oflag=direct", "status=none"], check=True)
            pin_r = [f"--cpus_allowed={cpus[0]}"] if len(cpus) > 1 else []
            pin_w = [f"--cpus_allowed={cpus[1]}"] if len(cpus) > 1 else []
            job = [f"--filename={dev}", "--direct=1", "--time_based", f"--runtime={RUNTIME}",
                   "--output-format=json", "--name=reader", "--rw=randread", "--bs=4k",
                   "--iodepth=1", "--size=512M"] + pin_r + [
                   "--name=writer", "--rw=write", "--bs=128k", "--iodepth=32", "--offset=512M",
                   "--size=512M"] + pin_w
            configs = [("kernel mq-deadline", "mq-deadline", ["--ioengine=libaio"]),
                       ("embedded deadline", "none", [f"--ioengine=external:{ENGINE}",
                                                      "--sched=deadline", "--backend=libaio"]),
                       ("kernel none", "none", ["--ioengine=libaio"]),
                       ("embedded none", "none", [f"--ioengine=external:{ENGINE}", "--sched=none",
                                                  "--backend=libaio"])]
            iops = {c[0]: [] for c in configs}
            for r in range(rounds):
                for label, sched, eng in (configs if r % 2 == 0 else configs[::-1]):
                    with open(sysq, "w") as f:
                        f.write(sched)
                    q = subprocess.run(["fio"] + eng + job, capture_output=True, text=True)
                    if q.returncode:
                        print(f"  {label}: fio failed rc={q.returncode}: {q.stderr.strip()[:200]}")
                        return {}
                    out = q.stdout
                    d = json.loads(out[out.index("{"):out.rindex("}") + 1])
                    iops[label].append([j for j in d["jobs"] if j["jobname"] == "reader"][0]["read"]["iops"])
                print(f"  round {r + 1}: " + ", ".join(f"{c[0]} {iops[c[0]][-1]:.0f}" for c in configs))
        finally:
            with open(sysq, "w") as f:
                f.write("none")
            subprocess.run(["losetup", "-d", dev], check=False)
    ratios = {}
    for eng, ker in (("embedded deadline", "kernel mq-deadline"), ("embedded none", "kernel none")):
        per = [e / k for e, k in zip(iops[eng], iops[ker])]
        ratios[eng] = median(per)
        print(f"  {eng} / {ker}: {median(per):.3f} (per round {' '.join(f'{x:.2f}' for x in per)})")
    return ratios


CACHE_SIM = ["--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64"]


def micro_callgrind():
    """Instructions per request of each case: callgrind counts inside measure_loop() only."""
    n = 100000
    print(f"\ninstructions per request (callgrind, {n} requests per case after the default 3e6-request "
          "warm-up, run uninstrumented; includes ~80 of the benchmark loop itself)")
    print("(64 q 1x: 1 request per owner, as at 4096 queues; at 1/own: 4096 q / 64 q 1x)")
    print(f"{'policy':9} {'mix':5} {'1 q':>8} {'64 q':>8} {'4096 q':>8} {'64 q 1x':>8} {'64->4096':>9} "
          f"{'at 1/own':>9}")
    cases = (1, 64, 4096, "64x1")  # queues; "64x1": 64 queues at 1 request per owner
    misses = {}
    with tempfile.TemporaryDirectory() as tmp:
        for policy in ("none", "deadline", "cfq", "bfq"):
            for mix in ("read", "rw30"):
                cells = {}
                for q in cases:
                    out = os.path.join(tmp, f"cg.{policy}.{mix}.{q}")
                    qd = ["-Q", "64", "-d", "1"] if q == "64x1" else ["-Q", str(q)]
                    total = None
                    events = {}
                    # The warm-up settles the closed loop (3e6 requests: at 4096 queues bfq and
                    # cfq change phase well after 1e6); it runs uninstrumented, the binary
                    # starting callgrind's instrumentation at the measured loop. A binary built
                    # without valgrind's headers counts nothing so: then a short warm-up.
                    for opts, warm in ((["--instr-atstart=no"], []), ([], ["-w", "20000"])):
                        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                            "--collect-atstart=no", "--toggle-collect=measure_loop"] +
                                           CACHE_SIM + opts +
                                           [MICRO, "-p", policy] + qd + ["-m", mix, "-n", str(n), "-r", "1"] +
                                           warm, capture_output=True, text=True)
                        if p.returncode == 0 and os.path.exists(out):
                            names = []
                            for line in open(out):
                                if line.startswith("events:"):
                                    names = line.split()[1:]
                                if line.startswith("totals:"):
                                    events = dict(zip(names, (int(x) for x in line.split()[1:])))
                                    total = events.get("Ir")
                        if p.returncode != 0:
                            print(f"  {policy} {mix} {q}: valgrind exit status {p.returncode}: "
                                  f"{p.stderr.strip()[-200:]}")
                            break
                        if total or not opts:
                            break
                        print(f"  {policy} {mix} {q}: nothing counted with the warm-up uninstrumented "
                              "(built without valgrind's headers?); counted after a 20000-request "
                              "warm-up, the caches filled from the start")
                    cells[q] = total / n if total else None
                    if total:
                        misses[(policy, mix, q)] = (
                            (events.get("D1mr", 0) + events.get("D1mw", 0)) / n,
                            (events.get("DLmr", 0) + events.get("DLmw", 0)) / n)
                fmt = [f"{cells[q]:8.0f}" if cells[q] else f"{'failed':>8}" for q in cases]
                growth = f"{cells[4096] / cells[64]:8.2f}x" if cells[64] and cells[4096] else f"{'-':>9}"
                same = f"{cells[4096] / cells['64x1']:8.2f}x" if cells["64x1"] and cells[4096] else f"{'-':>9}"
                print(f"{policy:9} {mix:5} {' '.join(fmt)} {growth} {same}")
    # Time that grows faster than the instructions is memory: the same runs' data misses in a
    # modelled cache, the same on any machine (no noise), say where.
    print("\ndata misses (reads and writes) per request in a modelled cache (the same runs: callgrind "
          "--cache-sim, L1d 32 KiB 8-way, last level 1 MiB 16-way, an L2's size; filled by 20000 "
          "requests before the count)")
    print(f"{'policy':9} {'mix':5} {'L1d 64 q 1x':>12} {'L1d 4096 q':>11} {'L2 64 q 1x':>11} {'L2 4096 q':>10}")
    for policy in ("none", "deadline", "cfq", "bfq"):
        for mix in ("read", "rw30"):
            a, b = misses.get((policy, mix, "64x1")), misses.get((policy, mix, 4096))
            if a and b:
                print(f"{policy:9} {mix:5} {a[0]:12.2f} {b[0]:11.2f} {a[1]:11.2f} {b[1]:10.2f}")


def micro():
    """The policy core microbenchmark: its table as it prints it (about a minute, never fails)."""
    print("== policy core microbenchmark (virtual time, no I/O) ==")
    if not os.access(MICRO, os.X_OK):
        print(f"{MICRO}: not built (make all builds it)")
        return
    args = shlex.split(os.environ.get("BENCH_MICRO_ARGS", ""))
    sys.stdout.flush()
    rc = subprocess.run([MICRO] + args).returncode
    if rc:
        print(f"sched_microbench: exit status {rc}")
    if os.environ.get("BENCH_CALLGRIND", "0") == "1":
        try:
            micro_callgrind()
        except FileNotFoundError:
            print("BENCH_CALLGRIND=1: valgrind not found")
    sys.stdout.flush()


def nowait_refused(path):
    """True when the file system refuses RWF_NOWAIT reads (preadv2: EOPNOTSUPP). io_uring then
    cannot complete a buffered read inline: it hands every one to an io-wq worker thread."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)
        return False
    except OSError as e:
        return e.errno in (errno.EOPNOTSUPP, errno.EINVAL)
    finally:
        os.close(fd)


def page_cache(rounds):
    """Buffered reads of a file in the page cache of the bench file's file system, where io_uring
    completes each read inline (no io-wq): the engine's own cost with io_uring. The file is read
    once first and fio keeps the cache (--invalidate=0)."""
    cached = os.path.join(os.path.dirname(FILE), "cached.dat")
    if not os.path.exists(cached) or os.path.getsize(cached) < (256 << 20):
        p = subprocess.run(["fio", "--name=layout", f"--filename={cached}", "--size=256m",
                            "--rw=write", "--bs=1m", "--output=/dev/null"], capture_output=True, text=True)
        if p.returncode:
            print(f"\npage-cache case: laying out {cached} failed: {p.stderr.strip()[:200]}")
            return {}
    with open(cached, "rb") as f:
        while f.read(1 << 20):
            pass
    how = ("its file system refuses RWF_NOWAIT: io-wq, as on tmpfs" if nowait_refused(cached)
           else "io_uring completes inline")
    return compare(f"buffered I/O in the kernel's page cache ({cached}; {how}; the engine with "
                   "pagecache=none: each read a request)",
                   ["--direct=0", f"--filename={cached}", "--size=256m", "--invalidate=0"], [
        ("fio io_uring (native)", ["--ioengine=io_uring"],
         "schedengine sched=none backend=io_uring", engine_args("io_uring", ["--pagecache=none"])),
    ], rounds)


def main():
    if os.environ.get("BENCH_SCALE_ONLY", "0") == "1":
        scaling_goals(jobs_scaling(int(os.environ.get("BENCH_SCALE_ROUNDS", "2"))))
        return
    micro()
    if MICRO_ONLY:
        return
    print()
    rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
    print(f"schedengine bench: 4k randread, iodepth 64, {RUNTIME}s per run, {rounds} alternating rounds, "
          f"fio --clocksource={CLOCKSOURCE} on both sides (BENCH_CLOCKSOURCE)")
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        disk = compare(f"direct I/O on {FILE} (device-bound)", ["--direct=1", f"--filename={FILE}"], [
            ("fio io_uring (native)", ["--ioengine=io_uring"],
             "schedengine sched=none backend=io_uring", engine_args("io_uring", [f"--sched_stats={stats}"])),
            ("fio libaio (native)", ["--ioengine=libaio"],
             "schedengine sched=none backend=libaio", engine_args("libaio")),
        ], rounds)
        shm = "/dev/shm/schedengine-bench.dat"
        subprocess.run(["fio", "--name=layout", f"--filename={shm}", "--size=256m", "--rw=write",
                        "--bs=1m", "--output=/dev/null"], check=True)
        if nowait_refused(shm):
            print("\nthis kernel's tmpfs refuses RWF_NOWAIT reads (preadv2: EOPNOTSUPP): io_uring hands "
                  "every buffered tmpfs read\nto an io-wq worker, on both sides, and the io_uring ratio "
                  "below depends on how the kernel\nschedules those workers beside fio (context switches "
                  "per I/O vary run to run); the page-cache\ncase after it completes inline")
        try:
            cpu = compare("buffered I/O on tmpfs (CPU-bound: the engine's own cost per request; "
                          "pagecache=none: each read a request through the scheduler)",
                          ["--direct=0", f"--filename={shm}", "--size=256m"], [
                ("fio io_uring (native)", ["--ioengine=io_uring"],
                 "schedengine sched=none backend=io_uring", engine_args("io_uring", ["--pagecache=none"])),
                ("fio psync (native)", ["--ioengine=psync", "--iodepth=1"],
                 "schedengine sched=none backend=psync", engine_args("psync", ["--iodepth=1", "--pagecache=none"])),
            ], rounds)
        finally:
            os.unlink(shm)
        cache = page_cache(rounds)
        null = null_vs_model(rounds)
        over = oversubscribed(rounds)
        scaling = jobs_scaling(int(os.environ.get("BENCH_SCALE_ROUNDS", "2")))
        loop = reader_beside_writer(rounds)
        timer_lateness()
        if os.path.exists(stats):
            s = json.load(open(stats))
            print(f"\nshared domain: {s['shm_bytes_used']} bytes used of {s['shm_bytes_reserved'] >> 20} MiB "
                  "reserved (MAP_NORESERVE: only used pages are backed)")
    print("domain size = header + scheduler state + jobs x iodepth x (slot + 4-byte grant entry),")
    print("allocated once when a job starts, never per request:")
    subprocess.run([os.path.join(os.path.dirname(ENGINE), "tools", "shmsize")], check=False)
    print("\ngoals (ratios in this run; the bench never fails on speed):")
    for label, got, goal in (
            ("native io_uring, direct on the file", disk.get("schedengine sched=none backend=io_uring"), 0.95),
            ("native io_uring, buffered on tmpfs", cpu.get("schedengine sched=none backend=io_uring"), 0.95),
            ("native psync, buffered on tmpfs", cpu.get("schedengine sched=none backend=psync"), 0.90),
            ("fio's null engine, device_model=null", null.get("schedengine sched=none device_model=null"), 0.80)):
        if got:
            print(f"  {label:42} {got:.3f} (goal {goal:.2f}: {'met' if got >= goal else 'not met'})")
    got = cache.get("schedengine sched=none backend=io_uring")
    if got:
        print(f"  {'native io_uring, page cache (inline)':42} {got:.3f} (informative: the tmpfs "
              "goal's case without io-wq)")
    if loop.get("embedded deadline"):
        got = loop["embedded deadline"]
        print(f"  {'kernel mq-deadline, reader beside writer':42} {got:.3f} (goal 0.80: "
              f"{'met' if got >= 0.8 else 'not met'}; embedded none / kernel none "
              f"{loop['embedded none']:.3f})")
    for label, got in over.items():
        print(f"  oversubscribed, {label:26} {got:.3f} of native")
    scaling_goals(scaling)


def scaling_goals(scaling):
    """Issue 36's goals at 1024 thread jobs, for both engine settings of the table."""
    if ("thread", 1024) not in scaling:
        return
    e_native, e_64, n_native, n_64 = scaling[("thread", 1024)]
    for what, of_native, of_64 in (("default", e_native, e_64), ("pc=none", n_native, n_64)):
        print(f"  {'1024 thread jobs (' + what + '), of psync at 1024':48} {of_native:.3f} (goal 0.30: "
              f"{'met' if of_native >= 0.3 else 'not met'})")
        print(f"  {'1024 thread jobs (' + what + '), of itself at ' + str(SCALE_JOBS[0]):48} {of_64:.3f} "
              f"(goal 0.50: {'met' if of_64 >= 0.5 else 'not met'})")


if __name__ == "__main__":
    main()

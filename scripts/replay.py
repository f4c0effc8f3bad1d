#!/usr/bin/env python3
"""Replays a seed thread's verbatim job files through the engine and prints the thread's table
with ours beside the published rows.

    scripts/replay.py 2015 [--runtime S] [--target PATH] [--sched none|cfq|...] [--mode real]

Targets are a scratch file under build/replay/ unless --target is given; sizes are capped
(--size) so a 100G job does not lay out 100G. Each configuration is one fio run.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
from replay_overlay import overlay  # noqa: E402

ENGINE = os.path.join(TOP, "build", "libschedengine.so")


def run_fio(job_text, env, label):
    with tempfile.NamedTemporaryFile("w", suffix=".fio", delete=False) as f:
        f.write(job_text)
        path = f.name
    try:
        p = subprocess.run(["fio", "--output-format=json", path], capture_output=True, text=True,
                           env=env)
    finally:
        os.unlink(path)
    if p.returncode != 0:
        sys.exit(f"replay: {label}: fio failed (rc {p.returncode}): {p.stderr.strip()[-400:]}")
    out = p.stdout
    return json.loads(out[out.index("{"):out.rindex("}") + 1])


def group_summary(d):
    """group_reporting=1 gives one job entry; otherwise sum the jobs."""
    jobs = d["jobs"]
    iops = sum(j["read"]["iops"] for j in jobs)
    bw = sum(j["read"]["bw"] for j in jobs)  # KiB/s, as fio prints "KB/s" in 2015
    n = sum(j["read"]["lat_ns"]["N"] for j in jobs) or 1
    mean = sum(j["read"]["lat_ns"]["mean"] * j["read"]["lat_ns"]["N"] for j in jobs) / n
    std = max(j["read"]["lat_ns"]["stddev"] for j in jobs)
    return iops, mean / 1e6, std / 1e6, bw


def published(seed_dir):
    with open(os.path.join(seed_dir, "published.csv")) as f:
        return list(csv.DictReader(f))


def seed_2015(args):
    seed_dir = os.path.join(TOP, "jobs", "cfq-iops-mode-on-ssd-2015")
    rows = published(seed_dir)
    tables = [("cloud-ssd", "cloud-ssd-randread.fio", "cloud SSD"),
              ("local-ssd", "local-ssd-randread.fio", "local SSD")]
    os.makedirs(os.path.join(TOP, "build", "replay"), exist_ok=True)
    target = args.target or os.path.join(TOP, "build", "replay", "seed2015.dat")
    for table, job_file, title in tables:
        text = open(os.path.join(seed_dir, job_file)).read()
        print(f"\n2015 seed, {title} ({job_file}): sched={args.sched}, runtime {args.runtime}s, "
              f"target {target}")
        print("Idling     iops    avg-lat(ms)    stddev            bw")
        print("------------------------------------------------------")
        configs = [("On", {"slice_idle": "8"}), ("Off", {"slice_idle": "0"})]
        if args.sched != "cfq":
            # Passthrough: idling has no meaning without CFQ; one row, ours.
            configs = [("none", {})]
        for label, tun in configs:
            eng = {"sched": args.sched}
            eng.update(tun)
            job = {"runtime": str(args.runtime), "size": args.size}
            env = dict(os.environ, TARGET=target)
            d = run_fio(overlay(text, ENGINE, eng, job), env, f"{table} {label}")
            iops, lat, std, bw = group_summary(d)
            print(f"{label:>6} {iops:8.0f}    {lat:7.3f}        {std:7.3f}   {bw:8.0f}KB/s   (ours)")
            for r in rows:
                if r["table"] == table and (r["idling"] == label or label == "none"):
                    print(f"{r['idling']:>6} {float(r['iops']):8.0f}    {float(r['avg_lat_ms']):7.3f}"
                          f"        {float(r['stddev_ms']):7.3f}   {float(r['bw_KBps']):8.0f}KB/s"
                          f"   (published)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", choices=["2015"])
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--size", default="256m", help="size override per job (default 256m)")
    ap.add_argument("--target", help="file or device (default: a scratch file in build/replay)")
    ap.add_argument("--sched", default="none")
    args = ap.parse_args()
    if not os.path.exists(ENGINE):
        sys.exit(f"replay: {ENGINE} not built (run make)")
    {"2015": seed_2015}[args.seed](args)


if __name__ == "__main__":
    main()

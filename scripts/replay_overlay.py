#!/usr/bin/env python3
"""Overlay the engine onto a verbatim fio job file.

fio ignores --ioengine from the command line when the job file sets its own ioengine=, so the
replay rewrites the text instead: every ioengine= becomes the engine (the original engine is
kept as the engine's backend= where it is one we have: libaio, io_uring, psync), engine options
are added to [global] (or to each section when there is no [global]), and job-option overrides
replace the same option in every section. The job file itself is never edited.
"""
import re
import sys

BACKENDS = {"libaio": "libaio", "linuxaio": "libaio", "aio": "libaio", "io_uring": "io_uring",
            "psync": "psync", "sync": "psync", "pvsync": "psync"}


def overlay(text, engine, engine_opts, job_overrides):
    """Returns the job text with the engine, its options and the overrides applied."""
    out, section, have_global = [], None, False
    sections = []
    for line in text.splitlines():
        m = re.match(r"\s*\[([^\]]+)\]\s*$", line)
        if m:
            section = m.group(1)
            sections.append(section)
            out.append(line)
            if section == "global":
                have_global = True
                out.extend(f"{k}={v}" for k, v in engine_opts.items())
                out.append(f"ioengine=external:{engine}")
            continue
        m = re.match(r"\s*([A-Za-z0-9_]+)\s*(=\s*(.*?))?\s*$", line)
        if m and not line.lstrip().startswith((";", "#")):
            key, val = m.group(1), (m.group(3) or "")
            if key == "ioengine":
                be = BACKENDS.get(val)
                out.append(f"ioengine=external:{engine}")
                if be and "backend" not in engine_opts:
                    out.append(f"backend={be}")
                continue
            if key in job_overrides:
                continue  # replaced below, once per section
        out.append(line)
    if not have_global:
        head = ["[global]", f"ioengine=external:{engine}"] + [f"{k}={v}" for k, v in engine_opts.items()]
        out = head + out
    # Overrides go at the end of [global] and of every job section: last one wins per section.
    final, cur = [], None
    for line in out:
        m = re.match(r"\s*\[([^\]]+)\]\s*$", line)
        if m and cur is not None:
            final.extend(f"{k}={v}" for k, v in job_overrides.items())
        if m:
            cur = m.group(1)
        final.append(line)
    final.extend(f"{k}={v}" for k, v in job_overrides.items())
    return "\n".join(final) + "\n"


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: replay_overlay.py JOBFILE ENGINE [engine:key=val | job:key=val]...")
    eng, job = {}, {}
    for a in sys.argv[3:]:
        kind, _, kv = a.partition(":")
        k, _, v = kv.partition("=")
        (eng if kind == "engine" else job)[k] = v
    sys.stdout.write(overlay(open(sys.argv[1]).read(), sys.argv[2], eng, job))

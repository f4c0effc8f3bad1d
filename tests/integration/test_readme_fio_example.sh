#!/usr/bin/env bash
# Issue 12, "Why" 10 and "What" 8 (the README part): the README's first fio example uses
# sched_stats=, so plain fio users find the engine's statistics; the example runs as written (the
# engine path, the target and a device model substituted, short) and writes the statistics.
. "$(dirname "$0")/schedbench_lib.sh"
ENGINE="$TOP/$BUILD/libschedengine.so"
case $BUILD in /*) ENGINE="$BUILD/libschedengine.so" ;; esac
[ -f "$ENGINE" ] || fail "engine not built: $ENGINE"
cd "$T"
# the first fio command of the README (with its continuation lines)
"$PY" - "$TOP/README.md" >cmd.txt <<'PY' || fail "no fio example in the README"
import re, sys
text = open(sys.argv[1]).read()
for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    lines, cmd = block.splitlines(), []
    for i, l in enumerate(lines):
        if l.startswith("fio ") or cmd:
            cmd.append(l.split("  #")[0].rstrip())
            if not l.rstrip().endswith("\\"):
                print(" ".join(x.rstrip("\\").strip() for x in cmd))
                sys.exit(0)
sys.exit(1)
PY
cmd=$(cat cmd.txt)
echo "README: $cmd"
case $cmd in *--sched_stats=*) ;; *) fail "the README's first fio example does not use sched_stats=" ;; esac
stats=$(echo "$cmd" | sed -n 's/.*--sched_stats=\([^ ]*\).*/\1/p')
# run it here: this engine, a scratch target, a device model (no real I/O), one second
run=$(echo "$cmd" | sed -e "s|external:[^ ]*|external:$ENGINE|" -e "s|--filename=[^ ]*|--filename=$T/target|" \
	-e "s|--direct=1||")
truncate -s 1G "$T/target"
eval "$run --device_model=ssd --size=64m --time_based --runtime=1" >fio.out 2>&1 || { cat fio.out; fail "the example failed"; }
[ -s "$stats" ] || fail "the example wrote no $stats"
"$PY" - "$stats" <<'PY' || fail "statistics"
import json, sys
d = json.load(open(sys.argv[1]))
assert d.get("completed", 0) > 0 and d.get("sched") == "cfq", d.get("completed")
print("sched_stats:", d["sched"], "completed", d["completed"], "in-flight mean", d.get("inflight_mean"))
PY
echo PASS

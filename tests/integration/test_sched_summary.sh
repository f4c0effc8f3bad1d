#!/usr/bin/env bash
# sched_summary=1: one line on stderr at the end of the run, its figures those of sched_stats
# (the same counters), for the default domain and a named one.
# timeout: 60
. "$(dirname "$0")/../lib.sh"
for dom in "" "--sched_domain=se-summary-$$"; do
	run_fio sum --name=s --ioengine=external:"$ENGINE" --device_model=ssd --directory="$WORK" \
		--size=4M --rw=randread --bs=4k --iodepth=4 --numjobs=2 --time_based --runtime=300ms \
		--sched=cfq --sched_summary=1 --sched_stats="$WORK/sum.stats.json" $dom ||
		fail "fio: $(tail -n3 "$WORK/sum.err")"
	lines=$(grep -c '^schedengine: sched=' "$WORK/sum.err")
	[ "$lines" = 1 ] || fail "want one summary line, got $lines: $(cat "$WORK/sum.err")"
	line=$(grep '^schedengine: sched=' "$WORK/sum.err")
	echo "$line"
	want=${dom#--sched_domain=}
	echo "$line" | grep -q "sched=cfq domain=${want:-default} jobs=2 " || fail "summary: $line"
	python3 - "$WORK/sum.stats.json" "$line" <<'PY' || fail "summary figures differ from sched_stats"
import json, re, sys
d = json.load(open(sys.argv[1]))
m = re.search(r"dispatched=(\d+) max_in_flight=(\d+)", sys.argv[2])
assert m, sys.argv[2]
disp = sum(j["dispatched"] for j in d["jobs"])
assert int(m[1]) == disp and disp > 0, (m[1], disp)
assert int(m[2]) == d["max_in_flight"], (m[2], d["max_in_flight"])
PY
done
echo PASS

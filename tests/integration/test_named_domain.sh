#!/usr/bin/env bash
# Named domains (sched_domain=NAME) shared by separate fio processes, fork and thread mode, and
# re-created after their members died. Two known engine bugs are reported here as expected
# failures when they show (both intermittent, so they cannot be asserted every time):
#   A. a thread-mode fio with 2 jobs attaching a stale named domain (its member was SIGKILLed):
#      each job thread attaches on its own; the second cannot map the domain again at the same
#      address in its own process and, reading no live member, re-creates the file under the
#      first (ftruncate), which then crashes (SIGSEGV in sched_insert, s == NULL, from admit()
#      in domain.c), fails with "cannot map the domain at ... in this process", or the two jobs
#      end up in two domains (statistics with one job each);
#   B. two fio processes running 2 thread-mode jobs each in one named domain: "cannot map the
#      domain at ... in this process" (the same per-thread attach).
# timeout: 180
. "$(dirname "$0")/../lib.sh"
CLEANUP_FILES+=("/dev/shm/schedengine.se-nd-$$-*") # its named domains, also when a check fails
truncate -s 64M "$WORK/t.dat"
common=(--ioengine=external:"$ENGINE" --filename="$WORK/t.dat" --size=8M --rw=randread --bs=4k
	--iodepth=8 --direct=1)
symptom() { # symptom RC ERRFILE: the known bugs' signature
	[ "$1" -eq 139 ] || { [ "$1" -eq 1 ] && grep -q "cannot map the domain at .* in this process" "$2"; }
}

# Fork mode: two fio processes, 2 jobs each, one domain: one scheduler for all 4.
dom=se-nd-$$-fork
for who in a b; do
	"$FIO" --output-format=json --output="$WORK/fork-$who.json" --name=$who "${common[@]}" \
		--numjobs=2 --sched_domain=$dom --time_based --runtime=2 \
		--sched_stats="$WORK/fork.stats.json" 2>"$WORK/fork-$who.err" &
done
for who in a b; do wait -n || fail "fork mode: a fio failed: $(cat "$WORK"/fork-*.err)"; done
pyjson "$WORK/fork.stats.json" '
assert len(d["jobs"])==4 and d["stray_completions"]==0, d["jobs"]
assert d["inserted"]==d["dispatched"]==d["completed"]
' || fail "fork mode: the domain's statistics"
rm -f "/dev/shm/schedengine.$dom"
echo "fork mode: 2 fio x 2 jobs in one named domain"

# A: a stale named domain, then a thread-mode fio with 2 jobs, three times.
hits=()
for k in 1 2 3; do
	dom=se-nd-$$-stale$k
	"$FIO" --output=/dev/null --name=d "${common[@]}" --sched_domain=$dom --time_based --runtime=30 \
		2>/dev/null &
	pd=$!
	for i in $(seq 100); do [ -n "$(pgrep -P $pd)" ] && break; sleep 0.1; done
	sleep 1
	kill -9 $(pgrep -P $pd) $pd
	wait $pd 2>/dev/null
	timeout 60 "$FIO" --thread --output-format=json --output="$WORK/a$k.json" --name=n "${common[@]}" \
		--numjobs=2 --sched_domain=$dom --number_ios=500 --sched_stats="$WORK/a$k.stats.json" \
		2>"$WORK/a$k.err"
	rc=$?
	rm -f "/dev/shm/schedengine.$dom"
	if [ $rc -eq 0 ]; then
		n=$(pyjson "$WORK/a$k.stats.json" '
assert not any(j["died"] for j in d["jobs"]) and d["completed"]==500*len(d["jobs"]), d["jobs"]
print(len(d["jobs"]))') || fail "stale domain run $k: exited 0 but the statistics are wrong"
		# One job in the statistics: the other one re-created the file and ran alone.
		[ "$n" = 2 ] || hits+=("run $k: rc 0 but the 2 jobs ended in $n-job domains (re-created under the first)")
	elif symptom $rc "$WORK/a$k.err"; then
		hits+=("run $k: rc $rc $(head -c 120 "$WORK/a$k.err")")
	else
		fail "stale domain run $k: rc $rc (not the known bug's signature): $(head -c 400 "$WORK/a$k.err")"
	fi
done
echo "A: ${#hits[@]} of 3 runs hit the known bug"
[ ${#hits[@]} -eq 0 ] || xfail "engine bug A (thread-mode jobs attaching a stale named domain): ${hits[*]}"

# B: two fio processes with 2 thread-mode jobs each, one after the other.
dom=se-nd-$$-threads
"$FIO" --thread --output-format=json --output="$WORK/b1.json" --name=b1 "${common[@]}" --numjobs=2 \
	--sched_domain=$dom --time_based --runtime=3 --sched_stats="$WORK/b.stats.json" 2>"$WORK/b1.err" &
p1=$!
sleep 1
"$FIO" --thread --output-format=json --output="$WORK/b2.json" --name=b2 "${common[@]}" --numjobs=2 \
	--sched_domain=$dom --time_based --runtime=1 --sched_stats="$WORK/b.stats.json" 2>"$WORK/b2.err"
rc2=$?
wait $p1
rc1=$?
rm -f "/dev/shm/schedengine.$dom"
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]; then
	pyjson "$WORK/b.stats.json" 'assert len(d["jobs"])==4 and d["inserted"]==d["completed"], d["jobs"]' ||
		fail "B: both exited 0 but the domain does not hold their 4 jobs"
	echo "B: 2 fio x 2 thread-mode jobs in one named domain"
elif { [ $rc1 -eq 0 ] || symptom $rc1 "$WORK/b1.err"; } && { [ $rc2 -eq 0 ] || symptom $rc2 "$WORK/b2.err"; }; then
	xfail "engine bug B (two fio processes with thread-mode jobs in one named domain): rc $rc1/$rc2: $(cat "$WORK/b1.err" "$WORK/b2.err" | grep -m1 'cannot map')"
else
	fail "B: rc $rc1/$rc2 (not the known bug's signature): $(head -c 300 "$WORK/b1.err") $(head -c 300 "$WORK/b2.err")"
fi

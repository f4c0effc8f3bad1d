#!/usr/bin/env bash
# A stopped job holds nobody up (issue "The domain survives every way a job can stop"): 4 fork
# jobs of direct 4k random reads, one of them SIGSTOPped for 3 s mid-run. In the kernel a stopped
# process never holds the device idle: its I/O completes and the scheduler moves on. Here the
# device context issues the grants the stopped job cannot take and completes at the scheduler
# what it had in flight. Checked for CFQ, none and deadline on one backend each: the
# other jobs' IOPS while the job is stopped are at least 70% of theirs before (fio's own per-job
# IOPS logs, 250 ms windows), the run ends cleanly, and the stopped job's requests all complete
# after SIGCONT. BFQ in fork and thread mode, CFQ in thread mode too (there a stop takes a whole
# fio process: two fio processes share a named domain, one is stopped).
# exclusive: the others' IOPS while one job is stopped
. "$(dirname "$0")/../lib.sh"

# fio's job processes (fork mode) or threads (thread mode) of the fio under `timeout` $1
fio_of() { local i p; for i in $(seq 50); do p=$(pgrep -P "$1" -x fio | head -n1); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.1; done; }

run_case() { # sched backend: fork mode, one job process of four stopped
	local sched=$1 be=$2 name=$1-$2 pid fio_pid victim rc
	rm -f "$WORK/${name}"*_iops.*.log
	timeout 60 "$FIO" --output-format=json --output="$WORK/$name.json" --name=s \
		--ioengine=external:"$ENGINE" --sched="$sched" --backend="$be" --directory="$WORK" \
		--filename_format='s.$jobnum' --size=32M --rw=randread --bs=4k --iodepth=8 \
		--numjobs=4 --direct=1 --time_based --runtime=6 --write_iops_log="$WORK/$name" \
		--log_avg_msec=250 --sched_stats="$WORK/$name.stats.json" 2>"$WORK/$name.err" &
	pid=$!
	sleep 2
	fio_pid=$(fio_of "$pid")
	victim=$(pgrep -P "$fio_pid" | sort -n | head -n1)
	[ -n "$victim" ] || fail "$name: no job process under fio $fio_pid"
	kill -STOP "$victim"
	sleep 3
	kill -CONT "$victim"
	wait "$pid"
	rc=$?
	[ $rc -eq 0 ] || fail "$name: fio rc $rc: $(tail -n3 "$WORK/$name.err")"
	fio_ok "$WORK/$name.json" >/dev/null || fail "$name: job errors"
	check_others "$name" "$WORK/$name.stats.json"
}

# Thread mode: the jobs are threads, so a stop takes a whole fio. Two fio processes in one named
# domain (a: one job, b: three), fio a stopped for 3 s: b's jobs go on.
run_thread_case() { # sched backend
	local sched=$1 be=$2 name=thread-$1-$2 dom=se-sigstop-$$-$1 who pa pb fa rc
	rm -f "$WORK/${name}"*_iops.*.log
	# Files laid out first: both fio start their jobs at once, so the stop falls in the same
	# window of every job's log.
	for who in a b; do
		"$FIO" --name=$who --directory="$WORK" --filename_format="t$who.\$jobnum" --size=32M \
			--numjobs=$([ $who = a ] && echo 1 || echo 3) --create_only=1 >/dev/null 2>&1 ||
			fail "$name: layout of fio $who's files"
	done
	for who in a b; do
		timeout 60 "$FIO" --thread --output-format=json --output="$WORK/$name-$who.json" --name=$who \
			--ioengine=external:"$ENGINE" --sched="$sched" --backend="$be" --sched_domain="$dom" \
			--directory="$WORK" --filename_format="t$who.\$jobnum" --size=32M --rw=randread --bs=4k \
			--iodepth=8 --numjobs=$([ $who = a ] && echo 1 || echo 3) --direct=1 --time_based \
			--runtime=6 --write_iops_log="$WORK/$name-$who" --log_avg_msec=250 \
			--sched_stats="$WORK/$name-$who.stats.json" 2>"$WORK/$name-$who.err" &
		[ $who = a ] && pa=$! || pb=$!
	done
	sleep 2
	fa=$(fio_of "$pa")
	[ -n "$fa" ] || fail "$name: fio a did not start"
	kill -STOP "$fa"
	sleep 3
	kill -CONT "$fa"
	for who in a b; do
		wait "$([ $who = a ] && echo $pa || echo $pb)"
		rc=$?
		[ $rc -eq 0 ] || fail "$name: fio $who rc $rc: $(tail -n3 "$WORK/$name-$who.err")"
		fio_ok "$WORK/$name-$who.json" >/dev/null || fail "$name: fio $who: job errors"
	done
	# the domain's statistics are written by the last fio out: b's or a's file
	local st=$WORK/$name-b.stats.json
	[ -s "$st" ] || st=$WORK/$name-a.stats.json
	check_others "$name" "$st"
	rm -f "$SHMDIR/schedengine.$dom"
}

check_others() { # name stats.json: the others' IOPS while the victim was stopped
	local name=$1
	# Which log is the victim's: the job whose IOPS dropped to ~0 in the middle.
	python3 - "$WORK" "$name" "$2" <<'PY' || fail "$name: the others slowed down"
import glob, json, sys
work, name, stats = sys.argv[1:4]
logs = sorted(glob.glob("%s/%s_iops.*.log" % (work, name)) + glob.glob("%s/%s-[ab]_iops.*.log" % (work, name)))
assert len(logs) == 4, logs
def series(p):
    out = []
    for line in open(p):
        f = [x.strip() for x in line.split(",")]
        out.append((int(f[0]), float(f[1])))
    return out
def mean(s, lo, hi):
    v = [x for t, x in s if lo <= t < hi]
    return sum(v) / len(v) if v else 0.0
# The stop begins about 2.0 s after the jobs start and lasts 3 s (fio's logs count from the
# start of the job); windows a little inside both phases.
ss = {p: series(p) for p in logs}
victim = min(ss, key=lambda p: mean(ss[p], 2600, 4600))
others = [p for p in ss if p != victim]
before = sum(mean(ss[p], 500, 1900) for p in others)
during = sum(mean(ss[p], 2600, 4600) for p in others)
vmid = mean(ss[victim], 2600, 4600)
d = json.load(open(stats))
assert d["stray_completions"] == 0, d["stray_completions"]
assert all(j["completed"] == j["inserted"] for j in d["jobs"]), "requests lost"
stolen = sum(j["stolen"] for j in d["jobs"])
early = sum(j["early_completions"] for j in d["jobs"])
print("%-16s others before %7.0f IOPS, while one is stopped %7.0f (%.2f); stopped job %5.0f; "
      "grants issued by the device context %d, completed while stopped %d"
      % (name, before, during, during / before if before else 0, vmid, stolen, early))
assert before > 0 and during >= 0.7 * before
PY
}

# CFQ (the policy that idles, where the bug was), none and deadline on one backend each
# (SIGSTOP_ALL=1: every policy on every backend, as for the issue's figures).
if [ -n "${SIGSTOP_ALL:-}" ]; then
	for sched in none deadline cfq $(policy_built bfq && echo bfq); do
		for be in io_uring libaio psync; do run_case "$sched" "$be"; done
	done
else
	for c in cfq:io_uring none:libaio deadline:psync; do
		run_case "${c%%:*}" "${c#*:}"
	done
fi
# bfq (it idles too) in both modes; cfq in thread mode
if policy_built bfq; then
	[ -n "${SIGSTOP_ALL:-}" ] || run_case bfq io_uring
	run_thread_case bfq libaio
fi
run_thread_case cfq io_uring
if [ -n "${SIGSTOP_ALL:-}" ]; then # the policies that do not idle, in thread mode too
	run_thread_case none psync
	run_thread_case deadline io_uring
fi
echo "a stopped job never held the others up"

#!/usr/bin/env bash
# model_poll_us in both positions, on the hdd model (the 2017 seed's single sequential reader at
# QD1, sched=bfq): with the default 100 a job waiting for its own request's completion polls the
# clock for the last 100 us and runs the completion itself (sched_stats: model_polls, self_runs);
# with 0 it never polls. Each request is completed exactly once either way (inserted = completed
# = fio's reads). The reader's IOPS in both positions are printed, not asserted (a speed): on a
# quiet 2-CPU VM 70 MB/s polling against 54 MB/s sleeping (2026-12-04), 74.75 in virtual time,
# because a sleeper's wake-up (tens of us on an idle vCPU) is think time the scheduler sees.
# Bad values are refused with a one-line error before any I/O.
. "$(dirname "$0")/../lib.sh"
truncate -s 8G "$WORK/t.dat"
JOB=(--name=r --ioengine=external:"$ENGINE" --sched=bfq --device_model=hdd --rotational=1
     --filename="$WORK/t.dat" --size=4G --rw=read --bs=4k --iodepth=1 --direct=1
     --time_based --runtime=2)
for round in 1 2; do
	for p in 100 0; do
		run_fio "p$p-$round" "${JOB[@]}" --model_poll_us=$p \
			--sched_stats="$WORK/p$p-$round.stats.json" ||
			fail "model_poll_us=$p: fio rc $? $(head -c 600 "$WORK/p$p-$round.err")"
	done
done
python3 - "$WORK" <<'PY' || fail "model_poll_us"
import json, sys
w = sys.argv[1]
iops = {100: [], 0: []}
for p in (100, 0):
    for rnd in (1, 2):
        st = json.load(open("%s/p%d-%d.stats.json" % (w, p, rnd)))
        out = json.load(open("%s/p%d-%d.json" % (w, p, rnd)))
        reads = out["jobs"][0]["read"]["total_ios"]
        job = st["jobs"][0]
        polls, runs, done = job["model_polls"], job["self_runs"], st["completed"]
        print("model_poll_us=%d round %d: %d reads, %.0f IOPS, model_polls %d, self_runs %d, "
              "device context wake-ups %d" % (p, rnd, reads, out["jobs"][0]["read"]["iops"],
                                              polls, runs, st["device_context"]["wakeups"]))
        assert st["inserted"] == done == reads, ("exactly once", st["inserted"], done, reads)
        if p:
            # Polls are decided by the job (whoever then wins the lock runs the completion).
            assert polls >= done // 2, ("polled for fewer than half the requests", polls, done)
            assert runs > 0, "the job never ran a completion itself"
        else:
            assert polls == 0, ("model_poll_us=0 polled", polls)
        iops[p].append(out["jobs"][0]["read"]["iops"])
print("IOPS, best of 2: polling %.0f, sleeping %.0f (%.2fx; printed, not asserted)" % (
    max(iops[100]), max(iops[0]), max(iops[100]) / max(iops[0])))
PY
for bad in -1 100001 abc; do
	"$FIO" --output=/dev/null "${JOB[@]}" --runtime=1 --model_poll_us=$bad >"$WORK/bad.out" 2>"$WORK/bad.err" &&
		fail "model_poll_us=$bad accepted"
	grep -q "model_poll_us" "$WORK/bad.err" || fail "model_poll_us=$bad: no error naming it: $(head -c 300 "$WORK/bad.err")"
done
echo "model_poll_us=-1, 100001, abc: refused with $(grep -m1 model_poll_us "$WORK/bad.err")"
echo PASS

#!/usr/bin/env bash
# Issue 36: fio's io_submit_mode=offload (its submission workers, used with rate-paced jobs) runs
# through the engine under cfq and bfq, fork and thread jobs, with fio's rate honoured within 5%:
# each worker is a member of its job's domain (named "JOB (submit worker N)", the job's
# configuration and group) and the scheduler sees every request once. It was refused with a wrong
# message ("sched/tunables/... differ from the other jobs") for a job file with a single job. fio
# 3.33 itself hangs in offload mode when a submission worker inits fast (axboe/fio#2053; native
# psync: 19 of 24 one-second runs here); the engine's workers wait 1 ms in their init, after which
# none did in 24.
# timeout: 300
. "$(dirname "$0")/../lib.sh"

truncate -s 8G "$WORK/model.dat"
for mode in $THREAD_MODES; do
	for sched in cfq bfq; do
		name=$sched.$mode
		timeout -k 10 $((60 * SAN_SCALE)) "$FIO" --name=paced --thread="$mode" \
			--ioengine=external:"$ENGINE" --sched="$sched" --device_model=ssd \
			--filename="$WORK/model.dat" --size=1g --rw=randread --bs=4k --iodepth=4 --numjobs=2 \
			--io_submit_mode=offload --rate_iops=250 --time_based --runtime=4 --group_reporting \
			--output-format=json --output="$WORK/$name.json" --sched_stats="$WORK/$name.stats.json" \
			2>"$WORK/$name.err" || fail "$name: fio: $(grep -m2 -E 'schedengine|fio:' "$WORK/$name.err")"
		pyjson "$WORK/$name.json" "
j = d['jobs'][0]
iops = j['read']['iops']
assert not j['error'], j['error']
assert abs(iops - 500) <= 25, 'rate %.1f IOPS, asked 2 x 250' % iops
print('%.1f' % iops)
" >"$WORK/$name.iops" || fail "$name: fio's rate not honoured: $(cat "$WORK/$name.iops")"
		pyjson "$WORK/$name.stats.json" "
ws = [j for j in d['jobs'] if '(submit worker ' in j['name']]
assert len(ws) == 8, [j['name'] for j in d['jobs']]
assert d['stray_completions'] == 0 and d['completed'] == d['inserted'] > 0
assert sum(j['completed'] for j in ws) == d['completed']
" || fail "$name: sched_stats"
		note "$sched, thread=$mode: $(cat "$WORK/$name.iops") IOPS of 500 asked, 8 submission workers in the domain"
	done
done
exit 0

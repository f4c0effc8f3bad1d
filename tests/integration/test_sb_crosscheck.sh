#!/usr/bin/env bash
# schedbench end to end on a model-backed device (issue 11): a crosscheck matrix on the hdd model,
# kernel none on build/modeldev's /dev/loopN against embedded none on the same model. Checks the
# device's set-up (modeldev info in the provenance, the tags as nr_requests, a reset per kernel
# cell, its statistics stored with the run), the embedded cell's model, the side-by-side report,
# and that nothing is left (daemon, loop device, mount) after a normal run and after a SIGKILL of
# the runner. Skips with the reason where FUSE or loop devices are refused.
# exclusive: kernel and embedded IOPS within 25%
. "$(dirname "$0")/schedbench_lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (FUSE mount, loop device, sysfs)"; exit 77; }
MD="$TOP/$BUILD/modeldev"
case $BUILD in /*) MD="$BUILD/modeldev" ;; esac
# Model devices of other runs on this machine (another checkout's tests) are not ours to count.
"$MD" leftovers 2>/dev/null | grep 'schedengine-modeldev:sb' | sort >"$WORK/md-before.txt"
ours_left() { "$MD" leftovers 2>/dev/null | grep 'schedengine-modeldev:sb' | sort | comm -13 "$WORK/md-before.txt" -; }
[ -x "$MD" ] || { echo "SKIP: $MD not built (libfuse3-dev missing: make setup)"; exit 77; }
cd "$T"
cat >xc.ini <<EOF
[matrix]
name      = sb-crosscheck
jobs      = $TOP/jobs/crosscheck-none/read.fio
device    = model:hdd
repeat    = 1
runtime   = 2
tolerance = 25
[device]
size = 16G
[axis.pattern]
rand4k-qd48 = rw=randread bs=4k iodepth=48
[axis.side]
kernel   = kernel:none
embedded = embedded:none
[notes]
nomatch  = a note that names no row of this matrix
EOF
# no daemon of ours before (a killed earlier run's is reclaimed by schedbench itself)
"$SB" run xc.ini --db "$T/db.sqlite" >run.log 2>&1
rc=$?
cat run.log
if grep -q 'kernel cells are skipped: modeldev refused' run.log; then
	[ $rc = 0 ] || fail "a refused device must skip the kernel cells, not fail (rc $rc)"
	[ "$(q "SELECT count(*) FROM runs WHERE mode = 'embedded' AND status = 'ok'")" = 1 ] ||
		fail "the embedded cell must still run when the device is refused"
	echo "SKIP: $(grep -m1 'kernel cells are skipped' run.log)"
	exit 77
fi
[ $rc = 0 ] || fail "schedbench run exited $rc"
grep -q 'kernel cells run on /dev/loop.*modeldev sb[0-9]*: model hdd, 17179869184 bytes, 32 tags' run.log ||
	fail "no model-backed device line"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 2 ] || fail "2 ok runs expected"
k() { q "SELECT $1 FROM runs WHERE mode = 'kernel'"; }
e() { q "SELECT $1 FROM runs WHERE mode = 'embedded'"; }
# the device: its info once per run in the provenance, the tags as the queue's nr_requests
[ "$(k "json_extract(provenance, '$.modeldev.model')")" = hdd ] || fail "modeldev info not recorded"
[ "$(k "json_extract(provenance, '$.modeldev.size')")" = 17179869184 ] || fail "modeldev size"
[ "$(k "json_extract(sysfs_state, '$.queue.nr_requests')")" = 32 ] ||
	fail "nr_requests is not the model's tags: $(k "json_extract(sysfs_state, '$.queue.nr_requests')")"
[ "$(k "json_type(sysfs_state, '$.bdi')")" = object ] || fail "the device's bdi/ state not recorded"
# its statistics after the cell: a fresh model (reset) that saw this cell's reads only
st=$(k "json_extract(device_stats, '$.resets') || ' ' || json_extract(device_stats, '$.requests.read') || ' ' || json_extract(device_stats, '$.model_service_mean_us')")
read -r resets reads svc <<<"$st"
[ "${resets:-0}" -ge 1 ] || fail "the model was not reset before the kernel cell ($st)"
ios=$(k "(SELECT sum(total_ios) FROM results x WHERE x.run_id = runs.id AND ddir = 'read')")
[ "${reads:-0}" -ge "$ios" ] && [ "$reads" -le $((ios + 64)) ] ||
	fail "the device saw $reads reads, fio completed $ios: not a fresh model"
# 48 I/Os from fio, 32 tags: the kernel never gave the model more than its depth
[ "$(k "json_extract(device_stats, '$.depth.fifo_waits')")" = 0 ] &&
	[ "$(k "json_extract(device_stats, '$.depth.max_in_model')")" -le 32 ] ||
	fail "the kernel sent more than the model's 32 tags: $(k "json_extract(device_stats, '$.depth')")"
python3 -c "import sys; sys.exit(0 if float('$svc') > 1000 else 1)" ||
	fail "model service time $svc us: an hdd's random 4k read takes milliseconds"
# the embedded side: the same model on a sparse file of the device's size
e generated_job | grep -qx 'device_model=hdd' || fail "embedded cell without device_model=hdd"
[ "$(e "json_extract(sched_stats, '$.device_model.kind')")" = hdd ] || fail "the engine ran no hdd model"
[ "$(e "json_extract(overlays, '$.device.model')")" = hdd ] || fail "the device is not in the cell's identity"
[ "$(q "SELECT count(DISTINCT cell_hash) FROM runs")" = 2 ] || fail "cell hashes"
# the report pairs them
"$SB" report --db "$T/db.sqlite" -e sb-crosscheck >rep.txt 2>&1 || { cat rep.txt; fail "report"; }
cat rep.txt
grep -q '^crosscheck: sb-crosscheck: kernel vs embedded on model:hdd, size 16G' rep.txt || fail "no crosscheck header"
row=$(grep -E '^all +read\.read ' rep.txt) || fail "no row for read.read"
read -r _ _ kiops klat eiops elat _ _ msvc verdict <<<"$row"
for v in "$kiops" "$eiops" "$klat" "$elat" "$msvc"; do
	python3 -c "import sys; sys.exit(0 if float('$v') > 0 else 1)" 2>/dev/null || fail "not a number in: $row"
done
case $verdict in ok | DIFF) ;; *) fail "verdict '$verdict'" ;; esac
grep -q 'compared rows within 25%' rep.txt || fail "no summary line"
# crosscheck-p99 (kyber's matrices): each side's p99 beside its mean, their difference, and a read
# row ok only when the p99 is within the tolerance too
"$SB" report --db "$T/db.sqlite" -e sb-crosscheck --format crosscheck-p99 >rep99.txt 2>&1 ||
	{ cat rep99.txt; fail "report --format crosscheck-p99"; }
grep -q '^crosscheck: .*verdict: IOPS and mean latency (reads: and p99) within 25%' rep99.txt ||
	fail "crosscheck-p99: no header naming the p99: $(grep -m1 '^crosscheck:' rep99.txt)"
row=$(grep -E '^all +read\.read ' rep99.txt) || fail "crosscheck-p99: no row for read.read"
read -r _ _ kiops klat kp99 eiops elat ep99 diops dlat dp99 msvc verdict <<<"$row"
python3 - "$klat" "$kp99" "$elat" "$ep99" "$diops" "$dlat" "$dp99" "$verdict" <<'EOF' || fail "crosscheck-p99 row: $row"
import sys
kl, kp, el, ep = map(float, sys.argv[1:5])
di, dl, dp = (float(x.rstrip('%')) for x in sys.argv[5:8])
verdict = sys.argv[8]
assert kp >= kl and ep >= el, "a p99 under its mean"
assert abs(dp - 100 * (ep - kp) / kp) < 1.5, "the p99 difference is not the two p99s'"
assert (verdict == "ok") == all(abs(x) <= 25 for x in (di, dl, dp)), "verdict does not follow the p99"
EOF
# nothing left: no daemon, loop device or mount of ours; our cgroups root is gone
left=$(ours_left)
[ -z "$left" ] || fail "left behind: $left"

# a runner killed with SIGKILL mid-cell: its daemon goes (it watches the runner), the journal's
# supervisor restores the device's settings and marks the run interrupted
sed -i 's/^runtime   = 2/runtime   = 6/; s/^name      = sb-crosscheck/name      = sb-crosscheck-killed/' xc.ini
"$SB" run xc.ini --db "$T/db.sqlite" >kill.log 2>&1 &
pid=$!
for i in $(seq 1 100); do grep -q 'cell side=kernel' kill.log && break; sleep 0.1; done
sleep 1.5
kill -9 $pid
wait $pid 2>/dev/null
for i in $(seq 1 100); do
	left=$("$MD" leftovers 2>/dev/null | grep "schedengine-modeldev:sb$pid:")
	[ -z "$left" ] && [ "$(q "SELECT count(*) FROM runs WHERE status = 'running'")" = 0 ] && break
	sleep 0.1
done
cat kill.log
[ -z "$left" ] || fail "after SIGKILL, left behind: $left"
[ "$(q "SELECT status FROM runs WHERE cell_name = 'side=kernel' AND experiment = 'sb-crosscheck-killed'")" = interrupted ] ||
	fail "the killed run is not 'interrupted'"
ls tmp/journal-* 2>/dev/null && fail "journal left"
echo PASS

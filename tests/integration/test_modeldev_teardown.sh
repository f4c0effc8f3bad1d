#!/usr/bin/env bash
# build/modeldev leaves nothing mounted or attached: after `stop`, after SIGINT of a foreground
# daemon, after SIGKILL of the harness that started it (--watch-pid), after SIGKILL of the daemon
# itself in the middle of I/O (the loop device has autoclear and only the daemon holds it), and
# a mount left by a killed daemon (--keep-mount) is removed by the next start (reclaim).
. "$(dirname "$0")/../lib.sh"
. "$TOP/modeldev/test-helpers.sh"
md_require

note "stop"
md_start a --model null --size 64M
dd if="$MD_DEV" of=/dev/null bs=64k count=16 iflag=direct status=none || fail "read $MD_DEV"
md_ctl stop a >/dev/null
md_expect_clean 10

note "SIGINT to a foreground daemon (modeldev run)"
"$MODELDEV" run --name "$MD_TAG-b" --model null --size 64M --watch-pid $$ >"$WORK/run.out" 2>"$WORK/run.err" &
runpid=$!
MD_NAMES+=("$MD_TAG-b")
for _ in $(seq 50); do [ -s "$WORK/run.out" ] && break; sleep 0.1; done
dev=$(cat "$WORK/run.out")
[ -b "$dev" ] || fail "modeldev run printed '$dev': $(cat "$WORK/run.err")"
kill -INT $runpid
wait $runpid || fail "modeldev run exited $? after SIGINT: $(tail -n 3 "$WORK/run.err")"
md_expect_clean 10

note "SIGKILL of the harness: the daemon watches it and tears down"
( # a harness: starts the device, runs fio on it, is killed
	exec 1>&- # no reader for our stdout
	me=$BASHPID # (inside $(...) BASHPID would be the substitution's own subshell)
	dev=$("$MODELDEV" start --name "$MD_TAG-c" --model hdd --watch-pid $me) || exit 1
	echo "$dev" >"$WORK/harness.dev"
	"$FIO" --name=h --filename="$dev" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=4 --runtime=30 --time_based --output="$WORK/harness.json" >/dev/null 2>&1 &
	sleep 60
) &
hpid=$!
MD_NAMES+=("$MD_TAG-c")
for _ in $(seq 100); do [ -s "$WORK/harness.dev" ] && break; sleep 0.1; done
[ -s "$WORK/harness.dev" ] || fail "the harness did not start its device"
hdev=$(cat "$WORK/harness.dev")
# Kill the harness only once its fio holds the device open: killed earlier (a loaded machine can
# take seconds to start fio), the daemon rightly lets go of an unused device, and fio then opens
# a detached /dev/loopN (size 0: reads end at once, and it spins there until its runtime ends).
fio_holds() {
	local p
	for p in $(pgrep -f "output=$WORK/harness.json"); do
		[ "$(find /proc/"$p"/fd -lname "$hdev" 2>/dev/null | head -n1)" ] && return 0
	done
	return 1
}
for _ in $(seq 300); do fio_holds && break; sleep 0.1; done
fio_holds || fail "the harness's fio never opened $hdev"
[ -n "$(md_leftovers)" ] || fail "the harness's device is not there"
kill -KILL $hpid
wait $hpid 2>/dev/null
# the daemon waits up to 5 s for fio (holding the loop device open) before it lets go
md_expect_clean 15
for _ in $(seq 50); do pgrep -f "output=$WORK/harness.json" >/dev/null || break; sleep 0.2; done
pgrep -f "output=$WORK/harness.json" >/dev/null && fail "fio still runs on the torn-down device"

note "SIGKILL of the daemon during I/O: the loop device detaches itself"
md_start d --model cloud-ssd --size 1G
"$FIO" --name=k --filename="$MD_DEV" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=8 --runtime=30 --time_based --output="$WORK/k.json" >/dev/null 2>&1 &
fpid=$!
sleep 1
kill -KILL "$(cat /run/schedengine-modeldev/$MD_TAG-d/pid)"
wait $fpid # fails: its device went away
md_expect_clean 10
"$MODELDEV" reclaim >/dev/null
[ ! -e "/run/schedengine-modeldev/$MD_TAG-d" ] || fail "reclaim left /run/schedengine-modeldev/$MD_TAG-d"

note "a mount left by a killed daemon is reclaimed by the next start"
md_start e --model null --size 64M --keep-mount
grep -q "modeldev:$MD_TAG-e" /proc/self/mountinfo || fail "--keep-mount: no mount"
kill -KILL "$(cat /run/schedengine-modeldev/$MD_TAG-e/pid)"
sleep 0.5
grep -q "modeldev:$MD_TAG-e" /proc/self/mountinfo || fail "the killed daemon's mount vanished by itself?"
md_start f --model null --size 64M # its start reclaims
grep -q "modeldev:$MD_TAG-e" /proc/self/mountinfo && fail "start did not reclaim the dead daemon's mount"
md_ctl stop f >/dev/null
md_expect_clean 10
echo ok

#!/usr/bin/env bash
# Another local user cannot subvert a run (issue "...a domain that no other local user can
# subvert"), in the ways a review found (each failed before its fix):
#  1. a lock on a named domain's directory: another user who may read a 0755 sched_domain_dir
#     flock()ed it and every attach hung; the lock is now a 0600 file of ours inside it;
#  2. the statistics' temporary file: a name planted in a directory others write (a symlink to
#     a file of ours) was followed, the file truncated and overwritten; now a new file only;
#  3. sched_trace= at another user's symlink: followed (appended to its target); now refused,
#     one line, as the kernel's protected_symlinks would;
#  4. a full file system under a named domain (another user filled /dev/shm): SIGBUS at the
#     first touch of the domain's memory; now a refusal;
#  5. a sched_domain_dir below another user's directory (who could swap it between the checks
#     and the opens): now refused;
# and (tests/unit/test_domain.c, test_file_replaced) a job's file renamed or replaced after fio
# opened it is not what the device context reopens. Needs root (setpriv to uid nobody).
# timeout: 120
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (runs the other user as nobody with setpriv)"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) not installed"; exit 77; }
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
# A place both users reach: $WORK is 0700.
PUB=$(mktemp -d /tmp/schedengine-users.XXXXXX)
trap 'kill $holder 2>/dev/null; rm -rf "$PUB"; cleanup' EXIT
holder=
chmod 755 "$PUB"
echo "precious" >"$PUB/victim"
chmod 600 "$PUB/victim"

run() { # name fio-args... (a small direct read, 1 s at most)
	local name=$1
	shift
	timeout 30 "$FIO" --name="$name" --ioengine=external:"$ENGINE" --filename="$WORK/$name.dat" \
		--size=1M --bs=4k --rw=read --direct=1 "$@" >"$WORK/$name.out" 2>&1
}
victim_intact() {
	[ "$(cat "$PUB/victim")" = precious ] || fail "$1: the victim file was written: $(head -c 80 "$PUB/victim")"
}

# 1. The directory's lock.
mkdir -m 755 "$PUB/dom"
$NOBODY flock "$PUB/dom" sleep 60 &
holder=$!
sleep 0.5
kill -0 $holder 2>/dev/null || fail "1: nobody could not flock $PUB/dom (test set-up)"
run dirlock --sched_domain=x --sched_domain_dir="$PUB/dom"
rc=$?
[ $rc -ne 124 ] || fail "1: the attach hung on the directory another user holds locked"
[ $rc -eq 0 ] || fail "1: fio rc $rc: $(grep -m2 schedengine "$WORK/dirlock.out")"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
holder=
lock="$PUB/dom/.schedengine.lock"
[ "$(stat -c '%u %a' "$lock")" = "0 600" ] || fail "1: the lock file is $(stat -c '%u %a' "$lock")"
echo "1: attached with another user holding a flock on the 0755 directory (lock: a 0600 file)"
# ... and a lock file that is not ours is refused, not used.
rm -f "$lock"
touch "$lock"
chown 65534 "$lock"
run dirlock2 --sched_domain=x --sched_domain_dir="$PUB/dom" && fail "1: a lock file of uid 65534 was used"
grep -q "^schedengine: sched_domain: $lock: not a private file of yours (uid 65534" "$WORK/dirlock2.out" ||
	fail "1: $(grep -m2 schedengine "$WORK/dirlock2.out")"
echo "1: refused: $(grep -m1 '^schedengine' "$WORK/dirlock2.out")"

# 2. The statistics: another user plants the temporary names in a directory both write. With
# --thread the job that writes them runs in fio's process: the exec'ed shell's $$. Planted:
# the name used before the fix (s.json.tmpPID) and the first two now (.0, .1).
mkdir -m 1777 "$PUB/out"
NOBODY=$NOBODY bash -c 'for n in "" .0 .1; do $NOBODY ln -s "$1" "$2/s.json.tmp$$$n" || exit; done
	exec "${@:3}"' _ "$PUB/victim" "$PUB/out" \
	"$FIO" --thread --name=st --ioengine=external:"$ENGINE" --filename="$WORK/st.dat" \
	--size=1M --bs=4k --rw=read --direct=1 --sched_stats="$PUB/out/s.json" >"$WORK/st.out" 2>&1 ||
	fail "2: fio: $(grep -m2 schedengine "$WORK/st.out")"
[ "$(find "$PUB/out" -name 's.json.tmp*' -type l | wc -l)" = 3 ] || fail "2: planted $(ls "$PUB/out")"
victim_intact 2
[ -f "$PUB/out/s.json" ] && [ ! -L "$PUB/out/s.json" ] || fail "2: s.json is not a regular file"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$PUB/out/s.json" || fail "2: s.json is not JSON"
echo "2: statistics written as a new file beside the 3 planted names; the victim intact"

# 3. sched_trace= at another user's symlink.
$NOBODY ln -s "$PUB/victim" "$PUB/out/trace.log"
rm -f "$WORK/tr.dat"
run tr --sched_trace="$PUB/out/trace.log" && fail "3: a trace through uid 65534's symlink ran"
[ ! -e "$WORK/tr.dat" ] || fail "3: refused only after fio laid out its file"
grep -q "^schedengine: sched_trace=$PUB/out/trace.log: a symlink owned by uid 65534: not followed" "$WORK/tr.out" ||
	fail "3: $(grep -m2 schedengine "$WORK/tr.out")"
[ "$(grep -c '^schedengine' "$WORK/tr.out")" -ge 1 ] || fail "3: no error line"
victim_intact 3
echo "3: refused: $(grep -m1 '^schedengine' "$WORK/tr.out")"
# ... while a symlink of ours (or root's, as /dev/stderr) is followed as before.
ln -s "$WORK/mine.log" "$WORK/trace-link"
run tr2 --sched_trace="$WORK/trace-link" || fail "3: our own symlink: $(grep -m2 schedengine "$WORK/tr2.out")"
[ -s "$WORK/mine.log" ] || fail "3: nothing traced through our own symlink"
echo "3: our own symlink followed ($(wc -l <"$WORK/mine.log") trace lines)"
# 5. A named domain's directory below one another user owns (who could rename ours away and put theirs
# in its place between the checks and the opens) is refused, one line, before any I/O.
mkdir -m 755 "$PUB/theirs"
chown 65534 "$PUB/theirs"
mkdir -m 700 "$PUB/theirs/dom"
rm -f "$WORK/anc.dat"
run anc --sched_domain=x --sched_domain_dir="$PUB/theirs/dom" && fail "5: a domain below uid 65534's directory"
grep -q "^schedengine: sched_domain_dir=$PUB/theirs/dom: $PUB/theirs is uid 65534's" "$WORK/anc.out" ||
	fail "5: $(grep -m2 schedengine "$WORK/anc.out")"
[ ! -e "$WORK/anc.dat" ] || fail "5: refused only after fio laid out its file"
echo "5: refused: $(grep -m1 '^schedengine' "$WORK/anc.out")"

# 4. A full file system under a named domain (another user filled /dev/shm, world-writable):
# the domain's pages are backed when allocated (MADV_POPULATE_WRITE), so a refusal, one line,
# where the first touch was a SIGBUS (fio: "got signal=7"). In a mount namespace of its own:
# nothing stays mounted, even if the test is killed.
cat >"$WORK/full.sh" <<'SH'
set -u
M=$(mktemp -d /tmp/schedengine-full.XXXXXX)
trap 'umount "$M"; rmdir "$M"' EXIT
mount -t tmpfs -o size=2m,mode=1777 tmpfs "$M" || exit 77
mkdir -m 700 "$M/dom"
setpriv --reuid=65534 --regid=65534 --clear-groups dd if=/dev/zero of="$M/fill" bs=64k 2>/dev/null
timeout 30 "$FIO" --name=full --ioengine=external:"$ENGINE" --sched_domain=x \
	--sched_domain_dir="$M/dom" --filename="$WORK/full.dat" --size=1M --bs=4k --rw=read \
	--direct=1 >"$WORK/full.out" 2>&1
rc=$?
# room for the domain but not for the job's buffers (8 x 1 MiB): refused when they are allocated
rm -f "$M/fill" "$M/dom/schedengine.x"
timeout 30 "$FIO" --name=full2 --ioengine=external:"$ENGINE" --sched_domain=y \
	--sched_domain_dir="$M/dom" --filename="$WORK/full.dat" --size=16M --bs=1m --iodepth=8 \
	--rw=read --direct=1 >"$WORK/full2.out" 2>&1
exit $rc
SH
FIO=$FIO ENGINE=$ENGINE WORK=$WORK unshare -m --propagation private bash "$WORK/full.sh"
rc=$?
if [ $rc = 77 ] || { [ $rc != 0 ] && [ ! -s "$WORK/full.out" ]; }; then
	echo "4: skipped: no private mount namespace with a tmpfs here (rc $rc)"
else
	[ $rc != 0 ] || fail "4: a named domain on a full file system ran"
	grep -q "signal=7" "$WORK/full.out" && fail "4: SIGBUS: $(grep -m2 -E 'schedengine|signal' "$WORK/full.out")"
	grep -q "^schedengine: sched_domain: .*/dom/schedengine.x: No space left on device" "$WORK/full.out" ||
		fail "4: $(grep -m2 -E 'schedengine|fio:' "$WORK/full.out")"
	echo "4: refused: $(grep -m1 '^schedengine' "$WORK/full.out")"
	grep -q "signal=7" "$WORK/full2.out" && fail "4: buffers: SIGBUS: $(grep -m2 -E 'schedengine|signal' "$WORK/full2.out")"
	grep -q "^schedengine: job full2: [0-9]* bytes of buffers in the domain: No space left on device" "$WORK/full2.out" ||
		fail "4: buffers: $(grep -m2 -E 'schedengine|fio:' "$WORK/full2.out")"
	echo "4: refused: $(grep -m1 '^schedengine' "$WORK/full2.out")"
fi
echo "no other local user subverted the run"

#!/usr/bin/env bash
# Named domains (sched_domain=NAME): several fio processes, fork and thread, started together,
# share one scheduler; the file goes when the last member leaves; a stale one is reclaimed; and
# nothing another local user could plant is used (issues "The domain survives every way a job
# can stop..." and "Named domains must be safe against other local users").
. "$(dirname "$0")/../lib.sh"

REPS=${NAMED_REPS:-5} # 5 pairs per mode: the old crash hit 8 of 9 runs; NAMED_REPS=20 for the issue's soak
DIR=$WORK/domains
mkdir -m 0700 "$DIR"

pair() { # name mode: two fio processes x 4 jobs on one domain, started together (1 s each, so
	# that they overlap however late the machine starts the second; 300 ms did not under load)
	local name=$1 mode=$2 p1 p2 rc1 rc2
	for i in 1 2; do
		timeout 60 "$FIO" --output-format=json --output="$WORK/$name.$i.json" --name="p$i" \
			--ioengine=external:"$ENGINE" --sched_domain="$name" --sched_domain_dir="$DIR" \
			--sched=cfq --directory="$WORK" --filename_format="f.$i.\$jobnum" --size=1M \
			--rw=randread --bs=4k --iodepth=4 --numjobs=4 --direct=1 --time_based \
			--runtime=1 --sched_stats="$WORK/$name.stats.json" $mode 2>"$WORK/$name.$i.err" &
		eval "p$i=$!"
	done
	wait "$p1"; rc1=$?
	wait "$p2"; rc2=$?
	[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] ||
		fail "$name ($mode): fio rc $rc1/$rc2: $(cat "$WORK/$name.1.err" "$WORK/$name.2.err" | head -n4)"
	pyjson "$WORK/$name.stats.json" '
assert len(d["jobs"]) == 8, "members: %d" % len(d["jobs"])
assert not any(j["died"] for j in d["jobs"]) and not d["degraded"]
assert len({j["pid"] for j in d["jobs"]}) >= 2, "one process only?"
assert d["stray_completions"] == 0 and all(j["completed"] == j["inserted"] for j in d["jobs"])
' || fail "$name ($mode): stats"
	[ ! -e "$DIR/schedengine.$name" ] || fail "$name ($mode): the domain file was left behind"
}

for mode in "" "--thread"; do
	for r in $(seq 1 "$REPS"); do
		pair "n$r${mode:+t}" "$mode"
	done
	note "2 fio processes x 4 jobs${mode:+ ($mode)}: $REPS runs, every member in one sched_stats"
done

# The caller's private directory is used by default and made 0700.
run_fio priv --name=p --ioengine=external:"$ENGINE" --sched_domain=privtest --directory="$WORK" \
	--size=256k --rw=read --bs=4k || fail "default directory: $(cat "$WORK/priv.err")"
d="/dev/shm/schedengine-$(id -u)"
[ "$(stat -c '%a %u' "$d")" = "700 $(id -u)" ] || fail "$d: $(stat -c '%a %u' "$d")"
[ ! -e "$d/schedengine.privtest" ] || fail "privtest left behind"

# A stale domain of the same user (every process that used it was killed) is reclaimed.
timeout 60 "$FIO" --name=s --ioengine=external:"$ENGINE" --sched_domain=stale \
	--sched_domain_dir="$DIR" --directory="$WORK" --size=1M --rw=randread --bs=4k \
	--time_based --runtime=30 --numjobs=2 >/dev/null 2>&1 &
p=$!
for _ in $(seq 50); do [ -e "$DIR/schedengine.stale" ] && break; sleep 0.1; done
sleep 0.5
pkill -9 -P "$(pgrep -P "$p" -x fio | head -n1)" 2>/dev/null
kill -9 "$(pgrep -P "$p" -x fio)" "$p" 2>/dev/null
wait "$p" 2>/dev/null
[ -e "$DIR/schedengine.stale" ] || fail "no stale file to reclaim"
run_fio reclaim --name=r --ioengine=external:"$ENGINE" --sched_domain=stale \
	--sched_domain_dir="$DIR" --directory="$WORK" --size=256k --rw=read --bs=4k \
	--sched_stats="$WORK/reclaim.stats.json" || fail "stale domain: $(cat "$WORK/reclaim.err")"
pyjson "$WORK/reclaim.stats.json" 'assert len(d["jobs"]) == 1, d["jobs"]' || fail "reclaimed domain"
note "a stale domain was reclaimed"

# A file sized but never initialised (its creator died between ftruncate and writing the header,
# under the directory's lock): reclaimed too. Any other bad header is refused (below).
install -m 0600 /dev/null "$DIR/schedengine.unborn"
truncate -s 64M "$DIR/schedengine.unborn"
run_fio unborn --name=u --ioengine=external:"$ENGINE" --sched_domain=unborn \
	--sched_domain_dir="$DIR" --directory="$WORK" --size=256k --rw=read --bs=4k \
	--sched_stats="$WORK/unborn.stats.json" || fail "unborn domain: $(cat "$WORK/unborn.err")"
pyjson "$WORK/unborn.stats.json" 'assert len(d["jobs"]) == 1, d["jobs"]' || fail "unborn domain's stats"
[ ! -e "$DIR/schedengine.unborn" ] || fail "the unborn domain's replacement was left behind"
note "an unborn domain was reclaimed"

# ---- what another user could plant: each refused with its reason, nothing touched -------------
refused() { # name expected-message [extra args]: fio must stop before any I/O
	local name=$1 want=$2
	shift 2
	rm -f "$WORK"/r.*
	timeout 60 "$FIO" --name=r --ioengine=external:"$ENGINE" --sched_domain="$name" \
		--directory="$WORK" --filename_format='r.$jobnum' --size=256k --rw=write --bs=4k "$@" \
		>"$WORK/$name.out" 2>&1 && fail "$name: accepted"
	grep -q "$want" "$WORK/$name.out" || fail "$name: no '$want' in: $(grep schedengine "$WORK/$name.out")"
	# Before any I/O: fio did not even lay out the job's file.
	[ ! -e "$WORK/r.0" ] || fail "$name: refused only after fio wrote its file"
	echo "refused: $(grep -m1 '^schedengine' "$WORK/$name.out")"
}
VICTIM=$WORK/precious
echo "precious data" >"$VICTIM"
ln -s "$VICTIM" "$DIR/schedengine.symlink"
refused symlink "is a symbolic link" --sched_domain_dir="$DIR"
ln "$VICTIM" "$DIR/schedengine.hardlink"
chmod 0600 "$VICTIM"
refused hardlink "has 2 links" --sched_domain_dir="$DIR"
rm -f "$DIR/schedengine.hardlink"
install -m 0666 /dev/null "$DIR/schedengine.mode"
refused mode "mode 0666, not 0600" --sched_domain_dir="$DIR"
# A forged header: copies of a live domain file, with its size, then its address, changed
# (the header: magic[8], version u32, header_size u32, size u64, base u64, little-endian).
timeout 60 "$FIO" --name=h --ioengine=external:"$ENGINE" --sched_domain=template \
	--sched_domain_dir="$DIR" --directory="$WORK" --size=1M --rw=randread --bs=4k \
	--time_based --runtime=3 >/dev/null 2>&1 &
p=$!
for _ in $(seq 50); do [ -s "$DIR/schedengine.template" ] && break; sleep 0.1; done
sleep 0.3
for name in badsize badaddr; do
	cp "$DIR/schedengine.template" "$DIR/schedengine.$name"
	chmod 0600 "$DIR/schedengine.$name"
done
wait "$p"
python3 - "$DIR" <<'PY'
import struct, sys
d = sys.argv[1]
for name, off, value in (("badsize", 16, 12345), ("badaddr", 24, (1 << 47) - 4096)):
    p = "%s/schedengine.%s" % (d, name)
    with open(p, "r+b") as f:
        f.seek(off)
        f.write(struct.pack("<Q", value))
PY
cp "$DIR/schedengine.badsize" "$WORK/badsize.before"
refused badsize "header size 12345 does not match" --sched_domain_dir="$DIR"
# (the header and the size: cmp over the whole sparse 64 GiB would read it all)
cmp -s -n 1048576 "$DIR/schedengine.badsize" "$WORK/badsize.before" &&
	[ "$(stat -c %s "$DIR/schedengine.badsize")" = "$(stat -c %s "$WORK/badsize.before")" ] ||
	fail "badsize: the file was changed"
refused badaddr "is not a user address" --sched_domain_dir="$DIR"
cp "$DIR/schedengine.badsize" "$DIR/schedengine.badmagic"
printf 'NOTADOMAIN' | dd of="$DIR/schedengine.badmagic" conv=notrunc status=none
refused badmagic "not a schedengine domain (bad magic)" --sched_domain_dir="$DIR"
# A directory others can write to (as /dev/shm itself) or that is not ours.
refused worldwritable "writable by group or others" --sched_domain_dir=/dev/shm
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	install -d -m 0700 -o nobody "$WORK/others"
	refused otherdir "owned by uid $(id -u nobody), not by you" --sched_domain_dir="$WORK/others"
	install -m 0600 -o nobody /dev/null "$DIR/schedengine.otheruser"
	refused otheruser "owned by uid $(id -u nobody), not by you" --sched_domain_dir="$DIR"
	# And what nobody can do in our private directory: nothing.
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		sh -c "echo x > '$DIR/schedengine.planted'" 2>/dev/null &&
		fail "another user could plant a file in the private directory"
else
	note "not root or no user 'nobody': the other-user cases were not run"
fi
[ "$(cat "$VICTIM")" = "precious data" ] || fail "the symlink's target was written"
echo "all named-domain checks passed"

#!/usr/bin/env bash
# Issue 33: the kernel's own scheduler files as a differential oracle. Builds the oracle from the
# reference copies in ../shared/kernel-src (skips, saying so, without them), then:
#   1. the comparison sees a difference where there is one: the kernel's 4.19 mq-deadline.c
#      against the embedded 6.12 profile (--against) must diverge;
#   2. a fixed sample of ORACLE_STREAMS streams (default 300) per variant built, seed 20261207:
#      every divergence must be one oracle/known.txt names (the campaign's exit status);
#   3. the oracle's schedsim runs a job file with the kernel's file (SCHEDSIM_IMPL=kernel) and
#      with ours, and where the oracle finds no divergence the numbers are the same;
#   4. bad arguments: one line and exit 2.
# (2b: the legacy (sq) variants with merging on, nomerges 0: the block core's merge path of each
# era in adapt/merge_core.c, every divergence known, and merges happen on both sides.)
# (1b: a bfq_sw_* switch set on the 4.12 profile, oracle --set, diverges from 4.12's files;
# 1c: two streams of seed 1 in which processes exit agree.)
# timeout: 900
. "$(dirname "$0")/../lib.sh"

ref=${ORACLE_REF:-$TOP/../shared/kernel-src}
[ -d "$ref" ] || skip "no kernel reference sources at $ref: the oracle has no kernel files to compile"
command -v objcopy >/dev/null || skip "objcopy (binutils) is not installed"
ORACLE=$BUILD/oracle/oracle
make -C "$TOP" --no-print-directory BUILD="$BUILD" oracle-build >"$WORK/build.log" 2>&1 ||
	fail "make oracle-build: $(tail -n 5 "$WORK/build.log")"
variants=$("$ORACLE" --list | awk '{print $1}' | tr '\n' ' ')
note "variants built: $variants"

# 1. A difference is seen.
"$ORACLE" --variant deadline_4_19 --against 6.12 --streams 40 --minimize 3 --quiet >"$WORK/against.txt"
rc=$?
[ $rc -eq 1 ] || fail "--against 6.12: exit $rc, expected 1 (divergences not known): $(head -n 3 "$WORK/against.txt")"
n=$(awk '$1 == "deadline_4_19" {print $5}' "$WORK/against.txt")
[ "${n:-0}" -gt 5 ] || fail "--against 6.12: $n divergent streams of 40, expected some"
note "the 6.12 profile against the 4.19 file: $n of 40 streams diverge"

# 1b. --set: one later kernel's change (a bfq_sw_* switch) on the 4.12 profile against 4.12's own
# files must diverge too (the profile without it agrees: step 2).
if [[ " $variants " == *" bfq_4_12 "* ]]; then
	"$ORACLE" --variant bfq_4_12 --set bfq_sw_nis_lookup=1 --seed 20261207 --streams 20 --nomerges 2 \
		--minimize 0 --quiet >"$WORK/set.txt"
	rc=$?
	[ $rc -eq 1 ] || fail "--set bfq_sw_nis_lookup=1: exit $rc, expected 1: $(head -n 3 "$WORK/set.txt")"
	n=$(awk '$1 == "bfq_4_12" {print $5}' "$WORK/set.txt")
	[ "${n:-0}" -gt 0 ] || fail "--set bfq_sw_nis_lookup=1: no divergent stream of 20"
	note "bfq_sw_nis_lookup=1 on the 4.12 profile: $n of 20 streams diverge"
fi

# 1c. Process exits (vsim's blk_owner_exit, exit_icq): the queue run bfq_exit_bfqq() asks for is
# the one the block layer makes after the exit, not a second one after the next completion
# (oracle/shim/adapt/mq.c k_entity_exit; tests/unit/test_bfq_oracle.c test_oracle_exit_*).
for vs in bfq_4_12:2162 bfq_6_12:5599; do
	v=${vs%%:*} i=${vs#*:}
	[[ " $variants " == *" $v "* ]] || continue
	"$ORACLE" --variant "$v" --seed 1 --stream "$i" --nomerges 2 --window 0 >"$WORK/exit.txt" 2>&1
	grep -q "^same: every block event agrees" "$WORK/exit.txt" ||
		fail "$v stream $i of seed 1 (a process exits): $(grep -m1 divergence "$WORK/exit.txt")"
done
note "process exits: bfq_4_12 stream 2162 and bfq_6_12 stream 5599 of seed 1 agree"
# 1d. A stale pointer (bfq's tentative_waker_bfqq, its queue freed) met by a new queue at the
# freed one's address, as SLUB's freelist and the port's queue pool both give it
# (oracle_kernel.h's kmem_cache): bfq_6_12 stream 354 of seed 2 agrees.
if [[ " $variants " == *" bfq_6_12 "* ]]; then
	"$ORACLE" --variant bfq_6_12 --seed 2 --stream 354 --nomerges 2 --window 0 >"$WORK/slab.txt" 2>&1
	grep -q "^same: every block event agrees" "$WORK/slab.txt" ||
		fail "bfq_6_12 stream 354 of seed 2 (a freed queue's address reused): $(grep -m1 divergence "$WORK/slab.txt")"
	note "a freed queue's address reused: bfq_6_12 stream 354 of seed 2 agrees"
fi

# 1e. A chain of request merges longer than 8 (elv_attempt_insert_merge()'s loop): every merge
# the kernel side's core makes is carried out by blk/ (SCHED_MERGE_CHAIN), deadline_4_19 stream
# 8841 of seed 3 (a 12-merge chain at 191.969 ms) agrees.
if [[ " $variants " == *" deadline_4_19 "* ]]; then
	"$ORACLE" --variant deadline_4_19 --seed 3 --stream 8841 --window 0 >"$WORK/chain.txt" 2>&1
	grep -q "^same: every block event agrees" "$WORK/chain.txt" ||
		fail "deadline_4_19 stream 8841 of seed 3 (a long merge chain): $(grep -m1 divergence "$WORK/chain.txt")"
	note "a 12-merge chain: deadline_4_19 stream 8841 of seed 3 agrees"
fi

# 2. The sample (each stream draws its nomerges: half of them merge, oracle/harness/stream.c).
# Steps 1b-1d pin --nomerges 2: their streams were found, and are kept, with merging off.
N=${ORACLE_STREAMS:-300}
s0=$(date +%s)
"$ORACLE" --streams "$N" --seed 20261207 --known "$TOP/oracle/known.txt" --quiet >"$WORK/sample.txt"
rc=$?
cat "$WORK/sample.txt"
[ $rc -eq 0 ] || fail "the sample of $N streams per variant has divergences oracle/known.txt does not name"
note "$N streams per variant in $(( $(date +%s) - s0 )) s: every divergence known"

# 2b. Merging through the legacy block core (issue 35): blk_queue_bio() / __make_request() with
# the kernel file's merge hooks (oracle/README.md). ORACLE_MERGE_STREAMS (default 150) a variant.
sq=$("$ORACLE" --list | awk '/\(sq adapter\)/ {printf "--variant %s ", $1}')
if [ -n "$sq" ]; then
	NM=${ORACLE_MERGE_STREAMS:-150}
	s0=$(date +%s)
	# shellcheck disable=SC2086 # one word per flag and variant
	"$ORACLE" $sq --streams "$NM" --seed 20261207 --nomerges 0 --known "$TOP/oracle/known.txt" \
		--quiet >"$WORK/merge.txt"
	rc=$?
	cat "$WORK/merge.txt"
	[ $rc -eq 0 ] || fail "the legacy variants with nomerges 0 ($NM streams each) have divergences oracle/known.txt does not name"
	# Not vacuous: a stream whose bios and requests merge on both sides agrees.
	if [[ " $variants " == *" cfq_2_6_32 "* ]]; then
		"$ORACLE" --variant cfq_2_6_32 --seed 20261207 --stream 107 --nomerges 0 --window 0 \
			--dump "$WORK/m107" >"$WORK/m107.txt" 2>&1
		grep -q "^same: every block event agrees" "$WORK/m107.txt" ||
			fail "cfq_2_6_32 stream 107 with merging: $(grep -m1 divergence "$WORK/m107.txt")"
		n=$(grep -c ' [MFm] [RW]' "$WORK/m107.kernel")
		[ "$n" -gt 100 ] || fail "cfq_2_6_32 stream 107 with merging: $n merges in the kernel's run, expected hundreds"
	fi
	note "legacy variants with merging: $NM streams each in $(( $(date +%s) - s0 )) s, every divergence known"
fi

# 3. The oracle's schedsim: the kernel's file and ours on one job file.
truncate -s 4G "$WORK/model.dat"
cat >"$WORK/dl.fio" <<EOF
[global]
ioengine=external:$ENGINE
sched=deadline
deadline_version=4.19
device_model=hdd
filename=$WORK/model.dat
size=1g
runtime=1s
time_based=1
[r]
rw=randread
iodepth=4
numjobs=2
direct=1
[w]
rw=randwrite
iodepth=8
direct=1
EOF
for impl in embedded kernel; do
	SCHEDSIM_IMPL=$impl "$BUILD/oracle/schedsim" --fio "$FIO" --output "$WORK/$impl.json" "$WORK/dl.fio" \
		>/dev/null 2>"$WORK/$impl.err" || fail "schedsim ($impl): $(head -n 2 "$WORK/$impl.err")"
done
pyjson "$WORK/kernel.json" "
e = json.load(open('$WORK/embedded.json'))
k = [(j['jobname'], j['read']['io_bytes'], j['write']['io_bytes']) for j in d['jobs']]
o = [(j['jobname'], j['read']['io_bytes'], j['write']['io_bytes']) for j in e['jobs']]
assert k == o, (k, o)
assert sum(x[1] + x[2] for x in k) > 0
" || fail "schedsim: the kernel's mq-deadline.c and ours differ on a stream the oracle finds equal"
SCHEDSIM_IMPL=bogus "$BUILD/oracle/schedsim" --fio "$FIO" "$WORK/dl.fio" >/dev/null 2>"$WORK/bogus.err"
[ $? -eq 2 ] && grep -q "SCHEDSIM_IMPL=bogus" "$WORK/bogus.err" || fail "SCHEDSIM_IMPL=bogus: not refused"
note "schedsim: the kernel's mq-deadline.c 4.19 and ours move the same bytes on a mixed job"

# 3b. Writeback per group (test_cgwb's runs): the port and the kernel's 4.19 cfq-iosched.c and 6.12
# bfq-iosched.c give the same shares, request counts and reader MB/s in every run.
"$BUILD/oracle/cgwb" >"$WORK/cgwb.out" 2>&1 || fail "cgwb: the port and the kernel's files differ: $(tail -n 3 "$WORK/cgwb.out")"
[ "$(grep -c ' port ' "$WORK/cgwb.out")" -ge 8 ] || fail "cgwb: fewer than 8 runs: $(tail -n 3 "$WORK/cgwb.out")"
note "cgwb: $(tail -n 1 "$WORK/cgwb.out")"

# 4. Bad arguments.
out=$("$ORACLE" --variant nosuch 2>&1)
[ $? -eq 2 ] && [ "$(echo "$out" | head -n1)" = "oracle: --variant nosuch: not built (oracle --list)" ] ||
	fail "--variant nosuch: $out"
out=$("$ORACLE" --streams x 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "^oracle: --streams=x: not a number" || fail "--streams x: $out"
exit 0

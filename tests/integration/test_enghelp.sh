#!/usr/bin/env bash
# fio --enghelp lists every engine option with its help text, and every BFQ tunable (the issue's
# list by name, and whatever sched/bfq.c's bfq_tunables[] has) with a help that names sched=bfq;
# kyber's two sysfs tunables with their unit, default and range.
# sanitizers: asan tsan
# make-test sanitizers: asan tsan
# timeout: 60
. "$(dirname "$0")/../lib.sh"
out=$("$FIO" --enghelp="$ENGINE" 2>&1) || fail "fio --enghelp failed: $out"
echo "$out"
for o in sched backend hw_queue_depth rotational sched_domain sched_stats sched_group sched_weight; do
	echo "$out" | grep -qE "^$o +: .{20,}" || fail "option $o missing or without help"
done
# every option says what it is when not given: a default, or how auto decides
nodef=$(echo "$out" | grep -E '^[a-z_0-9]+ *:' | grep -Ev 'default|auto')
[ -z "$nodef" ] || fail "options without their default: $nodef"
# the device models' parameters: each kind's default and the range
echo "$out" | grep -Eq '^hdd_rpm +: .*\(hdd: default 7200; 1000\.\.30000\)' || fail "hdd_rpm: $(echo "$out" | grep '^hdd_rpm')"
echo "$out" | grep -Eq '^dev_queue_depth +: .*default hdd 32, ssd 32, cloud-ssd 64' ||
	fail "dev_queue_depth: $(echo "$out" | grep '^dev_queue_depth')"

# BFQ's tunables (sysfs names; bfq_version is the profile). A name fio prints wider than its
# column is followed by ':' directly, hence ' *:'. Shared with CFQ, the help says
# "[also sched=bfq...]"; BFQ's own say "sched=bfq tunable".
bfq=(slice_idle slice_idle_us max_budget timeout_sync back_seek_max back_seek_penalty
	fifo_expire_sync fifo_expire_async low_latency strict_guarantees bfq_version)
src=$(sed -n '/^static const struct sched_tunable_desc bfq_tunables/,/^};/p' "$TOP/sched/bfq.c" |
	grep -oE '^[[:space:]]*\[BFQ_T_[A-Z0-9_]+\] = \{ "[a-z0-9_]+"' | sed 's/.*"\(.*\)"/\1/')
[ "$(echo "$src" | wc -l)" -ge ${#bfq[@]} ] || fail "could not read bfq_tunables[] from sched/bfq.c: '$src'"
for o in "${bfq[@]}"; do
	echo "$src" | grep -qx "$o" || fail "$o is not in sched/bfq.c's bfq_tunables[]"
done
n=0
for o in "${bfq[@]}" $src; do
	line=$(echo "$out" | grep -E "^$o *: ") || fail "BFQ tunable $o not listed by --enghelp"
	echo "$line" | grep -qE "^$o *: .{20,}" || fail "BFQ tunable $o listed without help: $line"
	echo "$line" | grep -q "sched=bfq" || fail "BFQ tunable $o: help does not name sched=bfq: $line"
	n=$((n + 1))
done
echo "--enghelp lists the BFQ tunables ($n checks, $(echo "$src" | wc -l) in bfq_tunables[])"

# CFQ's behaviour profile: cfq_version, cfq_hz and every cfq_sw_* switch of sched/cfq.c, each with
# a help naming sched=cfq.
src=$(sed -n '/^static const struct sched_tunable_desc cfq_tunables/,/^};/p' "$TOP/sched/cfq.c" |
	grep -oE '\[CFQ_T_[A-Z0-9_]+\] = \{ "(cfq_[a-z0-9_]+)"' | sed 's/.*"\(.*\)"/\1/')
[ "$(echo "$src" | grep -c '^cfq_sw_')" -ge 10 ] || fail "could not read the cfq_sw_* switches from sched/cfq.c: '$src'"
for o in cfq_version cfq_hz $src; do
	line=$(echo "$out" | grep -E "^$o *: ") || fail "CFQ tunable $o not listed by --enghelp"
	echo "$line" | grep -q "sched=cfq" || fail "CFQ tunable $o: help does not name sched=cfq: $line"
done
echo "$out" | grep -E '^cfq_version *: ' | grep -q '2.6.32, 2.6.36, 3.16, 4.1 or 4.19' ||
	fail "cfq_version: the versions not listed"
echo "--enghelp lists the CFQ profile ($(echo "$src" | wc -l) tunables)"

# kyber's tunables: the sysfs files read_lat_nsec and write_lat_nsec, in ns, their defaults
# (2 ms, 10 ms) and range; and kyber among the schedulers sched= names.
for o in read_lat_nsec:2000000 write_lat_nsec:10000000; do
	name=${o%%:*} def=${o#*:}
	line=$(echo "$out" | grep -E "^$name *: ") || fail "kyber tunable $name not listed by --enghelp"
	echo "$line" | grep -q "sched=kyber tunable (in ns, default $def, 0..9223372036854775807): .\{20,\}" ||
		fail "kyber tunable $name: help without sched=kyber, unit, default or range: $line"
done
echo "$out" | grep -qE "^sched +: .*\|kyber" || fail "sched= does not name kyber: $(echo "$out" | grep -E '^sched +:')"
echo "--enghelp lists kyber's tunables"

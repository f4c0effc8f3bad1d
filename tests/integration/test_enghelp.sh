#!/usr/bin/env bash
# fio --enghelp lists every engine option with its help text.
# sanitizers: asan tsan
# timeout: 60
. "$(dirname "$0")/../lib.sh"
out=$("$FIO" --enghelp="$ENGINE" 2>&1) || fail "fio --enghelp failed: $out"
echo "$out"
for o in sched backend hw_queue_depth rotational sched_domain sched_stats sched_group sched_weight; do
	echo "$out" | grep -qE "^$o +: .{20,}" || fail "option $o missing or without help"
done

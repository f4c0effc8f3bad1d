#!/usr/bin/env bash
# The 2017 seed in virtual time through its one-command replay: scripts/replay-all.sh with the
# embedded-bfq.ini matrix (embedded cfq, bfq 4.12 and 6.12 with low_latency 1/0, N=1..8 on the hdd
# model), one repetition, --clock virtual, into a scratch database. The replay must end with the
# T(N)/T(1) table (all 8 rows, every configuration and the thread's three columns) and five shape
# verdicts (issue 10, item 5), every one PASS; the HTML report must carry the same lines.
# timeout: 120
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T" || exit 1
M=$TOP/jobs/bfq-mq-vs-cfq-2017/embedded-bfq.ini
start=$(date +%s.%N)
SCHEDBENCH_DB=$T/db.sqlite BUILD=$BUILD "$TOP/scripts/replay-all.sh" "$M" --clock virtual --repeat 1 >out.txt 2>&1
rc=$?
echo "replay in virtual time: $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s of wall time, exit $rc"
[ $rc = 0 ] || { tail -30 out.txt; fail "replay-all exited $rc"; }
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok' AND clock = 'virtual'")" = 40 ] ||
	fail "40 ok virtual runs expected: $(q "SELECT status, count(*) FROM runs GROUP BY 1")"

# The table: the header naming each configuration and the thread's columns, then N=1..8, then T(1).
sed -n '/^T(N)\/T(1): /,$p' out.txt >shape.txt
cat shape.txt
head=$(sed -n 2p shape.txt)
for c in cfq bfq-4.12-ll1 bfq-4.12-ll0 bfq-6.12-ll1 bfq-6.12-ll0 'pub\[0\] cfq' 'pub\[1\] ll=1' 'pub\[2\] ll=0'; do
	echo "$head" | grep -qE "(^| )$c( |$)" || fail "the table has no column '$c': $head"
done
ncol=$(echo "$head" | sed 's/pub\[\([0-9]\)\] ll=/pub\1ll/g; s/pub\[\([0-9]\)\] cfq/pub\1cfq/g' | wc -w)
[ "$ncol" = 9 ] || fail "the table header has $((ncol - 1)) columns, expected 8: $head"
rows=$(sed -n '3,10p' shape.txt | awk -v n="$ncol" 'NF == n && $1 == NR && $2 ~ /^[01]\.[0-9][0-9][0-9]$/' | wc -l)
[ "$rows" = 8 ] || fail "the T(N)/T(1) table has $rows of the rows N=1..8 (with a ratio in every column)"
sed -n '3,10p' shape.txt | grep -q -- ' - ' && fail "a ratio is missing in the table"
# The verdicts: five, all PASS, the replay's last lines (after them only the predictions and the check
# of the rules on the thread's rows).
pass=$(grep -c '^verdict PASS: ' shape.txt)
nv=$(grep -c '^verdict ' shape.txt)
grep '^verdict FAIL' shape.txt && fail "a shape verdict failed"
[ "$nv" = 5 ] && [ "$pass" = 5 ] || fail "$pass of $nv verdict lines PASS, expected 5 of 5"
grep -q '^prediction (no verdict), bfq 6.12 ll=1 ' shape.txt || fail "no prediction line for bfq 6.12 ll=1"
last=$(grep -v '^$' out.txt | tail -n 1)
[ "${last:0:29}" = "the thread's own rows under t" ] || fail "the replay does not end with the shape: $last"
# The HTML report: the same table and verdicts.
html=$T/report-all/index.html
[ -s "$html" ] || fail "no HTML report at $html"
[ "$(grep -c '<span class="pass">verdict PASS: ' "$html")" = 5 ] || fail "the HTML report has not the 5 PASS verdicts"
grep -q '^8 .*0\.[0-9]\{3\}' "$html" || fail "the HTML report has no N=8 row"
echo PASS

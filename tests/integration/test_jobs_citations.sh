#!/usr/bin/env bash
# Issue 12, "Why" 11 and "What" 10: every job file and seed matrix cites its thread as a reader can
# find it (subject, list, date, author, and an archive link or a note that none was found), and
# nothing of ours points at the seeds by a path on the machine they were written on.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$TOP"
bad=$(grep -rlE '/work/(shared|main)|/seeds/[a-z0-9-]+\.txt' jobs results/schema.sql README.md docs schedbench scripts/report.py \
	scripts/schedreport 2>/dev/null)
[ -z "$bad" ] || fail "a machine-local path to the seeds in: $bad"
n=0
# The seed threads' directories (each has the thread's published table); cross-check matrices
# (jobs/crosscheck-*) are experiments of ours, not replays of a thread.
seeds=$(dirname $(ls jobs/*/published.csv))
for f in $(for d in $seeds; do ls "$d"/*.fio; done); do
	# the Seed lines and their continuation lines, joined
	seed=$(sed -n '/^; Seed/,/^;[^ ]\|^;$/p' "$f" | sed '$d' | sed 's/^;  *//' | tr '\n' ' ' | tr -s ' ')
	[ -n "$seed" ] || fail "$f: no '; Seed :' lines"
	subject=$(sed -n 's/^; Thread : "\([^"]*\).*/\1/p' "$f" | head -n 1)
	[ -n "$subject" ] || fail "$f: no thread subject"
	echo "$seed" | grep -qF "${subject:0:30}" || fail "$f: the Seed lines do not name the thread '$subject'"
	echo "$seed" | grep -qE '(19|20)[0-9][0-9]' || fail "$f: no date"
	echo "$seed" | grep -qE 'https?://|[Nn]o archive link|message URL was not recorded' || fail "$f: neither an archive link nor a note"
	echo "$seed" | grep -qE 'linux-(kernel|block|mm)|list is not named' || fail "$f: no mailing list"
	n=$((n + 1))
done
[ $n -ge 11 ] || fail "only $n job files"
for m in $(for d in $seeds; do ls "$d"/*.ini; done); do
	grep -q '^# Thread: ' "$m" || fail "$m: no '# Thread:' citation"
done
# the report cites the thread too (each seed module's CITATION)
"$PY" - <<'PY' || fail "seed modules"
import glob, importlib.util, os, sys
sys.path.insert(0, "scripts")
for p in sorted(glob.glob("jobs/*/seed_report.py")):
    spec = importlib.util.spec_from_file_location("m", p)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    c = getattr(m, "CITATION", "")
    assert len(c) > 60 and ("http" in c or "No archive link" in c or "was not recorded" in c), (p, c)
    print("ok:", os.path.dirname(p), "->", c[:90])
PY
echo "PASS ($n job files)"

#!/usr/bin/env bash
# Issue 12, "Why" 8 and "What" 5/6: an installed schedbench works anywhere: no path of the build
# tree in the binary, its data under $(PREFIX)/share/schedengine, the default database under the
# current directory, the installed report.py. Each run records the engine it actually loaded: the
# GNU build id and the revision note read from that .so (an --engine copy with a note added by
# objcopy reports that note; an engine without one says so, never this checkout's git revision),
# and the provenance worth keeping (kernel command line, CPU governor, memory, the target's device).
. "$(dirname "$0")/schedbench_lib.sh"
command -v objcopy >/dev/null && command -v readelf >/dev/null || { echo "SKIP: binutils (objcopy, readelf) not installed"; exit 77; }
B=$BUILD
case $B in /*) ;; *) B=$TOP/$B ;; esac
[ -f "$B/libschedengine.so" ] || fail "engine not built: $B/libschedengine.so"
PREFIX=$T/prefix
# install what is built (make -o all: nothing is rebuilt)
make -s -C "$TOP" -o all BUILD="$B" PREFIX="$PREFIX" install >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
ISB=$PREFIX/bin/schedbench
[ -x "$ISB" ] && [ -f "$PREFIX/lib/fio/libschedengine.so" ] || fail "not installed"
for f in results/schema.sql scripts/report.py scripts/schedreport/compare.py scripts/schedreport/templates/report.html.j2 \
	jobs/cfq-iops-mode-on-ssd-2015/seed_report.py jobs/cfq-iops-mode-on-ssd-2015/published.csv; do
	[ -f "$PREFIX/share/schedengine/$f" ] || fail "$f not installed"
done
# no build-tree path compiled in
if grep -aFq "$TOP" "$ISB"; then fail "the installed binary names the build tree: $(strings "$ISB" | grep -F "$TOP" | head -n 3)"; fi
mkdir -p "$T/elsewhere" && cd "$T/elsewhere"
"$ISB" --version >ver.txt || fail "--version"
grep -qF "data: $PREFIX/share/schedengine" ver.txt || fail "data directory: $(cat ver.txt)"
grep -qF "default engine: $PREFIX/lib/fio/libschedengine.so" ver.txt || fail "default engine: $(cat ver.txt)"
# a run with the defaults: the installed engine, results/schedengine.db here
printf '[global]\nioengine=null\nsize=16m\ntime_based\nruntime=300ms\n[j]\nrw=read\n' >n.fio
printf '[matrix]\nname = inst\njobs = n.fio\n[axis.s]\ncfq = embedded:cfq engine.device_model=null\n' >m.ini
"$ISB" run m.ini >run.log 2>&1 || { cat run.log; fail "installed run"; }
[ -f results/schedengine.db ] || fail "the default database is not ./results/schedengine.db"
db=results/schedengine.db
qq() { sqlite3 "$db" "$@"; }
[ "$(qq "SELECT count(*) FROM runs WHERE status = 'ok'")" = 1 ] || fail "no ok run"
[ "$(qq "SELECT job_path FROM runs")" = "$T/elsewhere/n.fio" ] || fail "job path: $(qq "SELECT job_path FROM runs")"
"$ISB" report -e inst >rep.txt 2>&1 || { cat rep.txt; fail "installed report"; }
grep -q '^== inst (generic format' rep.txt || fail "report: $(head -n 3 rep.txt)"
# the loaded engine's identity, from the .so itself
bid=$(readelf -n "$PREFIX/lib/fio/libschedengine.so" | sed -n 's/.*Build ID: *//p')
[ -n "$bid" ] || fail "the engine has no build id"
[ "$(qq "SELECT engine_build_id FROM runs")" = "$bid" ] || fail "build id: $(qq "SELECT engine_build_id FROM runs") != $bid"
rev=$(qq "SELECT engine_rev FROM runs")
gitrev=$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo none)
case $rev in *"$gitrev"*) fail "engine_rev is this checkout's revision: $rev" ;; esac
if ! readelf -n "$PREFIX/lib/fio/libschedengine.so" | grep -q schedengine; then
	[ "$rev" = "unknown (no schedengine revision note)" ] || fail "an engine without a revision note: $rev"
fi
[ "$(qq "SELECT json_extract(provenance, '\$.engine.path') FROM runs")" = "$PREFIX/lib/fio/libschedengine.so" ] || fail "engine path"
[ "$(qq "SELECT json_extract(provenance, '\$.engine.sha256') FROM runs")" = "$(sha256sum <"$PREFIX/lib/fio/libschedengine.so" | cut -d' ' -f1)" ] ||
	fail "engine sha256"
# The engine carries its revision (an ELF note "schedengine", type 1): the run records that.
rev=$("$PY" - "$PREFIX/lib/fio/libschedengine.so" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
i = b.find(b"schedengine\0")
assert i >= 12, "no schedengine note"
print(b[i + 12:i + 12 + 64].split(b"\0")[0].decode())
PY
) || fail "the installed engine has no revision note"
[ "$(qq "SELECT engine_rev FROM runs")" = "$rev" ] || fail "revision: $(qq "SELECT engine_rev FROM runs") against the note's $rev"
# --engine: a copy whose note says another revision reports that one (not this checkout's git).
cp "$PREFIX/lib/fio/libschedengine.so" noted.so
"$PY" - noted.so <<'PY' || fail "note"
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.find(b"schedengine\0")
new = b"test-rev-42".ljust(64, b"\0")
b[i + 12:i + 12 + 64] = new
open(p, "wb").write(b)
PY
"$ISB" run m.ini --engine "$PWD/noted.so" --db noted.db >run2.log 2>&1 || { cat run2.log; fail "run with --engine"; }
[ "$(sqlite3 noted.db "SELECT engine_rev FROM runs")" = "test-rev-42" ] || fail "revision of --engine: $(sqlite3 noted.db "SELECT engine_rev FROM runs")"
[ "$(sqlite3 noted.db "SELECT json_extract(provenance, '\$.engine.path') FROM runs")" = "$PWD/noted.so" ] || fail "--engine path"
# the rest of the provenance
[ -n "$(qq "SELECT json_extract(provenance, '\$.cmdline') FROM runs")" ] || fail "no kernel command line"
[ "$(qq "SELECT json_extract(provenance, '\$.cmdline') FROM runs")" = "$(cat /proc/cmdline)" ] || fail "cmdline"
qq "SELECT json_extract(provenance, '\$.memory') FROM runs" | grep -q 'kB$' || fail "memory"
[ "$(qq "SELECT json_type(provenance, '\$.cpu.governor') IS NOT NULL FROM runs")" = 1 ] || fail "cpu governor key"
[ "$(qq "SELECT json_type(provenance, '\$.target') FROM runs")" = object ] || fail "no target device"
dev=$(qq "SELECT json_extract(provenance, '\$.target.device') FROM runs")
if [ -n "$dev" ]; then
	[ "$(qq "SELECT json_type(provenance, '\$.target.queue') FROM runs")" = object ] || fail "target queue settings"
	qq "SELECT json_extract(provenance, '\$.target.queue.scheduler') FROM runs" | grep -q '\[' || fail "target scheduler"
	echo "target device $dev: $(qq "SELECT json_extract(provenance, '\$.target.queue.rotational') FROM runs") rotational"
else
	qq "SELECT json_extract(provenance, '\$.target.note') FROM runs" | grep -q 'no block device' || fail "target: neither a device nor why"
fi
grep -q '^engine_build_id  '"$bid" rep.txt || fail "the report shows no build id"
make -s -C "$TOP" -o all BUILD="$B" PREFIX="$PREFIX" uninstall >/dev/null 2>&1 || fail "uninstall"
[ ! -e "$PREFIX/share/schedengine" ] && [ ! -e "$ISB" ] || fail "uninstall left files"
echo PASS

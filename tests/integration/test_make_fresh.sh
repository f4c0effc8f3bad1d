#!/usr/bin/env bash
# Issue 12, "Why" 2 and "What" 1: `make` alone on a fresh clone does its own set-up (it used to stop
# with "run 'make setup'"). The clone's scripts/setup.sh is replaced by a stand-in that records that
# it ran and puts an already configured fio source where the real one downloads it (apt-get source
# needs the network); the test checks that make runs it first, once, and then builds everything.
. "$(dirname "$0")/schedbench_lib.sh"
src=${FIO_SRC:-$TOP/build/fio-src}
case $src in /*) ;; *) src=$TOP/$src ;; esac
[ -f "$src/config-host.h" ] && [ -f "$src/ioengines.h" ] || { echo "SKIP: no configured fio source ($src) to stand in for the download"; exit 77; }
C=$T/clone
mkdir -p "$C"
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$C") || fail "copy"
else
	(cd "$TOP" && tar --exclude=./build --exclude=./results/*.db -cf - .) | (cd "$C" && tar -xf -) || fail "copy"
fi
[ ! -e "$C/build" ] || fail "the copy has a build directory"
cat >"$C/scripts/setup.sh" <<S
#!/bin/sh
# stand-in for the real set-up: the packages are there; the fio source comes from $src
echo ran >>"$T/setup-ran"
[ -n "\${FIO_SRC:-}" ] && exit 0
mkdir -p "$C/build" && ln -sfn "$src" "$C/build/fio-src"
S
chmod +x "$C/scripts/setup.sh"
# a fresh clone, no FIO_SRC: plain `make`
# (OPT=-O0: the same targets and steps, compiled in a third of the time: the suite runs in 15 minutes)
(cd "$C" && env -u FIO_SRC make -j2 OPT=-O0 >"$T/make.log" 2>&1)
rc=$?
tail -n 5 "$T/make.log"
[ $rc = 0 ] || fail "make on a fresh clone: rc $rc: $(grep -m1 -i 'error\|make setup' "$T/make.log")"
[ "$(cat "$T/setup-ran" 2>/dev/null | wc -l)" = 1 ] || fail "the set-up did not run exactly once"
for f in build/libschedengine.so build/schedbench build/libsched.a; do
	[ -f "$C/$f" ] || fail "$f not built"
done
# once: a second make does not run it again
(cd "$C" && env -u FIO_SRC make OPT=-O0 >/dev/null 2>&1) || fail "second make"
[ "$(wc -l <"$T/setup-ran")" = 1 ] || fail "the set-up ran again"
echo PASS

#!/usr/bin/env bash
# The README issue ("The README is a lab notebook"): every command in README.md's ```sh blocks
# works as written. Each command (continuation lines joined, comments dropped) is checked in the
# README's order, by the first rule below that knows it; a command no rule knows fails the test,
# so a new command in the README needs a rule here.
#   - quick ones run for real in a scratch directory: fio with the engine (its path replaced by
#     this build's, a hardware target by a sparse file with a device model, runtimes cut to a
#     second), truncate, schedbench run in virtual time and its reports, --help of each command;
#   - long ones are checked as far as is cheap: `make TARGET` by `make -n TARGET` (and the
#     scripts its recipe runs exist), schedbench run of a seed matrix in real time by --dry-run
#     (every cell through fio --parse-only), the README's own matrix in real time by a run of
#     --runtime 1 --repeat 2;
#   - every path of the source tree a command names exists, every fio option is fio's or the
#     engine's (and engine options come after --ioengine), every schedbench option is in that
#     command's --help.
# The files the README shows in ```ini blocks whose first line names them (; my.fio, # my.ini)
# are written to the scratch directory first. Also: the README's engine options table names
# only options `fio --enghelp` lists; its package list is scripts/setup.sh's; every docs/*.md is
# linked from the README; every relative link of README.md and docs/*.md leads to a file (and
# heading) that exists; the paths and make targets named in docs/*.md's ```sh blocks exist.
# timeout: 300
. "$(dirname "$0")/schedbench_lib.sh"
set -f # the commands' words are not globbed
BUILDDIR=$TOP/$BUILD
case $BUILD in /*) BUILDDIR=$BUILD ;; esac
ENGINE=$BUILDDIR/libschedengine.so
[ -f "$ENGINE" ] || fail "engine not built: $ENGINE"
# The README's commands run from the top of the checkout: here from a scratch directory that
# looks like it (build, jobs and scripts linked), so that what they write stays out of the tree.
W=$T/work
mkdir -p "$W"
ln -s "$BUILDDIR" "$W/build"
ln -s "$TOP/jobs" "$W/jobs"
ln -s "$TOP/scripts" "$W/scripts"
export SCHEDBENCH_DB=$T/db.sqlite
cd "$T"

# ---- the README, read once: commands, files, the options table, the package list; the links ----
"$PY" - "$TOP" "$W" >commands.txt 2>extract.err <<'PY' || { cat extract.err; fail "reading the README"; }
import os, re, sys
top, work = sys.argv[1], sys.argv[2]
text = open(os.path.join(top, "README.md")).read()
docs = sorted(f for f in os.listdir(os.path.join(top, "docs")) if f.endswith(".md"))
errors = []

def strip_comment(line):
    """The line without a trailing shell comment (a # after whitespace, outside quotes)."""
    q = None
    for i, c in enumerate(line):
        if q:
            q = None if c == q else q
        elif c in "'\"":
            q = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()

def commands(block):
    out, cur = [], ""
    for raw in block.splitlines():
        line = strip_comment(raw)
        if not line.strip():
            continue  # a comment line (the continuation of a comment above, too)
        cur += (" " if cur else "") + line.strip()
        if cur.endswith("\\"):
            cur = cur[:-1].rstrip()
        elif not cur.endswith("|"):
            out.append(cur)
            cur = ""
    if cur:
        errors.append(f"a command that does not end: {cur}")
    return out

for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    for c in commands(block):
        print(c)

# files shown in ```ini blocks: "; my.fio ..." or "# my.ini: ..." on the first line
for block in re.findall(r"```ini\n(.*?)```", text, re.S):
    m = re.match(r"[;#] ([\w.-]+\.(?:fio|ini))\b", block)
    if m:
        open(os.path.join(work, m.group(1)), "w").write(block)

# the engine options table (first column), for the check against fio --enghelp
sec = re.search(r"^## Engine options in brief\n(.*?)^## ", text, re.S | re.M)
if not sec:
    errors.append("no section 'Engine options in brief'")
else:
    opts = re.findall(r"^\| `([a-z_0-9]+)` \|", sec.group(1), re.M)
    if len(opts) < 8:
        errors.append(f"the engine options table names {len(opts)} options")
    open(os.path.join(work, "..", "readme-options.txt"), "w").write("\n".join(opts) + "\n")

# the package list of "The two commands" against scripts/setup.sh's
m = re.search(r"with `apt-get` \(([^)]*)\)", text)
setup = open(os.path.join(top, "scripts/setup.sh")).read()
sm = re.search(r"pkgs=\(([^)]*)\)", setup)
if not m or not sm:
    errors.append("no package list in the README or in scripts/setup.sh")
else:
    readme_pkgs = set(p.strip() for p in m.group(1).replace("\n", " ").split(","))
    setup_pkgs = set(sm.group(1).split())
    if readme_pkgs != setup_pkgs:
        errors.append(f"packages: README has {sorted(readme_pkgs - setup_pkgs)} more, "
                      f"scripts/setup.sh {sorted(setup_pkgs - readme_pkgs)} more")

# every doc is linked from the README; every relative link leads somewhere
def slug(h):
    return re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")

def anchors(path):
    t = re.sub(r"```.*?```", "", open(path).read(), flags=re.S)
    return {slug(h) for h in re.findall(r"^#{1,6} (.*)$", t, re.M)}

for d in docs:
    if f"(docs/{d})" not in text and f"(docs/{d}#" not in text:
        errors.append(f"docs/{d} is not linked from README.md")
for src in ["README.md"] + [f"docs/{d}" for d in docs]:
    body = re.sub(r"```.*?```", "", open(os.path.join(top, src)).read(), flags=re.S)
    for link in re.findall(r"\]\(([^)\s]+)\)", body):
        if re.match(r"[a-z]+:", link):
            continue
        path, _, frag = link.partition("#")
        target = os.path.normpath(os.path.join(top, os.path.dirname(src), path)) if path else os.path.join(top, src)
        if not os.path.exists(target):
            errors.append(f"{src}: link to {link}: no such file")
        elif frag and target.endswith(".md") and frag not in anchors(target):
            errors.append(f"{src}: link to {link}: no such heading")

# docs/*.md's sh blocks: the paths of the source tree and the make targets they name exist
mk = open(os.path.join(top, "Makefile")).read() + open(os.path.join(top, "oracle/oracle.mk")).read()
targets = set(re.findall(r"^([a-z][\w.-]*):", mk, re.M))
for d in docs:
    for block in re.findall(r"```sh\n(.*?)```", open(os.path.join(top, "docs", d)).read(), re.S):
        for c in commands(block):
            for w in c.replace("|", " ").replace(";", " ").replace("&&", " ").split():
                w = w.strip("'\"`(),")
                if re.match(r"(jobs|scripts|tests|docs|oracle|schedbench|sched|blk|models|engine|sim|pagecache|modeldev|tools)/", w) \
                        and not re.search(r"[<>*{}$\[]", w) and not os.path.exists(os.path.join(top, w)):
                    errors.append(f"docs/{d}: {c}: no such path {w}")
            m = re.match(r"(?:\w+=\S+ )*make((?: \S+)*)$", c)
            for t in (m.group(1).split() if m else []):
                if "=" not in t and t not in targets:
                    errors.append(f"docs/{d}: {c}: no make target {t}")

if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(1)
PY
mapfile -t CMDS <commands.txt
[ ${#CMDS[@]} -ge 10 ] || fail "only ${#CMDS[@]} commands found in the README"
echo "README: ${#CMDS[@]} commands, files: $(ls "$W" | tr '\n' ' ')"
[ -s "$W/my.fio" ] && [ -s "$W/my.ini" ] || fail "the README's my.fio and my.ini examples are missing"
# the README's job file runs for 10 s: one here (the file's own runtime wins over the command line)
sed -i 's/^runtime=.*/runtime=1/' "$W/my.fio"

# ---- what the commands may name ----
fio --enghelp="$ENGINE" >enghelp.txt 2>&1 || fail "fio --enghelp: $(head -n 3 enghelp.txt)"
sed -n 's/^\([a-z_0-9]*\) *:.*/\1/p' enghelp.txt | sort -u >engine-options.txt
while read -r o; do
	grep -qx "$o" engine-options.txt || fail "the README's engine options table names '$o', which fio --enghelp does not list"
done <readme-options.txt
echo "ok: the README's $(wc -l <readme-options.txt) engine options are the engine's"
# (fio --cmdhelp exits 0 for an unknown option too, saying "No such command")
is_fio_option() { fio --cmdhelp="$1" 2>&1 | grep -q '^ *type:'; }
is_engine_option() { grep -qx "$1" engine-options.txt; }
# O_DIRECT on the scratch file system (tmpfs refuses it): else direct=1 goes from the examples
odirect=1
dd if=/dev/zero of="$W/.odirect" bs=4k count=1 oflag=direct 2>/dev/null || odirect=0
rm -f "$W/.odirect"
[ $odirect = 1 ] || { echo "note: no O_DIRECT in $W: direct=1 dropped"; sed -i '/^direct=1$/d' "$W/my.fio"; }

# Every word that names a path of the source tree, or a built program, must exist.
check_paths() {
	local w
	for w in $1; do
		w=${w#\'} w=${w%\'} w=${w#\"} w=${w%\"}
		case $w in
		*'$'* | *'<'* | *'*'*) ;;
		build/libschedengine.so) [ -f "$ENGINE" ] || fail "'$1': $w is not built" ;;
		build/modeldev) # built where libfuse3-dev is (make setup installs it)
			if [ ! -x "$BUILDDIR/modeldev" ] && pkg-config --exists fuse3 2>/dev/null; then
				fail "'$1': $w is not built, though libfuse3-dev is installed"
			fi ;;
		build/oracle/*) ;; # built by make oracle-build, where kernel sources are (a rule below)
		build/*) [ -e "$BUILDDIR/${w#build/}" ] || fail "'$1': $w is not built by make all" ;;
		jobs/* | scripts/* | tests/* | docs/* | oracle/* | schedbench/* | sched/* | blk/* | models/* | \
			engine/* | sim/* | pagecache/* | modeldev/* | tools/*)
			[ -e "$TOP/$w" ] || fail "'$1': no such path $w" ;;
		esac
	done
}

# fio's options in a command: fio's own, or the engine's after --ioengine=external:
check_fio_options() {
	local w o loaded=0 seen=0
	for w in $1; do
		[ "$w" = fio ] && { seen=1; continue; }
		[ $seen = 1 ] || continue
		case $w in --*) ;; *) continue ;; esac
		o=${w#--} o=${o%%=*}
		case $w in --ioengine=external:*) loaded=1 ;; esac
		if is_engine_option "$o" && ! is_fio_option "$o"; then
			[ $loaded = 1 ] || fail "'$1': engine option --$o before --ioengine"
		elif ! is_fio_option "$o"; then
			fail "'$1': --$o is neither a fio option nor the engine's"
		fi
	done
}

# schedbench's options in a command: each in that command's --help
check_sb_options() {
	local cmd=$1 sub w o help
	sub=$(echo "$cmd" | awk '{print $2}')
	help=$("$SB" "$sub" --help 2>&1) || fail "'$cmd': schedbench $sub --help failed"
	for w in $cmd; do
		case $w in --* | -?) ;; *) continue ;; esac
		o=${w%%=*}
		echo "$help" | grep -qE -- "(^|[ ,])$o([ =,]|$)" || fail "'$cmd': $o is not in schedbench $sub --help"
	done
}

# the command as run here: this build's engine where the README has the installed one
localize() {
	echo "$1" | sed -E -e "s#external:[^ ]*libschedengine.so#external:$ENGINE#g" \
		-e "s#--enghelp=[^ ]*libschedengine.so#--enghelp=$ENGINE#g"
}

# runs a command in the scratch directory; its output in out.txt
run_here() {
	(cd "$W" && timeout 240 bash -c "$1") >out.txt 2>&1
}

check_make() {
	local cmd=$1 w targets=() s
	for w in $cmd; do
		case $w in make | *=*) ;; *) targets+=("$w") ;; esac
	done
	[ ${#targets[@]} -gt 0 ] || targets=(all)
	for w in "${targets[@]}"; do
		# NO_SETUP_GOALS=%: the set-up stamp is not included, so nothing of it runs (-n remakes
		# included makefiles for real)
		make -C "$TOP" -n NO_SETUP_GOALS=% "$w" >make-n.txt 2>&1 ||
			fail "'$cmd': make -n $w: $(grep -m1 -i 'no rule\|error' make-n.txt)"
		for s in $(grep -o 'scripts/[A-Za-z0-9_.-]*' make-n.txt | sort -u); do
			[ -x "$TOP/$s" ] || fail "'$cmd': make $w runs $s, which is missing or not executable"
		done
	done
	echo "ok (make -n): $cmd"
}

check_fio_run() {
	local cmd=$1 run stats
	check_fio_options "$cmd"
	run=$(localize "$cmd")
	# a hardware target becomes a sparse scratch file behind a device model, for a second
	case $run in *--filename=/dev/*)
		truncate -s 1G "$W/target"
		run=$(echo "$run" | sed "s|--filename=/dev/[^ ]*|--filename=$W/target|")
		case $run in *--device_model=*) ;; *) run="$run --device_model=ssd" ;; esac
		run="$run --size=64m --time_based --runtime=1" ;;
	esac
	[ $odirect = 1 ] || run=$(echo "$run" | sed 's/--direct=1//g')
	stats=$(echo "$run" | sed -n 's/.*--sched_stats=\([^ ]*\).*/\1/p')
	if [ -z "$stats" ]; then # the engine's statistics show that the engine ran the jobs
		stats=stats-$RANDOM.json
		case $run in *' -') run="${run% -} --sched_stats=$stats -" ;; *) run="$run --sched_stats=$stats" ;; esac
	fi
	rm -f "$W/$stats"
	run_here "$run" || { cat out.txt; fail "'$cmd' failed (run as: $run)"; }
	"$PY" - "$W/$stats" "$cmd" <<'PY' || fail "'$cmd': the engine's statistics"
import json, re, sys
d = json.load(open(sys.argv[1]))
want = re.search(r"--sched=(\w+)", sys.argv[2]).group(1)
assert d.get("completed", 0) > 0 and d.get("sched") == want, (d.get("sched"), d.get("completed"))
print("ok (ran): sched", d["sched"], "completed", d["completed"])
PY
}

# ---- each command ----
n=0
for cmd in "${CMDS[@]}"; do
	n=$((n + 1))
	echo "--- $n: $cmd"
	check_paths "$cmd"
	bare=$(echo "$cmd" | sed -E 's/^([A-Za-z_][A-Za-z0-9_]*=[^ ]* )+//') # without VAR=value in front
	case $bare in
	make | "make "*)
		check_make "$bare" ;;
	"truncate -s "*)
		run_here "$cmd" || fail "'$cmd': $(cat out.txt)"
		echo "ok (ran)" ;;
	"fio --enghelp="*)
		run_here "$(localize "$cmd")" || fail "'$cmd': $(head -n 3 out.txt)"
		grep -q '^sched ' out.txt || fail "'$cmd' lists no sched option"
		echo "ok (ran): $(wc -l <out.txt) lines" ;;
	"fio "*"--ioengine=external:"* | "sed "*"| "*"fio "*"--ioengine=external:"*" -")
		# the README's pipeline strips the file's ioengine=: run it on a copy that has one too
		case $bare in "sed "*)
			sed 's/^\[global\]$/[global]\nioengine=libaio/' "$W/my.fio" >"$W/my-libaio.fio"
			grep -q '^ioengine=libaio' "$W/my-libaio.fio" || fail "could not add ioengine= to my.fio"
			check_fio_run "${cmd/ my.fio / my-libaio.fio }" ;;
		esac
		check_fio_run "$cmd" ;;
	"build/schedbench run "*)
		check_sb_options "$bare"
		matrix=$(echo "$bare" | awk '{print $3}')
		[ -e "$W/$matrix" ] || [ -e "$TOP/$matrix" ] || fail "'$cmd': no matrix $matrix"
		run=$(localize "$cmd")
		case " $cmd " in
		*" --clock virtual "* | *" --dry-run "* | *" -n "*) how="ran" ;;
		*) if [ -e "$W/$matrix" ]; then # the README's own matrix: short
			run="$run --runtime 1 --repeat 2" how="ran, --runtime 1 --repeat 2"
		else # a seed's, in real time: checked whole, every cell through fio --parse-only
			run="$run --dry-run" how="--dry-run"
		fi ;;
		esac
		run_here "$run" || { tail -n 20 out.txt; fail "'$cmd' failed (run as: $run)"; }
		echo "ok ($how): $(grep -E ' ok, | cells? x ' out.txt | tail -n 1)" ;;
	"build/schedbench report"* | "build/schedbench status"*)
		check_sb_options "$bare"
		run_here "$(localize "$cmd")" || { tail -n 20 out.txt; fail "'$cmd' failed"; }
		[ -s out.txt ] || fail "'$cmd' printed nothing"
		for f in $(echo "$cmd" | grep -oE -- '--(html|csv) [^ ]+' | awk '{print $2}'); do
			[ -s "$W/$f" ] || fail "'$cmd' wrote no $f"
		done
		echo "ok (ran): $(wc -l <out.txt) lines" ;;
	"build/"*" --help" | "scripts/"*" --help")
		prog=${bare%% *}
		if [ "$prog" = build/modeldev ] && [ ! -x "$BUILDDIR/modeldev" ]; then
			echo "note: $prog not built here (no libfuse3-dev)"
			continue
		fi
		run_here "$prog --help" || fail "'$cmd': exit $?: $(head -n 3 out.txt)"
		grep -qi usage out.txt || head -n 1 out.txt | grep -q . || fail "'$cmd' printed nothing"
		echo "ok (ran)" ;;
	build/oracle/cgwb)
		# make oracle-build builds it where the kernel's sources are (test_oracle.sh runs it too)
		if [ ! -x "$BUILDDIR/oracle/cgwb" ]; then
			echo "note: build/oracle/cgwb not built here (make oracle-build, kernel sources)"
			continue
		fi
		run_here "$bare" || { tail -n 5 out.txt; fail "'$cmd' failed"; }
		grep -q "agree in every run" out.txt || fail "'$cmd': $(tail -n 1 out.txt)"
		echo "ok (ran): $(tail -n 1 out.txt)" ;;
	*)
		fail "README command not covered by this test (add a rule for it): $cmd" ;;
	esac
done
echo "PASS: $n commands of the README"

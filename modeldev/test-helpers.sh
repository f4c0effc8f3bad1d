# Helpers of tests/integration/test_modeldev*.sh (sourced after tests/lib.sh).
# Every daemon a test starts watches the test's shell (--watch-pid $$): a test killed by SIGKILL
# takes its devices with it; the EXIT trap stops them otherwise, and md_require reclaims what an
# earlier killed run left (FUSE mounts, loop devices, run directories of dead daemons).
MODELDEV=$BUILD/modeldev
MD_NAMES=()
MD_TAG=t$$

md_cleanup() {
	local n
	# fio runs this test started (each writes its --output into $WORK) end with it: one left
	# running would read whatever device takes its /dev/loopN next
	pkill -KILL -f -- "--output=$WORK/" 2>/dev/null
	for n in "${MD_NAMES[@]}"; do "$MODELDEV" stop --name "$n" >/dev/null 2>&1; done
	"$MODELDEV" reclaim >/dev/null 2>&1
}
trap 'md_cleanup; cleanup' EXIT
trap 'exit 130' INT TERM HUP

# Skips (exit 77 after "SKIP: why") where the model-backed device cannot exist.
md_require() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (FUSE mount, loop device, sysfs)"
	[ -x "$MODELDEV" ] || skip "build/modeldev not built (libfuse3-dev missing: make setup)"
	"$MODELDEV" reclaim >/dev/null 2>&1
	local out rc
	out=$("$MODELDEV" check 2>&1)
	rc=$?
	[ $rc -eq 3 ] && skip "FUSE or loop devices refused here: $(echo "$out" | grep -v '^refused: see' | head -n1)"
	[ $rc -eq 0 ] || fail "modeldev check: $out"
}

# md_start NAME [modeldev start options...]: MD_DEV=/dev/loopN
md_start() {
	local name=$MD_TAG-$1
	shift
	MD_NAMES+=("$name")
	MD_DEV=$("$MODELDEV" start --name "$name" --watch-pid $$ "$@" 2>"$WORK/md-$name.err") ||
		fail "modeldev start $name $*: $(cat "$WORK/md-$name.err")"
	[ -b "$MD_DEV" ] || fail "modeldev start printed '$MD_DEV', not a block device"
}

md_ctl() { "$MODELDEV" "$1" --name "$MD_TAG-$2"; }

# py EXPR on the JSON of `modeldev stats|info NAME`, e.g. md_json stats a 'd["depth"]["max_in_model"]'
md_json() {
	md_ctl "$1" "$2" | python3 -c "import json,sys; d=json.load(sys.stdin); print($3)"
}

# Lines describing this test's loop devices and FUSE mounts, live or not (empty when clean).
md_leftovers() {
	"$MODELDEV" leftovers 2>/dev/null | grep -- "modeldev:$MD_TAG-"
}

# Waits up to $1 seconds for md_leftovers to be empty; fails with what is left.
md_expect_clean() {
	local i left
	for i in $(seq 1 $((${1:-10} * 10))); do
		left=$(md_leftovers)
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "left behind after ${1:-10}s: $left"
}

# fio on the modelled device (kernel side) or on the model through the engine (embedded side).
md_fio_kernel() { # NAME DEV [fio args]
	local name=$1 dev=$2
	shift 2
	timeout "${FIO_TIMEOUT:-120}" "$FIO" --output-format=json --output="$WORK/$name.json" \
		--name=j --filename="$dev" --ioengine=libaio --direct=1 "$@" 2>"$WORK/$name.err"
}

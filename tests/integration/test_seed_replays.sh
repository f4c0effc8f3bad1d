#!/usr/bin/env bash
# The seeds replayed in real time: real fio through the engine on the seeds' verbatim job files
# (jobs/<seed>/), with schedbench's overlay (engine, device model, short runtime), each effect
# asserted in the direction the thread shows. Three replays of 6-12 s each:
#   2010 group_idle: weights 100:200 keep ~1:2 by default and with slice_idle=0 (which raises
#        the total), and become ~1:1 with both idles 0;
#   2014 target_latency: 16 sequential readers on the hdd model read more with 600 ms than 300;
#   2015 idling: CFQ with slice_idle=0 never loses IOPS to slice_idle=8 on the cloud-ssd model.
. "$(dirname "$0")/schedbench_lib.sh"
cd "$T"
J="$TOP/jobs"

# MB/s of job $2 (fio jobname) in the cell whose labels contain $1, reads.
mbps() {
	q "SELECT printf('%.1f', AVG(r.bw_kib) / 1024) FROM results r JOIN runs u ON u.id = r.run_id
	   WHERE u.status = 'ok' AND u.labels LIKE '%$1%' AND r.jobname = '$2' AND r.ddir = 'read'"
}
iops() {
	q "SELECT printf('%.0f', AVG(r.iops)) FROM results r JOIN runs u ON u.id = r.run_id
	   WHERE u.status = 'ok' AND u.labels LIKE '%$1%' AND r.ddir = 'read'"
}
run() { # matrix file, label for messages
	local t0=$SECONDS
	"$SB" run "$1" --db "$T/db.sqlite" >"$2.log" 2>&1 || { tail -20 "$2.log"; fail "$2: run"; }
	echo "$2: $((SECONDS - t0)) s"
}
ge() { "$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) * float(sys.argv[3]) else 1)" "$@"; }

# ---- 2010: the seed's matrix settings (EVA-like array, read-ahead requests), NR=2, 3 configs.
sed -n '/^\[set\]/,/^$/p' "$J/cfq-group-idle-2010/matrix.ini" >set2010.txt
grep -q 'engine.device_model' set2010.txt || fail "2010 matrix has no [set] device model"
cat >m2010.ini <<M
[matrix]
name     = r2010
jobs     = $J/cfq-group-idle-2010/bsr-two-groups.fio
repeat   = 1
runtime  = 3
time_based = no
report   = 2010
$(cat set2010.txt)
env.NR = 2

[axis.cfq]
default       = embedded:cfq slice_idle=8 group_idle=8
sidle0        = embedded:cfq slice_idle=0 group_idle=8
sidle0-gidle0 = embedded:cfq slice_idle=0 group_idle=0
M
run m2010.ini 2010
for c in default sidle0 sidle0-gidle0; do
	a=$(mbps "\"cfq\":\"$c\"" test1) b=$(mbps "\"cfq\":\"$c\"" test2)
	[ -n "$a" ] && [ -n "$b" ] || fail "2010 $c: no results"
	eval "t1_${c//-/_}=$a t2_${c//-/_}=$b"
	echo "2010 NR=2 $c: test1 $a MB/s, test2 $b MB/s (published default 62.1/121.2, sidle0 95.8/186.4, both 0 173.4/174.3)"
done
# default and slice_idle=0 keep the weights' 1:2 (within 1.6..2.5); both 0: about 1:1.
ge "$t2_default" "$t1_default" 1.6 && ! ge "$t2_default" "$t1_default" 2.5 || fail "2010 default not ~1:2"
ge "$t2_sidle0" "$t1_sidle0" 1.6 && ! ge "$t2_sidle0" "$t1_sidle0" 2.5 || fail "2010 slice_idle=0 not ~1:2"
ge "$t2_sidle0_gidle0" "$t1_sidle0_gidle0" 0.8 && ge "$t1_sidle0_gidle0" "$t2_sidle0_gidle0" 0.8 ||
	fail "2010 both idles 0 not ~1:1"
# slice_idle=0 raises the total by more than half (published 183 -> 282 MB/s at NR=2).
tot() { "$PY" -c "print(float('$1') + float('$2'))"; }
ge "$(tot "$t1_sidle0" "$t2_sidle0")" "$(tot "$t1_default" "$t2_default")" 1.5 ||
	fail "2010 slice_idle=0 did not raise the total"

# ---- 2014: 16 readers, target_latency 300 vs 600 ms on the hdd model.
sed -n '/^\[set\]/,/^$/p' "$J/cfq-target-latency-600ms-2014/matrix.ini" >set2014.txt
cat >m2014.ini <<M
[matrix]
name     = r2014
jobs     = $J/cfq-target-latency-600ms-2014/tiobench-seqread.fio
repeat   = 1
runtime  = 3
time_based = no
report   = 2014
$(cat set2014.txt)
env.NR_THREADS = 16
env.SIZE = 16m
size = 16m

[axis.target_latency]
300 = embedded:cfq target_latency=300
600 = embedded:cfq target_latency=600
M
run m2014.ini 2014
a=$(mbps '"target_latency":"300"' seqread) b=$(mbps '"target_latency":"600"' seqread)
[ -n "$a" ] && [ -n "$b" ] || fail "2014: no results"
echo "2014 SeqRead-MB/sec-16: 300 ms $a, 600 ms $b (published 68.90, 77.29: +12.18%)"
ge "$b" "$a" 1.03 || fail "2014: 600 ms does not beat 300 ms with 16 readers"

# ---- 2015: the cloud SSD job, idling on vs off.
cat >m2015.ini <<M
[matrix]
name     = r2015
jobs     = $J/cfq-iops-mode-on-ssd-2015/cloud-ssd-randread.fio
repeat   = 1
runtime  = 2
report   = 2015
[set]
size = 256m
engine.device_model = cloud-ssd
[axis.idling]
On  = embedded:cfq slice_idle=8
Off = embedded:cfq slice_idle=0
M
run m2015.ini 2015
a=$(iops '"idling":"On"') b=$(iops '"idling":"Off"')
[ -n "$a" ] && [ -n "$b" ] || fail "2015: no results"
echo "2015 cloud-ssd: On $a IOPS, Off $b (published 7054, 29255; the 4.15x is a known gap)"
ge "$b" "$a" 0.95 || fail "2015: idling off lost IOPS"
"$SB" report --db "$T/db.sqlite" -e r2015 --format 2015 | grep -q '^   Off ' || fail "2015 table"
echo "seed replays: all effects in the thread's direction"

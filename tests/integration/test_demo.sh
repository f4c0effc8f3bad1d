#!/usr/bin/env bash
# Issue 36, `make demo`: the project's main job as a new user meets it. scripts/demo.sh (what
# `make demo` runs after set-up and build) on a fresh database: every seed (each jobs/<seed>/ with
# a seed_report.py) replayed in virtual time with its table and one verdict line per claim of the
# thread, then one seed in real time with its table, its verdicts and its HTML report; a summary
# whose counts are the verdict lines printed. Checked here: the structure (every seed present,
# each with a claims header "R of N reproduced" followed by exactly N verdict lines, each naming
# the published figure and ours or why it is not measured; the real-time seed likewise; the
# summary's counts), the HTML report (written, its images there, the claims in it), make's
# recipe, the wall time (generous: 180 s here, the demo's target being 2 minutes on 2 cores),
# and bad input (DEMO_T0, a missing build, an unknown option: one line, exit 2).
# timeout: 420
# exclusive: the demo's real-time seed runs fio through the engine for ~30 s
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
command -v fio >/dev/null 2>&1 || skip "fio not installed"
[ -x "$BUILD/schedbench" ] || skip "$BUILD/schedbench not built"
DEMO=$TOP/scripts/demo.sh

# make demo runs set-up, the build and then scripts/demo.sh
make -n -C "$TOP" demo 2>/dev/null | grep -q 'scripts/demo.sh' || fail "make -n demo does not run scripts/demo.sh"

# bad input: one line on stderr, exit 2, nothing run
out=$(DEMO_T0=yesterday BUILD=$BUILD SCHEDBENCH_DB=$WORK/bad/db.sqlite "$DEMO" 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] || fail "DEMO_T0=yesterday: exit $rc"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "DEMO_T0=yesterday: not one line: $out"
echo "ok: $out"
out=$(BUILD=$WORK/nobuild SCHEDBENCH_DB=$WORK/bad/db.sqlite "$DEMO" 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] || fail "BUILD without a build: exit $rc"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "BUILD without a build: not one line: $out"
echo "ok: $out"
out=$(BUILD=$BUILD SCHEDBENCH_DB=$WORK/bad/db.sqlite "$DEMO" --bogus 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] || fail "--bogus: exit $rc"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "--bogus: not one line: $out"
echo "$out" | grep -q -- "--bogus" || fail "--bogus: the line does not name it: $out"
echo "ok: $out"

# the demo on a fresh database
mkdir -p "$WORK/results"
t0=$(date +%s)
BUILD=$BUILD SCHEDBENCH_DB=$WORK/results/schedengine.db "$DEMO" >demo.out 2>demo.err
rc=$?
secs=$(($(date +%s) - t0))
cat demo.out
[ -s demo.err ] && { echo "--- stderr:"; cat demo.err; }
[ $rc = 0 ] || fail "the demo exited $rc"
grep -q Traceback demo.out demo.err && fail "a traceback in the demo's output"
echo "--- the demo took $secs s"
[ $secs -le 180 ] || fail "the demo took $secs s (its target: 2 minutes)"

seeds=$(for d in "$TOP"/jobs/*/; do [ -f "$d/seed_report.py" ] && basename "$d"; done)
[ "$(echo "$seeds" | wc -w)" -ge 5 ] || fail "fewer than 5 seeds in jobs/: $seeds"
"$PY" - demo.out "$WORK/results" $seeds <<'PY' || fail "the demo's output"
import os, re, sys
out, results, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(out).read().splitlines()
VERDICT = re.compile(r"^verdict (REPRODUCED|NOT REPRODUCED|NOT MEASURED): (.+) \[(.+)\]: published (.+), "
                     r"(ours .+|not measured(; .+)?)$")
HEAD = re.compile(r"^The thread's claims, judged on this experiment's runs: (\d+) of (\d+) reproduced, "
                  r"(\d+) not reproduced, (\d+) not measured$")

def sections():
    """(title, its lines) per '== ' section."""
    out, cur = [], None
    for ln in lines:
        if ln.startswith("== "):
            cur = (ln, [])
            out.append(cur)
        elif cur:
            cur[1].append(ln)
    return out

def claims(title, body):
    """(reproduced, not reproduced, not measured) of a section, checking its header and lines."""
    heads = [i for i, ln in enumerate(body) if HEAD.match(ln)]
    assert len(heads) == 1, f"{title}: {len(heads)} claims headers"
    r, n, nr, nm = map(int, HEAD.match(body[heads[0]]).groups())
    assert n >= 1 and r + nr + nm == n, f"{title}: {body[heads[0]]}"
    vs = [ln for ln in body if ln.startswith("verdict ")]
    assert len(vs) == n, f"{title}: {len(vs)} verdict lines, the header says {n}"
    assert body[heads[0] + 1:heads[0] + 1 + n] == vs, f"{title}: the verdict lines do not follow the header"
    got = {"REPRODUCED": 0, "NOT REPRODUCED": 0, "NOT MEASURED": 0}
    for v in vs:
        m = VERDICT.match(v)
        assert m, f"{title}: not a verdict line: {v}"
        got[m.group(1)] += 1
        assert m.group(4).strip() not in ("", "-", "None"), f"{title}: no published figure: {v}"
        if m.group(1) != "NOT MEASURED":
            assert m.group(5).startswith("ours ") and "None" not in m.group(5), f"{title}: no figure of ours: {v}"
        else:
            assert "; " in v, f"{title}: not measured without why: {v}"
    assert (got["REPRODUCED"], got["NOT REPRODUCED"], got["NOT MEASURED"]) == (r, nr, nm), \
        f"{title}: the header's counts {r}/{nr}/{nm}, the lines' {got}"
    # the seed's table comes before its claims
    assert heads[0] >= 3, f"{title}: no table before the claims"
    return r, nr, nm, n

secs = sections()
virt = [(t, b) for t, b in secs if t.endswith(")") and ", virtual time: " in t]
real = [(t, b) for t, b in secs if " in real time: " in t]
summ = [(t, b) for t, b in secs if t.startswith("== summary")]
for s in seeds:
    mine = [(t, b) for t, b in virt if f": {s}, virtual time: " in t]
    assert len(mine) == 1, f"seed {s}: {len(mine)} virtual-time sections"
    t, b = mine[0]
    assert re.search(r" \d+ ok, 0 failed", "\n".join(b)), f"{s}: its runs did not all succeed"
assert len(virt) == len(seeds), f"{len(virt)} virtual-time sections for {len(seeds)} seeds"
vt = [claims(t, b) for t, b in virt]
assert len(real) == 1, f"{len(real)} real-time sections"
rt = claims(*real[0])
assert rt[0] >= 1, f"the real-time seed reproduces none of its claims: {real[0][0]}"
assert len(summ) == 1, "no summary"
sb = summ[0][1]
v = [ln for ln in sb if ln.startswith("virtual time, ")]
r = [ln for ln in sb if ln.startswith("real time, ")]
want = tuple(sum(x[i] for x in vt) for i in range(4))
assert v and re.search(rf"{len(seeds)} seeds: claims reproduced {want[0]} of {want[3]} \({want[1]} not reproduced, "
                       rf"{want[2]} not measured\)", v[0]), f"the summary's virtual-time line: {v}, counted {want}"
assert r and f"claims reproduced {rt[0]} of {rt[3]} ({rt[1]} not reproduced, {rt[2]} not measured)" in r[0], \
    f"the summary's real-time line: {r}, counted {rt}"
assert any(re.match(r"^demo: done in [0-9.]+ s of wall time", ln) for ln in sb), "no wall time"
html = [ln for ln in lines if ln.startswith("HTML report: ")]
assert len(html) == 1, "no 'HTML report:' line"
path = html[0].split()[2]
assert path.startswith(results + "/"), f"the HTML report {path} is not beside the database"
page = open(path).read()
imgs = re.findall(r'<img [^>]*src="([^"]+)"', page)
assert imgs, "no images in the HTML report"
for i in imgs:
    assert os.path.getsize(os.path.join(os.path.dirname(path), i)) > 0, f"the page's {i} is missing"
rv = [ln for ln in real[0][1] if ln.startswith("verdict ")]
assert "The thread's claims" in page, "no claims in the HTML report"
import html as h
text = h.unescape(re.sub(r"<[^>]+>", "", page))
for ln in rv:
    assert ln in text, f"verdict not in the HTML report: {ln}"
assert page.count('class="pass"') == rt[0] and page.count('class="fail"') >= rt[1], \
    "the HTML report's marked verdicts do not match"
print(f"ok: {len(seeds)} seeds in virtual time, {want[3]} claims ({want[0]} reproduced); real time "
      f"{rt[0]} of {rt[3]}; HTML {path} with {len(imgs)} images")
PY
if command -v chromium >/dev/null 2>&1; then
	grep -q '^screenshot .*: [0-9]* of [0-9]* images loaded' demo.out || fail "chromium is installed but no screenshot line"
fi
echo "ok: the demo in $secs s"

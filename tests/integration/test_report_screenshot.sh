#!/usr/bin/env bash
# Issue 12, "Done when": a screenshot of the demo's HTML report by headless Chromium (Debian's
# chromium), checked to render the plots: `schedbench report --html ... --screenshot PNG` on the
# demo's matrix (shorter) must see every image of the page loaded and the plots' colours on the
# picture; a page with a missing plot is refused. The screenshot is kept in $BUILD/test-logs.
. "$(dirname "$0")/schedbench_lib.sh"
ENGINE="$TOP/$BUILD/libschedengine.so"
case $BUILD in /*) ENGINE="$BUILD/libschedengine.so" ;; esac
[ -f "$ENGINE" ] || fail "engine not built: $ENGINE"
if ! command -v chromium >/dev/null 2>&1; then
	# Debian's chromium is large, so it is not in scripts/setup.sh: install it here when we can
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq chromium >"$T/apt.log" 2>&1 ||
			{ echo "SKIP: chromium is not installable: $(tail -n 1 "$T/apt.log")"; exit 77; }
	else
		echo "SKIP: chromium is not installed and cannot be (not root or no apt-get)"
		exit 77
	fi
fi
cd "$T"
"$SB" run "$TOP/jobs/cfq-iops-mode-on-ssd-2015/matrix.ini" --db "$T/db.sqlite" --runtime 1 --repeat 2 \
	--engine "$ENGINE" >run.log 2>&1 || { cat run.log; fail "the demo's matrix"; }
"$SB" report --db "$T/db.sqlite" -e cfq-iops-mode-on-ssd-2015 --compare --html "$T/r/index.html" \
	--screenshot "$T/r/shot.png" >rep.txt 2>&1 || { tail -n 5 rep.txt; fail "report --screenshot"; }
grep '^screenshot ' rep.txt || fail "no screenshot line"
grep -q 'images loaded; the plots are drawn' rep.txt || fail "plots not drawn: $(grep '^screenshot' rep.txt)"
grep -Eq '^screenshot .* \(1400x3000\): 3 of 3 images loaded' rep.txt || fail "not every plot loaded: $(grep '^screenshot' rep.txt)"
# the picture itself, checked here too: plot colours, and the page is not blank
"$PY" - "$T/r/shot.png" <<'PY' || fail "the screenshot"
import sys
import matplotlib.image as mpimg
img = mpimg.imread(sys.argv[1])[..., :3] * 255
h, w = img.shape[:2]
assert (w, h) == (1400, 3000), (w, h)
def near(r, g, b, tol=14):
    return int(((abs(img[..., 0] - r) + abs(img[..., 1] - g) + abs(img[..., 2] - b)) <= tol).sum())
blue, orange = near(31, 119, 180), near(255, 127, 14)
white = near(255, 255, 255, 3)
print(f"screenshot {w}x{h}: {blue} blue and {orange} orange plot pixels, {100 * white / (w * h):.0f}% white")
assert blue > 2000 and orange > 2000, "the plots are not on the screenshot"
assert white < 0.97 * w * h, "a blank page"
PY
mkdir -p "$TOP/$BUILD/test-logs" 2>/dev/null && cp "$T/r/shot.png" "$TOP/$BUILD/test-logs/report-screenshot.png" 2>/dev/null
# a page whose plot is missing is refused
rm "$T/r/plots/cfq-iops-mode-on-ssd-2015-latency.png"
PYTHONPATH="$TOP/scripts" "$PY" -c "
import sys
from schedreport import ReportError
from schedreport.screenshot import screenshot
try:
    screenshot('$T/r/index.html', '$T/r/shot2.png')
except ReportError as e:
    print('refused:', e); sys.exit(0)
sys.exit('a page with a missing plot passed')" || fail "a broken page was not noticed"
echo PASS

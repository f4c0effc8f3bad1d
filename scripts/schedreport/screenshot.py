"""A screenshot of the HTML report with headless Chromium (Debian's chromium), checked: every image of
the page must have loaded (the page's own load handler counts them into <body data-images-loaded>,
read with --dump-dom) and the screenshot must show the plots' colours, not an empty page."""
import os
import re
import shutil
import subprocess
import tempfile

from . import ReportError

# matplotlib's first six colours (tab10), which plots.py gives the configurations in their order:
# only the plots have them on the page. A plot may show a few configurations only (2009's
# throughput plots: the 10-readers cells, the 3rd and 4th colours), so the check asks for two of
# them, whichever.
PLOT_COLOURS = {"blue": (31, 119, 180), "orange": (255, 127, 14), "green": (44, 160, 44),
                "red": (214, 39, 40), "purple": (148, 103, 189), "brown": (140, 86, 75)}
MIN_PIXELS = 200


def _chromium():
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    raise ReportError("chromium is not installed (apt-get install chromium); no screenshot", 2)


def _base_args(profile):
    args = [_chromium(), "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={profile}"]
    if os.geteuid() == 0:
        args.insert(2, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return args


def colour_pixels(png, tol=14):
    """{colour name: number of pixels within tol of it} of a PNG."""
    import matplotlib.image as mpimg
    img = mpimg.imread(png)
    if img.dtype.kind == "f":
        img = (img[..., :3] * 255).round()
    else:
        img = img[..., :3].astype(float)
    out = {}
    for name, (r, g, b) in PLOT_COLOURS.items():
        d = abs(img[..., 0] - r) + abs(img[..., 1] - g) + abs(img[..., 2] - b)
        out[name] = int((d <= tol).sum())
    return out, img.shape[1], img.shape[0]


def screenshot(html, png, width=1400, height=3000, timeout=180):
    url = "file://" + os.path.abspath(html)
    profile = tempfile.mkdtemp(prefix="schedbench-chromium.")
    try:
        base = _base_args(profile)
        dom = subprocess.run(base + ["--virtual-time-budget=10000", "--dump-dom", url], capture_output=True,
                             text=True, timeout=timeout)
        body = re.search(r"<body([^>]*)>", dom.stdout or "")
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1))) if body else {}
        total, loaded = int(attrs.get("data-images", -1)), int(attrs.get("data-images-loaded", -1))
        if total < 0:
            raise ReportError(f"chromium did not render {html} (--dump-dom rc {dom.returncode}: "
                              f"{(dom.stderr or '').strip().splitlines()[-1:] or ''})", 2)
        if loaded != total:
            raise ReportError(f"{html}: only {loaded} of {total} images loaded in chromium", 2)
        shot = subprocess.run(base + [f"--screenshot={os.path.abspath(png)}", f"--window-size={width},{height}",
                                      "--hide-scrollbars", url], capture_output=True, text=True, timeout=timeout)
        if shot.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) == 0:
            raise ReportError(f"chromium wrote no screenshot {png} (rc {shot.returncode})", 2)
    except subprocess.TimeoutExpired:
        raise ReportError(f"chromium took more than {timeout} s on {html}", 2)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    pixels, w, h = colour_pixels(png)
    if total > 0 and sum(v >= MIN_PIXELS for v in pixels.values()) < 2:
        raise ReportError(f"{png}: the plots are not visible in the screenshot (plot colour pixels: {pixels})", 2)
    return {"png": png, "width": w, "height": h, "images": total, "loaded": loaded, "plot_pixels": pixels}

"""The HTML page (jinja2): per experiment the thread's table and ours first, then the plots, each
comparison table once, the engine's statistics and the provenance."""
import datetime
import os

from . import ReportError


def write_html(path, sections, db):
    try:
        import jinja2
    except ImportError:
        raise ReportError("jinja2 is not installed (apt-get install python3-jinja2); no HTML", 2)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(__file__), "templates")),
                             autoescape=jinja2.select_autoescape(["html", "j2"]), trim_blocks=True,
                             lstrip_blocks=True)
    base = os.path.dirname(os.path.abspath(path))
    for s in sections:
        s["images"] = [{"png": os.path.relpath(png, base), "svg": os.path.relpath(svg, base), "caption": cap,
                        "alt": os.path.basename(png)} for png, svg, cap in s.get("images_raw", [])]
    text = env.get_template("report.html.j2").render(
        sections=sections, db=db,
        generated=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    with open(path, "w") as f:
        f.write(text)

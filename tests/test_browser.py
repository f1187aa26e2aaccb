"""The HTML page in a real browser (headless Chromium): at 1400 and 420 px wide the body never
scrolls sideways (wide tables scroll inside their own box), every status's word is drawn, the
legend comes before the table, and the sticky first column leaves room for the statuses. Screenshots are written next to the page.

The machine's Chromium has no emoji font (Debian's chromium package brings none), which is the
case the words are for: the symbols show as empty boxes, the words still read. `.ci/run`
installs Chromium and sets MATRIX_REQUIRE_BROWSER=1, so there the test fails rather than skips
when no browser can be found."""

import html
import json
import os
import re
import shutil
import subprocess

import pytest

import matrix
from matrix.render import TABLES, render
from tests.test_render import DATA

pytestmark = pytest.mark.slow  # each test starts Chromium, most build a site first

_BROWSER = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(name)), None)
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

# Measures the page once laid out, and hands the numbers to the page that frames it.
_PROBE = """<script>
(function () {
  var root = document.documentElement;
  var words = Array.prototype.slice.call(document.querySelectorAll('td.cell .word'));
  var drawn = words.filter(function (w) {
    var box = w.getBoundingClientRect(), style = getComputedStyle(w);
    return box.width >= 1 && box.height >= 1 && style.visibility === 'visible' && style.opacity !== '0'
      && style.color !== 'rgba(0, 0, 0, 0)';
  });
  var legend = Array.prototype.slice.call(document.querySelectorAll('p')).filter(function (p) {
    return p.textContent.indexOf('Legend: ') === 0; })[0];
  var result = JSON.stringify({
    width: window.innerWidth, scrollWidth: root.scrollWidth, words: words.length, drawn: drawn.length,
    texts: drawn.map(function (w) { return w.textContent; }).filter(function (t, i, all) { return all.indexOf(t) === i; }).sort(),
    legendAbove: legend.getBoundingClientRect().bottom <= document.querySelector('table').getBoundingClientRect().top,
    stickyWidth: Math.max.apply(null, Array.prototype.slice.call(document.querySelectorAll('tbody th[scope="row"]')).map(
      function (th) { return th.getBoundingClientRect().width; }))
  });
  window.parent.postMessage(result, '*');
})();
</script>
</body>"""

# A frame of the width under test: headless Chromium will not make a window narrower than 500 px.
_FRAME = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>body {{ margin: 0 }} iframe {{ border: 0; display: block }}</style></head>
<body><iframe src="{page}" width="{width}" height="1000"></iframe>
<script>window.addEventListener('message', function (e) {{
  var out = document.createElement('pre'); out.id = 'result'; out.textContent = e.data; document.body.appendChild(out); }});</script>
</body></html>"""


def _chromium(folder, *arguments):
    done = subprocess.run([_BROWSER, *_FLAGS, f"--user-data-dir={folder / 'profile'}", *arguments],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def browser():
    if _BROWSER is None:
        if os.environ.get("MATRIX_REQUIRE_BROWSER") == "1":
            pytest.fail("no Chromium found, and MATRIX_REQUIRE_BROWSER=1")
        pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run installs it)")
    return _BROWSER


@pytest.mark.parametrize("width", [1400, 420])
@pytest.mark.parametrize(("name", "m"), [("default", matrix.default()),
                                         ("kitchen_sink", matrix.load(DATA / "valid" / "kitchen_sink.toml"))])
def test_the_html_page_reads_at_every_width(browser, tmp_path, name, m, width):
    page = render(m, format="html", tables=TABLES)
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    (tmp_path / "probe.html").write_text(page.replace("</body>", _PROBE), encoding="utf-8")
    (tmp_path / "probe-frame.html").write_text(_FRAME.format(page="probe.html", width=width), encoding="utf-8")
    (tmp_path / "frame.html").write_text(_FRAME.format(page="page.html", width=width), encoding="utf-8")
    window = f"--window-size={width + 100},1000"
    dom = _chromium(tmp_path, window, "--virtual-time-budget=5000", "--dump-dom", (tmp_path / "probe-frame.html").as_uri())
    found = json.loads(dom.split('<pre id="result">', 1)[1].split("</pre>", 1)[0].replace("&quot;", '"'))
    assert found["width"] == width
    assert found["scrollWidth"] <= width  # the body never scrolls sideways: wide tables scroll in their box
    statuses = page.count('<span class="word">')
    assert (found["words"], found["drawn"]) == (statuses, statuses)  # every status's word is drawn
    assert set(found["texts"]) <= {"yes", "no", "partial", "opt-in", "removed"} and found["texts"]
    assert found["legendAbove"] is True
    # The sticky first column leaves most of a narrow screen to the status columns scrolling under it.
    assert found["stickyWidth"] <= width * 0.45, found["stickyWidth"]
    shot = tmp_path / f"{name}-{width}.png"
    _chromium(tmp_path, window, f"--screenshot={shot}", (tmp_path / "frame.html").as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


_WIDTH_PROBE = ("<script>document.title = JSON.stringify({width: window.innerWidth, "
                "scrollWidth: document.documentElement.scrollWidth});</script></body>")


def _mkdocs_page(source):
    from tests.test_site_builds import _MKDOCS_YML, _mkdocs

    (source / "mkdocs.yml").write_text(_MKDOCS_YML)
    (source / "docs").mkdir()
    (source / "docs" / "index.md").write_text("# Support\n\n<!-- support-matrix features.toml table=all -->\n")
    done = _mkdocs(source)
    assert done.returncode == 0, done.stderr
    return source / "site" / "index.html", '<div class="support-matrix-scroll" style="overflow-x: auto; max-width: 100%">'


def _sphinx_page(source):
    from tests.test_site_builds import _sphinx

    (source / "src").mkdir()
    (source / "src" / "conf.py").write_text('project = "Runners"\nextensions = ["matrix.sphinx"]\n')
    (source / "src" / "index.rst").write_text("Support\n=======\n\n.. support-matrix:: ../features.toml\n   :table: all\n")
    done = _sphinx(source)
    assert (done.returncode, done.stderr) == (0, "")
    return source / "out" / "index.html", '<div class="support-matrix-scroll docutils container">'


@pytest.mark.parametrize("width", [1400, 500])
@pytest.mark.parametrize("build", [_mkdocs_page, _sphinx_page], ids=["mkdocs", "sphinx"])
def test_a_built_site_page_with_the_tables_never_scrolls_sideways(browser, tmp_path, build, width):
    """MkDocs' and Sphinx's own themes let a wide table widen the page, and a note marked in many
    cells of the pairs table gets a line of back links that cannot wrap: the plugin and the
    directive box the tables and let the links wrap (before, the page was 3,038 px wide at 1400
    in MkDocs and 5,304 px in Sphinx)."""
    from tests.test_site_builds import _site

    (tmp_path / "source").mkdir()
    page_file, box = build(_site(tmp_path / "source"))
    page = page_file.read_text()
    assert len(re.findall(re.escape(box) + r"\s*<table\b", page)) == page.count(box) == 8  # every table boxed (--table all: 8 tables)
    probe = page_file.with_name("probe.html")
    probe.write_text(page.replace("</body>", _WIDTH_PROBE), encoding="utf-8")
    dom = _chromium(tmp_path, f"--window-size={width},1000", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    found = json.loads(html.unescape(dom.split("<title>", 1)[1].split("</title>", 1)[0]))
    assert found["width"] == width
    assert found["scrollWidth"] <= width
    shot = tmp_path / f"{build.__name__.strip('_')}-{width}.png"
    _chromium(tmp_path, f"--window-size={width},1000", f"--screenshot={shot}", page_file.as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

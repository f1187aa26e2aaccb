"""The MkDocs plugin and the Sphinx directive, in real builds: `mkdocs build --strict` and
`sphinx-build -W` of a small site each, as the README configures them."""

import html
import os
import re
import shutil
import subprocess
import sys

import pytest

import matrix

from tests._env import plain_env
from tests.test_render import DATA

ROOT = DATA.parent.parent

pytestmark = pytest.mark.slow  # each test starts a build, of a few seconds


def _site(tmp_path):
    """A folder holding a copy of the default matrix, as a project's docs would."""
    shutil.copy(ROOT / "features.toml", tmp_path / "features.toml")
    shutil.copytree(ROOT / "runners", tmp_path / "runners")
    return tmp_path


def _mkdocs(site):
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=site,
                          capture_output=True, text=True, env=plain_env())


_MKDOCS_YML = """site_name: Runners
plugins:
  - search
  - support-matrix
markdown_extensions:
  - footnotes
  - tables
"""


def test_mkdocs_build_strict_renders_the_tables_into_the_page(tmp_path):
    site = _site(tmp_path)
    (site / "mkdocs.yml").write_text(_MKDOCS_YML)
    (site / "docs").mkdir()
    (site / "docs" / "index.md").write_text(
        "# Support\n\nBefore.\n\n<!-- support-matrix features.toml table=support,pairs version=0.31.0 -->\n\nAfter.\n")
    (site / "docs" / "default.md").write_text("# Packaged\n\n<!-- support-matrix default table=runners text-only -->\n")
    done = _mkdocs(site)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    page = (site / "site" / "index.html").read_text()
    assert page.index("Before.") < page.index("Support matrix: vLLM model runners 0.31.0") < page.index("After.")
    assert '<h3 id="feature-pairs-vllm-model-runners-0310">Feature pairs: vLLM model runners 0.31.0</h3>' in page
    assert "<td>stock torch.compile</td>" in page
    assert re.search(r"<td>❌ no</td>\s*<td>✅ yes</td>", page)
    # The note marks are footnotes that link both ways (MkDocs' footnotes extension).
    assert re.search(r'<sup id="fnref:m1-1"><a class="footnote-ref" href="#fn:m1-1">1</a></sup>', page)
    assert '<li id="fn:m1-refusal-v1_only_with_v2_only">' in page
    runners = (site / "site" / "default" / "index.html").read_text()
    assert "<td>Model Runner V2</td>" in runners and "Feature pairs" not in runners


def test_mkdocs_build_says_an_overlays_file_relative_to_the_project_not_the_builders_path(tmp_path):
    """A user trial: the overlay table's "Where" column published the builder's absolute path
    (and `docs/../plugin/overlay.toml` for a file outside the docs folder)."""
    site = _site(tmp_path)
    (site / "mkdocs.yml").write_text(_MKDOCS_YML)
    (site / "plugin").mkdir()
    shutil.copy(ROOT / "examples" / "npu-overlay" / "vllm_npu_matrix" / "overlay.toml", site / "plugin" / "overlay.toml")
    (site / "docs").mkdir()
    (site / "docs" / "index.md").write_text("# NPU\n\n<!-- support-matrix docs/../plugin/overlay.toml table=overlay -->\n")
    done = _mkdocs(site)
    assert done.returncode == 0, done.stderr
    page = (site / "site" / "index.html").read_text()
    assert "<code>plugin/overlay.toml:10</code>" in page
    assert str(tmp_path) not in page and "../plugin" not in page


@pytest.mark.parametrize(("marker", "message"), [
    ("<!-- support-matrix features.toml table=suport -->",
     "ERROR   -  index.md: <!-- support-matrix features.toml table=suport -->: Unknown table 'suport' (expected one of "
     "'adjustments', 'all', 'capabilities', 'columns', 'config', 'deprecations', 'overlay', 'pairs', 'release-notes', 'runners', 'support'), did you mean 'support'"),
    ("<!-- support-matrix features.toml colour=red -->",
     "ERROR   -  index.md: <!-- support-matrix features.toml colour=red -->: unknown option 'colour=red' "
     "(expected table=NAME,NAME, version=V or text-only)"),
    ("<!-- support-matrix -->",
     "ERROR   -  index.md: <!-- support-matrix -->: name the matrix: a features.toml path relative to mkdocs.yml, "
     "or 'default'"),
    ("<!-- support-matrix features.toml version=one -->",
     "ERROR   -  index.md: <!-- support-matrix features.toml version=one -->: Invalid version 'one': expected a PEP "
     "440 version such as '0.31.0'"),
])
def test_mkdocs_build_fails_on_a_bad_marker_and_says_why(tmp_path, marker, message):
    site = _site(tmp_path)
    (site / "mkdocs.yml").write_text(_MKDOCS_YML)
    (site / "docs").mkdir()
    (site / "docs" / "index.md").write_text(f"# Support\n\n{marker}\n")
    done = _mkdocs(site)
    assert done.returncode == 1
    assert message in done.stderr.splitlines(), done.stderr


def _sphinx(site):
    # --keep-going: Sphinx 7 (the last for Python 3.9) with -W stops at the first warning and,
    # with -q, prints nothing at all; Sphinx 8 on keeps going and prints every warning anyway.
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "--no-color", "-b", "html", "src", "out"],
                          cwd=site, capture_output=True, text=True, env=plain_env())


def test_sphinx_build_W_renders_the_directive(tmp_path):
    site = _site(tmp_path)
    (site / "src").mkdir()
    (site / "src" / "conf.py").write_text('project = "Runners"\nextensions = ["matrix.sphinx"]\n')
    (site / "src" / "index.rst").write_text(
        "Support\n=======\n\nBefore.\n\n.. support-matrix:: ../features.toml\n   :table: support runners pairs\n"
        "   :version: 0.31.0\n\nAfter.\n\n.. toctree::\n\n   packaged\n")
    (site / "src" / "packaged.rst").write_text(
        "Packaged\n========\n\n.. support-matrix:: default\n   :table: deprecations\n   :text-only:\n")
    done = _sphinx(site)
    assert (done.returncode, done.stderr) == (0, "")
    page = (site / "out" / "index.html").read_text()
    assert page.index("Before.") < page.index("Support matrix: vLLM model runners 0.31.0") < page.index("After.")
    assert "<h2>Feature pairs: vLLM model runners 0.31.0" in page
    assert re.search(r'<td><p>stock torch.compile</p></td>', page)
    assert '<aside class="footnote brackets" id="m1-refusal-v1-only-with-v2-only"' in page
    packaged = (site / "out" / "packaged.html").read_text()
    assert "<h2>Deprecations: vLLM model runners" in packaged and "mamba cache mode" in packaged


def test_sphinx_build_W_fails_on_a_bad_directive_and_says_why(tmp_path):
    site = _site(tmp_path)
    (site / "src").mkdir()
    # Sphinx 8 on ends each warning with its type, " [docutils]", unless told not to; 7 never does.
    (site / "src" / "conf.py").write_text('extensions = ["matrix.sphinx"]\nshow_warning_types = False\n')
    (site / "src" / "index.rst").write_text("Support\n=======\n\n.. support-matrix:: ../features.toml\n   :table: suport\n")
    done = _sphinx(site)
    assert done.returncode != 0
    assert done.stderr.splitlines()[0] == (
        f"{site / 'src' / 'index.rst'}:4: ERROR: support-matrix ../features.toml: Unknown table 'suport' (expected one "
        "of 'adjustments', 'all', 'capabilities', 'columns', 'config', 'deprecations', 'overlay', 'pairs', 'release-notes', 'runners', 'support'), did you mean 'support'")
    (site / "src" / "index.rst").write_text("Support\n=======\n\n.. support-matrix:: ../nope.toml\n")
    done = _sphinx(site)
    assert done.returncode != 0
    assert f"{site / 'src' / 'index.rst'}:4: ERROR: support-matrix ../nope.toml: {site / 'src' / '..' / 'nope.toml'}: 1 problem" \
        in done.stderr.splitlines()


def test_mkdocs_serve_watches_the_files_of_the_matrix_a_page_embeds(tmp_path, monkeypatch):
    # As `mkdocs serve` does: build (the plugin reads the pages), then the on_serve event with
    # the live-reload server, from the folder of mkdocs.yml. The packaged matrix is watched in
    # the package: there is no runners/ folder beside mkdocs.yml (watching one crashed serve).
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.livereload import LiveReloadServer

    import matrix.loader

    shutil.copy(ROOT / "features.toml", tmp_path / "features.toml")
    shutil.copytree(ROOT / "runners", tmp_path / "own")
    (tmp_path / "features.toml").write_text((tmp_path / "features.toml").read_text().replace(
        '\nrunners = "runners"\n', '\nrunners = "own"\n', 1))
    (tmp_path / "mkdocs.yml").write_text(_MKDOCS_YML)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Packaged\n\n<!-- support-matrix default table=runners -->\n")
    (tmp_path / "docs" / "own.md").write_text("# Own\n\n<!-- support-matrix features.toml table=runners -->\n")
    monkeypatch.chdir(tmp_path)
    config = load_config(str(tmp_path / "mkdocs.yml"))
    build(config)
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path / "site"))
    try:
        assert config.plugins.on_serve(server, config=config, builder=lambda: None) is server
        watched = sorted(server._watched_paths)
    finally:
        server.server_close()
    packaged = os.path.dirname(matrix.loader._default_file())
    assert watched == sorted([os.path.join(packaged, "features.toml"), os.path.join(packaged, "runners", "v1.toml"),
                              os.path.join(packaged, "runners", "v2.toml"), str(tmp_path / "features.toml"),
                              str(tmp_path / "own" / "v1.toml"), str(tmp_path / "own" / "v2.toml")])
    assert all(os.path.isfile(path) for path in watched)


def _two_matrices(tmp_path):
    """The default matrix and the kitchen sink (whose notes 1 and 2 say other things)."""
    site = _site(tmp_path)
    shutil.copytree(DATA / "runners", site / "kitchen" / "runners")
    (site / "kitchen" / "matrix").mkdir()
    shutil.copy(DATA / "valid" / "kitchen_sink.toml", site / "kitchen" / "matrix" / "features.toml")
    return site


def _notes(where, version=None):
    from matrix.render import document

    return document(matrix.load(where), version=version).notes


def test_mkdocs_build_strict_gives_each_table_on_a_page_its_own_notes(tmp_path):
    site = _two_matrices(tmp_path)
    (site / "mkdocs.yml").write_text(_MKDOCS_YML)
    (site / "docs").mkdir()
    (site / "docs" / "index.md").write_text(
        "# Support\n\n<!-- support-matrix features.toml table=support,pairs version=0.31.0 -->\n\n"
        "<!-- support-matrix kitchen/matrix/features.toml table=support -->\n")
    done = _mkdocs(site)
    assert (done.returncode, "WARNING" in done.stderr) == (0, False), done.stderr
    page = (site / "site" / "index.html").read_text()
    notes = dict(re.findall(r'<li id="fn:([^"]+)">\s*<p>(.*?)&#160;<a class="footnote-backref"', page, re.DOTALL))
    default = _notes(site / "features.toml", "0.31.0")
    kitchen = _notes(site / "kitchen" / "matrix" / "features.toml")
    assert kitchen == ("Scales to 16 workers", "Experimental")
    assert {label: text for label, text in notes.items() if not label.startswith("m1-refusal-")} == {
        **{f"m1-{i}": html.escape(note, quote=False) for i, note in enumerate(default, 1)},
        **{f"m2-{i}": note for i, note in enumerate(kitchen, 1)}}
    # Each mark links to its own table's note, numbered in the order of the page.
    assert '<td>🟠 partial <sup id="fnref:m2-1"><a class="footnote-ref" href="#fn:m2-1">' in page
    assert sorted(set(re.findall(r'href="#fn:([^"]+)"', page))) == sorted(notes)


def test_sphinx_build_W_gives_each_directive_on_a_page_its_own_notes(tmp_path):
    site = _two_matrices(tmp_path)
    (site / "src").mkdir()
    # Smart quotes off: the notes are compared as written.
    (site / "src" / "conf.py").write_text('project = "Runners"\nextensions = ["matrix.sphinx"]\nsmartquotes = False\n')
    (site / "src" / "index.rst").write_text(
        "Support\n=======\n\n.. support-matrix:: ../features.toml\n   :table: support pairs\n   :version: 0.31.0\n\n"
        ".. support-matrix:: ../kitchen/matrix/features.toml\n   :table: support\n")
    done = _sphinx(site)
    assert (done.returncode, done.stderr) == (0, "")
    page = (site / "out" / "index.html").read_text()
    notes = dict(re.findall(r'<aside class="footnote brackets" id="([^"]+)" role="doc-footnote">.*?<p>(.*?)</p>',
                            page, re.DOTALL))
    default = _notes(site / "features.toml", "0.31.0")
    kitchen = _notes(site / "kitchen" / "matrix" / "features.toml")
    assert {label: text for label, text in notes.items() if not label.startswith("m1-refusal-")} == {
        **{f"m1-{i}": html.escape(note, quote=False) for i, note in enumerate(default, 1)},
        **{f"m2-{i}": note for i, note in enumerate(kitchen, 1)}}
    assert sorted(set(re.findall(r'class="footnote-reference brackets" href="#([^"]+)"', page))) == sorted(notes)


@pytest.mark.parametrize("word", ["support_matrix", "supportmatrix", "support-matrx", "Support-Matrix", "SUPPORT_MATRIX"])
def test_mkdocs_build_strict_fails_on_a_misspelt_marker(tmp_path, word):
    site = _site(tmp_path)
    (site / "mkdocs.yml").write_text(_MKDOCS_YML)
    (site / "docs").mkdir()
    # The CLI's --inject markers and other comments are no misspelt marker.
    (site / "docs" / "index.md").write_text(
        f"# Support\n\n<!-- {word} features.toml table=runners -->\n\n<!-- matrix:begin -->\n<!-- matrix:end -->\n"
        "<!-- TODO: support -->\n")
    done = _mkdocs(site)
    assert done.returncode == 1
    assert [line for line in done.stderr.splitlines() if line.startswith("WARNING")] == [
        f"WARNING -  index.md: <!-- {word} features.toml table=runners -->: Unknown marker {word!r}, did you mean "
        "'support-matrix' (the comment is left as it is, with no table)"]


def test_sphinx_build_W_fails_on_a_misspelt_directive_or_one_written_as_a_comment(tmp_path):
    site = _site(tmp_path)
    (site / "src").mkdir()
    (site / "src" / "conf.py").write_text('extensions = ["matrix.sphinx"]\n')
    index = site / "src" / "index.rst"
    # Misspelt, the directive is unknown to docutils, an error.
    index.write_text("Support\n=======\n\n.. support_matrix:: ../features.toml\n")
    done = _sphinx(site)
    assert done.returncode != 0
    assert done.stderr.splitlines()[0] == f'{index}:4: ERROR: Unknown directive type "support_matrix".'
    # With one colon or none it is a comment, which docutils takes silently: the extension warns.
    for comment in ["support-matrix: ../features.toml", "Support_Matrix ../features.toml"]:
        index.write_text(f"Support\n=======\n\n.. {comment}\n\n.. a comment of the page\n")
        done = _sphinx(site)
        assert (done.returncode, done.stderr.splitlines()) == (1, [
            f"{index}:4: WARNING: The comment {comment!r} is no support-matrix directive, did you mean "
            "'.. support-matrix:: PATH' (with two colons; the comment is left as it is, with no table)"])

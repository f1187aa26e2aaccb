"""The MkDocs plugin and the Sphinx directive, in real builds: `mkdocs build --strict` and
`sphinx-build -W` of a small site each, as the README configures them."""

import re
import shutil
import subprocess
import sys

import pytest

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
    assert re.search(r'<sup id="fnref:1"><a class="footnote-ref" href="#fn:1">1</a></sup>', page)
    assert '<li id="fn:refusal-v1_only_with_v2_only">' in page
    runners = (site / "site" / "default" / "index.html").read_text()
    assert "<td>Model Runner V2</td>" in runners and "Feature pairs" not in runners


@pytest.mark.parametrize(("marker", "message"), [
    ("<!-- support-matrix features.toml table=suport -->",
     "ERROR   -  index.md: <!-- support-matrix features.toml table=suport -->: Unknown table 'suport' (expected one of "
     "'all', 'capabilities', 'config', 'deprecations', 'pairs', 'runners', 'support'), did you mean 'support'"),
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
    assert '<aside class="footnote brackets" id="refusal-v1-only-with-v2-only"' in page
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
        "of 'all', 'capabilities', 'config', 'deprecations', 'pairs', 'runners', 'support'), did you mean 'support'")
    (site / "src" / "index.rst").write_text("Support\n=======\n\n.. support-matrix:: ../nope.toml\n")
    done = _sphinx(site)
    assert done.returncode != 0
    assert f"{site / 'src' / 'index.rst'}:4: ERROR: support-matrix ../nope.toml: {site / 'src' / '..' / 'nope.toml'}: 1 problem" \
        in done.stderr.splitlines()

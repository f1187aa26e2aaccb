import io
import json
import os
import pathlib
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import attrs
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import NoRunnerError, RemovedFeatureError, UsageError
from matrix.cli import run
from matrix.render import FORMATS, TABLES, json_schema, render
from matrix.strategies import configs, matrices

DATA = pathlib.Path(__file__).parent / "data"
GOLDEN = DATA / "golden"
KITCHEN = matrix.load(DATA / "valid" / "kitchen_sink.toml")
DEFAULT = matrix.default()
EXTENSIONS = {"markdown": "md", "rst": "rst", "html": "html", "json": "json"}
CASES = [("kitchen_sink", KITCHEN, None), ("default", DEFAULT, None), ("default-0.31.0", DEFAULT, "0.31.0")]


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize(("name", "m", "version"), CASES, ids=[c[0] for c in CASES])
def test_golden_files(name, m, version, format):
    text = render(m, format=format, version=version, tables=TABLES)  # every table, the pairs too
    path = GOLDEN / f"{name}.{EXTENSIONS[format]}"
    if os.environ.get("MATRIX_UPDATE_GOLDEN") == "1":  # regenerate after a deliberate change
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    assert render(m, format=format, version=version, tables=TABLES) == text  # deterministic


def _markdown_table(text, heading):
    """Rows of the Markdown table under *heading*, as lists of unescaped cell texts."""
    lines = text.split(heading, 1)[1].split("\n", 1)[1].strip().splitlines()
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith("|")):]  # after the legend
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        rows.append(cells)
    return rows[0], rows[2:]


def test_the_default_markdown_table():
    text = render(DEFAULT, format="markdown", version="0.30.0")
    header, rows = _markdown_table(text, "### Support matrix: vLLM model runners 0.30.0")
    assert header == ["Feature", "Condition", "Model Runner V2", "Model Runner V1", "Lifecycle"]
    names = [_plain_name(r[0]) for r in rows if not r[0].startswith("**")]
    assert sorted(names) == sorted(f.name for f in DEFAULT.features_at("0.30.0"))
    mamba = next(r for r in rows if _plain_name(r[0]) == "mamba cache mode 'all'")
    assert mamba[0] == "[mamba cache mode 'all'](<https://github.com/vllm-project/vllm/pull/55041>)"  # the feature's link
    assert mamba[2] == "❌ no"  # not repeated on the status
    assert mamba[4] == "deprecated in 0.30.0 · removed in 0.32.0 · use cache\\_config.mamba\\_cache\\_mode = 'align'"
    assert "Legend: ✅ yes: supported · ❌ no: not supported\n" in text  # no opt-in left: DBO says when it applies
    dbo = next(r for r in rows if _plain_name(r[0]) == "dual batch overlap")
    assert (dbo[2], dbo[3], dbo[4]) == ("❌ no", "✅ yes", "in automatic choice only")
    lora = next(r for r in rows if _plain_name(r[0]) == "dual batch overlap with LoRA")
    assert (lora[2], lora[4]) == ("❌ no", "only when a runner is asked for")


def test_the_0_31_0_table_shows_v2_supporting_custom_logits_processors():
    _, rows = _markdown_table(render(DEFAULT, format="markdown", version="0.31.0"),
                              "### Support matrix: vLLM model runners 0.31.0")
    row = next(r for r in rows if r[0] == "custom logits processors")
    # The whole history, every status in words, the statement's own link on it.
    assert row[2:4] == ["❌ no → [✅ yes](<https://github.com/vllm-project/vllm/pull/56497>) since 0.31.0", "✅ yes"]
    names = [r[0] for r in rows]
    assert "DFlash candidate-head drafts" in names and "dflash2 drafts [6]" not in names


def _plain_name(cell):
    """A feature's name as its Markdown cell shows it, without its links and note mark."""
    cell = re.sub(r" \[\^\d+\]$", "", cell)
    cell = re.sub(r" \(\[\d+\]\(<[^>]*>\)\)", "", cell)
    cell = re.sub(r"^\[(.*)\]\(<[^>]*>\)$", r"\1", cell)
    return cell.replace("\\", "")


def _symbol(cell):
    """The symbol of the statement in force: the last of the cell's history."""
    last = cell.split(" → ")[-1]
    match = re.match(r"^\[?(✅|❌|🟠|🧪|⛔) (yes|no|partial|opt-in|removed)\b", last)
    assert match, cell
    return match.group(1)


@given(st.data())
def test_docs_and_resolver_never_disagree(data):
    m = data.draw(st.sampled_from([DEFAULT, KITCHEN]))
    # A version past the newest release the file knows of is a UsageError (test_lifecycle).
    version = data.draw(st.sampled_from([v for v in [None, "0.30.0", "0.31.0", "1.0", "1.1"]
                                         if v is None or matrix.resolver.as_version(v) <= m.newest_release]))
    v = m.version if version is None else matrix.resolver.as_version(version)
    config = data.draw(configs(m))
    try:
        resolution = m.resolve(config, version=version)
    except (NoRunnerError, RemovedFeatureError) as error:
        resolution = error.resolution
    header, rows = _markdown_table(render(m, format="markdown", version=version, tables=["support"]), f"### Support matrix: {m.name} {v}")
    by_name = {_plain_name(r[0]): r for r in rows if not r[0].startswith("**")}
    for column, runner in enumerate(m.runners, start=2):
        blocked = {f.name for f in resolution.unsupported[runner.id]}
        for feature in resolution.active:
            if feature.removed_at(v):  # refused before any runner is chosen, whatever runner is asked
                assert _symbol(by_name[feature.name][column]) == "⛔"
                with pytest.raises(RemovedFeatureError):
                    m.resolve(config, version=version, runner=runner.id)
            else:
                assert (_symbol(by_name[feature.name][column]) in ("❌", "🧪")) == (feature.name in blocked)


def _docutils_warnings(text):
    from docutils.core import publish_doctree

    stream = io.StringIO()
    publish_doctree(text, settings_overrides={"warning_stream": stream, "report_level": 1, "halt_level": 5})
    return stream.getvalue()


@pytest.mark.parametrize(("name", "m", "version"), CASES, ids=[c[0] for c in CASES])
def test_restructuredtext_passes_docutils_without_warnings(name, m, version):
    assert _docutils_warnings(render(m, format="rst", version=version)) == ""


class _Strict(HTMLParser):
    VOID = {"meta", "br", "img", "hr", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()


def _check_html(text):
    ET.fromstring(text.split("\n", 1)[1])  # well-formed as XML, after the doctype line
    parser = _Strict()
    parser.feed(text)
    parser.close()
    assert parser.stack == []


@pytest.mark.parametrize(("name", "m", "version"), CASES, ids=[c[0] for c in CASES])
def test_html_is_well_formed_and_standalone(name, m, version):
    text = render(m, format="html", version=version)
    _check_html(text)
    assert "<style>" in text and "position: sticky" in text
    assert not re.search(r"""(src|href)=["'](?!https?://|#)""", text)  # no external assets
    assert '<th scope="col">Model Runner V2</th>' in text or m is KITCHEN


def test_json_output_is_typed_data_that_its_schema_accepts():
    data = json.loads(render(KITCHEN, format="json", version="1.1"))
    _validate_json(data)
    assert data["format"] == 1
    assert data["generated_by"] == "Generated by `matrix docs` from kitchen_sink.toml: do not edit by hand."
    assert [r["id"] for r in data["runners"]] == ["v2", "v1"]
    ngram = next(f for f in data["features"] if f["id"] == "ngram")
    assert ngram["support"]["v2"] == {
        "status": "yes", "note": None, "link": None, "since": "1.1",
        "history": [{"status": "no", "since": None, "note": None, "link": "https://example.org/ngram"},
                    {"status": "yes", "since": "1.1", "note": None, "link": None}]}
    legacy = {"feature": "legacy", "name": "legacy mode", "since": "1.0", "remove_in": "2.0", "removed": False,
              "without_period": False, "state": "deprecated", "replacement": "mode = 'safe'",
              "message": "Legacy mode is slow"}
    assert data["deprecations"] == [legacy]
    assert next(f for f in data["features"] if f["id"] == "legacy")["deprecated"] == legacy
    assert data["legend"][0] == {"status": "yes", "symbol": "✅", "meaning": "supported"}
    # Config entries carry values, not display strings.
    by_path = {entry["path"]: entry for entry in data["config"]}
    assert by_path["mode"] == {"path": "mode", "type": "str", "nullable": False, "choices": ["fast", "safe", "legacy"],
                               "min": None, "max": None, "has_default": True, "default": "safe", "fact": False, "classes": False, "since": None,
                               "until": None, "choice_versions": [], "doc": "How | to run"}
    assert (by_path["workers"]["min"], by_path["workers"]["max"], by_path["workers"]["default"]) == (1, 64, 1)
    default = json.loads(render(DEFAULT, format="json", tables=["config"]))
    _validate_json(default)
    entries = {entry["path"]: entry for entry in default["config"]}
    assert entries["cache_config.mamba_cache_mode"]["choices"] == ["none", "align", "all"]
    assert entries["speculative_config.draft_model_config.architectures"]["default"] == []
    processors = entries["model_config.logits_processors"]
    assert (processors["nullable"], processors["default"], processors["classes"]) == (True, None, True)
    assert entries["speculative_config"] == {
        "path": "speculative_config", "type": "section", "nullable": True, "choices": None, "min": None, "max": None,
        "has_default": True, "default": None, "fact": False, "classes": False, "since": None, "until": None, "choice_versions": [],
        "doc": entries["speculative_config"]["doc"]}
    assert set(default) == {"format", "generated_by", "matrix", "version", "runners", "config"}


def _validate_json(data):
    jsonschema.Draft202012Validator(json_schema()).validate(data)


def test_the_json_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(json_schema())
    assert json_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_status_is_written_in_words_and_text_only_drops_the_symbols():
    text = render(KITCHEN, format="markdown", version="1.1", tables=["support"])
    lines = text.splitlines()
    legend = next(i for i, line in enumerate(lines) if line.startswith("Legend: "))
    table = next(i for i, line in enumerate(lines) if line.startswith("| Feature"))
    assert legend < table  # the legend comes before the table
    assert "| n-gram drafts | `spec.method == 'ngram'` | [❌ no](<https://example.org/ngram>) → ✅ yes since 1.1 | ✅ yes |  |" in lines
    plain = render(KITCHEN, format="markdown", version="1.1", tables=["support"], symbols=False)
    assert "| n-gram drafts | `spec.method == 'ngram'` | [no](<https://example.org/ngram>) → yes since 1.1 | yes |  |" in plain.splitlines()
    assert not any(symbol in plain for symbol in "✅❌🟠🧪")
    assert "| many workers | `workers > 8` | ✅ yes | 🟠 partial [^1] |  |" in lines  # a footnote reference
    assert "[^1]: Scales to 16 workers" in lines
    assert "Legend: yes: supported · no: not supported · partial: supported with a caveat (see the note)" in plain
    html_page = render(KITCHEN, format="html", version="1.1", tables=["support"])
    assert ('<td class="cell status-yes"><a href="https://example.org/ngram"><span title="no: not supported">'
            '<span aria-hidden="true">❌</span> <span class="word">no</span></span></a> → <span title="yes: supported">'
            '<span aria-hidden="true">✅</span> <span class="word">yes</span></span> since 1.1</td>') in html_page


def test_tables_on_their_own():
    text = render(DEFAULT, format="markdown", tables=["config"])
    assert "### Config reference" in text and "### Support matrix" not in text and "### Deprecations" not in text
    with pytest.raises(UsageError) as excinfo:
        render(DEFAULT, format="markdwn")
    assert str(excinfo.value) == "Unknown format 'markdwn' (expected one of 'html', 'json', 'markdown', 'rst'), did you mean 'markdown'"
    with pytest.raises(UsageError) as excinfo:
        render(DEFAULT, tables=["suport"])
    assert str(excinfo.value) == "Unknown table 'suport' (expected one of 'capabilities', 'config', 'deprecations', 'pairs', 'runners', 'support'), did you mean 'support'"


_NASTY = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(lambda s: s.strip())


@settings(max_examples=25)
@given(matrices(max_features=4), st.lists(_NASTY, min_size=4, max_size=4, unique=True), _NASTY)
def test_renderers_never_raise_and_escape_what_they_must(m, names, note):
    features = tuple(attrs.evolve(f, name=name, note=note) for f, name in zip(m.features, names))
    m = attrs.evolve(m, name=names[0], features=features)
    for format in FORMATS:
        text = render(m, format=format)
        assert text.endswith("\n")
    _check_html(render(m, format="html"))
    data = json.loads(render(m, format="json"))
    assert data["matrix"] == names[0]
    _validate_json(data)
    markdown = render(m, format="markdown")
    if m.features_at():
        header, rows = _markdown_table(markdown, "### Support matrix: ")
        assert len(rows) == len(m.features_at())
        assert all(len(r) == len(header) for r in rows)
    else:
        assert "\nNo gate is in force at this version.\n" in markdown
    assert _docutils_warnings(render(m, format="rst")) == ""


# --- the command line -------------------------------------------------------------------

def call(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


PROSE = "# Title\r\n\r\nBefore, with trailing spaces   \r\n<!-- matrix:begin -->\r\nold\r\n<!-- matrix:end -->\r\nAfter\r\n"


def test_inject_changes_only_the_marked_region(tmp_path):
    page = tmp_path / "page.md"
    page.write_bytes(PROSE.encode())
    status, out, err = call("docs", "--matrix", str(DATA / "valid" / "kitchen_sink.toml"), "--inject", str(page))
    assert (status, out, err) == (0, "", "")
    after = page.read_bytes().decode()
    head, _, rest = after.partition("<!-- matrix:begin -->\r\n")
    body, _, tail = rest.partition("<!-- matrix:end -->\r\n")
    assert head == "# Title\r\n\r\nBefore, with trailing spaces   \r\n"
    assert tail == "After\r\n"
    expected = render(KITCHEN, format="markdown").replace("\n", "\r\n")
    assert body == "\r\n" + expected + "\r\n"
    # Fresh now: --check agrees and writes nothing.
    assert call("docs", "--matrix", str(DATA / "valid" / "kitchen_sink.toml"), "--inject", str(page), "--check") == (0, "", "")


def test_check_reports_a_stale_file_with_a_diff_and_writes_nothing(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- matrix:begin -->\nold\n<!-- matrix:end -->\n")
    status, out, err = call("docs", "--matrix", str(DATA / "valid" / "kitchen_sink.toml"), "--inject", str(page), "--check", "--table", "deprecations")
    assert status == 1
    assert page.read_text() == "<!-- matrix:begin -->\nold\n<!-- matrix:end -->\n"
    assert out.splitlines()[:5] == [
        f"--- {page} (on disk)",
        f"+++ {page} (generated)",
        "@@ -1,3 +1,17 @@",
        " <!-- matrix:begin -->",
        "-old",
    ]
    assert err == f"matrix: {page} is stale: run the same command without --check to update it\n"


def test_output_writes_whole_files_and_checks_them(tmp_path):
    target = tmp_path / "matrix.rst"
    assert call("docs", "--output", str(target), "--check")[0] == 1
    assert not target.exists()
    assert call("docs", "--output", str(target)) == (0, "", "")
    assert target.read_text() == render(DEFAULT, format="rst")
    assert call("docs", "--output", str(target), "--check") == (0, "", "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("no markers\n", "page.md: no '<!-- matrix:begin -->' marker line: add one '<!-- matrix:begin -->' line and one '<!-- matrix:end -->' line"),
        ("<!-- matrix:begin -->\n", "page.md: no '<!-- matrix:end -->' marker line: add one '<!-- matrix:begin -->' line and one '<!-- matrix:end -->' line"),
        ("<!-- matrix:begin -->\n<!-- matrix:begin -->\n<!-- matrix:end -->\n", "page.md: '<!-- matrix:begin -->' stands 2 times (lines 1, 2); keep one"),
        ("<!-- matrix:end -->\n<!-- matrix:begin -->\n", "page.md: '<!-- matrix:end -->' (line 1) comes before '<!-- matrix:begin -->' (line 2)"),
    ],
)
def test_broken_markers_exit_2_and_leave_the_file_alone(tmp_path, monkeypatch, content, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "page.md").write_text(content)
    assert call("docs", "--matrix", "default", "--inject", "page.md") == (2, "", f"matrix: error: {message}\n")
    assert (tmp_path / "page.md").read_text() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_rst_files_use_rst_markers(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text("Title\n=====\n\n.. matrix:begin\n\n.. matrix:end\n\nEnd.\n")
    assert call("docs", "--inject", str(page), "--matrix", str(DATA / "valid" / "kitchen_sink.toml"))[0] == 0
    assert _docutils_warnings(page.read_text()) == ""
    assert page.read_text().startswith("Title\n=====\n\n.. matrix:begin\n\n.. Generated by `matrix docs`")


def test_a_failure_while_rendering_leaves_the_target_untouched(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text(PROSE)
    from matrix import _docs_text

    def broken(doc, tables, symbols):
        raise RuntimeError("renderer broke")

    monkeypatch.setattr(_docs_text, "markdown", broken)
    with pytest.raises(RuntimeError, match="renderer broke"):
        call("docs", "--inject", str(page))
    assert page.read_bytes() == PROSE.encode()


def test_a_failure_while_writing_leaves_the_target_untouched(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text(PROSE)

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    status, out, err = call("docs", "--inject", str(page))
    assert (status, out) == (2, "")
    assert err == f"matrix: error: Cannot write {page}: No space left on device\n"
    assert page.read_bytes() == PROSE.encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_docs_usage_errors(tmp_path):
    assert call("docs", "--check") == (2, "", "matrix: error: --check compares with a file: give --output FILE or --inject FILE\n")
    assert call("docs", "--inject", str(tmp_path / "x.json")) == (2, "", "matrix: error: --inject puts tables into a page: use --format markdown, rst or html\n")
    assert call("docs", "--inject", str(tmp_path / "missing.md")) == (2, "", f"matrix: error: {tmp_path / 'missing.md'}: no such file to inject into\n")
    status, _, err = call("docs", "--output", "a", "--inject", "b")
    assert status == 2 and err == "matrix: error: argument --inject: not allowed with argument --output\n"


def test_groups_are_headings_over_their_features_and_ungrouped_features_come_last():
    text = render(DEFAULT, format="markdown", tables=["support"], version="0.30.0")
    _, rows = _markdown_table(text, "### Support matrix: vLLM model runners 0.30.0")
    headings = [r[0] for r in rows if r[0].startswith("**")]
    assert headings == ["**Compilation and CUDA graphs**", "**Parallelism**", "**Speculative decoding**",
                        "**Dual batch overlap**", "**Models and sampling**", "**Platform**"]
    under = {}
    current = None
    for r in rows:
        if r[0].startswith("**"):
            current = r[0].strip("*")
        else:
            under.setdefault(current, []).append(_plain_name(r[0]))
    for feature in DEFAULT.features_at("0.30.0"):
        assert feature.name in under[feature.group]
    data = json.loads(render(DEFAULT, format="json", tables=["support"]))
    assert {f["id"]: f["group"] for f in data["features"]}["dbo_lora"] == "Dual batch overlap"
    m = matrix.loads('[matrix]\nname = "g"\nversion = "1"\n[features.a]\nname = "A"\nwhen = "x"\nsupport.default = "yes"\n'
                     '[features.b]\nname = "B"\nwhen = "y"\ngroup = "Kernels"\nsupport.default = "no"\n',
                     runners={"r": {"name": "R", "priority": 1}})
    lines = render(m, format="markdown", tables=["support"]).splitlines()
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("| Feature")):]
    assert table[2:6] == ["| **Kernels** | | | |", "| B | `y` | ❌ no |  |", "| **Other features** | | | |",
                          "| A | `x` | ✅ yes |  |"]
    plain = render(m.__class__(m.name, m.version, m.runners, tuple(attrs.evolve(f, group=None) for f in m.features),
                               m.schema), format="markdown", tables=["support"])
    assert "**" not in plain  # a matrix without groups keeps the plain layout


def test_the_runners_table_in_every_format():
    text = render(DEFAULT, format="markdown", tables=["runners"])
    assert text.splitlines()[2:8] == [
        "### Runners: vLLM model runners", "",
        "| Runner | Name | Priority | Description | Links |", "|---|---|---|---|---|",
        "| `v2` | Model Runner V2 | 20 | The preferred GPU model runner: the default for all models since vLLM PR "
        "#53183 | [link 1](<https://github.com/vllm-project/vllm/pull/53183>) |",
        "| `v1` | Model Runner V1 | 10 | The fallback GPU model runner, itself deprecated upstream; chosen when "
        "something blocks V2 |  |",
    ]
    assert json.loads(render(DEFAULT, format="json", tables=["runners"]))["runners"][0] == {
        "id": "v2", "name": "Model Runner V2", "priority": 20,
        "description": "The preferred GPU model runner: the default for all models since vLLM PR #53183",
        "links": ["https://github.com/vllm-project/vllm/pull/53183"]}
    assert _docutils_warnings(render(DEFAULT, format="rst", tables=["runners"])) == ""
    page = render(DEFAULT, format="html", tables=["runners"])
    assert '<meta name="viewport" content="width=device-width, initial-scale=1" />' in page
    assert '<tr><th scope="row"><code>v2</code></th><td>Model Runner V2</td><td>20</td>' in page
    assert "<p><em>Generated" not in page  # the banner is an HTML comment only


_REMOVED = matrix.loads(
    '[matrix]\nname = "r"\nversion = "2.0"\n[config]\n"x" = "bool"\n"y" = "bool"\n'
    '[features.a]\nname = "A"\nwhen = "x"\nsupport = { r = "yes", s = "no" }\n'
    'deprecated = { since = "1.0", remove_in = "2.0", removed = true, replacement = "y" }\n'
    '[features.b]\nname = "B"\nwhen = "y"\nsupport = { r = "yes", s = "yes" }\n',
    runners={"r": {"name": "R", "priority": 2}, "s": {"name": "S", "priority": 1}})
_REMOVED_MEANING = "the feature no longer exists; a config that uses it is refused before any runner is chosen"


def test_a_removed_gate_says_removed_for_every_runner_in_every_format():
    # resolve() refuses a config that uses it before any runner is chosen: no runner's column
    # may say yes (every one did, whatever the runners had said before the removal).
    with pytest.raises(RemovedFeatureError):
        _REMOVED.resolve({"x": True, "y": False}, runner="r")
    lines = render(_REMOVED, format="markdown", tables=["support"]).splitlines()
    assert lines[4] == f"Legend: ✅ yes: supported · ⛔ removed: {_REMOVED_MEANING}"
    assert lines[8] == "| A | `x` | ⛔ removed since 2.0 | ⛔ removed since 2.0 | deprecated in 1.0 · removed in 2.0 · use y |"
    before = render(_REMOVED, format="markdown", tables=["support"], version="1.5").splitlines()
    assert before[8] == "| A | `x` | ✅ yes | ❌ no | deprecated in 1.0 · removed in 2.0 · use y |"
    assert render(_REMOVED, format="markdown", tables=["support"], symbols=False).splitlines()[8] == (
        "| A | `x` | removed since 2.0 | removed since 2.0 | deprecated in 1.0 · removed in 2.0 · use y |")
    rst = render(_REMOVED, format="rst", tables=["support"])
    assert rst.splitlines()[15:20] == ["   * - A", "     - ``x``", "     - ⛔ removed since 2.0", "     - ⛔ removed since 2.0",
                                       "     - deprecated in 1.0 · removed in 2.0 · use y"]
    assert _docutils_warnings(rst) == ""
    removed = (f'<td class="cell status-removed"><span title="removed: {_REMOVED_MEANING}"><span aria-hidden="true">⛔'
               '</span> <span class="word">removed</span></span> since 2.0</td>')
    page = render(_REMOVED, format="html", tables=["support"], standalone=False).splitlines()
    assert page[page.index('<th scope="row" id="feature-a">A</th>') + 2:][:2] == [removed, removed]
    data = json.loads(render(_REMOVED, format="json", tables=["support"]))
    _validate_json(data)
    cell = {"status": "removed", "note": None, "link": None, "since": "2.0",
            "history": [{"status": "removed", "since": "2.0", "note": None, "link": None}]}
    assert data["features"][0]["support"] == {"r": cell, "s": cell}
    assert data["legend"][-1] == {"status": "removed", "symbol": "⛔", "meaning": _REMOVED_MEANING}


def test_the_runners_table_shows_former_ids_and_redirects_in_every_format():
    from tests.test_resolver import SGLANG, SGLANG_RUNNERS

    m = matrix.loads(SGLANG, runners=SGLANG_RUNNERS)
    text = render(m, tables=["runners"], standalone=False)
    assert text.splitlines()[4:12] == [
        "| Runner | Name | Priority | Description | Links | Former ids | Redirects |",
        "|---|---|---|---|---|---|---|",
        "| `fa3` | FlashAttention 3 | 40 |  |  |  | to `triton` when `kv_cache_dtype == 'fp8_e5m2'` |",
        "| `triton` | Triton | 30 |  |  |  | to `torch_native` when `kv_cache_dtype == 'fp8_e5m2'` |",
        "| `intel_amx` | Intel AMX | 20 |  |  |  | to `torch_native` when `not has_amx` |",
        "| `torch_native` | Torch native | 10 |  |  |  |  |",
        "| `dsa` | DSA | 5 |  |  | `nsa` (deprecated since 0.5, to be removed in 2.0); `old_dsa` (removed in 0.8) |  |",
        "",
    ]
    assert "<td><code>nsa</code> (deprecated since 0.5, to be removed in 2.0); <code>old_dsa</code> (removed in 0.8)</td>" \
        in render(m, format="html", tables=["runners"], standalone=False)
    assert "     - to ``triton`` when ``kv_cache_dtype == 'fp8_e5m2'``\n" in render(m, format="rst", tables=["runners"])
    data = json.loads(render(m, format="json", tables=["runners"]))
    _validate_json(data)
    assert data["runners"][0]["redirects"] == [{"to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'", "message": None,
                                                "since": None, "until": None}]
    assert data["runners"][4]["aliases"][1] == {"id": "old_dsa", "since": "0.3", "remove_in": "0.8", "removed": True,
                                                "message": None}
    # Before a former id's deprecation, and a redirect outside its window, as the version says.
    windowed = {**SGLANG_RUNNERS, "fa3": {"name": "FlashAttention 3", "priority": 40, "redirects": [
        {"to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'", "since": "0.9"}]}}
    early = render(matrix.loads(SGLANG, runners=windowed), tables=["runners"], version="0.4", standalone=False)
    assert "| `fa3` | FlashAttention 3 | 40 |  |  |  |  |" in early.splitlines()
    assert "| `dsa` | DSA | 5 |  |  | `nsa` (deprecated from 0.5); `old_dsa` (deprecated since 0.3, to be removed in 0.8) |  |" \
        in early.splitlines()
    # A matrix with neither has neither column, nor the JSON keys.
    assert "Former ids" not in render(KITCHEN, tables=["runners"])
    assert "aliases" not in json.loads(render(KITCHEN, format="json", tables=["runners"]))["runners"][0]

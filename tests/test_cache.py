"""The cache of loaded matrices (matrix._cache): what it saves never changes an answer."""

import os
import pathlib
import pickle
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import matrix
import matrix._compile
from matrix import _cache
from matrix._compile import plan
from matrix.schema import named_versions
from matrix.strategies import _matrix_texts, _toml, configs

ROOT = pathlib.Path(__file__).parent.parent
DATA = ROOT / "tests" / "data"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("MATRIX_CACHE_DIR", str(folder))
    return folder


def _entries(folder):
    """The cache folder's entries (and temporary files), not the engine hash it keeps
    (``engine-*.txt``, `test_the_engine_hash_is_kept_under_the_sources_sizes_and_times`)."""
    return sorted(p for p in folder.iterdir() if not p.name.startswith("engine-"))


def test_the_engine_hash_is_kept_under_the_sources_sizes_and_times(cache, monkeypatch):
    """A new process reads the package's source only when a module changed (issue 29: hashing
    it was 2.6 ms of a cached first resolve); a kept hash others could have written is not read."""
    monkeypatch.setattr(_cache, "_engine", None)
    monkeypatch.setenv("MATRIX_CACHE_DIR", "")  # off: the hash of the source itself
    whole = _cache.engine()
    monkeypatch.setenv("MATRIX_CACHE_DIR", str(cache))
    monkeypatch.setattr(_cache, "_engine", None)
    assert _cache.engine() == whole
    [memo] = [p for p in cache.iterdir() if p.name.startswith("engine-")]
    assert (memo.read_text(), oct(memo.stat().st_mode & 0o777)) == (whole, "0o600")
    memo.write_text("0" * 128)
    monkeypatch.setattr(_cache, "_engine", None)
    assert _cache.engine() == "0" * 128  # the kept hash is what is read
    memo.chmod(0o666)
    monkeypatch.setattr(_cache, "_engine", None)
    assert _cache.engine() == whole
    assert (memo.read_text(), oct(memo.stat().st_mode & 0o777)) == (whole, "0o600")


def _write(folder, text, runners):
    (folder / "runners").mkdir(parents=True, exist_ok=True)
    (folder / "features.toml").write_text(text)
    for id, table in runners.items():
        (folder / "runners" / f"{id}.toml").write_text("".join(f"{k} = {_toml(v)}\n" for k, v in table.items()))
    return folder / "features.toml"


def _answers(m, config, version=None):
    try:
        r = m.resolve(config, version=version)
        return r.to_dict(), r.explain()
    except matrix.MatrixError as error:
        return type(error).__name__, str(error)


def test_a_second_load_comes_from_the_cache_and_equals_the_first(cache, monkeypatch):
    path = ROOT / "features.toml"
    first = matrix.load(path)
    [entry] = _entries(cache)
    assert entry.name == _cache.key(str(path), path.read_text()).partition("-")[0] + ".pickle"
    assert oct(entry.stat().st_mode & 0o777) == "0o600" and oct(cache.stat().st_mode & 0o777) == "0o700"

    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed although the cache holds the matrix")

    monkeypatch.setattr(matrix.loader._Builder, "build", no_parsing)
    second = matrix.load(path)
    assert second == first and second is not first
    assert type(second._engine.code[plan(first, first.version).source]) is bytes  # the fast path came with it


@pytest.mark.parametrize("collecting", [True, False])
def test_an_entry_is_read_with_the_collector_off_and_leaves_it_as_it_was(cache, monkeypatch, collecting):
    """Unpickling makes thousands of objects and no garbage: the cyclic collector is off while an
    entry is read (issue 29, cold start), then as the host had it, also when reading fails."""
    import gc

    path = ROOT / "features.toml"
    first = matrix.load(path)
    seen = []
    real = _cache._unpickle

    def watched(handle):
        seen.append(gc.isenabled())
        return real(handle)

    monkeypatch.setattr(_cache, "_unpickle", watched)
    (gc.enable if collecting else gc.disable)()
    try:
        assert matrix.load(path) == first
        assert (seen, gc.isenabled()) == ([False], collecting)

        def failing(handle):
            seen.append(gc.isenabled())
            raise pickle.UnpicklingError("truncated")

        monkeypatch.setattr(_cache, "_unpickle", failing)
        assert matrix.load(path) == first  # loaded from the file: the entry could not be read
        assert (seen, gc.isenabled()) == ([False, False], collecting)
    finally:
        gc.enable()


def test_a_cached_matrix_compiles_no_plan_at_any_release_it_names(cache, monkeypatch):
    """The entry holds the compiled fast path of every release the file names, so a host that
    resolves as of an older one (``version="0.31.0"``) compiles nothing in a new process
    (issue 29, item 2); a version between two named releases shares its release's code."""
    path = ROOT / "features.toml"
    first = matrix.load(path)

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled although the cache holds the code")

    second = matrix.load(path)
    monkeypatch.setattr(matrix._compile, "compile", no_compiling, raising=False)
    config = {"cache_config": {"mamba_cache_mode": "align"}}
    assert [str(v) for v in named_versions(second)] == ["0.30.0", "0.31.0", "0.32.0", "0.33.0"]
    for version in ("0.30.0", "0.31.0", "0.31.5", "0.32.0", None):
        assert _answers(second, config, version) == _answers(first, config, version)
    assert _answers(second, {"cache_config": {"mamba_cache_mode": "all"}}) == _answers(
        first, {"cache_config": {"mamba_cache_mode": "all"}})


def test_a_cached_matrix_generates_no_plan_at_any_release_it_names(cache, monkeypatch):
    """The entry holds what each named release's plan is made of (`matrix._compile.Parts`), so a
    new process assembles the plan without generating the evaluator's source again (10 ms of a
    first resolve on the default matrix before; issue 29, item 2), as of 0.31.0 too; the plan
    assembled answers as the one generated, and its gates are the matrix's own objects."""
    path = ROOT / "features.toml"
    first = matrix.load(path)

    def no_generating(*args, **kwargs):
        raise AssertionError("generated although the cache holds the plan's parts")

    second = matrix.load(path)
    monkeypatch.setattr(matrix._compile._Generator, "module", no_generating)
    config = {"cache_config": {"mamba_cache_mode": "align"}, "speculative_config": {"method": "suffix"}}
    for version in ("0.30.0", "0.31.0", "0.32.0", None):
        assert _answers(second, config, version) == _answers(first, config, version)
    assembled = plan(second, second.version)
    assert assembled.source == plan(first, first.version).source
    assert all(any(g is f for f in second.features) for g in assembled.features if g.origin is None)
    assert second._engine.parts == {}  # each taken out when its plan was assembled


def test_the_names_every_evaluator_is_given_are_the_engines_own():
    assert tuple(matrix._compile._fixed(None, (), {})) == matrix._compile._FIXED


def test_an_edited_runner_file_or_features_file_makes_the_entry_stale(cache, tmp_path):
    path = _write(tmp_path / "m", (ROOT / "features.toml").read_text(),
                  {"v1": {"name": "Model Runner V1", "priority": 10}, "v2": {"name": "Model Runner V2", "priority": 20}})
    assert matrix.load(path).runner("v2").priority == 20
    (tmp_path / "m" / "runners" / "v2.toml").write_text('name = "Model Runner V2"\npriority = 5\n')
    assert matrix.load(path).runner("v2").priority == 5
    (tmp_path / "m" / "runners" / "v3.toml").write_text('name = "V3"\npriority = 30\n')
    with pytest.raises(matrix.LoadError):  # v3 has no cell in the features: the new file is read
        matrix.load(path)
    (tmp_path / "m" / "runners" / "v3.toml").unlink()
    path.write_text(path.read_text().replace('name = "vLLM model runners"', 'name = "edited"'))
    assert matrix.load(path).name == "edited"
    assert len(_entries(cache)) == 1  # one entry per file: the edit replaced it


def test_a_read_only_or_unusable_cache_folder_only_means_nothing_is_saved(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    monkeypatch.setenv("MATRIX_CACHE_DIR", str(folder))

    def read_only(*args, **kwargs):  # what a read-only folder answers (tests may run as root)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.mkstemp", read_only)
    assert matrix.load(ROOT / "features.toml").name == "vLLM model runners"
    assert _entries(folder) == []
    monkeypatch.undo()
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv("MATRIX_CACHE_DIR", str(blocked))
    assert matrix.load(ROOT / "features.toml").name == "vLLM model runners"
    monkeypatch.setenv("MATRIX_CACHE_DIR", "")  # off
    assert _cache.folder() is None
    assert matrix.load(ROOT / "features.toml").name == "vLLM model runners"


def test_entries_that_are_corrupt_foreign_or_writable_by_others_are_not_read(cache):
    path = ROOT / "features.toml"
    matrix.load(path)
    [entry] = _entries(cache)
    key = _cache.key(str(path), path.read_text())
    entry.chmod(0o666)
    assert _cache.get(key, str(ROOT)) is None  # others could have written it: a pickle runs code when read
    entry.chmod(0o600)
    assert _cache.get(key, str(ROOT)) is not None
    entry.write_bytes(entry.read_bytes()[:100])
    assert _cache.get(key, str(ROOT)) is None
    entry.write_bytes(pickle.dumps({"key": "another", "matrix": None}))
    assert _cache.get(key, str(ROOT)) is None
    assert matrix.load(path).name == "vLLM model runners"  # and the load rebuilds the entry
    assert _cache.get(key, str(ROOT)) is not None


def test_entries_unused_for_30_days_are_removed_when_another_is_written(cache):
    matrix.load(ROOT / "features.toml")
    [old] = _entries(cache)
    month_ago = old.stat().st_mtime - _cache.MAX_AGE_SECONDS - 60
    os.utime(old, (month_ago, month_ago))
    (cache / ".entry-left.tmp").write_bytes(b"")
    os.utime(cache / ".entry-left.tmp", (month_ago, month_ago))
    matrix.load(DATA / "valid" / "kitchen_sink.toml")
    assert [p.name for p in _entries(cache)] == [
        _cache.key(str(DATA / "valid" / "kitchen_sink.toml"), (DATA / "valid" / "kitchen_sink.toml").read_text())
        .partition("-")[0] + ".pickle"]


def test_an_entry_is_keyed_by_the_python_running_it(cache, monkeypatch):
    text = (ROOT / "features.toml").read_text()
    before = _cache.key("features.toml", text)
    monkeypatch.setattr(_cache, "_engine", None)
    monkeypatch.setattr(sys.implementation, "cache_tag", "cpython-399")
    assert _cache.key("features.toml", text) != before


def test_processes_writing_the_same_entry_at_once_leave_one_whole_entry(cache, tmp_path):
    code = f"import matrix; print(matrix.load({str(ROOT / 'features.toml')!r}).resolve({{}}).runner)"
    env = {**os.environ, "MATRIX_CACHE_DIR": str(cache)}
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(6)]
    assert [p.communicate()[0] for p in procs] == ["v2\n"] * 6
    assert [p.name for p in _entries(cache) if not p.name.startswith(".")] == [
        _cache.key(str(ROOT / "features.toml"), (ROOT / "features.toml").read_text()).partition("-")[0] + ".pickle"]
    assert [p.name for p in cache.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    assert _cache.get(_cache.key(str(ROOT / "features.toml"), (ROOT / "features.toml").read_text()), str(ROOT)) is not None


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_cached_and_uncached_loads_of_random_matrices_agree(tmp_path_factory, monkeypatch, data):
    folder = tmp_path_factory.mktemp("random")
    monkeypatch.setenv("MATRIX_CACHE_DIR", str(folder / "cache"))
    text, runners = data.draw(_matrix_texts(4))
    path = _write(folder, text, runners)
    fresh = matrix.load(path)  # built, and saved
    cached = matrix.load(path)  # from the entry
    monkeypatch.setenv("MATRIX_CACHE_DIR", "")
    uncached = matrix.load(path)
    assert cached == uncached == fresh
    assert (hash(cached), repr(cached)) == (hash(uncached), repr(uncached)) == (hash(fresh), repr(fresh))
    for config in data.draw(st.lists(configs(uncached), min_size=1, max_size=5)):
        version = data.draw(st.sampled_from([None, "0.9", "1.0", "1.2", "2.0"]))
        assert _answers(cached, config, version) == _answers(uncached, config, version)


def test_a_cached_load_and_the_cli_import_only_what_they_need(cache):
    """`import matrix` and an answer from the cache need no TOML reader, no cattrs, no parser, no
    renderer and no JSON (the cold-start figures of benchmarks/coldstart.py depend on it); nor
    does `import matrix` need the adjustments' module (`Adjusted`) or the words of the file
    format, nor do they need the package's sentences (`matrix._messages`, imported when
    something is said: issue 29)."""
    path = str(ROOT / "features.toml")
    matrix.load(path)  # the entry
    code = (
        "import io, sys\n"
        "import matrix\n"
        "after_import = set(sys.modules)\n"
        f"assert matrix.load({path!r}).resolve({{}}).runner == 'v2'\n"
        "from matrix._deferred import imported\n"
        "print(imported('matrix._messages'))\n"
        "from matrix.cli import run\n"
        f"assert run(['resolve', '--matrix', {path!r}, '--version', '0.31.0', '--set', 'cache_config.mamba_cache_mode=all'],"
        " stdout=io.StringIO(), stderr=sys.stderr) == 0\n"
        "print(sorted(after_import & {'cattrs', 'tomllib', 'tomli', 'matrix._adjust', 'matrix._format'}))\n"
        "print(sorted(set(sys.modules) & {'cattrs', 'tomllib', 'tomli', 'json', 'matrix._parser', 'matrix._tokenizer',"
        " 'matrix._converter', 'matrix.render', 'matrix.check', 'matrix.strategies', 'hypothesis', 'hashlib'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "MATRIX_CACHE_DIR": str(cache)},
                          capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "False\n[]\n[]\n"


def test_the_sentences_imported_when_first_said_are_one_module_for_every_importer():
    """`matrix._messages` runs when first read, in the object every module of the package holds
    (`matrix._deferred`): modules imported before and after that read hold the same module, so
    that a patch of a sentence reaches every one and `importlib.reload` works (a first version
    copied the names into a second object; found by review)."""
    code = (
        "import importlib, sys\n"
        "import matrix, matrix._load_header as early\n"
        "from matrix._deferred import imported\n"
        "before = imported('matrix._messages')\n"
        "said = early._messages.did_you_mean('pandaz', ['pandas'])\n"
        "import matrix._check_adjust as late\n"
        "print(before, said, early._messages is late._messages is sys.modules['matrix._messages'] is matrix._messages,"
        " type(early._messages).__name__, importlib.reload(early._messages) is early._messages)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "False , did you mean 'pandas' True module True\n"


def test_the_gates_derived_from_runner_requirements_need_no_parser(cache):
    """A cached matrix whose runners have requirements, candidacies and orders (the attention
    example) builds the gates derived from them without parsing: they are composed as trees."""
    path = str(ROOT / "examples" / "vllm-attention" / "features.toml")
    m = matrix.load(path)  # the entry
    derived = [g.id for g in m.gates_at() if g.origin is not None]
    code = (
        "import sys\n"
        "import matrix\n"
        f"m = matrix.load({path!r})\n"
        "print(len([g for g in m.gates_at() if g.origin is not None]))\n"
        "print(sorted(set(sys.modules) & {'matrix._parser', 'matrix._tokenizer', 'matrix._typecheck', 'cattrs'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "MATRIX_CACHE_DIR": str(cache)},
                          capture_output=True, text=True)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", f"{len(derived)}\n[]\n")


def test_a_composed_matrix_comes_from_the_cache_until_a_file_it_was_made_of_changes(cache, tmp_path, monkeypatch):
    """The cache knows the overlay files (issue 31): the files given are the key; each file the
    composition read (upstream's features.toml and runner files, the overlay a chain extends)
    is in the entry, and a change to any makes it stale."""
    upstream = _write(tmp_path / "m", (ROOT / "features.toml").read_text(),
                      {"v1": {"name": "Model Runner V1", "priority": 10}, "v2": {"name": "Model Runner V2", "priority": 20}})
    first = tmp_path / "a.toml"
    first.write_text('[overlay]\nname = "a"\nextends = "m/features.toml"\n\n'
                     '[change.runners.v2]\npriority = 5\nwhy = "A lowers V2"\n')
    second = tmp_path / "b.toml"
    second.write_text('[overlay]\nname = "b"\nextends = "a.toml"\n')
    built = matrix.load(second)
    assert (built.name, built.runner("v2").priority, built.resolve({}).runner) == ("b", 5, "v1")
    build = matrix.loader._Builder.build

    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed although the cache holds the matrix")

    monkeypatch.setattr(matrix.loader._Builder, "build", no_parsing)
    cached = matrix.load(second)
    assert cached == built and cached is not built and cached.overlay == built.overlay
    monkeypatch.setattr(matrix.loader._Builder, "build", build)
    listed = matrix.load(upstream, [first])
    monkeypatch.setattr(matrix.loader._Builder, "build", no_parsing)
    assert matrix.load(upstream, [first]) == listed
    monkeypatch.setattr(matrix.loader._Builder, "build", build)
    # The overlay the given one extends, edited: stale.
    first.write_text(first.read_text().replace("priority = 5", "priority = 7"))
    assert matrix.load(second).runner("v2").priority == 7
    assert matrix.load(upstream, [first]).runner("v2").priority == 7
    # Upstream's features.toml, edited; a runner file, edited: stale.
    upstream.write_text(upstream.read_text().replace('name = "speculative method \'suffix\'"', 'name = "edited"'))
    assert matrix.load(second).feature("spec_suffix").name == "edited"
    (tmp_path / "m" / "runners" / "v1.toml").write_text('name = "Model Runner V1"\npriority = 30\n')
    assert matrix.load(second).resolve({}).runner == "v1" and matrix.load(second).runner("v1").priority == 30
    # The same overlay text under the same name, read from another folder whose upstream has the
    # same runner files and whose first overlay differs: another file, not the entry of the first.
    other = tmp_path / "other"
    import shutil

    shutil.copytree(tmp_path / "m", other / "m")
    (other / "a.toml").write_text(first.read_text().replace("priority = 7", "priority = 3"))
    (other / "b.toml").write_text(second.read_text())
    for folder, priority in ((tmp_path, 7), (other, 3), (tmp_path, 7)):
        monkeypatch.chdir(folder)
        assert matrix.load("b.toml").runner("v2").priority == priority


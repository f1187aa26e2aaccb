"""Deterministic guards of what the benchmarks measure, so that a cost can fail CI without
timing anything (timings on a shared 2-core machine are noise). Each figure is pinned to its
exact value: a change that raises it on purpose updates the number and the comment beside it
(what raised it, and why it is worth it). The third guard, the modules that ``import matrix``
and a cached ``resolve`` import, is in tests/test_cache.py
(test_a_cached_load_and_the_cli_import_only_what_they_need).

Each figure is taken in a new process, so that nothing an earlier test imported or warmed
counts; the classes and calls counted are matrix's own (the generated plan included), which
the Python version does not change.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import gc, json, os, re, sys
import attrs

patterns = []
real_compile = re._compile


def compiling(pattern, flags):
    if sys._getframe(2).f_globals.get("__name__", "").split(".")[0] == "matrix":
        patterns.append(str(pattern))
    return real_compile(pattern, flags)


re._compile = compiling
import matrix
re._compile = real_compile

gc.collect()  # attrs' slotted classes replace the classes they were made from: count the survivors
ours = [t for t in gc.get_objects() if isinstance(t, type) and t.__module__.split(".")[0] == "matrix"]
classes = sorted(f"{t.__module__}.{t.__qualname__}" for t in ours)
built = sorted(f"{t.__module__}.{t.__qualname__}" for t in ours if attrs.has(t))
generated = sorted(f"{t.__qualname__}.{name}" for t in ours for name, member in vars(t).items()
                   if getattr(getattr(member, "__code__", None), "co_filename", "").startswith("<attrs generated"))

config = {"speculative_config": {"method": "suffix"}, "parallel_config": {"tensor_parallel_size": 2}}
matrix.resolve(config)  # the warm-up: the default matrix loaded and its plan compiled
calls = []


def count(frame, event, arg):
    if event == "call":  # a Python function's frame (C functions give "c_call")
        calls.append(f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name}")


sys.setprofile(count)
matrix.resolve(config)
sys.setprofile(None)
print(json.dumps({"classes": classes, "built": built, "generated": generated, "patterns": patterns, "calls": calls}))
"""


def _probe(tmp_path: Path) -> dict:
    import json

    env = {**os.environ, "MATRIX_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    result: dict = json.loads(done.stdout)
    return result


def test_the_classes_import_matrix_creates(tmp_path):
    # 46 (issue 29, counted as it stood): the predicate nodes (9), the schema's classes (14),
    # Predicate, the loader's (2), the errors (10), the compiled plan's (4), the resolver's (3),
    # the choice's (2), FrozenMap. A new class on the import path of `import matrix` raises it:
    # update the number and say here what raised it and what it is for.
    # 47: _operators.Operator, the record of one operator of the predicate language (issue 23).
    # 49 (issue 27, item 3): the schema's Alias and Redirect, a runner file's former ids and
    # redirects of requests.
    # 56 (issue 27): the adjustments' Adjustment and From (schema), Adjusted (_adjust), the
    # effective view Effective and its _ViewRead (_access), AdjustmentError, and the read-only
    # mapping of Resolution.effective (FrozenEffective).
    # 58 (issue 23): _derived.Derived, the engine's holder of what it derives from a matrix (the
    # plan cache that was a dict on Matrix), and _choice.Chosen, the record `choose` answers (a
    # 6-tuple read by position before).
    # 61 (issue 30, F3): the predicate nodes of arithmetic across fields, _nodes.Arith (a op b),
    # _nodes.Call (min / max) and _nodes.DerivedField (a derived field read by a predicate).
    # 62 (issue 30, F9): _adjust.Said, an adjustment that spoke and changed nothing.
    # 66 (issue 29, cold start): _record.Record, the base of the frozen slotted values that
    # replaced attrs classes on the import path (below), the two bases of nodes with the same
    # fields, _nodes._Binary (Arith, Compare) and _nodes._Junction (And, Or), and _record.Model,
    # which gives the models their equality, hashing and repr (below).
    # 64: _adjust.Adjusted and _adjust.Said, imported where an adjustment may apply (issue 29).
    # 65: _compile._Running, the conjunctions a requirement chain's gates share, each in a local
    # (issue 29: a chain's fast path was n² of source).
    # 67 (issue 30, F1): schema.Role, a role of `[roles]`, and resolver._RolesResolution, the
    # Resolution of a matrix with roles (each role's runner in one more slot).
    # 68 (issue 29, cold start): _deferred._Placeholder, which stands for matrix._messages until
    # something is said (reading and running that module was 1.3 ms of a first resolve).
    # 69 (issue 30, F6): resolver._StagedResolution, the Resolution a staged requirement's refusal
    # carries (where it refused, in one more slot).
    # 70 (issue 30, F1): resolver._RoleRefusedResolution, the Resolution a role's refusal carries
    # (which role, which runner, in one more slot).
    # 72 (issue 30, item 4): schema.Column and schema.ColumnRow, the columns table's questions and
    # rows (`[docs]`), which Matrix holds (plain `Record`s, as Role is: attrs builds neither).
    # 73: resolver._Refused, the one base of the two (staged and role refusals were two copies).
    found = _probe(tmp_path)
    assert len(found["classes"]) == 73, found["classes"]
    # Of them, the classes attrs builds, and the methods it generates and compiles for them (0.2
    # to 0.8 ms a class, most of what `import matrix` cost beyond attrs). 38 classes and 150
    # methods (issue 29, counted as it stood: each class's __init__ and __repr__, and but for
    # Plan's each one's __eq__ and __hash__): the schema's 17 classes, the predicate nodes' 12,
    # Plan, Rule, Chosen, ResolutionWarning, Operator, Adjusted, Said, Observation and Problem.
    # 21 and 21: the predicate nodes, Plan, Rule, Chosen, Operator and Said are plain slotted
    # classes (`matrix._record.Record`; Plan its own), and the models' equality, hashing and repr
    # are `matrix._record.Model`'s (attrs generates their __init__ only). 20 and 20: Adjusted is
    # made where an adjustment may apply. A class or a method attrs builds on the import path
    # raises them: say here what it is for. 21 and 21: schema.Role (issue 30, F1), a model as
    # the others are; 20 and 20 again: Role is a plain `Record` (a matrix without roles, the
    # default one, paid ~1 ms of cold start for it: benchmarks/coldstart.py).
    assert (len(found["built"]), found["generated"]) == (20, [f"{name}.__init__" for name in sorted(
        ("Adjustment", "Alias", "Deprecation", "Feature", "Field", "Forces", "From", "Matrix", "Observation",
         "Order", "Prefers", "Problem", "Redirect", "Refusal", "Requirement", "RequirementKind", "ResolutionWarning",
         "Runner", "Schema", "Statement"))]), found["generated"]


@pytest.mark.parametrize("collecting", [True, False])
def test_import_matrix_runs_with_the_collector_off_and_leaves_it_as_it_was(tmp_path, collecting):
    # Off while the package's modules run (issue 29, cold start: 2 % of a first resolve), then
    # as the host had it.
    code = (
        "import gc, sys\n"
        f"(gc.enable if {collecting} else gc.disable)()\n"
        "seen = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.startswith('matrix.'):\n"
        "            seen.append(gc.isenabled())\n"
        "sys.meta_path.insert(0, Watch())\n"
        "import matrix\n"
        "print(sorted(set(seen)), gc.isenabled(), hasattr(matrix, '_gc'))\n"
    )
    env = {**os.environ, "MATRIX_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", f"[False] {collecting} False\n")


def test_import_matrix_compiles_no_regular_expression(tmp_path):
    # 9 (issue 29, counted as it stood at 8b62205, about 1 ms of the import; packaging's own 3
    # not counted): the patterns of ids, paths and class specs (matrix._format), the 4 that turn
    # packaging's version pattern into JSON Schema's, for the loader, the editor and the CLI, and
    # the plain names of matrix._messages.place; each is compiled when first used now. None is
    # needed to resolve from a cached matrix.
    assert _probe(tmp_path)["patterns"] == []


def test_the_calls_one_cached_resolve_makes(tmp_path):
    # 36 (issue 29, counted as it stood): matrix.resolve, resolver.resolve, the plan's generated
    # evaluate, _compile._absent once per field the dict leaves out whose default is taken (31:
    # it looks for a flat dotted key), resolver._resolve_slowly (suffix decoding keeps the top
    # runner from being chosen on the integer fast path) and Resolution.__init__. A change that
    # makes resolve call more (a wrapper, a helper per gate or per field) raises it: update the
    # number and say here what raised it and what the calls buy.
    # 36 (issue 27): one more _absent, for cache_config.enable_prefix_caching, which the Mamba
    # adjustments' gates read, and one less: where no adjustment can apply, _resolve_slowly
    # builds the Resolution as the fast path does, without calling Resolution.__init__.
    # 36: the case with nothing to adjust is its own function, resolver._resolve_unadjusted,
    # called instead of _resolve_slowly (the one with adjustments).
    # 3 (issue 29): matrix.resolve, resolver.resolve and the plan's evaluate. A dict that leaves
    # a key out is looked at for a dotted key once per mapping, inside evaluate (a join of its
    # keys, no Python call: 32 _absent calls fewer), and an automatic choice already decided
    # for the mask with nothing to adjust is answered inside resolve (no _resolve_unadjusted).
    calls = _probe(tmp_path)["calls"]
    assert len(calls) == 3, calls


def test_the_calls_resolve_makes_on_each_config_run_py_times(tmp_path):
    """`Matrix.resolve` on each of benchmarks/configs.py's six configs, at the release they are
    timed at (0.30.0, a version not the default one): the figure `run.py` compares with the
    hand-written chains, counted without a clock."""
    code = (
        "import json, os, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r})\n"
        "import matrix, configs\n"
        "m = matrix.default()\n"
        "counts = []\n"
        "for config in configs.SAMPLES:\n"
        "    m.resolve(config, version=configs.VERSION)  # the warm-up: the plan assembled, the mask decided\n"
        "    calls = []\n"
        "    sys.setprofile(lambda frame, event, arg: event == 'call' and calls.append(frame.f_code.co_name))\n"
        "    m.resolve(config, version=configs.VERSION)\n"
        "    sys.setprofile(None)\n"
        "    counts.append(calls)\n"
        "print(json.dumps(counts))\n"
    )
    env = {**os.environ, "MATRIX_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    # 2 each (issue 29, counted as it stood at 3a049c4): resolver.resolve and the plan's
    # generated evaluate, whether the top runner serves (the first three configs) or an
    # automatic choice already decided for the mask answers (the other three, V1). A change
    # that makes them call more raises it: say here what it buys.
    assert json.loads(done.stdout) == [["resolve", "evaluate"]] * 6


def test_the_configs_one_remedy_search_resolves(monkeypatch):
    """The remedy of an error on the default matrix (benchmarks/remedy.py times them) resolves
    only the candidates no refusing gate rules out by the plan's masks (matrix._prune)."""
    import matrix
    import matrix.resolver

    config = {"parallel_config": {"pipeline_parallel_size": 2, "distributed_executor_backend": "external_launcher"},
              "speculative_config": {"method": "suffix"}}
    with pytest.raises(matrix.UnsupportedFeatureError) as excinfo:
        matrix.resolve(config, runner="v2")
    resolved = []
    real = matrix.resolver.resolve

    def counting(*args, **kwargs):
        resolved.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(matrix.resolver, "resolve", counting)
    found = excinfo.value.resolution.remedy("v2")
    # 6,580 (issue 27, item 4, before pruning): the user's config and every candidate changing 1
    # or 2 of the 37 paths (133 and 6,446: each path's classes; never a section and a path below
    # it), size 2 being the first with remedies. 51: the user's config, then only the 50
    # candidates that serve: 4 values of the executor backend or 1 pipeline size, each with
    # speculative_config unset or one of 9 methods (every other candidate keeps a gate that
    # refuses Model Runner V2 active, which the plan's masks tell without resolving). A change
    # that raises it makes every error message slower to read: say here what it buys.
    assert len(resolved) == 51
    assert [str(o) for o in found.options] == [
        "set parallel_config.distributed_executor_backend to one of 'ray', 'mp', 'uni', None and unset "
        "speculative_config",
        "set parallel_config.distributed_executor_backend to one of 'ray', 'mp', 'uni', None and set "
        "speculative_config.method to one of 'ngram', 'ngram_gpu', 'draft_model', 'eagle', 'eagle3', "
        "'extract_hidden_states', 'mtp', 'dflash', 'dspark'",
        "set parallel_config.pipeline_parallel_size to 1 and unset speculative_config",
        "set parallel_config.pipeline_parallel_size to 1 and set speculative_config.method to one of 'ngram', "
        "'ngram_gpu', 'draft_model', 'eagle', 'eagle3', 'extract_hidden_states', 'mtp', 'dflash', 'dspark'"]



def test_the_diffs_the_release_notes_of_one_matrix_make(monkeypatch):
    """The release notes diff each pair of consecutive releases once for as long as the matrix
    lives (matrix._docs_release, in matrix._derived): every rendering of the table, in any format
    and at any version, reads the same diffs (a diff of two releases of the default matrix takes
    about a second)."""
    import matrix
    import matrix.diff
    from matrix.render import render

    subject = matrix.load(ROOT / "features.toml")  # a matrix of its own: nothing derived yet
    diffs = []
    real = matrix.diff.diff

    def counting(old, new, *, old_version=None, new_version=None, **kwargs):
        diffs.append((str(old_version), str(new_version)))
        return real(old, new, old_version=old_version, new_version=new_version, **kwargs)

    monkeypatch.setattr(matrix.diff, "diff", counting)
    first = render(subject, format="json", tables=("release-notes",))
    render(subject, format="markdown", tables=("release-notes",))
    render(subject, format="json", version="0.32.0", tables=("release-notes",))
    # 4: before 0.30.0 (read at 0.dev0) → 0.30.0, 0.30.0 → 0.31.0, 0.31.0 → 0.32.0 and 0.32.0 →
    # 0.33.0, each once (before: each rendering diffed every pair up to its version again).
    assert diffs == [("0.dev0", "0.30.0"), ("0.30.0", "0.31.0"), ("0.31.0", "0.32.0"), ("0.32.0", "0.33.0")]
    assert render(subject, format="json", tables=("release-notes",)) == first

def test_ci_runs_every_benchmark_in_its_quick_mode():
    """Every script of benchmarks/ that is a benchmark (it has a ``__main__`` block) runs in
    .ci/run with ``--quick``, so none can rot unseen."""
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py") if 'if __name__ == "__main__":' in p.read_text())
    ci = (ROOT / ".ci" / "run").read_text()
    run = sorted(set(re.findall(r"^\.venv/bin/python benchmarks/(\w+\.py)\b[^\n]* --quick\b", ci, re.M)))
    assert run == scripts == ["attention.py", "check_sglang.py", "coldstart.py", "coverage.py", "diff.py", "generation.py",
                              "remedy.py", "run.py", "sglang.py", "versus.py"]


def test_the_peers_section_of_run_py_runs_and_checks_its_answers(tmp_path):
    """The peers of benchmarks/run.py (PEP 508 markers always; CEL and JsonLogic where the
    bench extra is installed) on the default matrix at the release the benchmarks' configs are
    for: it once resolved at the default version, where a sample's setting is removed, and
    crashed unseen."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r})\n"
        "import matrix, run, configs\n"
        "rows = run.peers(matrix.default(), configs.SAMPLES, 1, 0.001, 'default matrix', configs.VERSION)\n"
        "print(rows[0].split(' | ')[0])\n"
    )
    env = {**os.environ, "MATRIX_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr, done.stdout) == (
        0, "", "| default matrix: the 10 gates PEP 508 markers can express\n")


def test_the_chains_run_py_times_agree_with_resolve(tmp_path):
    """The hand-written chains of benchmarks/run.py pick `resolve`'s runner, and the one that
    checks what it reads raises wherever `resolve` raises a `ConfigError` (issue 29: `resolve`
    is measured against a chain that keeps its promise, beside vLLM's, which checks nothing)."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r})\n"
        "import matrix, run, configs\n"
        "print(run.check_chains(matrix.default(), configs.VERSION))\n"
    )
    env = {**os.environ, "MATRIX_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    # 105: each of the 32 fields the gates read at 0.30.0 set to 2 to 5 wrong values in turn.
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "105\n")


def test_the_calls_one_search_of_check_makes():
    """`matrix check` asks `Space.solve` thousands of questions (9,818 on the 1,000-gate synthetic
    matrix of benchmarks/): the Python calls of one, on a fixed question of the default matrix."""
    import matrix
    from matrix._space import PRESENT, Space

    m = matrix.default()
    gates = m.gates_at()
    space = Space(m.schema, [g.when.node for g in gates])
    a, b = gates[0].when.node, gates[1].when.node
    assert (gates[0].id, gates[1].id) == ("stock_torch_compile", "enable_sp_removed")
    assert space.solve(true=[a], false=[b]) is not None  # the warm-up: each node's closures made
    calls = []

    def count(frame, event, arg):
        if event == "call":
            calls.append(f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name}")

    sys.setprofile(count)
    found = space.solve(true=[a], false=[b])
    sys.setprofile(None)
    assert found == {"compilation_config": PRESENT, "compilation_config.mode": "STOCK_TORCH_COMPILE",
                     "compilation_config.pass_config": PRESENT, "compilation_config.pass_config.enable_sp": False}
    # 87 (issue 29, counted as it stood): the tree walked per evaluation (Space.truth and
    # Space.value per node, Space.lookup splitting the path per read) and the paths of each
    # goal walked per question. 58: each node's evaluation made once into closures (a read per
    # path with its sections split once, a comparison with a constant reading one value), and
    # each node's paths kept. A change that raises it slows every question check asks: say
    # here what it buys. Python 3.12 on runs a list or dict comprehension in its caller's
    # frame (PEP 709): 4 of the 58 calls are comprehensions, so it counts 54. 59 (issue 29,
    # fourth round): `Space._settles`, which asks whether a part of the question is one of its
    # own goals (the forced-freed search of the default matrix: 10,236 steps to none, now 1).
    assert len(calls) == (59 if sys.version_info < (3, 12) else 55), calls


def test_a_cached_first_resolve_reads_no_source_of_the_package(tmp_path):
    """The cache's key hashes the engine, the source of every module of the package (1 MB): a
    new process takes that hash from the cache folder, kept under the modules' sizes and times,
    so that a cached first resolve opens only the matrix's own files and its entry (issue 29: reading and
    hashing the source was 2.6 ms of it)."""
    code = (
        "import builtins, json, os\n"
        "opened = []\n"
        "real = builtins.open\n"
        "def logged(file, *args, **kwargs):\n"
        "    opened.append(os.path.relpath(str(file), os.environ['ROOT']))\n"
        "    return real(file, *args, **kwargs)\n"
        "builtins.open = logged\n"
        "import matrix\n"
        "matrix.resolve({'cache_config': {'mamba_cache_mode': 'align'}}, version='0.31.0')\n"
        "print(json.dumps(sorted(p for p in opened if not p.startswith('..'))))\n"
    )
    env = {**os.environ, "MATRIX_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), "ROOT": str(ROOT)}
    for _ in range(2):  # the first run writes the entry and the engine's hash; the second reads them
        done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert (done.returncode, done.stderr) == (0, "")
    # The matrix's file, the wheel's entry for it (absent in a checkout: its own entry is in the
    # cache folder, outside ROOT) and the runner files the entry lists with their hashes.
    assert done.stdout == '["features.toml", "matrix/_default/compiled.pickle", "runners/v1.toml", "runners/v2.toml"]\n'


def test_composing_predicates_writes_no_text_until_it_is_asked_for(monkeypatch):
    """``p & q``, ``p | q`` and ``~p`` build the tree only: the text of a composed predicate is
    written when first asked for (`Predicate.source`, `str`). The gates of a requirement chain
    of n clauses were built by n²/2 compositions (2n now: `schema._requirement_gates`); writing
    each one's text made a first resolve of a 150-clause chain take 4 s
    (tests/test_requirements.py's chain)."""
    from matrix import _nodes
    from matrix.predicates import Predicate

    written = []
    for kind in (_nodes.And, _nodes.Or, _nodes.Not):
        monkeypatch.setattr(kind, "__str__", lambda node, real=kind.__str__: written.append(type(node).__name__) or real(node))
    clauses = [Predicate(f"s.h != {i} or s.f") for i in range(1, 41)]
    gates = []
    for index, clause in enumerate(clauses):
        fails = ~clause
        for earlier in clauses[:index]:
            fails &= earlier
        gates.append(fails)
    assert written == []
    assert gates[2].source == "not (s.h != 3 or s.f) and (s.h != 1 or s.f) and (s.h != 2 or s.f)"
    assert written == ["And", "Not", "Or", "Or", "Or"]  # the tree written once, when asked for
    written.clear()
    assert gates[2] == Predicate(gates[2].source)  # then kept
    assert written == []

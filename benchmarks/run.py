"""Side-by-side benchmarks of matrix: run ``python benchmarks/run.py`` (``--quick`` for a fast
look, ``--write`` to put the table into benchmarks/README.md).

Every comparison times its contenders in one process, interleaved round by round, and reports
the median of the rounds and the ratio to the baseline: this machine is small and noisy, and
interleaving spreads the noise over all contenders alike. Times are CPU times (the thread's, and
for the process rows each new process's user and system time): on a machine shared with other
work, the wall clock also counts the time the process waited for a core, which hit the
contenders of one run unevenly (a round of one contender at three times its time, beside
another's unchanged).
"""

from __future__ import annotations

import argparse
import copy
import datetime
import functools
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import attrs  # noqa: E402

import matrix  # noqa: E402
from matrix._versions import as_version  # noqa: E402
from matrix._compile import plan  # noqa: E402

import configs as vllm_configs  # noqa: E402
import synthetic  # noqa: E402
import translate  # noqa: E402
import vllm_ifchain  # noqa: E402
import vllm_ifchain_checked  # noqa: E402


#: The clock of the in-process figures: the CPU time of this thread.
CLOCK = time.thread_time


def compare(contenders, *, samples, rounds, seconds):
    """Median seconds per sample of each contender (a function of one sample), interleaved."""
    # Size each round so that the slowest contender takes about `seconds`.
    calibration = {}
    for name, fn in contenders.items():
        start = CLOCK()
        for s in samples:
            fn(s)
        calibration[name] = max(CLOCK() - start, 1e-9) / len(samples)
    loops = max(1, int(seconds / (max(calibration.values()) * len(samples))))
    times = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = CLOCK()
            for _ in range(loops):
                for s in samples:
                    fn(s)
            times[name].append((CLOCK() - start) / (loops * len(samples)))
    return {name: statistics.median(ts) for name, ts in times.items()}


def rows(title, medians, baseline, unit=1e-6, suffix="µs"):
    base = medians[baseline]
    out = []
    for name, value in medians.items():
        out.append(f"| {title} | {name} | {value / unit:,.2f} {suffix} | {value / base:.2f}× |")
        title = ""
    return out


def _dicts(value):
    if hasattr(value, "__dict__"):
        return {k: _dicts(v) for k, v in vars(value).items()}
    return value


def _chain(features, schema):
    lines = ["def evaluate(c):", "    active = []"]
    for i, f in enumerate(features):
        lines += [f"    if {translate.python(f.when.node, schema)}:", f"        active.append({i})"]
    lines.append("    return active")
    namespace = {}
    exec("\n".join(lines) + "\n", namespace)
    return namespace["evaluate"]


def _active_ids(m, config, version=None):
    """The ids of the gates active for *config*, whether or not a runner is chosen."""
    try:
        resolution = m.resolve(config, version=version)
    except matrix.ResolutionError as error:
        resolution = error.resolution
    return [f.id for f in resolution.active]


def _answer(choose, config):
    """The runner *choose* picks for *config*, or None when it raises that none serves."""
    try:
        return choose(config)
    except (ValueError, matrix.ResolutionError) as error:
        if isinstance(error, matrix.ConfigError):
            raise
        return None


def _wrong_values(field):
    """Values of the wrong type or out of range for *field*, which `resolve` refuses."""
    if field.type == "section":
        return [5, "x", [1]]
    wrong = {"bool": [1, "yes"], "int": ["2", 2.0, True, 0], "str": ["bogus", 1],
             "list[str]": ["abc", [1], ["a", 2]]}[field.type]
    return wrong if field.nullable else wrong + [None]


def check_chains(m, version):
    """The chains' answers against `resolve`'s before they are timed: both chains pick
    `resolve`'s runner (or raise where none serves) on `configs.CHECKED` (the unchecked one on
    those with a model, which it reads unchecked), and the checked chain raises a `TypeError`
    or `ValueError` wherever `resolve` raises a `ConfigError`, each field the gates read set
    to wrong values in turn."""
    for config in vllm_configs.CHECKED:
        expected = _answer(lambda c: m.resolve(c, version=version).runner, config)
        assert _answer(vllm_ifchain_checked.choose, config) == expected, config
        if config.model_config is not None:
            assert _answer(vllm_ifchain.choose, config) == expected, config
    reading = plan(m, as_version(version)).reading
    refused = 0
    for path in plan(m, as_version(version)).paths:
        for value in _wrong_values(reading[path]):
            # A config that has every section above *path* (the third sample has a draft model).
            config = copy.deepcopy(vllm_configs.SAMPLES[2])
            *sections, name = path.split(".")
            setattr(functools.reduce(getattr, sections, config), name, value)
            try:
                m.resolve(config, version=version)
            except matrix.ConfigError:
                pass
            else:  # pragma: no cover — a wrong value resolve accepts is a broken benchmark
                raise AssertionError(f"resolve accepts {path} = {value!r}")
            try:
                vllm_ifchain_checked.choose(config)
            except (TypeError, ValueError) as error:
                assert path in str(error), (path, value, error)
            else:  # pragma: no cover
                raise AssertionError(f"the checked chain accepts {path} = {value!r}")
            refused += 1
    return refused


def peers(m, samples, rounds, seconds, label, version=None):  # noqa: C901 — each peer is optional (skipped when not installed) and checked against the others before it is timed, in one report
    """Each installed peer, on the gates of *m* (as of *version*) it can express, beside a
    hand-written chain and matrix on the same gates; every contender's answers are checked
    against the others' before any is timed."""
    out = []
    dict_samples = [_dicts(s) for s in samples]
    schema = m.schema
    features = m.features_at(version)
    try:
        from packaging.markers import Marker
    except ImportError:  # pragma: no cover
        Marker = None
    if Marker is not None:
        variables = {}
        chosen, markers = [], []
        for f in features:
            try:
                text = translate.marker(f.when.node, schema, dict(variables))
            except translate.Unsupported:
                continue
            translate.marker(f.when.node, schema, variables)
            chosen.append(f)
            markers.append(Marker(text))
        if chosen:
            envs = []
            for s in dict_samples:
                env = {}
                for path, var in variables.items():
                    value = s
                    for part in path.split("."):
                        value = None if value is None else value.get(part)
                    env[var] = "" if value is None else value
                envs.append(env)
            sub = attrs.evolve(m, features=tuple(chosen))
            chain = _chain(chosen, schema)
            pairs = list(zip(samples, envs))
            for s, env in pairs:
                expected = [chosen[i].id for i in chain(s)]
                assert _active_ids(sub, s, version) == expected, (s, expected)
                assert [f.id for f, mk in zip(chosen, markers) if mk.evaluate(env)] == expected, (env, expected)
            medians = compare({
                "hand-written if chain": lambda p: chain(p[0]),
                "matrix.resolve": lambda p: sub.resolve(p[0], version=version),
                "PEP 508 markers (packaging)": lambda p: [mk.evaluate(p[1]) for mk in markers],
            }, samples=pairs, rounds=rounds, seconds=seconds)
            out += rows(f"{label}: the {len(chosen)} gates PEP 508 markers can express", medians, "hand-written if chain")
    chain = _chain(features, schema)
    contenders = {"hand-written if chain": lambda p: chain(p[0]),
                  "matrix.resolve": lambda p: m.resolve(p[0], version=version)}
    try:
        import cel
        # One program that evaluates every gate, so the context crosses into Rust once.
        program = cel.compile("[" + ", ".join(translate.cel(f.when.node, schema) for f in features) + "]")
        contenders["CEL (common-expression-language)"] = lambda p: program.execute({"c": p[1]})
    except ImportError:
        pass
    try:
        from json_logic import jsonLogic
        rules = [translate.jsonlogic(f.when.node, schema) for f in features]
        contenders["JsonLogic (panzi-json-logic)"] = lambda p: [jsonLogic(r, p[1]) for r in rules]
    except ImportError:
        pass
    if len(contenders) > 2:
        pairs = list(zip(samples, dict_samples))
        # The peers must agree with matrix before their times mean anything.
        for s, d in pairs:
            expected = [bool(f.when.evaluate(s, schema=schema)) for f in features]
            assert [features[i].id for i in chain(s)] == _active_ids(m, s, version) == [
                f.id for f, on in zip(features, expected) if on], s
            if "CEL (common-expression-language)" in contenders:
                assert [bool(x) for x in program.execute({"c": d})] == expected
            if "JsonLogic (panzi-json-logic)" in contenders:
                assert [bool(jsonLogic(r, d)) for r in rules] == expected
        medians = compare(contenders, samples=pairs, rounds=rounds, seconds=seconds)
        out += rows(f"{label}: all {len(features)} gates, peers that express them", medians, "hand-written if chain")
    return out


def process_start(rounds):
    python = sys.executable
    commands = {
        "python -c pass": [python, "-c", "pass"],
        "python -c 'import attrs' (a dependency, the floor)": [python, "-c", "import attrs"],
        "python -c 'import matrix'": [python, "-c", "import matrix"],
        "matrix resolve --set cache_config.mamba_cache_mode=align": [python, "-m", "matrix", "resolve", "--matrix", "default", "--set", "cache_config.mamba_cache_mode=align"],
    }
    env = dict(os.environ, PYTHONPATH=str(HERE.parent))
    # "Cold process, .pyc cached": some machines set PYTHONDONTWRITEBYTECODE, which would make
    # every start compile matrix from source.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for argv in commands.values():  # warm the .pyc cache
        subprocess.run(argv, env=env, cwd="/", check=True, stdout=subprocess.DEVNULL)
    times = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(argv, env=env, cwd="/", check=True, stdout=subprocess.DEVNULL)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    return rows("process start (CPU time, cold process, .pyc cached)", medians, "python -c pass", unit=1e-3, suffix="ms")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter rounds")
    parser.add_argument("--write", action="store_true", help="write the table into benchmarks/README.md")
    parser.add_argument("--note", help="a remark for the table's header (how busy the machine was)")
    args = parser.parse_args(argv)
    rounds, seconds = (5, 0.05) if args.quick else (15, 0.2)
    load = os.getloadavg()[0]
    table = ["| benchmark | contender | median | ratio |", "|---|---|---|---|"]

    # 1. The default matrix against vLLM's hand-written chain.
    default = matrix.default()
    samples = vllm_configs.SAMPLES
    for s in samples:
        assert default.resolve(s, version=vllm_configs.VERSION).runner == vllm_ifchain.choose(s)
    check_chains(default, vllm_configs.VERSION)
    compiled = plan(default, as_version(vllm_configs.VERSION))
    medians = compare({
        "hand-written if chain (vLLM style)": vllm_ifchain.choose,
        "hand-written if chain checking what it reads": vllm_ifchain_checked.choose,
        "matrix.resolve": lambda c: default.resolve(c, version=vllm_configs.VERSION),
        "compiled gates only (no Resolution)": compiled.evaluate,
        "plain interpreter (every Predicate.evaluate)": lambda c: [f.when.evaluate(c, schema=default.schema) for f in compiled.features],
    }, samples=samples, rounds=rounds, seconds=seconds)
    table += rows(f"default matrix, {len(compiled.features)} gates, per config", medians, "hand-written if chain (vLLM style)")
    # `resolve` against the chain that does what it promises: every value a gate reads checked.
    table.append(f"|  | matrix.resolve / the chain checking what it reads | | "
                 f"{medians['matrix.resolve'] / medians['hand-written if chain checking what it reads']:.2f}× |")
    print("\n".join(table[-6:]), flush=True)

    # 2. A synthetic 1,000-gate matrix against its generated hand-written chain.
    text, runners, chain_source = synthetic.generate(1000)
    big = matrix.loads(text, runners=runners)
    namespace = {}
    exec(chain_source, namespace)
    big_samples = synthetic.configs(50)
    for s in big_samples:
        assert big.resolve(s).runner == namespace["choose"](s)
    medians = compare({
        "hand-written if chain (generated)": namespace["choose"],
        "matrix.resolve": big.resolve,
    }, samples=big_samples, rounds=rounds, seconds=seconds)
    table += rows("synthetic matrix, 1,000 gates, per config", medians, "hand-written if chain (generated)")
    print("\n".join(table[-2:]), flush=True)

    # 3. Peers, where installed.
    table += peers(default, samples, rounds, seconds, "default matrix", vllm_configs.VERSION)
    small_big = big_samples[:10]
    table += peers(big, small_big, max(3, rounds // 3), seconds, "synthetic 1,000")
    print("\n".join(table), flush=True)

    # 4. Load and compile the 1,000-gate file.
    loads_t, compile_t = [], []
    for _ in range(max(5, rounds // 2)):
        start = CLOCK()
        fresh = matrix.loads(text, runners=runners)
        middle = CLOCK()
        plan(fresh, fresh.version)
        loads_t.append(middle - start)
        compile_t.append(CLOCK() - middle)
    load_m, compile_m = statistics.median(loads_t), statistics.median(compile_t)
    table += [f"| load + compile, 1,000 gates | load (parse, check, type predicates) | {load_m * 1e3:,.1f} ms | |",
              f"| | compile (generate and build the fast path) | {compile_m * 1e3:,.1f} ms | |",
              f"| | total | {(load_m + compile_m) * 1e3:,.1f} ms | |"]

    # 6. matrix check: the default matrix, and synthetic 500- and 1,000-gate ones (target: 1,000
    # gates under 2 s).
    from matrix.check import check

    half_text, half_runners, _ = synthetic.generate(500)
    half = matrix.loads(half_text, runners=half_runners)
    for label, subject in (("default matrix", default), ("synthetic matrix, 500 gates", half),
                           ("synthetic matrix, 1,000 gates", big)):
        times = []
        for _ in range(max(3, rounds // 3)):
            start = CLOCK()
            report = check(subject)
            times.append(CLOCK() - start)
        counts = ", ".join(f"{n} {s}s" for s, n in report.counts().items())
        table.append(f"| matrix check | {label} ({counts}) | {statistics.median(times) * 1e3:,.0f} ms | |")

    # 5. Process start.
    table += process_start(max(5, rounds))

    header = [
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()} "
        f"({platform.python_implementation()}); {datetime.date.today().isoformat()}; "
        f"`python benchmarks/run.py{' --quick' if args.quick else ''}`; load average {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end (the machine's other work, which CPU times feel less than wall times would)"
        f"{'; ' + args.note if args.note else ''}.",
        "",
    ]
    result = "\n".join(header + table)
    print()
    print(result)
    if args.write:
        readme = HERE / "README.md"
        content = readme.read_text()
        begin, end = "<!-- results:begin -->", "<!-- results:end -->"
        head, _, rest = content.partition(begin)
        _, _, tail = rest.partition(end)
        readme.write_text(f"{head}{begin}\n{result}\n{end}{tail}")


if __name__ == "__main__":
    main()

"""What a new process pays before its first answer, as ratios to ``python -c "import attrs"``.

    python benchmarks/coldstart.py [REV] [--runs N] [--quick] [--cpu]

Every row is a new process, timed from start to exit; the rows run interleaved, round by
round, and each reports the median of its rounds and its ratio to ``import attrs`` (a
dependency of matrix, so the floor). "cached" rows read the matrix from the cache of loaded
matrices (`matrix._cache`, warmed before the rounds; for the default matrix the entry the
wheel ships is used when present); "uncached" rows turn the cache off (``MATRIX_CACHE_DIR=""``).
The command-line rows call ``matrix.cli.main`` as the console script does. With REV, the same
rows run against that revision's package (``git archive``), interleaved with this checkout's;
the command-line rows ask for ``--matrix default``, so REV must be one that knows it (the CLI
uses the packaged matrix only when asked since issue 24).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import synthetic  # noqa: E402
from revisions import export  # noqa: E402

CLI = "import sys; from matrix.cli import main; sys.exit(main())"
FIRST = "import matrix; matrix.resolve({'cache_config': {'mamba_cache_mode': 'align'}})"
# At a release before the newest (issue 29): the cache entry holds every release's plan, so this
# must cost what the default version does, with no plan generated at run time.
FIRST_OLDER = "import matrix; matrix.resolve({'cache_config': {'mamba_cache_mode': 'align'}}, version='0.31.0')"


def rows(big: str) -> list:
    """(title, python arguments, uses the cache) of each row."""
    load_big = f"import matrix; matrix.load({big!r}).resolve({{}})"
    return [
        ("python -c pass", ["-c", "pass"], None),
        ("import attrs", ["-c", "import attrs"], None),
        ("import matrix", ["-c", "import matrix"], None),
        ("first resolve, default matrix, cached", ["-c", FIRST], True),
        ("first resolve, default matrix, uncached", ["-c", FIRST], False),
        ("first resolve at 0.31.0, default matrix, cached", ["-c", FIRST_OLDER], True),
        ("matrix resolve --set …, cached", ["-c", CLI, "resolve", "--matrix", "default", "--set", "cache_config.mamba_cache_mode=align"], True),
        ("matrix resolve --set …, uncached", ["-c", CLI, "resolve", "--matrix", "default", "--set", "cache_config.mamba_cache_mode=align"], False),
        ("matrix resolve --version 0.31.0 --set …, cached", ["-c", CLI, "resolve", "--matrix", "default", "--version", "0.31.0",
                                                            "--set", "cache_config.mamba_cache_mode=align"], True),
        ("matrix check, default matrix", ["-c", CLI, "check", "--matrix", "default"], True),
        ("first resolve, 1,000 gates, cached", ["-c", load_big], True),
        ("first resolve, 1,000 gates, uncached", ["-c", load_big], False),
    ]


def timed(args: list, env: dict, cwd: str, cpu: bool = False) -> float:
    """The wall time of a new process, or (*cpu*) the CPU time it used (user and system, its
    children's included), which a machine shared with other work disturbs far less."""
    start, used = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True)
    elapsed, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:  # an error's time is no cold start
        raise SystemExit(f"{args} failed:\n{done.stderr.decode()}")
    if cpu:
        return (after.ru_utime - used.ru_utime) + (after.ru_stime - used.ru_stime)
    return elapsed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", nargs="?")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="one round (CI: that every row runs)")
    parser.add_argument("--cpu", action="store_true", help="time each process by the CPU time it used, not the wall")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs = 1
    work = tempfile.mkdtemp(prefix="matrix-coldstart-work-")
    text, runners, _ = synthetic.generate(1000)
    os.makedirs(os.path.join(work, "big", "runners"))
    with open(os.path.join(work, "big", "features.toml"), "w") as out:
        out.write(text)
    for id, table in runners.items():
        with open(os.path.join(work, "big", "runners", f"{id}.toml"), "w") as out:
            out.write(f'name = "{table["name"]}"\npriority = {table["priority"]}\n')
    big = os.path.join(work, "big", "features.toml")
    cwd = os.path.join(work, "cwd")  # no features.toml here: the CLI is told to use the default matrix
    os.makedirs(cwd)
    roots = {"this checkout": ROOT}
    if args.rev:
        roots = {args.rev: export(args.rev), "this checkout": ROOT}
    cache = os.path.join(work, "cache")
    envs = {}
    for name, root in roots.items():
        # Bytecode is written and read as on a user's machine (this sandbox sets
        # PYTHONDONTWRITEBYTECODE, which makes every import compile its source).
        base = {k: v for k, v in os.environ.items()
                if k not in ("PYTHONPATH", "MATRIX_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")}
        envs[name, True] = {**base, "PYTHONPATH": root, "MATRIX_CACHE_DIR": cache}
        envs[name, False] = {**base, "PYTHONPATH": root, "MATRIX_CACHE_DIR": ""}
    table = rows(big)
    for name in roots:  # warm the cache of loaded matrices and the bytecode caches before the rounds
        for _, python_args, cached in table:
            timed(python_args, envs[name, cached is not False], cwd)
    times = {(title, name): [] for title, _, _ in table for name in roots}
    for index in range(args.runs):
        for title, python_args, cached in table:
            for name in roots:
                times[title, name].append(timed(python_args, envs[name, cached is not False], cwd, args.cpu))
        print(f"round {index + 1}/{args.runs}", file=sys.stderr)
    clock = "CPU time (user and system)" if args.cpu else "wall time"
    print(f"New processes, {clock}, medians of {args.runs} interleaved rounds; ratios to `import attrs` of the "
          "same revision.\n")
    header = " | ".join(f"{name} | ratio" for name in roots)
    print(f"| row | {header} |")
    print("|---|" + "---|---|" * len(roots))
    for title, _, _ in table:
        cells = []
        for name in roots:
            median = statistics.median(times[title, name])
            floor = statistics.median(times["import attrs", name])
            cells.append(f"{median * 1000:.0f} ms | {median / floor:.2f}×")
        print(f"| {title} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()

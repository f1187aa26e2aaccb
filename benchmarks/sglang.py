"""`resolve` on SGLang's attention-backend matrix (`examples/sglang-attention/`) against SGLang's
resolution written as plain Python (`tests/sglang_attention_reference.py`), side by side in one
process, interleaved round by round; then `matrix check` on the example, timed with a timeout.

    python benchmarks/sglang.py [--rounds N] [--quick] [--check-timeout SECONDS] [--base REV]

The configs are §10's 16 worked examples and 16 of the seeded random draw the test compares
(`tests/test_sglang_attention.py`), each the nested dict the host would pass. Both contenders
answer the whole question, as the test compares it: the three backends or the refusal, every
adjustment and every warning; each config's answers are checked to agree (the test's own
comparison) before anything is timed. With ``--base REV``, REV's package (``git archive``, imported
as ``matrix_base``: `revisions.export`) resolves the same configs in the same rounds, its answers
checked to be this checkout's (the runners or the error and its message). `matrix check` runs in a process of its own (`matrix check
--matrix …`), stopped at the timeout: the row says how long it ran, and whether it finished.
"""

import argparse
import importlib
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import revisions  # noqa: E402
from run import compare, rows  # noqa: E402
from tests import sglang_attention_reference as reference  # noqa: E402
from tests import test_sglang_attention as comparison  # noqa: E402
from tests import test_sglang_reference as worked  # noqa: E402

from matrix.errors import ResolutionError  # noqa: E402

EXAMPLE = os.path.join(ROOT, "examples", "sglang-attention", "features.toml")
DRAWN = 16


def configs():
    """§10's examples and the first *DRAWN* configs of the test's seeded draw that it compares."""
    chosen = [config for config, _ in worked.EXAMPLES.values()]
    rng = random.Random(comparison.SEED)
    while len(chosen) < len(worked.EXAMPLES) + DRAWN:
        config = comparison.random_config(rng)
        if not comparison._involved(config, reference.resolve(config)) & set(comparison.UNSAID):
            chosen.append(config)
    return chosen


def _checked(samples):
    """The samples on which the matrix answers as the transcription (the test's comparison):
    all but §10's example 12, which waits for staged redirects (the test's xfail)."""
    kept = []
    for config in samples:
        try:
            comparison._agrees(config, reference.resolve(config))
        except AssertionError:
            assert config == worked.EXAMPLES[next(name for name in comparison.WAITING)][0], config
            continue
        kept.append(config)
    return kept


def _check_time(timeout):
    """Seconds `matrix check` ran on the example, and whether it finished within *timeout*."""
    command = [sys.executable, "-m", "matrix", "check", "--matrix", EXAMPLE]
    start = time.perf_counter()
    try:
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, False
    return time.perf_counter() - start, True


def _said(answer):
    """What a contender's answer says: the runners, or the error's class name and message."""
    if isinstance(answer, Exception):
        return type(answer).__name__, str(answer)
    return answer.runner, dict(getattr(answer, "roles", {})), [w.message for w in answer.warnings]


def _base_resolve(rev, samples, resolve):
    """REV's resolve of the example (as this checkout's *resolve*), its answers checked to say
    what this checkout's say on every sample."""
    sys.path.insert(0, revisions.export(rev, package="matrix_base"))
    base = importlib.import_module("matrix_base")
    example = base.load(EXAMPLE)

    def resolve_there(config):
        try:
            return example.resolve(comparison._to_matrix(config))
        except base.errors.ResolutionError as error:
            return error

    for config in samples:
        assert _said(resolve_there(config)) == _said(resolve(config)), config
    return resolve_there


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--check-timeout", type=float, default=600.0,
                        help="stop `matrix check` after this many seconds (0: do not run it)")
    parser.add_argument("--quick", action="store_true", help="3 short rounds, no check (CI: that it runs)")
    parser.add_argument("--base", metavar="REV", help="time REV's resolve beside this checkout's, in one process")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.seconds, args.check_timeout = 3, 0.02, 0
    sglang = comparison.SGLANG

    def resolve(config):
        try:
            return sglang.resolve(comparison._to_matrix(config))
        except ResolutionError as error:
            return error

    samples = _checked(configs())
    contenders = {"SGLang's rules as plain Python": reference.resolve, "matrix.resolve": resolve}
    if args.base is not None:
        contenders[f"matrix.resolve at {args.base}"] = _base_resolve(args.base, samples, resolve)
    medians = compare(contenders, samples=samples, rounds=args.rounds, seconds=args.seconds)
    print("| benchmark | contender | median per config | ratio |")
    print("|---|---|---|---|")
    print("\n".join(rows(f"SGLang attention backends, {len(samples)} configs", medians,
                         "SGLang's rules as plain Python")))
    if args.check_timeout:
        seconds, finished = _check_time(args.check_timeout)
        said = f"{seconds:,.1f} s" if finished else f"stopped after {seconds:,.0f} s (not finished)"
        print(f"\n`matrix check` on the example: {said}")


if __name__ == "__main__":
    main()

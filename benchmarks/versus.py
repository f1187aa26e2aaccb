"""Per-call figures of this checkout against another revision, side by side in one process.

    python benchmarks/versus.py REV [--rounds N] [--quick]

The `matrix` package of REV (any git revision) is exported into a temporary folder under the
name ``matrix_base`` (the package imports itself only relatively, so both load side by side),
and `resolve` of both is timed, interleaved round by round, on the same inputs: the realistic
attribute-object configs of `configs.py`, the same configs as dicts, and the synthetic
1,000-gate matrix. Each row gives both medians and the ratio this/REV; the `if` chain of
`vllm_ifchain.py` is timed alongside as the yardstick the README's targets are stated against.
"""

import argparse
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from configs import SAMPLES, VERSION  # noqa: E402
from run import _dicts, compare  # noqa: E402
import revisions  # noqa: E402
import synthetic  # noqa: E402
from vllm_ifchain import choose  # noqa: E402


def export(rev: str) -> str:
    folder = revisions.export(rev, package="matrix_base")
    sys.path.insert(0, folder)
    return folder


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--quick", action="store_true", help="3 short rounds (CI: that it runs)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.seconds = 3, 0.02
    folder = export(args.rev)
    import matrix
    base = importlib.import_module("matrix_base")
    here_default = matrix.load(os.path.join(os.path.dirname(HERE), "features.toml"))
    base_default = base.load(os.path.join(folder, "features.toml"))
    dicts = [_dicts(s) for s in SAMPLES]
    big_text, big_runners, big_chain = synthetic.generate(1000)
    here_big = matrix.loads(big_text, runners=big_runners)
    base_big = base.loads(big_text, runners=big_runners)
    big = synthetic.configs(50)

    def resolver(m, version=None):
        def call(config):
            return m.resolve(config, version=version)
        return call

    # The answers first: this checkout's against the chains (a wrong answer is a broken
    # benchmark), and REV's against this checkout's (a revision may change answers on purpose:
    # said, since times of different answers compare different work).
    namespace: dict = {}
    exec(big_chain, namespace)
    for config in SAMPLES:
        assert here_default.resolve(config, version=VERSION).runner == choose(config), config
    for config in big:
        assert here_big.resolve(config).runner == namespace["choose"](config), config
    for there, here, samples, version in ((base_default, here_default, SAMPLES + dicts, VERSION),
                                          (base_big, here_big, big, None)):
        differ = [config for config in samples
                  if there.resolve(config, version=version).runner != here.resolve(config, version=version).runner]
        if differ:
            print(f"{args.rev} chooses another runner than this checkout for {len(differ)} of {len(samples)} "
                  f"configs: {differ!r}", file=sys.stderr)

    print(f"| benchmark | {args.rev} | this checkout | this / {args.rev} | if chain |")
    print("|---|---|---|---|---|")
    for title, here, there, samples in (
        ("default matrix, objects", here_default, base_default, SAMPLES),
        ("default matrix, dicts", here_default, base_default, dicts),
        ("synthetic 1,000 gates", here_big, base_big, big),
    ):
        # The default matrix as of the release the chain transcribes (configs.VERSION).
        version = None if samples is big else VERSION
        contenders = {"base": resolver(there, version), "here": resolver(here, version)}
        if samples is SAMPLES:
            contenders["chain"] = choose
        medians = compare(contenders, samples=samples, rounds=args.rounds, seconds=args.seconds)
        chain = f"{medians['chain'] * 1e6:.2f} µs" if "chain" in medians else ""
        print(f"| {title} | {medians['base'] * 1e6:.2f} µs | {medians['here'] * 1e6:.2f} µs | "
              f"{medians['here'] / medians['base']:.3f}× | {chain} |")


if __name__ == "__main__":
    main()

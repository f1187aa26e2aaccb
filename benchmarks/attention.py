"""`resolve` on the attention-backend matrix (`examples/vllm-attention/`) against vLLM's rules
written as plain Python (`tests/vllm_attention_reference.py`: every backend's checks, then the
first valid candidate), side by side in one process, interleaved round by round.

    python benchmarks/attention.py [--rounds N] [--quick]

The configs are realistic layers (section 10 of the facts and their neighbours: H100, B200 and
A100, heads 64 to 256, sinks, PrefixLM, FP8 KV caches, an explicit block size), each given as
the nested dict the host would pass. Both contenders answer the same question: which backend
serves the layer (or none); each answer of matrix is checked against the transcription first.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import matrix  # noqa: E402
from matrix.errors import ResolutionError  # noqa: E402
from run import compare, rows  # noqa: E402
from tests import vllm_attention_reference as reference  # noqa: E402


def _facts(version, layer_version, fp8, block=16, trtllm=True):
    return {"fa": {"version": version, "layer_version": layer_version, "fp8_ok": fp8, "fp8_kv_ok": fp8,
                   "kernel_block_size": block},
            "flashinfer": {"trtllm": trtllm, "use_trtllm_attention": None}}


def _layer(capability, facts, **selector):
    return {"selector": {"dtype": "bfloat16", **selector}, "device": {"capability": capability}, **facts}


H100, B200, A100 = _facts(3, 3, True), _facts(4, 4, True), _facts(2, 2, False)
CONFIGS = [
    _layer("9.0", H100, head_size=128),
    _layer("9.0", H100, head_size=128, has_sliding_window=True),
    _layer("10.0", B200, head_size=128),
    _layer("10.0", B200, head_size=128, use_non_causal=True),
    _layer("8.0", A100, head_size=64, has_sink=True),
    _layer("9.0", _facts(3, 3, False), head_size=128, kv_cache_dtype="fp8_e5m2"),
    _layer("10.0", _facts(4, 4, True, block=128), head_size=256, use_non_causal=True, block_size=16),
    _layer("9.0", H100, head_size=256, use_mm_prefix=True),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--quick", action="store_true", help="3 short rounds (CI: that it runs)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.seconds = 3, 0.02
    attention = matrix.load(os.path.join(os.path.dirname(HERE), "examples", "vllm-attention", "features.toml"))

    def resolve(config):
        try:
            return attention.resolve(config).runner
        except ResolutionError:
            return None

    for config in CONFIGS:
        assert resolve(config) == reference.choose(config), config
    medians = compare({"vLLM's rules as plain Python": reference.choose, "matrix.resolve": resolve},
                      samples=CONFIGS, rounds=args.rounds, seconds=args.seconds)
    print("| benchmark | contender | median per config | ratio |")
    print("|---|---|---|---|")
    print("\n".join(rows(f"attention backends, {len(CONFIGS)} layers", medians, "vLLM's rules as plain Python")))


if __name__ == "__main__":
    main()

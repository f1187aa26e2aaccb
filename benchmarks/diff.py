"""How long ``matrix diff`` takes on two consecutive releases of the default matrix, and on a
synthetic 1,000-gate matrix against a variant with 20 edits, with the ``matrix check`` of the
newer side beside each for scale.

Run: python benchmarks/diff.py (3 rounds of each diff, medians; ``--quick``: one round of the
0.31.0 → 0.32.0 diff). The answers are checked before anything is timed: the 0.31.0 → 0.32.0 diff
reports the removal of mamba cache mode 'all' as announced, 0.32.0 → 0.33.0 sends configs
without Triton on the unspecified platform to V2, and the synthetic variant's first added gate
blocks r0. Targets (issue 28): a release diff under 1 s, the synthetic one under 10 s.
"""

import argparse
import os
import random
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import synthetic

import matrix
from matrix.check import check
from matrix.diff import diff

#: (old release, new release, a change the diff must report: (id, runner, gate ids)).
PAIRS = [("0.31.0", "0.32.0", ("removed", None, ("mamba_cache_all",))),
         ("0.32.0", "0.33.0", ("runner-changed", None, ("missing_triton",)))]

#: The edits of the synthetic variant, in order: a cell flipped, a gate added (that r0 does not
#: support), a gate removed, a deprecation added; five rounds.
EDITS = ["cell", "add", "remove", "deprecate"] * 5


def variant(text: str, seed: int = 7) -> str:
    """*text* (a synthetic matrix) with the `EDITS` applied at random gates (a fixed seed)."""
    rng = random.Random(seed)
    for i, kind in enumerate(EDITS):
        blocks = list(re.finditer(r"\[features\.g\d+\]\n(?:(?!\[).*\n?)*", text))
        block = rng.choice(blocks)
        body = block.group(0)
        if kind == "cell":
            cell = rng.choice(list(re.finditer(r'(r[01]) = "(yes|no|opt-in)"', body)))
            flipped = "no" if cell.group(2) == "yes" else "yes"
            body = body[:cell.start()] + f'{cell.group(1)} = "{flipped}"' + body[cell.end():]
        elif kind == "add":
            when, _ = synthetic._gate(rng)
            text += (f'\n[features.added{i}]\nname = "added {i}"\nwhen = "{when}"\n'
                     'support = { r0 = "no", r1 = "yes", r2 = "yes" }\n')
            continue
        elif kind == "remove":
            body = ""
        else:
            body = body.rstrip("\n") + '\ndeprecated = { since = "0.5", remove_in = "2.0" }\n\n'
        text = text[:block.start()] + body + text[block.end():]
    return text


def timed(function, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one round of one diff (CI: that it runs)")
    quick = parser.parse_args(argv).quick
    rounds = 1 if quick else 3
    cases = []
    for old, new, expected in PAIRS[:1] if quick else PAIRS:
        m = matrix.default()
        cases.append((f"default matrix, {old} → {new}", m, m, {"old_version": old, "new_version": new}, expected,
                      {"version": new}))
    if not quick:
        text, runners, _ = synthetic.generate(1000)
        before = matrix.loads(text, runners=runners)
        after = matrix.loads(variant(text), runners=runners)
        cases.append(("synthetic 1,000 gates → 20 edits", before, after, {}, ("blocker-added", "r0", ("added1",)), {}))
    print("| diff | changes | undecided questions | diff (median) | matrix check of the newer side |")
    print("|---|---|---|---|---|")
    for label, a, b, versions, expected, checked_at in cases:
        seconds, report = timed(lambda a=a, b=b, versions=versions: diff(a, b, **versions), rounds)
        said = {(c.id, c.runner, c.features) for c in report.changes}
        assert expected in said, (expected, sorted(said, key=str))
        checked, _ = timed(lambda b=b, checked_at=checked_at: check(b, **checked_at), rounds)
        print(f"| {label} | {len(report.changes)} | {len(report.undecided)} | {seconds:.2f} s | {checked:.2f} s |")


if __name__ == "__main__":
    main()

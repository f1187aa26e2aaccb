"""How long ``matrix diff`` takes on two consecutive releases of the default matrix, and on a
synthetic 1,000-gate matrix against a variant with 20 edits, with the ``matrix check`` of the
newer side beside each for scale.

Run: python benchmarks/diff.py [--base REV] [--rounds N] (5 rounds of each diff, medians of
CPU time; with ``--base``, REV's package times the same diffs in the same process, interleaved
round by round; ``--quick``: one round of the 0.31.0 → 0.32.0 diff). The answers are checked before anything is timed: the 0.31.0 → 0.32.0 diff
reports the removal of mamba cache mode 'all' as announced, 0.32.0 → 0.33.0 sends configs
without Triton on the unspecified platform to V2, and the synthetic variant's first added gate
blocks r0. Targets (issue 28): a release diff under 1 s, the synthetic one under 10 s.
"""

import argparse
import importlib
import os
import random
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import revisions
import synthetic

import matrix
from matrix.check import check

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


def timed(functions, rounds):
    """The median CPU time (this thread's: a shared machine's load is not counted) of each of
    *functions*, interleaved round by round, and the last result of each."""
    times = [[] for _ in functions]
    results = [None] * len(functions)
    for _ in range(rounds):
        for i, function in enumerate(functions):
            start = time.thread_time()
            results[i] = function()
            times[i].append(time.thread_time() - start)
    return [statistics.median(t) for t in times], results


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one round of one diff (CI: that it runs)")
    parser.add_argument("--base", metavar="REV", help="time REV's diff beside this checkout's, in one process")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args(argv)
    rounds = 1 if options.quick else options.rounds
    packages = [matrix]
    if options.base is not None:  # REV's package as matrix_base, beside this one (as benchmarks/versus.py)
        sys.path.insert(0, revisions.export(options.base, package="matrix_base"))
        packages.append(importlib.import_module("matrix_base"))
    cases = []
    for old, new, expected in PAIRS[:1] if options.quick else PAIRS:
        cases.append((f"default matrix, {old} → {new}", lambda m: (m.default(),) * 2,
                      {"old_version": old, "new_version": new}, expected, {"version": new}))
    if not options.quick:
        text, runners, _ = synthetic.generate(1000)
        edited = variant(text)
        cases.append(("synthetic 1,000 gates → 20 edits",
                      lambda m: (m.loads(text, runners=runners), m.loads(edited, runners=runners)), {},
                      ("blocker-added", "r0", ("added1",)), {}))
    columns = ["diff", "changes", "undecided questions", "diff (median)"]
    if options.base is not None:
        columns.append(f"{options.base}'s diff (median)")
    print("| " + " | ".join([*columns, "matrix check of the newer side"]) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for label, sides, versions, expected, checked_at in cases:
        each = [(importlib.import_module(package.__name__ + ".diff"), sides(package)) for package in packages]
        seconds, reports = timed([lambda module=module, pair=pair, versions=versions: module.diff(*pair, **versions)
                                  for module, pair in each], rounds)
        for report in reports:  # each revision's answer checked before its time is said
            said = {(c.id, c.runner, c.features) for c in report.changes}
            assert expected in said, (expected, sorted(said, key=str))
        (checked,), _ = timed([lambda b=each[0][1][1], at=checked_at: check(b, **at)], rounds)
        times = " | ".join(f"{t:.2f} s" for t in seconds)
        print(f"| {label} | {len(reports[0].changes)} | {len(reports[0].undecided)} | {times} | {checked:.2f} s |")


if __name__ == "__main__":
    main()

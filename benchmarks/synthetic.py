"""A synthetic matrix of N gates, generated with a fixed seed, and its hand-written if chain.

The gates look like vLLM's: booleans, equality on choices, integer comparisons, membership in
a list of choices, ``is not None`` on optional sections, joined with ``and`` / ``or`` / ``not``.
The if chain is what a person would write for the same gates: section locals hoisted, one
``if`` per gate, appending the gate's name to the active list and to each runner it blocks.
"""

from __future__ import annotations

import json
import random
from types import SimpleNamespace as NS
from typing import Dict, List, Tuple

SECTIONS = 20
OPTIONAL = 5
CHOICES = [f"c{i}" for i in range(6)]
KINDS = [f"k{i}" for i in range(4)]
RUNNERS = {"r0": 30, "r1": 20, "r2": 10}


def schema_lines() -> List[str]:
    lines = []
    for s in range(SECTIONS):
        for b in range(4):
            lines.append(f'"s{s}.b{b}" = {{ type = "bool", default = false }}')
        for n in range(2):
            lines.append(f'"s{s}.n{n}" = {{ type = "int", min = 1, default = 1 }}')
        lines.append(f'"s{s}.m0" = {{ type = "str", choices = {json.dumps(CHOICES)}, default = "c0" }}')
    for o in range(OPTIONAL):
        lines.append(f'"o{o}" = {{ type = "section", nullable = true }}')
        lines.append(f'"o{o}.kind" = {{ type = "str", choices = {json.dumps(KINDS)}, default = "k0" }}')
    return lines


def _atom(rng: random.Random, negated: bool = False) -> Tuple[str, str]:
    """One test, as predicate text and as the Python a person would write. Tests are rare
    on realistic configs (most fields keep their defaults), as real gates are."""
    s = rng.randrange(SECTIONS)
    shape = rng.randrange(6)
    if shape == 0:
        b = rng.randrange(4)
        text = f"s{s}.b{b}"
        return (f"not {text}", f"not {text}") if negated else (text, text)
    if shape == 1:
        n, k = rng.randrange(2), rng.randrange(1, 8)
        return f"s{s}.n{n} > {k}", f"s{s}.n{n} > {k}"
    if shape == 2:
        c = rng.choice(CHOICES[1:])
        return f"s{s}.m0 == '{c}'", f"s{s}.m0 == '{c}'"
    if shape == 3:
        picks = sorted(rng.sample(CHOICES[1:], 2))
        return f"s{s}.m0 in {picks!r}", f"s{s}.m0 in {tuple(picks)!r}"
    o = rng.randrange(OPTIONAL)
    if shape == 4:
        return f"o{o} is not None", f"o{o} is not None"
    k = rng.choice(KINDS)
    return f"o{o}.kind == '{k}'", f"(o{o} is not None and o{o}.kind == '{k}')"


def _gate(rng: random.Random) -> Tuple[str, str]:
    count = rng.choice([1, 1, 2, 2, 3])
    joiner = rng.choice(["and", "and", "or"])
    atoms = [_atom(rng, negated=(joiner == "and" and i > 0 and rng.random() < 0.3)) for i in range(count)]
    text = f" {joiner} ".join(a for a, _ in atoms)
    python = f" {joiner} ".join(f"({p})" for _, p in atoms)
    return text, python


def generate(n: int, seed: int = 1234) -> Tuple[str, Dict[str, dict], str]:
    """``(features_toml_text, runner_tables, if_chain_source)`` for *n* gates."""
    rng = random.Random(seed)
    lines = ["[matrix]", 'name = "synthetic"', 'version = "1.0"', "", "[config]", *schema_lines()]
    chain = ["def blockers(c):"]
    chain += [f"    s{s} = c.s{s}" for s in range(SECTIONS)]
    chain += [f"    o{o} = c.o{o}" for o in range(OPTIONAL)]
    chain += ["    active = []"] + [f"    {r} = []" for r in RUNNERS]
    for i in range(n):
        text, python = _gate(rng)
        support = {}
        # The lowest-priority runner supports everything: the usual fallback of a real system.
        for runner, chance in zip(RUNNERS, (0.05, 0.05, 0.0)):
            roll = rng.random()
            support[runner] = "no" if roll < chance else ("opt-in" if roll < chance * 1.2 else "yes")
        cells = ", ".join(f'{r} = "{s}"' for r, s in support.items())
        lines += ["", f"[features.g{i}]", f'name = "gate {i}"', f"when = {json.dumps(text)}", f"support = {{ {cells} }}"]
        appends = [f"active.append('gate {i}')"] + [f"{r}.append('gate {i}')" for r, s in support.items() if s != "yes"]
        chain.append(f"    if {python}:")
        chain += [f"        {a}" for a in appends]
    chain.append(f"    return active, {', '.join(RUNNERS)}")
    chain += ["", "", "def choose(c):", f"    active, {', '.join(RUNNERS)} = blockers(c)"]
    for runner in RUNNERS:
        chain += [f"    if not {runner}:", f"        return {runner!r}"]
    chain.append("    raise ValueError('no runner')")
    runners = {r: {"name": f"Runner {r}", "priority": p} for r, p in RUNNERS.items()}
    return "\n".join(lines) + "\n", runners, "\n".join(chain) + "\n"


def configs(count: int, seed: int = 99) -> List[NS]:
    """Config objects with most fields at their defaults, as real configs are."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        c = NS()
        for s in range(SECTIONS):
            section = NS(**{f"b{b}": rng.random() < 0.02 for b in range(4)},
                         **{f"n{n}": 1 if rng.random() < 0.97 else rng.randrange(1, 9) for n in range(2)},
                         m0="c0" if rng.random() < 0.97 else rng.choice(CHOICES))
            setattr(c, f"s{s}", section)
        for o in range(OPTIONAL):
            setattr(c, f"o{o}", None if rng.random() < 0.95 else NS(kind=rng.choice(KINDS)))
        out.append(c)
    return out

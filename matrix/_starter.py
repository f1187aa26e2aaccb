"""What ``matrix init`` writes: a starter matrix that checks clean, its editor schemas, and a
migration test using `matrix.testing.assert_matches`."""

from __future__ import annotations

import json
import os
from typing import List, Tuple

FEATURES = '''#:schema ./features.schema.json
# Written by `matrix init`. Declare what a config holds in [config], one [features.<id>] table
# per gate, and one file per runner in runners/ (its stem is the runner id). `matrix check`
# proves the file sound; `matrix resolve --set engine.debug=true --explain` says why.
[matrix]
name = {name}
version = "0.1.0"

[config]
"engine" = {{ type = "section", doc = "How the work is run" }}
"engine.threads" = {{ type = "int", min = 1, default = 1, doc = "Worker threads" }}
"engine.debug" = {{ type = "bool", default = false, doc = "Run under the step debugger" }}

[features.multithreaded]
name = "multithreaded execution"
when = "engine.threads > 1"
support = {{ fast = "yes", simple = {{ status = "partial", note = "one thread at a time" }} }}

[features.debugger]
name = "step debugger"
when = "engine.debug"
support = {{ fast = "no", simple = "yes" }}
'''

RUNNERS = {
    "fast": '#:schema ./runner.schema.json\nname = "Fast"\npriority = 2\ndescription = "Chosen first"\n',
    "simple": '#:schema ./runner.schema.json\nname = "Simple"\npriority = 1\ndescription = "Serves what Fast cannot"\n',
}

TEST = '''"""Written by `matrix init`: the matrix answers as the gate function it replaces.

Put your own function in place of `unsupported_by_fast` (it returns the display names of what a
runner cannot do for a config), run `python -m pytest`, and delete both once they agree.
"""

import pathlib

import matrix
from matrix.testing import assert_matches

MATRIX = matrix.load(pathlib.Path(__file__).with_name("features.toml"))


def unsupported_by_fast(config: dict) -> list:
    """The hand-written gate function the matrix replaces (a stand-in): what Fast cannot do."""
    engine = config.get("engine") or {}
    return ["step debugger"] if engine.get("debug", False) else []


def test_the_matrix_answers_as_the_legacy_gate_function():
    assert_matches(MATRIX, unsupported_by_fast, runner="fast")
'''


def files(folder: str, name: str) -> List[Tuple[str, str]]:
    """(path, text) of the matrix files ``matrix init`` writes into *folder* (the editor
    schemas are written after, from the loaded matrix)."""
    out = [(os.path.join(folder, "features.toml"), FEATURES.format(name=json.dumps(name)))]
    out += [(os.path.join(folder, "runners", f"{id}.toml"), text) for id, text in RUNNERS.items()]
    out.append((os.path.join(folder, "test_matrix.py"), TEST))
    return out

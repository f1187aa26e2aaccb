"""Overlays: an out-of-tree platform's typed changes to an upstream matrix (issue 31).

An overlay file (``[overlay] extends = …``) names its upstream matrix and states its changes
as operations on stable ids (a feature id, a runner id, an order id, a ``[config]`` path),
each with its reason. `matrix._load_overlay` applies them to upstream's documents and builds
the result as an ordinary `Matrix`, whose ``overlay`` is the `Overlay` record kept here: every
operation with its place in the overlay file, its reason and link, and whether it changed
anything. `matrix._check_overlay` turns that record into ``matrix check`` findings.

The merge rules are stated once, in `MERGE_RULES`; the how-to page prints the same table
(tests/test_overlay.py holds them equal).
"""

from __future__ import annotations

import copy
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

import attrs

#: The ``until`` that ends an operation when upstream says what it says (it became a no-op).
UPSTREAM_SUPPORTS_IT = "upstream supports it"

#: What ``unset`` may name in a feature change, and in a runner change.
FEATURE_UNSET = ("forces", "links", "note", "prefers")
RUNNER_UNSET = ("candidate", "description", "links")

#: Each kind of value an overlay changes, and how (the how-to page's table, word for word).
MERGE_RULES: Tuple[Tuple[str, str], ...] = (
    ("support cell (`support.RUNNER`, `lift`, `block`)",
     "replaces the cell whole: a status, a table or a history; `\"*\"` is every runner"),
    ("`note`, `name`, `group`, a runner's `name`, `description`, `priority`, `candidate`",
     "replaces the value; `unset = [\"note\"]` removes a note (likewise `description`, `candidate`)"),
    ("`links`, an order's `runners`", "replaces the list (never appended); `unset = [\"links\"]` removes it"),
    ("`prefers`, `forces`", "replaces the table; `unset = [\"prefers\"]` removes it"),
    ("`[config]` field, `[features]` entry, `[runners]` entry",
     "added: an id upstream already has is a load error"),
    ("runner `from = \"ID\"`",
     "copies ID's runner table (not its aliases or redirects), ID's cell in every feature, except where a "
     "feature forces ID (there the new runner says `no`), and ID's adjustments (each adjustment whose `runners` "
     "names ID names the new runner too); its own keys replace ID's; `explain()` says each copied cell "
     "\"copied from ID by overlay …\", and the docs mark it 🧩 with the note \"copied from ID by overlay 'NAME': "
     "WHY (LINK)\" (a cell set to `no` for a feature forcing ID: \"set by …\") and give its JSON `overlay`"),
    ("`choice = false` on a runner", "removes it from automatic choice (`candidate = \"False\"`); "
     "asked for by name, it still serves"),
    ("`[overlay.choice]`", "the overlay owns the choice: every upstream `prefers` and `[orders]` entry is "
     "dropped, and priorities follow `order` (first highest); runners it leaves out are removed from choice"),
    ("an overlay extending an overlay", "applies after it: `extends = \"a-overlay.toml\"`; a change of the same "
     "id and key as an earlier overlay's is a load error unless `after = [\"ITS NAME\"]` says it comes after"),
    ("a list of overlays (`overlays=[…]`, `--overlay`, installed ones)", "applies in the list's order, each over "
     "the matrix the ones before it made: its `extends` names upstream (or an overlay before it); conflicts as in a chain"),
    ("provenance", "every cell and note an operation sets ends with \"set by OVERLAY: WHY (LINK)\""),
)


_HEADER = re.compile(r"^[ \t]*\[[ \t]*overlay[ \t]*[\].]", re.MULTILINE)


def is_overlay(text: str) -> bool:
    """Whether *text* is an overlay file (it has an ``[overlay]`` table)."""
    return _HEADER.search(text) is not None


@attrs.frozen
class Operation:
    """One operation of an overlay file: what it does to which id, where it is written, and why.

    ``kind`` is ``add-field``, ``add-feature``, ``add-runner``, ``change-feature``,
    ``change-runner``, ``change-order`` or ``own-choice``; ``until`` a version or
    `UPSTREAM_SUPPORTS_IT`; ``upstream`` the upstream versions it is written for (a PEP 440
    specifier). ``dangling``: its id is not upstream's, at a version outside ``upstream``
    (skipped); ``noop``: applying it changed nothing upstream says.
    """

    kind: str
    target: str
    place: str
    why: str
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    link: Optional[str] = None
    until: Optional[str] = None
    upstream: Optional[str] = None
    dangling: bool = False
    noop: bool = False
    overlay: Optional[str] = None  # the name of the overlay that wrote it (several may apply in a chain)
    keys: Tuple[str, ...] = ()  # what it changes of its target: ``support.v2``, ``note``, ``candidate``… (an added runner: the keys it writes)
    #: The runners it removes from automatic choice: those an owned choice leaves out, a runner
    #: changed or added with ``choice = false`` or ``candidate = "False"`` (a runner an owned
    #: choice ranks keeps its own candidacy: it is not removed).
    removes: Tuple[str, ...] = ()
    copies: Optional[str] = None  # an added runner's ``from``: the runner it is made from
    #: An added runner's features whose cell it copied from its ``from`` runner, or set to no
    #: where the feature forces that one (the docs mark them: `matrix._docs_overlay`).
    copied: Tuple[str, ...] = ()


@attrs.frozen
class Overlay:
    """What a `Matrix` built from an overlay remembers of it (`Matrix.overlay`)."""

    name: str
    file: str
    extends: str  # the upstream matrix's name
    upstream_file: str
    upstream_version: str
    targets: Optional[str]
    operations: Tuple[Operation, ...]
    runners_folder: str = ""  # upstream's folder of runner files

    def changes(self, target: str) -> Tuple[Operation, ...]:
        """The operations on *target* (a feature, runner or order id, or a ``[config]`` path)."""
        return tuple(o for o in self.operations if o.target == target)


def provenance(overlay: str, why: str, link: Optional[str]) -> str:
    """The words a cell or note set by an operation ends with."""
    from . import _messages

    return _messages.overlay_provenance(overlay, why, link)


def annotated_cell(cell: Any, words: Optional[str]) -> Any:
    """*cell* (a status, a table, or a history) with *words* after each statement's note."""
    if words is None:
        return copy.deepcopy(cell)
    if isinstance(cell, str):
        return {"status": cell, "note": words}
    if isinstance(cell, dict):
        out = dict(cell)
        out["note"] = f"{cell['note']}; {words}" if isinstance(cell.get("note"), str) else words
        return out
    if isinstance(cell, list):
        return [annotated_cell(s, words) for s in cell]
    return cell


def annotated_note(note: Optional[str], words: Optional[str]) -> Optional[str]:
    if words is None:
        return note
    return f"{note}; {words}" if note else words


def normal_cell(cell: Any) -> Any:
    """A cell as a list of statement tables: ``"yes"``, ``{status = "yes"}`` and
    ``[{status = "yes"}]`` say the same, and compare equal so."""
    if isinstance(cell, str):
        return [{"status": cell}]
    if isinstance(cell, dict):
        return [{k: v for k, v in cell.items() if not (k == "links" and v == [])}]
    if isinstance(cell, list):
        return [normal_cell(s)[0] if not isinstance(s, list) else s for s in cell]
    return cell


def normal(features: Mapping[str, Any], runners: Mapping[str, Any], rest: Mapping[str, Any]) -> Any:
    """The documents an overlay changes, with every cell in one spelling (for "changed nothing"):
    a cell left out is the feature's ``support.default`` or ``[matrix] default_support``, as the
    loader reads it, and a left-out ``links`` is an empty list."""
    header = rest.get("matrix")
    fallback = header.get("default_support") if isinstance(header, dict) else None
    out: Dict[str, Any] = {}
    for id, feature in features.items():
        if isinstance(feature, dict):
            feature = dict(feature)
            feature.setdefault("links", [])
            support = feature.get("support")
            if isinstance(support, dict):
                cells = {r: normal_cell(c) for r, c in support.items() if r != "default"}
                default = support.get("default", fallback)
                for runner in runners:
                    if runner not in cells and default is not None:
                        cells[runner] = normal_cell(default)
                feature["support"] = cells
        out[id] = feature
    return out, dict(runners), dict(rest)


def ordered(priorities: List[Tuple[str, int]], order: List[str]) -> Dict[str, int]:
    """Priorities that try *order* first, in its order, then the others as they were."""
    rest = [id for id, _ in sorted(priorities, key=lambda p: -p[1]) if id not in order]
    ids = [*order, *rest]
    return {id: 10 * (len(ids) - i) for i, id in enumerate(ids)}

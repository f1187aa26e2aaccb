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
from packaging.version import Version

from ._versions import parsed

#: The ``until`` that ends an operation when upstream says what it says (it became a no-op).
UPSTREAM_SUPPORTS_IT = "upstream supports it"

#: What ``unset`` may name in a feature change, and in a runner change.
FEATURE_UNSET = ("forces", "links", "note", "prefers")
RUNNER_UNSET = ("candidate", "deprecated", "description", "links")
#: What a change of an adjustment (``[change.adjustments.ID]``) may set, and what ``unset`` may
#: name (its ``until`` is the operation's provenance: it is only unset, never written).
ADJUSTMENT_KEYS = ("level", "links", "message", "name", "override", "runners", "says", "set", "since", "stage", "when")
ADJUSTMENT_UNSET = ("links", "message", "runners", "set", "since", "stage", "until")
#: What ``unset`` may name in a change of a matrix-wide requirement (``[change.requires.KIND]``).
WIDE_UNSET = ("entry", "exempt")
#: What ``unset`` may name in a change of an order (``[change.orders.ID]``): an order without
#: ``when`` applies wherever no order before it does, and must be the last.
ORDER_UNSET = ("when",)
#: An overlay file's tables, the keys of its ``[overlay]`` table, of every operation's
#: provenance, and of each kind of change (``[change.KIND.ID]``): read by the loader
#: (`matrix._load_overlay`) and the editor schema (`matrix._editor_overlay`).
TABLES = ("adjustments", "change", "check", "config", "features", "overlay", "refusals", "runners")
OVERLAY_KEYS = ("after", "choice", "extends", "name", "targets")
PROVENANCE = ("link", "until", "upstream", "why")
CHANGES = {
    "config": ("add_choices",),
    "features": ("append", "block", "forces", "group", "lift", "links", "name", "note", "prefers", "support", "unset"),
    "runners": ("candidate", "choice", "deprecated", "description", "links", "name", "priority", "requires", "unset"),
    "orders": ("name", "runners", "unset", "when"),
    "adjustments": (*ADJUSTMENT_KEYS, "remove", "unset"),
    "requires": ("entry", "exempt", "unset"),
}

#: Each kind of value an overlay changes, and how (the how-to page's table, word for word).
MERGE_RULES: Tuple[Tuple[str, str], ...] = (
    ("support cell (`support.RUNNER`, `lift`, `block`)",
     "replaces the cell whole: a status, a table or a history; `\"*\"` is every runner"),
    ("a statement appended (`append.RUNNER = { status, since, note, links }`)",
     "appends one statement to the runner's cell, after its last statement (a status or a table is the history's "
     "first; a cell left out, the feature's default): its `since` is required and must come after that statement's; "
     "one whose status the last statement already says (from a `since` before it or the same) is not appended and "
     "the operation changes nothing (`overlay-noop`); the statement ends with the provenance, and counts as the "
     "overlay's from its `since` on (the docs' 🧩 and `explain()`'s origin, at versions before it the cell is the one "
     "it was appended to); replacing and appending the same cell in one operation is a load error, in two overlays a "
     "conflict as for two replacements"),
    ("`note`, `name`, `group`, a runner's `name`, `description`, `priority`, `candidate`, an order's `name`, `when`",
     "replaces the value; `unset = [\"note\"]` removes a note (likewise `description`, `candidate`, and an order's "
     "`when`: of the last order only, as in a file, since an order without `when` applies wherever no order before "
     "it does)"),
    ("`links`, an order's `runners`", "replaces the list (never appended); `unset = [\"links\"]` removes it"),
    ("`prefers`, `forces`", "replaces the table; `unset = [\"prefers\"]` removes it"),
    ("`[config]` field, `[features]` entry, `[runners]` entry",
     "added: an id upstream already has is a load error"),
    ("a field's choices (`[change.config.\"PATH\"] add_choices`)",
     "appended after upstream's, each a value or a `{ value, since, until }` table as in `choices`: a field "
     "without choices, a value it has already, or one `choices` would not take (at its `add_choices[N]`) is a load "
     "error; two overlays of a chain may each add their own"),
    ("runner `from = \"ID\"`",
     "copies ID's runner table (not its aliases, redirects or deprecation), ID's cell in every feature, except where a "
     "feature forces ID (there the new runner says `no`), and ID's adjustments (each adjustment whose `runners` "
     "names ID names the new runner too); its own keys replace ID's; `explain()` says each copied cell, and each "
     "adjustment it gets that way where it applies for the new runner, \"copied from ID by overlay …\" (the report's "
     "rule too, as `origin`), and the docs mark it 🧩 with the note \"copied from ID by overlay 'NAME': "
     "WHY (LINK)\" (a cell set to `no` for a feature forcing ID: \"set by …\") and give its JSON `overlay`"),
    ("a runner's `deprecated` (`[change.runners.ID]`)",
     "replaces the runner's deprecation whole (`{ since, remove_in, replacement, message }`, as in a runner file, "
     "the file format's \"A runner deprecated\"); `unset = [\"deprecated\"]` removes "
     "upstream's: the platform keeps the runner without the warning; a mistake in it is a load error at the "
     "operation's line"),
    ("a runner's requirement entry (`requires.KIND` of `[change.runners.ID]`)",
     "replaces the runner's entry of that kind whole (a condition, a clause or a chain; one the runner has not, "
     "added), by the kind's id, never a clause's index; `unset = [\"requires.KIND\"]` removes it; a kind upstream "
     "does not declare is a load error with \"did you mean\" (dangling under an `upstream` that leaves out "
     "upstream's version); `explain()` names the overlay beside a requirement it set, and the report points at it"),
    ("an adjustment (`[adjustments.ID]` added, `[change.adjustments.ID]` changed, by its id)",
     "an added one applies after upstream's, in the file's order; a change replaces each key it writes (`name`, "
     "`when`, `set` and `runners` whole, `level`, `message`…), `unset = [\"runners\"]` removes one (likewise "
     "`links`, `message`, `set`, `since`, `until`), `remove = true` removes the adjustment; an id upstream does not "
     "have is a load error with \"did you mean\" (dangling under an `upstream` that leaves out upstream's version); "
     "its message is the host's words, said as written (no provenance): `explain()` names the overlay beside an "
     "adjustment it added or changed, and the report points at it"),
    ("a matrix-wide requirement (`[change.requires.KIND]` of `[requires]` in features.toml, by its kind)",
     "`entry` replaces the kind's entry whole (a condition, a clause or a chain; a declared kind without one, added), "
     "`exempt` replaces the runners the entry exempts (a chain's list, written on its first clause as the file "
     "format has it, exempts them from every clause: a clause has no list of its own to name); `unset = [\"entry\"]` removes the entry, "
     "`unset = [\"exempt\"]` its exempt list; a kind upstream does not declare is a load error with \"did you "
     "mean\" (dangling under an `upstream` that leaves out upstream's version); its reason is the host's words, "
     "as written: `explain()` names the overlay beside a requirement it set, and the report points at it"),
    ("a refusal (`[refusals.ID]`, added)", "upstream's keys (`reason`, `links`, `together`), its gates the "
     "composed matrix's (the overlay's own runners' `RUNNER:not-candidate` too); it applies after upstream's, in "
     "the file's order; an id upstream already has is a load error (an overlay adds refusals, it does not change "
     "them); its reason is its why (no `why` of its own) and the host's words, said as written"),
    ("`[check] ignore`", "upstream's entries and each overlay's of the chain all apply, upstream's first; an "
     "overlay's gates are the composed matrix's; an entry that ignores nothing is said at its own file and line"),
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

    ``kind`` is ``add-field``, ``add-feature``, ``add-runner``, ``add-adjustment``, ``add-refusal``,
    ``change-field``, ``change-feature``, ``change-runner``, ``change-order``, ``change-adjustment`` or
    ``own-choice``; ``until`` a version or
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
    #: An added runner's adjustments that name it because they name its ``from`` runner (each
    #: adjustment whose ``runners`` names that one): ``explain()`` says them "copied from R".
    adjusted: Tuple[str, ...] = ()
    #: A change of a feature's ``(runner, since)`` for each statement it appended to a cell's
    #: history (``append.RUNNER``; one the cell's last statement already says is not appended,
    #: not listed).
    appends: Tuple[Tuple[str, str], ...] = ()
    #: ``(runner, line, column)`` of each ``append.RUNNER`` not appended (the cell's last
    #: statement says its status already): said by ``matrix check`` where the operation changes
    #: something else (`matrix._check_overlay`).
    dropped: Tuple[Tuple[str, Optional[int], Optional[int]], ...] = ()

    def sets_cell(self, runner: str, version: Optional[Version] = None) -> bool:
        """Whether this change of a feature set *runner*'s cell (as of *version*: an appended
        statement only from its ``since`` on; None: at any version)."""
        if f"support.{runner}" in self.keys:
            return True
        since = dict(self.appends).get(runner)
        return since is not None and (version is None or parsed(since) <= version)


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
    #: ``(name, file)`` of each overlay of the chain, in the order they apply, this one last:
    #: one with no operation (only ``[check]``) is found here, not among the operations' files.
    chain: Tuple[Tuple[str, str], ...] = ()
    #: ``(file, text)`` of each file whose ``[check] ignore`` a check of the composed matrix applies,
    #: as the loader read it: upstream's features.toml, then each overlay of the chain in the order
    #: they apply, this one last (`matrix._ignore` reads no file again).
    checked: Tuple[Tuple[str, Optional[str]], ...] = attrs.field(default=(), eq=False, repr=False)
    #: ``(file, text)`` of upstream's features.toml and runner files, as the load read them:
    #: where a finding on the composed matrix stands in upstream (`matrix._check_overlay.Where`
    #: reads no file again, so a file edited or removed since cannot change the answer).
    upstream_texts: Tuple[Tuple[str, str], ...] = attrs.field(default=(), eq=False, repr=False)

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
    rest = dict(rest)
    if isinstance(rest.get("adjustments"), dict):  # likewise an adjustment's when; links left out are []
        rest["adjustments"] = {id: {"links": [], **a, **({"when": _spelled(a["when"])} if "when" in a else {})}
                               if isinstance(a, dict) else a for id, a in rest["adjustments"].items()}
    if isinstance(rest.get("requires"), dict):  # a matrix-wide entry's conditions as their predicates say them
        rest["requires"] = {kind: _entry(e) for kind, e in rest["requires"].items()}
    if isinstance(rest.get("orders"), dict):  # an order's when as the predicate it parses to: "(a)" is "a"
        rest["orders"] = {id: dict(o, when=_spelled(o["when"])) if isinstance(o, dict) and "when" in o else o
                          for id, o in rest["orders"].items()}
    runners = {id: dict(t, candidate=_spelled(t["candidate"])) if isinstance(t, dict) and "candidate" in t else t
               for id, t in runners.items()}
    return out, runners, rest


def _entry(entry: Any) -> Any:
    """A requirement entry in one spelling: a condition is the clause ``{condition = …}``, and
    each condition as its predicate says itself."""
    if isinstance(entry, list):
        return [_entry(e) for e in entry]
    if isinstance(entry, str):
        return {"condition": _spelled(entry)}
    if isinstance(entry, dict) and "condition" in entry:
        return dict(entry, condition=_spelled(entry["condition"]))
    return entry


def first_clause(entry: Any) -> Dict[str, Any]:
    """*entry* (a matrix-wide requirement entry, changed in place where it is a list) as a
    table whose first clause can take ``exempt``: that clause, a table."""
    if isinstance(entry, list):
        if entry and isinstance(entry[0], str):
            entry[0] = {"condition": entry[0]}
        return entry[0] if entry and isinstance(entry[0], dict) else {}
    return entry if isinstance(entry, dict) else {"condition": entry}


def _spelled(text: Any) -> Any:
    """*text* as its predicate says itself (the same predicate, whatever the spelling), else as it is."""
    from .errors import PredicateError
    from .predicates import Predicate

    try:
        return str(Predicate(text)) if isinstance(text, str) else text
    except PredicateError:
        return text


def cell_of(doc: Mapping[str, Any], feature: str, runner: str) -> Any:
    """*runner*'s cell of *feature* in a features.toml document, as the loader reads it: its
    own, else the feature's ``support.default``, else ``[matrix] default_support`` (None: none)."""
    support = doc["features"][feature].get("support") or {}
    if runner in support:
        return support[runner]
    header = doc.get("matrix")
    return support.get("default", header.get("default_support") if isinstance(header, dict) else None)


def follows(cell: Any, status: str, since: Version) -> Optional[bool]:
    """Whether a statement of *status* from *since* is appended to *cell* (`MERGE_RULES`): True;
    False when the cell's last statement already says *status* from *since* or before (it is
    not appended); None when it does not come after that statement (a load error)."""
    said, written = last_statement(cell) if cell is not None else (None, None)
    before = None if written is None else parsed(written)
    if before is not None and (since < before or (since == before and said != status)):
        return None
    return said != status


def last_statement(cell: Any) -> Tuple[str, Optional[str]]:
    """The status and ``since`` (as written; None: it has none) of *cell*'s last statement."""
    last = (cell[-1] if cell else None) if isinstance(cell, list) else cell
    if isinstance(last, dict):
        return str(last.get("status")), last.get("since")
    return str(last), None


def appended(cell: Any, statement: Mapping[str, Any], words: Optional[str]) -> List[Any]:
    """*cell* as a history, with *statement* (its note ending with *words*) after its last."""
    history = copy.deepcopy(cell) if isinstance(cell, list) else [] if cell is None else [copy.deepcopy(cell)]
    return [*history, annotated_cell(dict(statement), words)]


def cell_key(key: str) -> str:
    """What a key of `Operation.keys` changes, for "two overlays change the same thing": an
    appended statement (``append.R``) changes the cell ``support.R`` too."""
    return "support." + key[len("append."):] if key.startswith("append.") else key


def ordered(priorities: List[Tuple[str, int]], order: List[str]) -> Dict[str, int]:
    """Priorities that try *order* first, in its order, then the others as they were."""
    rest = [id for id, _ in sorted(priorities, key=lambda p: -p[1]) if id not in order]
    ids = [*order, *rest]
    return {id: 10 * (len(ids) - i) for i, id in enumerate(ids)}

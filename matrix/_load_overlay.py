"""Loading an overlay file: its upstream, its operations checked on upstream's ids, and the
composed matrix built by the ordinary loader (`matrix.loader._Builder`) from upstream's
documents with the operations applied (issue 31; the rules: `matrix._overlay.MERGE_RULES`).

``matrix.load(path)`` comes here when the file at *path* has an ``[overlay]`` table.
"""

from __future__ import annotations

import copy
import os
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Set, Tuple

import attrs
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion

from . import _messages, _overlay
from ._load_config import choices_read, value_of, values_written
from ._overlay import Operation, Overlay, is_overlay
from ._versions import parsed
from .errors import LoadError
from .schema import Field

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from ._locate import Locations
    from .loader import _Builder
    from .schema import Matrix


TABLES, OVERLAY_KEYS, PROVENANCE, CHANGES = _overlay.TABLES, _overlay.OVERLAY_KEYS, _overlay.PROVENANCE, _overlay.CHANGES
_DEFAULT_NAMES = ("default",)
#: One operation: its record, its body (the keys without provenance), and how it applies.
_Op = Tuple[Operation, Dict[str, Any], Any]


class _Where:
    """The overlay file's locations, where a change to an upstream id is found under
    ``[change]``: a problem the composed build finds at ``features.X.support.v2`` points at
    ``[change.features.X]`` when the overlay wrote it there."""

    def __init__(self, locations: Locations) -> None:
        self._locations = locations
        self.values = locations.values

    def key(self, path: Place) -> Optional[Tuple[int, int]]:
        # The key or its nearest parent, not above the entry (``adjustments.X``): another entry
        # the overlay adds to that table is not where a change of X stands.
        for key, least in ((path, 2), (("change", *path), 3)):
            while len(key) >= least:
                if key in self._locations.keys:
                    return self._locations.line_column(self._locations.keys[key])
                key = key[:-1]
        return self._locations.key(path)

    def in_string(self, path: Place, offset: int) -> Optional[Tuple[int, int]]:
        return self._locations.in_string(path, offset) or self._locations.in_string(("change", *path), offset)


class Loading(NamedTuple):
    """What `matrix.loader` hands this unit (which imports nothing of it at run time)."""

    builder: Callable[[], _Builder]
    read: Callable[[str, str], str]
    load: Callable[[str], Matrix]
    default: Callable[[], Matrix]
    default_file: Callable[[], str]
    #: Whether a file exists; the file a relative name names beside a file; where a file stands
    #: in the working tree, if elsewhere (`matrix._revision` reads ``REV:PATH`` from git).
    exists: Callable[[str], bool] = os.path.isfile
    beside: Callable[[str, str], str] = lambda file, relative: os.path.join(os.path.dirname(file), relative)
    working: Callable[[str], Optional[str]] = lambda path: None


class Base(NamedTuple):
    """What the next overlay of a list applies to: the matrix so far, its documents, and the
    operations that made it (`load_list`)."""

    matrix: Matrix
    features_doc: Dict[str, Any]
    runners_doc: Dict[str, Any]
    operations: Tuple[Operation, ...]
    upstream_file: str
    runners_folder: str
    #: What an overlay's ``extends`` may say to name this matrix: names, and real paths.
    names: Tuple[str, ...]
    #: ``(file, text)`` of upstream's features.toml and runner files, as read (`Overlay.upstream_texts`).
    texts: Tuple[Tuple[str, str], ...] = ()


def load(name: str, text: str, loading: Loading) -> Matrix:
    """The matrix the overlay *text* (shown as *name*) makes of its upstream.

    :raises LoadError: with every problem of the overlay (upstream's own, when upstream does
        not load).
    """
    return _compose(name, text, loading, None)[0]


def load_list(upstream: Optional[str], overlays: List[str], loading: Loading) -> Matrix:
    """The matrix the overlay files *overlays* make of *upstream* (a features.toml or an
    overlay file; None: the packaged matrix), applied in the list's order: each overlay's
    ``extends`` names *upstream* (or an overlay before it in the list), and two overlays that
    change the same id and key are a load error unless the later says ``after``.

    :raises LoadError: with the problems of the first overlay (or upstream) that does not load.
    """
    base = _base(upstream, loading)
    matrix = base.matrix
    for path in overlays:
        matrix, base = _compose(path, loading.read(path, path), loading, base)
    return matrix


def upstream_names(matrix: Matrix, path: str, default_file: str, working: Optional[str] = None) -> Tuple[str, ...]:
    """What an overlay's ``extends`` may say to name *matrix*, loaded from *path*: its name, its
    real path (and *working*, where it stands in the working tree when read from git), and
    ``default`` for the packaged matrix (*default_file*)."""
    names: Tuple[str, ...] = (matrix.name, os.path.realpath(path)) + ((working,) if working is not None else ())
    return names + _DEFAULT_NAMES if os.path.realpath(path) == os.path.realpath(default_file) else names


def _base(upstream: Optional[str], loading: Loading) -> Base:
    if upstream is None:
        matrix = loading.default()
        path = loading.default_file()
    else:
        text = loading.read(upstream, upstream)
        if is_overlay(text):
            return _compose(upstream, text, loading, None)[1]
        matrix = loading.load(upstream)
        path = upstream
    names = upstream_names(matrix, path, loading.default_file(), loading.working(path))
    b = loading.builder()
    features_doc, runners_doc, folder, texts = _documents(b, loading, path, matrix)
    return Base(matrix, features_doc, runners_doc, (), path, folder, names, texts)


def _compose(name: str, text: str, loading: Loading, base: Optional[Base]) -> Tuple[Matrix, Base]:
    b = loading.builder()
    source = b.source(name, text)
    document = b.parse(source)
    reader = _Reader(b, source, name, loading, base)
    composed = reader.read(document)
    if b.problems or composed is None:
        raise LoadError(name, b.problems)
    features_doc, runners_doc, operations, upstream = composed
    following = Base(upstream, copy.deepcopy(features_doc), copy.deepcopy(runners_doc), tuple(operations),
                     reader.upstream_file, reader.runners_folder,
                     (*(base.names if base is not None else ()), reader.title, os.path.realpath(name)),
                     reader.upstream_texts)
    # The composed build reads the overlay's locations, with changes found under [change].
    place = b.source(name, text)
    object.__setattr__(place, "_locations", _Where(source.locations))
    record = Overlay(reader.title, name, upstream.name, reader.upstream_file, str(upstream.version),
                     reader.targets, tuple(operations), reader.runners_folder, (*reader.earlier_chain, (reader.title, name)),
                     (*_checked(upstream, reader.upstream_file), (name, text)), reader.upstream_texts)
    try:
        built = loading.builder().build(text, name, runners=runners_doc, base=os.path.dirname(name),
                                        composed=(place, features_doc))
    except LoadError as error:
        raise LoadError(name, [_in_runner_file(p, record, text) for p in error.problems]) from None
    if "check" in document:  # its [check] ignore: checked on the composed matrix's ids
        from . import _load_check

        checking = loading.builder()
        _load_check.ignores(checking, source, document["check"], {f.id: None for f in built.features},
                            list(built.runners))
        if checking.problems:
            raise LoadError(name, checking.problems)
    matrix = attrs.evolve(built, overlay=record)
    return matrix, following._replace(matrix=matrix)


def _checked(upstream: Matrix, file: str) -> Tuple[Tuple[str, Optional[str]], ...]:
    """`Overlay.checked` of the files an overlay over *upstream* (loaded from *file*) comes after:
    upstream's features.toml, or, over an overlay, that overlay's."""
    return upstream.overlay.checked if upstream.overlay is not None else ((file, upstream.text),)


def _documents(b: _Builder, loading: Loading, path: str, matrix: Matrix) -> Tuple[
        Dict[str, Any], Dict[str, Any], str, Tuple[Tuple[str, str], ...]]:
    """The features.toml document at *path*, its runner tables, its runner folder, and the
    ``(file, text)`` of each file read (`Overlay.upstream_texts`)."""
    text = loading.read(path, path)
    texts = [(path, text)]
    features_doc = b.parse(b.source(path, text))
    folder = loading.beside(path, str(features_doc.get("matrix", {}).get("runners", "runners")))
    runners_doc: Dict[str, Any] = {}
    for runner in matrix.runners:
        file = os.path.join(folder, f"{runner.id}.toml")
        texts.append((file, loading.read(file, file)))
        runners_doc[runner.id] = b.parse(b.source(file, texts[-1][1]))
    return features_doc, runners_doc, folder, tuple(texts)


class _Reader:
    """One overlay file read: its header, upstream, and operations (each checked)."""

    def __init__(self, b: _Builder, source: Any, name: str, loading: Loading,
                 base: Optional[Base] = None) -> None:
        self.b = b
        self.base = base
        self.loading = loading
        self.source = source
        self.name = name
        self.title = name
        self.targets: Optional[str] = None
        self.upstream_file = ""
        self.runners_folder = ""
        self.upstream_texts: Tuple[Tuple[str, str], ...] = ()  # `Overlay.upstream_texts`
        self.document: Dict[str, Any] = {}
        self.matrix: Any = None
        self.wide: List[str] = []  # the kinds of upstream's matrix-wide [requires]
        self.document_kinds: List[str] = []  # the kinds upstream's [requirements] declares
        #: The operations of the overlays this one extends (a chain applies in its order).
        self.inherited: List[Operation] = []
        #: ``(name, file)`` of each overlay this one extends, in the order they apply
        #: (`Overlay.chain`): one without operations too.
        self.earlier_chain: Tuple[Tuple[str, str], ...] = ()

    def problem(self, path: Place, message: str) -> None:
        self.b.problem(self.source, path, message)

    def read(self, document: Dict[str, Any]) -> Optional[Tuple[Dict[str, Any], Dict[str, Any], List[Operation], Matrix]]:
        for key in document:
            if key not in TABLES:
                self.problem((key,), _messages.unknown_choice("table", key, TABLES))
        head = document.get("overlay")
        if not isinstance(head, dict):
            self.problem(("overlay",), _messages.overlay_not_a_table(head))
            return None
        for key in head:
            if key not in OVERLAY_KEYS:
                self.problem(("overlay", key), _messages.unknown_choice("key", key, OVERLAY_KEYS))
        upstream = self.upstream(head.get("extends"))
        if upstream is None:
            return None
        matrix, features_doc, runners_doc = upstream
        title = head.get("name", f"{matrix.name} (overlay)")
        if not isinstance(title, str):
            self.problem(("overlay", "name"), _messages.overlay_expected_text("name", title))
        else:
            self.title = title
        self.check_targets(head.get("targets"), matrix)
        features_doc.setdefault("matrix", {})["name"] = self.title
        ops = self.operations(document, head, matrix, features_doc, runners_doc)
        if self.b.problems:
            return None
        follows = self.after(head.get("after"))
        words = {id(body): _overlay.provenance(self.title, op.why, op.link) for op, body, _ in ops}
        # Pass 1, without the provenance words: which operations change nothing upstream says.
        plain_features, plain_runners = copy.deepcopy(features_doc), copy.deepcopy(runners_doc)
        final: List[Operation] = []
        for op, body, apply in ops:
            op = attrs.evolve(op, overlay=self.title, keys=_keys(op.kind, body, list(plain_runners)),
                              removes=_removes(op, body, list(plain_runners)))
            if op.dangling:
                final.append(op)
                continue
            if op.copies is not None:
                op = attrs.evolve(op, copied=_copied(plain_features, op.copies),
                                  adjusted=_copied_adjustments(plain_features, op.copies, op.target))
            if "append" in body:
                op = self.appended(op, body, plain_features)
            before = copy.deepcopy(_overlay.normal(plain_features.get("features", {}), plain_runners, _rest(plain_features)))
            apply(plain_features, plain_runners, body, None)
            after = _overlay.normal(plain_features.get("features", {}), plain_runners, _rest(plain_features))
            final.append(attrs.evolve(op, noop=before == after))
            # Pass 2: the documents built, with the words.
            apply(features_doc, runners_doc, body, words[id(body)])
        self.conflicts(final, follows)
        if self.b.problems:
            return None
        return features_doc, runners_doc, [*self.inherited, *final], matrix

    def after(self, after: object) -> Tuple[str, ...]:
        """The names of the earlier overlays of the chain that ``after`` says this one follows."""
        if after is None:
            return ()
        where: Place = ("overlay", "after")
        if not isinstance(after, list) or not all(isinstance(a, str) for a in after):
            self.problem(where, _messages.overlay_expected_ids("after", after))
            return ()
        earlier = list(dict.fromkeys(name for name, _ in self.earlier_chain))
        for name in after:
            if name not in earlier:
                self.problem(where, _messages.overlay_unknown_earlier(name, earlier))
        return tuple(after)

    def conflicts(self, ops: List[Operation], after: Tuple[str, ...]) -> None:
        """Say each operation that changes an id and key an earlier overlay of the chain changed
        too, unless ``after`` names that overlay."""
        for op in ops:
            for earlier in self.inherited:
                if earlier.overlay in after or op.dangling or earlier.dangling:
                    continue
                shared = sorted({_overlay.cell_key(k) for k in op.keys} & {_overlay.cell_key(k) for k in earlier.keys})
                if op.kind == earlier.kind and op.target == earlier.target and shared:
                    self.problem(_place(op.place), _messages.overlay_conflict(
                        op.kind, op.target, shared, (self.title, f"{op.file}:{op.line}"),
                        (str(earlier.overlay), f"{earlier.file}:{earlier.line}")))

    # --- the upstream --------------------------------------------------------------------

    def upstream(self, extends: object) -> Optional[Tuple[Matrix, Dict[str, Any], Dict[str, Any]]]:
        loader = self.loading
        if not isinstance(extends, str):
            self.problem(("overlay", "extends") if extends is not None else ("overlay",),
                         _messages.overlay_no_extends(extends))
            return None
        if self.base is not None:
            return self.over(extends, self.base)
        packaged = loader.default()
        if extends in (*_DEFAULT_NAMES, packaged.name):
            path = loader.default_file()
            matrix = packaged
        elif extends.endswith(".toml") or "/" in extends or os.sep in extends:
            path = loader.beside(self.name, extends)
            if not loader.exists(path):
                self.problem(("overlay", "extends"), _messages.overlay_upstream_missing(extends, self.name))
                return None
            if is_overlay(loader.read(path, path)):
                return self.earlier(path)
            matrix = loader.load(path)
        else:
            self.problem(("overlay", "extends"), _messages.overlay_unknown_upstream(extends, packaged.name, self.name))
            return None
        self.upstream_file = path
        features_doc, runners_doc, self.runners_folder, self.upstream_texts = _documents(self.b, loader, path, matrix)
        return matrix, features_doc, runners_doc

    def over(self, extends: str, base: Base) -> Optional[Tuple[Matrix, Dict[str, Any], Dict[str, Any]]]:
        """The matrix of a list this overlay is loaded over (`load_list`), when its ``extends``
        names it: by name, or by a path to its file."""
        path = os.path.realpath(self.loading.beside(self.name, extends))
        if extends not in base.names and path not in base.names:
            self.problem(("overlay", "extends"), _messages.overlay_not_over(extends, base.matrix.name))
            return None
        self.inherited = list(base.operations)
        self.earlier_chain = base.matrix.overlay.chain if base.matrix.overlay is not None else ()
        self.upstream_file, self.runners_folder, self.upstream_texts = base.upstream_file, base.runners_folder, base.texts
        return base.matrix, copy.deepcopy(base.features_doc), copy.deepcopy(base.runners_doc)

    def earlier(self, path: str) -> Tuple[Matrix, Dict[str, Any], Dict[str, Any]]:
        """The overlay at *path* that this one extends: its composed matrix and documents, and
        its operations (inherited: they apply first)."""
        matrix = self.loading.load(path)  # its own problems are said by its own load
        inner = _Reader(self.loading.builder(), None, path, self.loading)
        inner.source = inner.b.source(path, self.loading.read(path, path))
        composed = inner.read(inner.b.parse(inner.source))
        assert composed is not None  # it loaded
        features_doc, runners_doc, self.inherited, _ = composed
        assert matrix.overlay is not None  # an overlay file
        self.earlier_chain = matrix.overlay.chain
        self.upstream_file, self.runners_folder, self.upstream_texts = (inner.upstream_file, inner.runners_folder,
                                                                        inner.upstream_texts)
        return matrix, features_doc, runners_doc

    def check_targets(self, targets: object, matrix: Matrix) -> None:
        if targets is None:
            return
        where: Place = ("overlay", "targets")
        if not isinstance(targets, str):
            self.problem(where, _messages.overlay_expected_text("targets", targets))
            return
        try:
            spec = SpecifierSet(targets)
        except InvalidSpecifier:
            self.problem(where, _messages.overlay_bad_specifier(targets))
            return
        self.targets = targets
        if not spec.contains(matrix.version, prereleases=True):
            self.problem(where, _messages.overlay_off_target(targets, matrix.name, str(matrix.version)))

    # --- the operations ------------------------------------------------------------------

    def provenance(self, where: Place, body: Dict[str, Any], kind: str, target: str,
                   matrix: Matrix) -> Optional[Operation]:
        why = body.pop("why", None)
        link = body.pop("link", None)
        until = body.pop("until", None)
        upstream = body.pop("upstream", None)
        ok = True
        if not isinstance(why, str) or not why.strip():
            self.problem(where, _messages.overlay_no_why(kind, target, why))
            ok = False
        for key, value in (("link", link), ("until", until), ("upstream", upstream)):
            if value is not None and not isinstance(value, str):
                self.problem(where + (key,), _messages.overlay_expected_text(key, value))
                ok = False
        if isinstance(until, str) and until != _overlay.UPSTREAM_SUPPORTS_IT:
            try:
                parsed(until)
            except InvalidVersion:
                self.problem(where + ("until",), _messages.overlay_bad_until(until))
                ok = False
        if isinstance(upstream, str):
            try:
                SpecifierSet(upstream)
            except InvalidSpecifier:
                self.problem(where + ("upstream",), _messages.overlay_bad_specifier(upstream))
                ok = False
        if not ok:
            return None
        line, column = self.source.locations.key(where) or (None, None)
        return Operation(kind, target, _messages.place(where), str(why), self.name, line, column,
                         link, until, upstream)

    def known(self, where: Place, op: Operation, id: str, known: List[str], what: str,
              version: Any) -> Optional[Operation]:
        """*op* when *id* is one of *known*; dangling when it is not and *op* is written for
        other upstream versions; else None (said, with "did you mean")."""
        if id in known:
            return op
        if op.upstream is not None and not SpecifierSet(op.upstream).contains(version, prereleases=True):
            return attrs.evolve(op, dangling=True)
        self.problem(where, _messages.overlay_unknown_id(what, id, known))
        return None

    def operations(self, document: Dict[str, Any], head: Dict[str, Any], matrix: Matrix,
                   features_doc: Dict[str, Any], runners_doc: Dict[str, Any]) -> List[_Op]:
        """Every operation, in the order they apply: fields, runners, the choice, features,
        adjustments, then the changes (features, runners, orders, adjustments, matrix-wide
        requirements), then the refusals, each in the file's order."""
        self.document = document
        self.matrix = matrix
        upstream_runners = list(runners_doc)
        ops = self.added("config", features_doc)
        runners = list(upstream_runners)
        for id, where, body, op in self.entries(("runners",), "add-runner"):
            base = body.pop("from", None)
            if id in upstream_runners:
                self.problem(where, _messages.overlay_already_upstream("runner", id, "change.runners"))
            elif base is not None and (not isinstance(base, str) or base not in upstream_runners):
                self.problem(where + ("from",), _messages.overlay_unknown_id("runner", str(base), upstream_runners))
            else:
                runners.append(id)
                if op is not None:
                    ops.append((attrs.evolve(op, copies=base), body, _add_runner(id, base)))
        if "choice" in head:
            ops += self.choice(head["choice"], runners)
        ops += self.added("features", features_doc) + self.added("adjustments", features_doc)
        features, adjustments = list(features_doc.get("features", {})), list(features_doc.get("adjustments", {}))
        known = {"features": features, "runners": upstream_runners, "orders": list(features_doc.get("orders", {})),
                 "kinds": list(features_doc.get("requirements", {})), "adjustments": adjustments}
        known["requires"] = known["kinds"]
        self.fields = features_doc.get("config", {})
        known["config"] = list(self.fields)
        self.wide = list(features_doc.get("requires") or {})
        self.document_kinds = known["kinds"]
        return ops + self.changes(known, runners) + self.refusals(features_doc)

    def added(self, table: str, features_doc: Dict[str, Any]) -> List[_Op]:
        """The entries the overlay adds to *table* (`_ADDED`): an id upstream has already is said."""
        kind, what, change, apply = _ADDED[table]
        upstream = list(features_doc.get(table, {}))
        ops: List[_Op] = []
        for id, where, body, op in self.entries((table,), kind):
            if id in upstream:
                self.problem(where, _messages.overlay_already_upstream(what, id, change))
            elif op is not None:
                ops.append((op, body, apply(id)))
        return ops

    def refusals(self, features_doc: Dict[str, Any]) -> List[_Op]:
        """The overlay's ``[refusals]`` entries, after upstream's: upstream's keys (``reason``,
        ``links``, ``together``, checked by the composed build against the composed matrix's
        gates), the reason its operation's why; an id upstream has already is said."""
        raw = self.document.get("refusals", {})
        if not isinstance(raw, dict):
            self.problem(("refusals",), _messages.overlay_not_a_table(raw))
            return []
        upstream = list(features_doc.get("refusals", {}))
        ops: List[_Op] = []
        for id, value in raw.items():
            where: Place = ("refusals", id)
            if not isinstance(value, dict):
                self.problem(where, _messages.overlay_not_a_table(value))
            elif id in upstream:
                self.problem(where, _messages.overlay_refusal_upstream(id))
            else:
                line, column = self.source.locations.key(where) or (None, None)
                reason = value.get("reason")
                op = Operation("add-refusal", id, _messages.place(where), reason if isinstance(reason, str) else "",
                               self.name, line, column)
                ops.append((op, dict(value), _add_refusal(id)))
        return ops

    def changes(self, known: Dict[str, List[str]], runners: List[str]) -> List[_Op]:
        ops: List[_Op] = []
        change = self.document.get("change", {})
        for kind in change if isinstance(change, dict) else ():
            if kind not in CHANGES:
                self.problem(("change", kind), _messages.unknown_choice("table", kind, list(CHANGES)))
        for kind, (what, change_of) in _CHANGE_OPS.items():
            for id, where, body, op in self.entries(("change", kind), f"change-{what}"):
                for key in body:
                    if key not in CHANGES[kind]:
                        self.problem(where + (key,), _messages.unknown_choice("key", key, [*CHANGES[kind], *PROVENANCE]))
                if op is not None:
                    op = self.known(where, op, id, known[kind], _KNOWN_AS.get(kind, what), self.matrix.version)
                if op is not None and kind == "runners" and not op.dangling:
                    op = self.kinds_known(where, op, body, known["kinds"])
                if op is not None and kind == "orders" and "choice" in self.document.get("overlay", {}):
                    self.problem(where, _messages.overlay_order_dropped(id))  # the owned choice drops it
                    op = None
                if op is not None and kind == "orders" and not op.dangling and not self.order_ok(where, id, body, known[kind]):
                    op = None
                if op is not None and self.body_ok(kind, where, body, runners):
                    ops.append((op, body, change_of(id)))
        return ops

    def entries(self, table: Place, kind: str) -> Iterator[Tuple[str, Place, Dict[str, Any], Optional[Operation]]]:
        """``(id, place, body, operation)`` for each entry of *table*: the body without its
        provenance keys, the operation None when its provenance is wrong (said)."""
        raw: Any = self.document
        for key in table:
            raw = raw.get(key, {}) if isinstance(raw, dict) else {}
        if not isinstance(raw, dict):
            self.problem(table, _messages.overlay_not_a_table(raw))
            return
        for id, value in raw.items():
            where: Place = (*table, id)
            if not isinstance(value, dict):
                self.problem(where, _messages.overlay_not_a_table(value))
                continue
            body = dict(value)
            op = self.provenance(where, body, kind, id, self.matrix)
            yield id, where, body, op

    def choice(self, choice: object, runners: List[str]) -> List[_Op]:
        where: Place = ("overlay", "choice")
        if not isinstance(choice, dict):
            self.problem(where, _messages.overlay_not_a_table(choice))
            return []
        body = dict(choice)
        op = self.provenance(where, body, "own-choice", "choice", self.matrix)
        order = body.get("order", [])
        for key in body:
            if key != "order":
                self.problem(where + (key,), _messages.unknown_choice("key", key, ["order", *PROVENANCE]))
        if not isinstance(order, list) or not all(isinstance(r, str) for r in order):
            self.problem(where + ("order",), _messages.overlay_expected_ids("order", order))
            return []
        for r in order:
            if r not in runners:
                self.problem(where + ("order",), _messages.overlay_unknown_runner(r, runners))
        return [(op, body, _own_choice(order))] if op is not None else []

    def order_ok(self, where: Place, id: str, body: Dict[str, Any], orders: List[str]) -> bool:
        """``unset``: only ``when``, of the last order (one without when applies wherever no order
        before it does: an order after it would never be reached)."""
        if not self.unset_ok(where, body, _overlay.ORDER_UNSET):
            return False
        after = orders[orders.index(id) + 1:]
        if "when" in body.get("unset", []) and after:
            self.problem(where + ("unset",), _messages.overlay_order_unset_when(id, after))
            return False
        return True

    def kinds_known(self, where: Place, op: Operation, body: Dict[str, Any], kinds: List[str]) -> Optional[Operation]:
        """*op* (a change of a runner), dangling when a requirement kind its ``requires`` or
        ``unset`` names is not declared upstream and *op* is written for other upstream
        versions; such a kind is said (with "did you mean") otherwise; None when ``requires`` is
        not a table."""
        requires = body.get("requires", {})
        if not isinstance(requires, dict):
            self.problem(where + ("requires",), _messages.overlay_not_a_table(requires))
            return None
        unset = body.get("unset", [])
        named = [*requires, *(u[len("requires."):] for u in unset if isinstance(u, str) and u.startswith("requires."))]
        for kind in named:
            if kind in kinds:
                continue
            if op.upstream is not None and not SpecifierSet(op.upstream).contains(self.matrix.version, prereleases=True):
                return attrs.evolve(op, dangling=True)
            self.problem(where + ("requires", kind) if kind in requires else where + ("unset",),
                         _messages.overlay_unknown_id("requirement kind", kind, kinds))
        return op  # a kind said unknown fails the load; its body is still checked

    def body_ok(self, kind: str, where: Place, body: Dict[str, Any], runners: List[str]) -> bool:
        ok = all([self.cells_ok(where, body, runners), self.appends_ok(where, body, runners)]) if kind == "features" else True
        if kind in ("features", "runners", "adjustments"):
            allowed = {"features": _overlay.FEATURE_UNSET, "runners": _overlay.RUNNER_UNSET}
            ok = self.unset_ok(where, body, allowed.get(kind, _overlay.ADJUSTMENT_UNSET)) and ok
        elif kind == "requires":
            ok = self.unset_ok(where, body, _overlay.WIDE_UNSET) and ok
        if kind == "requires":
            ok = self.wide_ok(where, body, runners) and ok
        if kind == "adjustments" and "remove" in body:
            if body["remove"] is not True or len(body) > 1:
                self.problem(where + ("remove",), _messages.overlay_remove_alone(body["remove"], sorted(set(body) - {"remove"})))
                ok = False
        if kind == "config":
            ok = self.choices_ok(where, body) and ok
        if kind == "runners" and body.get("choice", False) is not False:
            self.problem(where + ("choice",), _messages.overlay_choice_false(body.get("choice")))
            ok = False
        return ok

    def choices_ok(self, where: Place, body: Dict[str, Any]) -> bool:
        """``add_choices`` of an upstream field: a non-empty list of values (or ``{ value, … }``
        tables), to a field with choices, none of which it has already, none twice, each read as
        ``choices`` are (`matrix._load_config.choices_read`: a malformed table, or a value of
        another type, is said at its ``add_choices[i]``)."""
        added = body.get("add_choices")
        at = where + ("add_choices",)
        if not isinstance(added, list) or not added:
            self.problem(at, _messages.overlay_add_choices(added))
            return False
        path = str(where[-1])
        field = self.fields.get(path)
        choices = field.get("choices") if isinstance(field, dict) else None
        if not isinstance(choices, list):
            self.problem(at, _messages.overlay_field_without_choices(path))
            return False
        ok = choices_read(self.b, self.source, at, added,
                          Field(path, self.matrix.schema.fields[path].type)) is not None
        # By value and type (True is no int choice 1).
        seen = [_typed(v) for v in values_written(choices)]
        for value in values_written(added):
            if _typed(value) in seen:
                self.problem(at, _messages.overlay_choice_already(path, value))
                ok = False
            seen.append(_typed(value))
        return ok

    def cells_ok(self, where: Place, body: Dict[str, Any], runners: List[str]) -> bool:
        support = body.get("support", {})
        if not isinstance(support, dict):
            self.problem(where + ("support",), _messages.overlay_not_a_table(support))
            return False
        ok = True
        for runner in support:
            if runner != "*" and runner not in runners:
                self.problem(where + ("support", runner), _messages.overlay_unknown_runner(runner, runners))
                ok = False
        names: Set[str] = set()
        for key in ("lift", "block"):
            value = body.get(key, [])
            if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
                self.problem(where + (key,), _messages.overlay_expected_ids(key, value))
                ok = False
                continue
            for runner in value:
                if runner not in runners:
                    self.problem(where + (key,), _messages.overlay_unknown_runner(runner, runners))
                    ok = False
                elif runner in names or runner in support:
                    self.problem(where + (key,), _messages.overlay_cell_twice(runner))
                    ok = False
                names.add(runner)
        return ok

    def appends_ok(self, where: Place, body: Dict[str, Any], runners: List[str]) -> bool:
        """``append``: a table from runner id to a statement with ``since`` (checked as a
        history's statement is), of a cell the operation does not also replace."""
        from ._load_support import _statement

        append = body.get("append", {})
        if not isinstance(append, dict):
            self.problem(where + ("append",), _messages.overlay_not_a_table(append))
            return False
        replaced = {r for key in ("support", "lift", "block") if isinstance(body.get(key), (dict, list))
                    for r in body[key] if isinstance(r, str)}
        ok = True
        for runner, raw in append.items():
            at: Place = (*where, "append", runner)
            if runner not in runners:
                self.problem(at, _messages.overlay_unknown_runner(runner, runners))
                ok = False
            elif runner in replaced or "*" in replaced:
                self.problem(at, _messages.overlay_append_and_replace(runner))
                ok = False
            elif not isinstance(raw, dict) or "since" not in raw:
                self.problem(at, _messages.overlay_append_without_since(runner, raw))
                ok = False
            elif _statement(self.b, self.source, at, raw) is None:
                ok = False
        return ok

    def appended(self, op: Operation, body: Dict[str, Any], features_doc: Dict[str, Any]) -> Operation:
        """*op* (a change of a feature) with the statements its ``append`` appends to the cells
        of *features_doc* (the documents so far, `Operation.appends`): not those the cell's last
        statement already says; one that does not come after that statement is said."""
        out, dropped = [], []
        for runner, statement in body.get("append", {}).items():
            cell = _overlay.cell_of(features_doc, op.target, runner)
            follows = _overlay.follows(cell, statement["status"], parsed(statement["since"]))
            if follows is None:
                self.problem((*_place(op.place), "append", runner, "since"), _messages.overlay_append_order(
                    runner, statement["since"], *map(str, _overlay.last_statement(cell))))
            elif follows:
                out.append((runner, statement["since"]))
            else:
                line, column = self.source.locations.key((*_place(op.place), "append", runner)) or (op.line, op.column)
                dropped.append((runner, line, column))
        return attrs.evolve(op, appends=tuple(out), dropped=tuple(dropped))

    def wide_ok(self, where: Place, body: Dict[str, Any], runners: List[str]) -> bool:
        """A change of a matrix-wide requirement: ``exempt`` a list of runner ids; ``exempt`` or
        ``unset`` without ``entry`` change an entry upstream has."""
        ok = True
        exempt = body.get("exempt", [])
        if not isinstance(exempt, list) or not all(isinstance(r, str) for r in exempt):
            self.problem(where + ("exempt",), _messages.overlay_expected_ids("exempt", exempt))
            ok = False
        kind = where[-1]
        declared = kind in self.document_kinds  # an undeclared kind is said (or dangling) already
        if declared and "entry" not in body and kind not in self.wide and ("exempt" in body or body.get("unset")):
            self.problem(where, _messages.overlay_no_wide_entry(str(kind), self.wide))
            ok = False
        return ok

    def unset_ok(self, where: Place, body: Dict[str, Any], allowed: Tuple[str, ...]) -> bool:
        unset = body.get("unset", [])
        if not isinstance(unset, list) or not all(isinstance(u, str) for u in unset):
            self.problem(where + ("unset",), _messages.overlay_expected_ids("unset", unset))
            return False
        ok = True
        for key in unset:
            entry = key.startswith("requires.") and allowed is _overlay.RUNNER_UNSET  # requires.KIND: kinds_known
            if key not in allowed and not entry:
                self.problem(where + ("unset",), _messages.unknown_choice("key to unset", key, allowed))
                ok = False
            elif key in body or (entry and key[len("requires."):] in (body.get("requires") or {})):
                self.problem(where + ("unset",), _messages.overlay_set_and_unset(key))
                ok = False
        return ok


def _in_runner_file(problem: Any, record: Overlay, text: str) -> Any:
    """*problem* of a composed runner table (``runners/ID.toml``, no line: the table is built,
    not read) said where the key is written: the overlay's ``[change.runners.ID]`` or
    ``[runners.ID]``, else upstream's runner file."""
    from ._check_overlay import Where

    folder, _, file = (problem.file or "").rpartition("/")
    if problem.line is not None or folder != "runners" or not file.endswith(".toml"):
        return problem
    path = tuple(problem.place.removeprefix("$").lstrip(".").split(".")) if problem.place != "$" else ()
    file, line, column = Where(record, text).runner(file[:-len(".toml")], tuple(p for p in path if p))
    return attrs.evolve(problem, file=file, line=line, column=column)


def _keys(kind: str, body: Dict[str, Any], runners: List[str]) -> Tuple[str, ...]:
    """What an operation changes of its target, for "two overlays change the same thing"."""
    if kind == "own-choice":
        return ("choice",)
    if kind == "add-runner":
        return tuple(sorted(body))
    if not kind.startswith("change-"):
        return ()
    if kind == "change-adjustment" and "remove" in body:  # a removal changes every key of it
        return tuple(sorted({*_overlay.ADJUSTMENT_KEYS, *_overlay.ADJUSTMENT_UNSET}))
    if kind == "change-field":  # each choice added: two overlays of a chain may add their own
        return tuple(f"choices.{value_of(c)}" for c in body.get("add_choices", []))
    if kind == "change-requirement":  # the entry holds its exempt list: replacing it changes both
        named = {*body, *body.get("unset", [])} - {"unset"}
        return tuple(sorted(named | {"exempt"} if "entry" in named else named))
    keys = {k for k in body if k not in ("support", "lift", "block", "unset", "choice", "append", "requires")}
    keys |= {f"append.{r}" for r in body.get("append", {})} | {f"requires.{k}" for k in body.get("requires", {})}
    keys |= set(body.get("unset", []))
    if body.get("choice") is False:
        keys.add("candidate")
    support = body.get("support", {})
    cells = [*(runners if "*" in support else ()), *support, *body.get("lift", []), *body.get("block", [])]
    keys |= {f"support.{r}" for r in cells if r != "*"}
    return tuple(sorted(keys))


def _removes(op: Operation, body: Dict[str, Any], runners: List[str]) -> Tuple[str, ...]:
    """The runners *op* removes from automatic choice (`Operation.removes`)."""
    if op.kind == "own-choice":
        return tuple(r for r in runners if r not in body.get("order", []))
    if op.kind in ("change-runner", "add-runner") and (body.get("choice") is False or body.get("candidate") == "False"):
        return (op.target,)
    return ()


def _copied(features_doc: Dict[str, Any], base: str) -> Tuple[str, ...]:
    """The features whose cell a runner made from *base* gets from it (`_add_runner`): those
    with *base*'s cell, and those forcing *base* (there it says no)."""
    return tuple(id for id, f in features_doc.get("features", {}).items() if isinstance(f, dict) and (
        base in (f.get("support") or {}) or (isinstance(f.get("forces"), dict) and f["forces"].get("runner") == base)))


def _copied_adjustments(features_doc: Dict[str, Any], base: str, id: str) -> Tuple[str, ...]:
    """The adjustments a runner *id* made from *base* gets from it (`_add_runner`): those whose
    ``runners`` names *base* and not *id*."""
    return tuple(a for a, table in features_doc.get("adjustments", {}).items() if isinstance(table, dict)
                 and isinstance(table.get("runners"), list) and base in table["runners"] and id not in table["runners"])


def _place(place: str) -> Place:
    """The path of an operation's place (``$.change.features.x``, ``$.overlay.choice``): its
    ids are plain names (`matrix._format.ID_RE`)."""
    return tuple(place.removeprefix("$.").split("."))


def _rest(features_doc: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in features_doc.items() if k != "features"}


# --- applying one operation: (features.toml document, runner tables, its body, provenance words) ---

def _add_field(path: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        field = copy.deepcopy(body)
        if words is not None:
            field["doc"] = _overlay.annotated_note(field.get("doc"), words)
        doc.setdefault("config", {})[path] = field
    return apply


def _typed(value: object) -> Tuple[type, object]:
    """A choice's value with its type: the same choice only where both are equal."""
    return type(value), value


def _change_field(path: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        field = doc["config"][path]
        field["choices"] = [*field["choices"], *copy.deepcopy(body["add_choices"])]
        if words is not None:
            field["doc"] = _overlay.annotated_note(field.get("doc"), words)
    return apply


def _add_runner(id: str, base: Optional[str]) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        table: Dict[str, Any] = {}
        if base is not None:
            # Not its former ids, redirects or deprecation: those are about ID itself.
            table = {k: copy.deepcopy(v) for k, v in runners[base].items()
                     if k not in ("aliases", "redirects", "deprecated")}
            for feature in doc.get("features", {}).values():
                support = feature.get("support", {})
                forced = isinstance(feature.get("forces"), dict) and feature["forces"].get("runner") == base
                if forced:
                    support[id] = "no"
                elif base in support:
                    support[id] = copy.deepcopy(support[base])
            for adjustment in doc.get("adjustments", {}).values():  # "as BASE, except …": its adjustments too
                named = adjustment.get("runners") if isinstance(adjustment, dict) else None
                if isinstance(named, list) and base in named and id not in named:
                    named.append(id)
        table.update(copy.deepcopy(body))
        if words is not None:
            table["description"] = _overlay.annotated_note(table.get("description"), words)
        runners[id] = table
    return apply


def _own_choice(order: List[str]) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        for feature in doc.get("features", {}).values():
            if "prefers" in feature:
                del feature["prefers"]
                if words is not None:
                    feature["note"] = _overlay.annotated_note(feature.get("note"), words)
        doc.pop("orders", None)
        priorities = _overlay.ordered([(r, t.get("priority", 0)) for r, t in runners.items()], order)
        for r, table in runners.items():
            table["priority"] = priorities[r]
            if r not in order:
                table["candidate"] = "False"
    return apply


def _add_feature(id: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        feature = copy.deepcopy(body)
        if words is not None:
            feature["note"] = _overlay.annotated_note(feature.get("note"), words)
        doc.setdefault("features", {})[id] = feature
    return apply


def _change_feature(id: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        feature = doc["features"][id]
        support = feature.setdefault("support", {})
        cells = dict(body.get("support", {}))
        if "*" in cells:
            every = cells.pop("*")
            cells = {r: every for r in runners} | cells
        cells |= {r: "yes" for r in body.get("lift", [])} | {r: "no" for r in body.get("block", [])}
        for runner, cell in cells.items():
            support[runner] = _overlay.annotated_cell(cell, words)
        for runner, statement in body.get("append", {}).items():
            cell = _overlay.cell_of(doc, id, runner)
            if _overlay.follows(cell, statement["status"], parsed(statement["since"])):
                support[runner] = _overlay.appended(cell, statement, words)
        touched = False
        for key in ("name", "group", "note", "links", "prefers", "forces"):
            if key in body:
                feature[key] = copy.deepcopy(body[key])
                touched = True
        for key in body.get("unset", []):
            feature.pop(key, None)
            touched = True
        if touched and words is not None:
            feature["note"] = _overlay.annotated_note(feature.get("note"), words)
    return apply


def _change_runner(id: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        table = runners[id]
        for key in ("name", "priority", "description", "links", "candidate", "deprecated"):
            if key in body:
                table[key] = copy.deepcopy(body[key])
        if body.get("choice") is False:
            table["candidate"] = "False"
        for kind, entry in body.get("requires", {}).items():
            table.setdefault("requires", {})[kind] = copy.deepcopy(entry)
        for key in body.get("unset", []):
            if key.startswith("requires."):
                table.get("requires", {}).pop(key[len("requires."):], None)
                if not table.get("requires", True):
                    del table["requires"]
            else:
                table.pop(key, None)
        if words is not None:
            table["description"] = _overlay.annotated_note(table.get("description"), words)
    return apply


def _change_order(id: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        order = doc["orders"][id]
        for key in ("name", "when", "runners"):
            if key in body:
                order[key] = copy.deepcopy(body[key])
        for key in body.get("unset", []):
            order.pop(key, None)
    return apply


def _add_adjustment(id: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        doc.setdefault("adjustments", {})[id] = copy.deepcopy(body)  # its message is the host's words: as written
    return apply


def _add_refusal(id: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        doc.setdefault("refusals", {})[id] = copy.deepcopy(body)  # its reason is the overlay's words: as written
    return apply


def _change_adjustment(id: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        if body.get("remove") is True:
            del doc["adjustments"][id]
            return
        adjustment = doc["adjustments"][id]
        for key in _overlay.ADJUSTMENT_KEYS:
            if key in body:
                adjustment[key] = copy.deepcopy(body[key])
        for key in body.get("unset", []):
            adjustment.pop(key, None)
    return apply


def _change_requires(kind: str) -> Any:
    def apply(doc: Dict[str, Any], runners: Dict[str, Any], body: Dict[str, Any], words: Optional[str]) -> None:
        requires = doc.setdefault("requires", {})  # its reason is the host's words: as written
        if "entry" in body:
            requires[kind] = copy.deepcopy(body["entry"])
        if "unset" in body and "entry" in body["unset"]:
            requires.pop(kind, None)
        if kind in requires and ("exempt" in body or "exempt" in body.get("unset", [])):
            entry = requires[kind]
            clause = _overlay.first_clause(entry)
            if not isinstance(entry, (list, dict)):
                requires[kind] = clause
            if "exempt" in body:
                clause["exempt"] = list(body["exempt"])
            else:
                clause.pop("exempt", None)
        if not requires:
            del doc["requires"]
    return apply


_CHANGE_OPS = {"config": ("field", _change_field), "features": ("feature", _change_feature), "runners": ("runner", _change_runner),
               "orders": ("order", _change_order), "adjustments": ("adjustment", _change_adjustment),
               "requires": ("requirement", _change_requires)}
#: What an unknown id of a change is called, where not its operation's word.
_KNOWN_AS = {"requires": "requirement kind", "config": "[config] field"}
#: The tables an overlay adds entries to, none of which upstream may have: the table → the
#: operation's kind, what the error calls an entry, the table its change goes under, how it applies.
_ADDED = {"config": ("add-field", "[config] field", "config", _add_field),
          "features": ("add-feature", "feature", "change.features", _add_feature),
          "adjustments": ("add-adjustment", "adjustment", "change.adjustments", _add_adjustment)}

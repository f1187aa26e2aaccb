"""Loading a matrix: TOML text → strict shapes (cattrs) → cross-checked model (`schema`).

Every problem is collected before anything is raised: one `LoadError` lists them all, sorted,
each with its file, line and column where the text shows it, and its ``$.path`` always. One
bad feature never hides another.

This module holds the entry points and the orchestration (`_Builder.build`); each section of
the file is built by its own unit, a module of functions handed the builder (its problems, the
helpers every section uses, and what earlier sections found):

- `matrix._load_header`: ``[matrix]``; `matrix._load_config`: ``[config]``;
- `matrix._load_runners`: the runner files (a folder, or a mapping given to `loads`);
- `matrix._load_features`: ``[features]``, with `matrix._load_support` (support tables) and
  `matrix._load_lifecycle` (deprecations, removals, the windows a gate's condition reads);
- `matrix._load_refusals`: ``[refusals]``; `matrix._load_choice`: ``[requirements]``, each
  runner's ``[requires]`` and ``candidate``, ``[orders]``; `matrix._load_check`: ``[check]``;
- `matrix._load_messages`: ``[messages]``, the matrix's own sentences;
- `matrix._load_docs`: ``[docs]``, the columns table's questions and rows (docs only);
- `matrix._toml_errors`: tomllib's syntax errors said in the user's terms.

A unit imports nothing of this module at run time (the builder's type only, for the type
checker): the units are imported when a file is built, not by ``import matrix``.
"""

from __future__ import annotations

import functools
import os
import re
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

import attrs
from packaging.version import InvalidVersion, Version

from . import _messages
from ._files import toml
from ._given import ROLE
from ._versions import parsed
from .errors import LoadError, Problem, excerpt
from .predicates import Predicate
from .schema import Matrix, Requirement, Runner, Schema, Statement, Window

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from ._locate import Locations
    from ._templates import Template

__all__ = ["load", "loads", "default", "installed_overlays", "MAX_FILE_BYTES", "MAX_FEATURES"]


def __dir__() -> List[str]:
    return __all__


MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_FEATURES = 10_000


RunnersArg = Union[str, "os.PathLike[str]", Mapping[str, Union[Runner, Mapping[str, object], str]]]


def load(path: Union[str, os.PathLike[str], None] = None,
         overlays: Optional[Sequence[Union[str, os.PathLike[str]]]] = None, *,
         installed: bool = False, refuse: Sequence[str] = ()) -> Matrix:
    """Load ``features.toml`` at *path* and the runner files of the folder it names; without
    *path*, the packaged default matrix (`default`: Python never looks for a file, unlike the
    command line, so an import answers the same from any folder).

    :param overlays: overlay files to apply to the matrix at *path*, in this order (each one's
        ``extends`` names that matrix, or an overlay before it in the list).
    :param installed: also apply the overlays installed packages declare in the entry-point
        group ``matrix.overlays`` that extend this matrix (`installed_overlays`), after
        *overlays*. Entry points are read only when this is true.
    :param refuse: the names of installed overlays not to apply (``"*"``: none of them); the
        environment variable ``MATRIX_REFUSE_OVERLAYS`` (names, comma-separated) adds to it.
    :raises LoadError: with every problem found, in either file.
    """
    name = None if path is None else os.fspath(path)
    if overlays is not None or installed:
        from . import _overlay_installed

        if isinstance(overlays, (str, os.PathLike)):
            overlays = [overlays]  # one file, not its characters
        if isinstance(refuse, str):
            refuse = [refuse]
        files = [os.fspath(o) for o in overlays or ()]
        if installed:
            files += _overlay_installed.not_given(_overlay_installed.applied(_upstream_names(name), refuse), files)
        if files:
            return _load_list(name, files)
    if name is None:
        return default()
    text = _read(name, name)
    if _overlay_file(text):  # an [overlay] over an upstream matrix (issue 31): matrix._load_overlay
        return _load_overlay(name, text)
    return _built(text, name, os.path.dirname(name))


def installed_overlays(path: Union[str, os.PathLike[str], None] = None) -> Tuple[Any, ...]:
    """The overlays installed packages declare in the entry-point group ``matrix.overlays``
    that extend the matrix at *path* (None: the packaged matrix), each an
    ``InstalledOverlay`` (``name``, ``distribution``, ``file``, ``extends``, ``refused``: by
    ``MATRIX_REFUSE_OVERLAYS``), in the order ``load(installed=True)`` applies them.
    """
    from . import _overlay_installed

    return _overlay_installed.listed(_upstream_names(None if path is None else os.fspath(path)))


def _upstream_names(name: Optional[str]) -> Tuple[str, ...]:
    """What an overlay's ``extends`` may say to name the matrix at *name* (None: packaged)."""
    from ._load_overlay import upstream_names

    matrix = default() if name is None else load(name)
    return upstream_names(matrix, _default_file() if name is None else name, _default_file())


def _load_list(upstream: Optional[str], files: List[str]) -> Matrix:
    from ._load_overlay import load_list

    texts = [_read(f, f) for f in files]
    return _composed(("" if upstream is None else upstream, *files), texts,
                     lambda loading: load_list(upstream, files, loading))


def _composed(names: Sequence[str], texts: Sequence[str], build: Callable[[Any], Matrix]) -> Matrix:
    """A composed matrix (issue 31) from the cache when its entry is fresh, else built by
    *build* (handed a `Loading` that records every file it reads) and saved: the key holds the
    names and texts given (upstream's name, "" for the packaged matrix, and the overlay files),
    the entry the hash of every file the composition read (upstream's features.toml and runner
    files, each overlay of a chain) and upstream's runner folder (`matrix._cache`)."""
    from . import _cache
    from ._load_overlay import Loading

    # The names as given (messages show them) and where they are (a relative name read from
    # another folder is another file).
    where = [os.path.abspath(n) if n else "" for n in names]
    key = _cache.key("\0".join(["overlay", *names, *where]), "\0".join(texts))
    root = os.path.abspath(os.sep)  # the runner folder kept as an absolute path
    cached = _cache.get(key, root)
    if cached is not None:
        return cached
    read: List[str] = []

    def recording(name: str, path: str) -> str:
        read.append(path)
        return _read(name, path)

    matrix = build(Loading(_Builder, recording, load, default, _default_file))
    if matrix.overlay is not None:
        _cache.put(key, matrix, root, os.path.abspath(matrix.overlay.runners_folder), files=read)
    return matrix


def loads(text: str, *, runners: RunnersArg, path: Optional[str] = None) -> Matrix:
    """Load a matrix from *text*.

    :param runners: a folder of ``<id>.toml`` runner files, or a mapping from runner id to a
        `Runner`, a table (``{"name": …, "priority": …}``) or the TOML text of a runner file.
    :param path: the name to show in messages (and the base of a relative runner folder).
    :raises LoadError: with every problem found.
    """
    name = path if path is not None else "<string>"
    base = os.path.dirname(path) if path is not None else os.getcwd()
    return _Builder().build(text, name, runners=runners, base=base)


def reading(**given: Any) -> Any:
    """The `matrix._load_overlay.Loading` the overlay unit reads files and loads matrices
    through: this module's, with each of *given* in its place (`matrix._revision`: the files of
    a git revision). What it composes is not cached."""
    from ._load_overlay import Loading

    return Loading(_Builder, _read, load, default, _default_file)._replace(**given)


def load_reading(reading: Any, upstream: str, overlays: Sequence[str] = ()) -> Matrix:
    """The overlay *upstream* (without *overlays*), or the matrix *upstream* with *overlays*
    applied in order, every file read through *reading* (`reading`); not cached."""
    from ._load_overlay import load as load_overlay
    from ._load_overlay import load_list

    if overlays:
        return load_list(upstream, list(overlays), reading)
    return load_overlay(upstream, reading.read(upstream, upstream), reading)


def _overlay_file(text: str) -> bool:
    from ._overlay import is_overlay

    return is_overlay(text)


def _load_overlay(name: str, text: str) -> Matrix:
    from ._load_overlay import load as load_overlay

    return _composed((name,), (text,), lambda loading: load_overlay(name, text, loading))


def _default_file() -> str:
    """Where the packaged default matrix's features.toml is (its runner files are in the
    ``runners`` folder beside it): the names `default` gives its files are relative to here."""
    here = os.path.dirname(os.path.realpath(__file__))
    packaged = os.path.join(here, "_default", "features.toml")
    return packaged if os.path.isfile(packaged) else os.path.join(os.path.dirname(here), "features.toml")


@functools.cache
def default() -> Matrix:
    """The packaged default matrix: vLLM's model runners."""
    path = _default_file()
    text = _read("features.toml", path)
    return _built(text, "features.toml", os.path.dirname(path), shipped=True)


def _built(text: str, name: str, base: str, *, shipped: bool = False) -> Matrix:
    """The matrix of a file, from the cache when an entry is fresh (see `matrix._cache`), else
    built and saved there. *shipped*: the wheel may hold the entry (the default matrix)."""
    from . import _cache

    key = _cache.key(name, text)
    cached = _cache.get(key, base, path=_cache.SHIPPED, trusted=True) if shipped else None
    if cached is None:
        cached = _cache.get(key, base)
    if cached is not None:
        return cached
    builder = _Builder()
    matrix = builder.build(text, name, runners=None, base=base)
    if builder.runners_read_from is not None:
        _cache.put(key, matrix, base, builder.runners_read_from)
    return matrix


_toml = toml  # the tomllib module (read by the CLI and `matrix check`'s ignore list too)


def _read(name: str, path: str) -> str:
    try:
        size = os.stat(path).st_size
        if size <= MAX_FILE_BYTES:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise LoadError(name, [Problem(_messages.cannot_read(exc), "$", name)]) from None
    if size > MAX_FILE_BYTES:
        raise LoadError(name, [Problem(
            _messages.file_too_big(size, MAX_FILE_BYTES), "$", name)])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(name, [Problem(_messages.not_utf8(exc), "$", name)]) from None


class _Source:
    """One file's name and text; where its keys stand is worked out on first need."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self._locations: Optional[Locations] = None

    @property
    def locations(self) -> Locations:
        if self._locations is None:
            from ._locate import Locations

            self._locations = Locations(self.text)
        return self._locations


class _Builder:
    """One load: the problems found so far and what each section found that the others read.
    A section's unit reports through `problem` and reads its input through `shaped`, `version`,
    `window`, `predicate` and `entries` (their names and signatures are what the units rely on)."""

    def __init__(self) -> None:
        # cattrs is imported on first load, not by `import matrix` (see benchmarks/).
        from . import _converter

        self.shapes = _converter
        self.problems: List[Problem] = []
        self.runners_read_from: Optional[str] = None  # the folder of the runner files read
        # What failed to load, reported once: it is known to exist for the rest of the checks.
        self.broken: Set[str] = set()  # config paths
        self.broken_runners: Dict[str, Optional[int]] = {}  # runner id: its priority, where readable
        self.runner_specs: Dict[str, Tuple[_Source, Any]] = {}  # runner id: its file and RunnerSpec
        self.matrix_version: Optional[Version] = None  # [matrix] version, once the header is read
        #: [matrix] default_support: what a runner a support table leaves out says of the feature.
        self.default_support: Optional[Tuple[Statement, ...]] = None
        #: [matrix] stages (issue 30, F6), once the header is read: the stages an adjustment may name.
        self.stages: Tuple[str, ...] = ()
        #: The header was refused with a ``stages`` in it: a stage named elsewhere is not checked.
        self.stages_refused = False
        #: The first role features.toml declares, if any (`matrix._load_roles.after_choice`).
        self.base_role: Optional[str] = None

    # --- what every section uses -----------------------------------------------------------

    def problem(self, source: _Source, path: Place, message: str, *,
                at: Optional[Tuple[int, int]] = None, detail: Optional[str] = None) -> None:
        """Say *message* about *path* of *source*, at its key's line and column unless *at*."""
        where = at or source.locations.key(path)
        line, column = where if where else (None, None)
        self.problems.append(Problem(message, _messages.place(path), source.name, line, column, detail))

    def shaped(self, source: _Source, value: object, cls: type, path: Place) -> Tuple[Any, Set[object]]:
        """*value* structured as the shape *cls* (None when it does not fit, said), and the keys
        directly below *path* that were wrong."""
        spec, errors = self.shapes.structure(value, cls, path)
        for where, message in errors:
            self.problem(source, where, self.version_as_number(source, where, value, path) or message)
        return spec, {w[len(path)] for w, _ in errors if len(w) > len(path)}

    def version_as_number(self, source: _Source, where: Place, value: object, path: Place) -> Optional[str]:
        """The "quote it" hint for a version written as a TOML number (``version = 2.10``, which
        TOML reads as the float 2.1), as the predicate language gives it; None for another mistake."""
        if not where or where[-1] not in self.shapes.VERSION_KEYS or (len(where) == 2 and where[0] == "config"):
            return None  # ("config", "version") is a field named version, not a version
        for key in where[len(path):]:
            if isinstance(value, dict) and key in value:
                value = value[key]
            elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
                value = value[key]
            else:
                return None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return None
        offset = source.locations.values.get(tuple(where))
        number = re.compile(r"[-+0-9._eE]+").match(source.text, offset) if offset is not None else None
        written = number.group().replace("_", "") if number else repr(value)
        return _messages.version_as_number(type(value).__name__, value, written)

    def version(self, source: _Source, path: Place, text: object) -> Optional[Version]:
        """*text* as a version; None when it is None, or not a version (said)."""
        if text is None:
            return None
        try:
            if not isinstance(text, str):
                raise InvalidVersion(text)
            return parsed(text)
        except InvalidVersion:
            self.problem(source, path, _messages.invalid_version(text))
            return None

    def window(self, source: _Source, where: Place, since_text: Optional[str],
               until_text: Optional[str]) -> Optional[Window]:
        """``since`` and ``until`` of a field or a choice; None (said) when either is malformed."""
        since = self.version(source, where + ("since",), since_text)
        until = self.version(source, where + ("until",), until_text)
        if (since_text is not None and since is None) or (until_text is not None and until is None):
            return None
        if since is not None and until is not None and until <= since:
            self.problem(source, where + ("until",), _messages.not_after('until', until, 'since', since))
            return None
        return (since, until)

    def entries(self, source: _Source, raw: object, table: str, what: str, cls: type) -> Iterator[Tuple[str, Place, Any]]:
        """``(id, place, spec)`` for each well-formed entry of a table of named tables
        (``[refusals]``, ``[requirements]``, ``[orders]``); every other one is a problem."""
        from . import _format  # the words of the file format: needed to load, not to resolve

        if not isinstance(raw, dict):
            self.problem(source, (table,), self.shapes.expected("a table", raw).args[0])
            return
        for id, value in raw.items():
            where: Place = (table, id)
            if not _format.ID_RE.match(id):
                self.problem(source, where, _messages.bad_feature_id(id, what))
                continue
            spec, _ = self.shaped(source, value, cls, where)
            if spec is not None:
                yield id, where, spec

    def predicate(self, source: _Source, where: Place, text: str, schema: Schema, *,
                  roles: bool = False) -> Optional[Predicate]:
        """*text* as a predicate on *schema*; None when it is not one (said, with a caret).
        A path below a field that failed to load is not said to be unknown too. It reads a
        role (``role.<id>``) only where *roles* says it is read after the choice
        (`matrix._load_roles.after_choice`)."""
        predicate, errors = Predicate.checked(text, schema=schema)
        if predicate is not None and schema.roles and not roles:
            from ._nodes import Path, walk

            for node in walk(predicate.node):
                if isinstance(node, Path) and node.name.startswith(ROLE):
                    at = source.locations.in_string(where, node.span[0]) if source.text else None
                    self.problem(source, where, _messages.role_before_choice(node.name), at=at,
                                 detail=excerpt(text, node.span))
        for error in errors:
            message = error.message
            unknown = error.unknown_path
            if unknown is not None and self.broken:
                if any(unknown == b or unknown.startswith(b + ".") for b in self.broken):
                    continue  # a field that failed to load: reported at its declaration
                message = _messages.unknown_path(unknown, [*schema.fields, *sorted(self.broken)])
            at = source.locations.in_string(where, error.span[0]) if source.text else None
            self.problem(source, where, message, at=at,
                         detail=excerpt(error.source, error.span, opened=error.opened))
        return predicate

    def stage(self, source: _Source, where: Place, stage: str) -> bool:
        """Whether *stage* (an adjustment's or a requirement's) is one of ``[matrix] stages``
        (said at *where*, else; not said again where a malformed header was said already)."""
        if self.stages_refused:
            return False
        if not self.stages:
            self.problem(source, where, _messages.stage_without_stages(stage))
            return False
        if stage not in self.stages:
            self.problem(source, where, _messages.unknown_choice("stage", stage, self.stages, one_of=True))
            return False
        return True

    def template(self, source: _Source, where: Place, text: str, schema: Schema, *,
                 roles: bool = False) -> Optional[Template]:
        """*text* as a template of config paths of *schema* (an adjustment's message, a
        requirement's reason, a former id's message: `matrix._templates`); None when it is not
        one (each problem said). A path below a field that failed to load is not said. It says
        a role (``{role.<id>}``) only where *roles* says it is said after the choice."""
        from . import _templates

        template, problems = _templates.parse(text, (), (*schema.fields, *schema.derived, *schema.roles),
                                              sorted(self.broken), _templates.types_of(schema))
        for problem in problems:
            self.problem(source, where, problem)
        if template is not None and not roles:
            for path in sorted(p for p in template.paths if p.startswith(ROLE)):
                self.problem(source, where, _messages.role_before_choice(path))
        return template

    # --- files -----------------------------------------------------------------------------

    def source(self, name: str, text: str) -> _Source:
        """A file's text, shown as *name*, for the problems about it."""
        return _Source(name, text)

    def read(self, name: str, path: str) -> _Source:
        """The file at *path*, shown as *name*.

        :raises LoadError: when it cannot be read, is too big or is not UTF-8.
        """
        return _Source(name, _read(name, path))

    def parse(self, source: _Source) -> Dict[str, Any]:
        """The TOML document of *source*.

        :raises LoadError: with its syntax error (or a nesting too deep for the reader).
        """
        tomllib = _toml()
        try:
            document: Dict[str, Any] = tomllib.loads(source.text)
            return document
        except tomllib.TOMLDecodeError as exc:
            raise LoadError(source.name, [_syntax_problem(source, exc)]) from None
        except RecursionError:
            raise LoadError(source.name, [Problem(_messages.nested_too_deeply(), "$", source.name)]) from None

    # --- the document ----------------------------------------------------------------------

    def build(self, text: str, name: str, *, runners: Optional[RunnersArg], base: str,
              composed: Optional[Tuple[_Source, Dict[str, Any]]] = None) -> Matrix:
        # Each section is its own unit, handed this builder (imported here, not by `import matrix`).
        from . import (_format, _load_adjustments, _load_check, _load_choice, _load_config, _load_docs, _load_features,
                       _load_header, _load_messages, _load_redirects, _load_refusals, _load_roles, _load_runners,
                       _staged)

        # composed: an overlay's source and the document it made of upstream's (matrix._load_overlay)
        source = _Source(name, text) if composed is None else composed[0]
        if len(text) > MAX_FILE_BYTES:
            raise LoadError(name, [Problem(
                _messages.text_too_long(len(text), MAX_FILE_BYTES), "$", name)])
        document = self.parse(source) if composed is None else composed[1]
        tables = [a.name for a in attrs.fields(self.shapes.DocumentSpec)]
        for key in document:
            if key not in tables:
                self.problem(source, (key,), _messages.unknown_choice('table', key, tables))
        header = _load_header.header(self, source, document.get("matrix"))
        schema = _load_config.schema(self, source, document.get("config", {}))
        if runners is None:
            folder = header.runners if header is not None else "runners"
            runner_list = _load_runners.folder(self, source, os.path.join(base, folder), folder)
        elif isinstance(runners, Mapping):
            runner_list = _load_runners.mapping(self, source, runners)
        else:
            folder = os.fspath(runners)
            runner_list = _load_runners.folder(self, source, os.path.join(base, folder), folder)
        # Roles first: a rule read after the choice may read the runner that fills one (`role.<id>`).
        roles = _load_roles.roles(self, source, document["roles"], schema, runner_list) if "roles" in document else []
        declared = list(document["roles"]) if isinstance(document.get("roles"), dict) else []
        self.base_role = declared[0] if declared else None
        schema = _load_roles.typed(schema, roles, [d for d in declared if _format.ID_RE.match(d)], runner_list)
        features = _load_features.features(self, source, document.get("features", {}), schema, runner_list,
                                           limit=MAX_FEATURES)
        kinds = _load_choice.requirement_kinds(self, source, document.get("requirements", {}), schema)
        if runner_list is not None:
            runner_list = [_load_choice.requirements(self, r, kinds, schema) for r in runner_list]
            runner_list = _load_redirects.runners(self, runner_list, schema)
        wide = _load_choice.wide_requirements(self, source, document.get("requires"), kinds, schema, runner_list)
        refusals = _load_refusals.refusals(self, source, document.get("refusals", {}), document.get("features", {}),
                                           runner_list or [], document.get("orders", {}), wide)
        orders = _load_choice.orders(self, source, document.get("orders", {}), schema, runner_list)
        adjustments = _load_adjustments.adjustments(self, source, document.get("adjustments", {}), schema, runner_list)
        if runner_list is not None:
            runner_list = _load_roles.scoped(self, runner_list, roles, declared)
        staged: Tuple[Requirement, ...] = ()
        if runner_list is not None:
            runner_list, wide, staged = _staged.split(self.stages, runner_list, wide)
        if "check" in document:
            _load_check.ignores(self, source, document["check"], document.get("features"), runner_list,
                                document.get("refusals"))
        messages = _load_messages.messages(self, source, document.get("messages", {}), runner_list)
        columns, column_rows = _load_docs.docs(self, source, document["docs"], schema, runner_list) \
            if "docs" in document else ((), ())
        if self.problems:
            raise LoadError(name, self.problems)
        assert header is not None and runner_list is not None
        version = parsed(header.version)
        return Matrix(
            name=header.name,
            version=version,
            runners=tuple(sorted(runner_list, key=lambda r: -r.priority)),
            features=tuple(features),
            schema=schema,
            file=name,
            text=text,
            config_class=header.config_class,
            refusals=tuple(refusals),
            requirement_kinds=tuple(kinds.values()),
            orders=tuple(orders),
            requires=wide,
            default_support=header.default_support,
            adjustments=tuple(adjustments),
            roles=tuple(roles),
            stages=self.stages,
            staged=staged,
            messages=messages,
            columns=columns,
            column_rows=column_rows,
        )



def toml_syntax_problem(name: str, text: str, exc: Exception) -> Problem:
    """The problem a TOML syntax error *exc* in *text* (shown as *name*) is: for any TOML file
    matrix reads, config files too."""
    from . import _toml_errors  # imported on a syntax error only: a cached load reads no TOML

    return _toml_errors.syntax_problem(name, text, exc)


def _syntax_problem(source: _Source, exc: Exception) -> Problem:
    from . import _toml_errors

    return _toml_errors.syntax_problem(source.name, source.text, exc, source.locations)

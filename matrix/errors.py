"""The exceptions of ``matrix``: one family, each also the built-in a caller would catch.

Every error keeps its data in attributes (``source``, ``span``, ``path``, ``problems``,
``resolution``…), not only in its text. All wording lives in :mod:`matrix._messages`.

Diagnostic records
------------------

Four records say what is wrong or what was seen. Two words mean one thing in all of them and in
the errors above: ``place`` is a JSON-path-like string naming a place in the matrix's files
(``$.features.fp8.support.v2[1]``, made by one function, `matrix._messages.place`, from the key
tuples the loader and the checker walk), and ``path`` is a dotted ``[config]`` path
(``speculative_config.method``). A record about something other than the files has no
``place`` rather than an empty one. jsonschema's ``ValidationError`` carries the keys
(``absolute_path``) beside their string (``json_path``); here the key tuples stay private,
because what a caller selects by (the feature, the runner, the config path) is a field of its
own. The records differ because they answer different questions:

- `Problem` (message, place, file, line, column, detail): the files cannot be loaded. Each is
  an error (no severity) and has no code: the fix is in the message. All of a load's problems
  are raised at once in a `LoadError`; ``detail`` is the drawing under a predicate's error.
- `matrix.check.Finding` (code, severity, message, feature, runner, place, file, line, column,
  witness, features, combinations, refusal, path, member): the files load, and ``matrix
  check`` reports a property of the matrix. Its place fields are `Problem`'s, with the same
  meaning; it adds a stable code, a severity, the ids it is about and a witness config.
- `matrix.resolver.Observation` (kind, feature, runner, status): one thing seen while
  resolving one config. It is about a config, not the files, so it has no place.
- `matrix.binding.Drift` (code, path, member, message): a ``[config]`` entry that differs from
  the host class member it describes, found by comparing a schema with a class, with no file at
  hand; ``matrix check`` reports each as a `Finding` placed at that entry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple, Type

import attrs

from . import _messages
from ._record import Model

if TYPE_CHECKING:  # pragma: no cover
    from ._remedy import Remedies
    from .resolver import Resolution

__all__ = [
    "MatrixError",
    "UsageError",
    "LoadError",
    "Problem",
    "PredicateError",
    "ConfigError",
    "ResolutionError",
    "NoRunnerError",
    "UnsupportedFeatureError",
    "RemovedFeatureError",
    "AdjustmentError",
]


def __dir__() -> list[str]:
    return __all__


class MatrixError(Exception):
    """The base of every error ``matrix`` raises on purpose."""

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-ready dict: ``kind`` (the class name), ``message``, and the error's data."""
        return {"kind": type(self).__name__, "message": str(self)}


class UsageError(MatrixError, ValueError):
    """An argument given to the API (an unknown runner id, a malformed version…) is wrong."""


_WINDOW = 100


def excerpt(source: str, span: Tuple[int, int], *, opened: bool = False) -> str:
    """Draw the line of *source* holding *span*, with marks under the span.

    Plain spans are underlined with ``^``; an *opened* span (an unclosed bracket) is drawn as
    ``~~~^``: from where it opened to where the parser gave up.
    """
    start, end = span
    start = max(0, min(start, len(source)))
    end = max(start, min(end, len(source) + 1))
    line_start = source.rfind("\n", 0, start) + 1
    line_end = source.find("\n", start)
    if line_end == -1:
        line_end = len(source)
    line = source[line_start:line_end]
    end = min(end, line_end + 1)  # a caret may stand just past the end of the line
    width = max(1, end - start)
    column = start - line_start
    if len(line) > _WINDOW:
        # Show a window of a long line around the span, marked with ellipses where cut.
        left = max(0, min(column - _WINDOW // 3, len(line) - _WINDOW))
        right = left + _WINDOW
        shown = ("..." if left else "") + line[left:right] + ("..." if right < len(line) else "")
        column = column - left + (3 if left else 0)
        width = min(width, _WINDOW - (column - (3 if left else 0)) + 1)
        line = shown
    if opened:
        marks = "~" * (width - 1) + "^"
    else:
        marks = "^" * width
    # Tabs keep their width in the marker line, so the marks stand under the text.
    pad = "".join("\t" if ch == "\t" else " " for ch in line[:column])
    return f"    {line}\n    {pad}{marks}"


class PredicateError(MatrixError, ValueError):
    """A predicate's text does not parse, or does not type-check against the schema.

    ``source`` is the predicate text, ``span`` the ``(start, end)`` offsets of the offending
    part, ``message`` the sentence without the drawing.
    """

    def __init__(
        self, message: str, *, source: str, span: Tuple[int, int], opened: bool = False,
        unknown_path: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.span = span
        self.opened = opened
        #: The config path this error says is unknown, if that is what it says.
        self.unknown_path = unknown_path

    def __str__(self) -> str:
        return f"{self.message}\n{excerpt(self.source, self.span, opened=self.opened)}"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuilt, (type(self), (self.message,), {"source": self.source, "span": self.span,
                                                         "opened": self.opened, "unknown_path": self.unknown_path}))

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": type(self).__name__, "message": self.message, "source": self.source,
                "span": list(self.span)}


@attrs.frozen(eq=False, repr=False)
class Problem(Model):
    """One problem found while loading a matrix.

    ``place`` is the JSON-path-like place in the document (``$.features.fp8.support.v2``);
    ``file``, ``line`` and ``column`` say where it stands in the text when that can be found.
    ``detail`` holds extra lines (a predicate's source with its caret).
    """

    message: str
    place: str
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    detail: Optional[str] = None

    def _key(self) -> Tuple[str, int, int, str, str]:
        return (self.file or "", self.line or 0, self.column or 0, self.place, self.message)

    def to_dict(self) -> Dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column, "place": self.place,
                "message": self.message, "detail": self.detail}

    def __str__(self) -> str:
        where = self.file or "<string>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        text = f"{where}: {self.place}: {self.message}"
        if self.detail:
            text += "\n" + self.detail
        return text


class LoadError(MatrixError, ValueError):
    """A matrix could not be loaded; ``problems`` lists every problem found, sorted."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(sorted(problems, key=Problem._key))
        super().__init__(self.__str__())

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.source, self.problems))

    def __str__(self) -> str:
        body = "\n".join(_indent(str(p)) for p in self.problems)
        return f"{self._head()}\n{body}"

    def _head(self) -> str:
        count = len(self.problems)
        return f"{self.source}: {count} problem{'s' if count != 1 else ''}"

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": "LoadError", "message": self._head(), "file": self.source,
                "problems": [p.to_dict() for p in self.problems]}


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.split("\n"))


class ConfigError(MatrixError, KeyError):
    """A config does not fit the schema: a value is missing, of the wrong type, or not allowed.

    ``path`` is the config path, ``feature`` the id of the feature whose gate read it (or
    ``None``), ``reason`` the sentence. Raised by `resolve`, it is the first bad value read, and
    ``others`` holds one `ConfigError` for each other bad value the resolution reads, in the
    order of ``[config]`` (the message says each on a line of its own, after the first).
    """

    def __init__(self, reason: str, *, path: str, feature: Optional[str] = None,
                 others: Tuple[ConfigError, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path
        self.feature = feature
        self.others = others

    def __str__(self) -> str:
        return _messages.config_errors(_messages.config_error(self.reason, self.path, self.feature),
                                       [str(o) for o in self.others])

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"kind": type(self).__name__, "message": str(self), "path": self.path,
               "feature": self.feature, "reason": self.reason}
        if self.others:
            out["others"] = [o.to_dict() for o in self.others]
        return out

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuilt, (type(self), (self.reason,), {"path": self.path, "feature": self.feature,
                                                         "others": self.others}))


class ResolutionError(MatrixError, ValueError):
    """No runner can serve a config; ``resolution`` is the `Resolution` that led here, and
    ``reason`` the sentence that says why. The message of a `NoRunnerError` and of an
    `UnsupportedFeatureError` ends with the remedies (``remedies``, `Resolution.remedies`): one
    line per runner, worked out when the message is first read, not when the error is raised
    (the search resolves many configs; a caller that catches the error and goes on never pays)."""

    #: Whether the message ends with the remedies.
    _remedied = False

    def __init__(self, message: str, resolution: Resolution) -> None:
        super().__init__(message)
        self.reason = message
        self.resolution = resolution

    @property
    def kind(self) -> Optional[str]:
        """The built-in exception the host raises for this refusal (``kind = "…"`` on a
        requirement, issue 30 F5; `matrix.binding.raise_as_host`), or None: the kind of the
        first failed requirement with a kind that the message gives as a reason, among the
        runners it names, in the order it names them; where it names none (a matrix-wide
        requirement refuses the config whatever the runner), among the matrix-wide requirements
        it fails, in the order the message gives their reasons."""
        if "_kind" in self.__dict__:  # a role's requirement refused it (`matrix._roles`): its kind is known
            return self.__dict__["_kind"]  # type: ignore[no-any-return]
        refused = self.resolution.staged_refusal  # a staged requirement's (issue 30, F6)
        if refused is not None:
            return refused["kind"]  # type: ignore[no-any-return]
        gate = self._kind_gate()
        return None if gate is None else str(gate.origin.error_kind)

    def _kind_gate(self) -> Any:
        """The failed requirement's gate whose kind `kind` is (its ``origin`` the `Requirement`),
        or None: one that names no staged requirement (``matrix diff`` names it as the cause of
        a change of kind)."""
        resolution = self.resolution
        reason = self.reason
        unsupported = resolution.unsupported
        named = sorted((reason.find(resolution.matrix.runner(r).name), r) for r in unsupported
                       if resolution.matrix.runner(r).name in reason)
        said = resolution._said  # a reason as this error says it (its template filled: issue 30, F7)
        for _, runner in named:
            for gate in unsupported[runner]:
                origin = getattr(gate, "origin", None)
                error_kind = getattr(origin, "error_kind", None)
                if error_kind is not None and said(gate, runner) in reason:
                    return gate
        # A reason said alone (a matrix-wide requirement's, or of a kind with ``alone = true``)
        # names no runner: it is found by its words.
        wide = {(g.id, said(g, r)): g for r, gates in unsupported.items() for g in gates
                if getattr(g.origin, "wide", False) or getattr(g.origin, "alone", False)}
        for _, key in sorted((reason.find(text), (id, text)) for id, text in wide if text in reason):
            error_kind = getattr(wide[key].origin, "error_kind", None)
            if error_kind is not None:
                return wide[key]
        return None

    @property
    def remedies(self) -> Tuple[Remedies, ...]:
        if not self._remedied:
            return ()
        found: Optional[Tuple[Remedies, ...]] = self.__dict__.get("_remedies")
        if found is None:
            found = self.__dict__["_remedies"] = self.resolution.remedies()
        return found

    @property
    def message(self) -> str:
        return "\n".join([self.reason, *(str(r) for r in self.remedies)])

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.reason, self.resolution))

    def to_dict(self) -> Dict[str, Any]:
        """``kind`` (the class name), ``message``, ``raises`` (`kind`: the built-in exception
        the host raises, or None) and, for an error whose message ends with the remedies,
        ``reason`` and ``remedies``."""
        if not self._remedied:
            return {**super().to_dict(), "raises": self.kind}
        return {"kind": type(self).__name__, "message": self.message, "reason": self.reason, "raises": self.kind,
                "remedies": [r.to_dict() for r in self.remedies]}


def _rebuilt(cls: Type[Exception], args: Tuple[object, ...], kwargs: Dict[str, Any]) -> Exception:
    """An error unpickled: its class called as it was (some take keyword-only data)."""
    return cls(*args, **kwargs)


class NoRunnerError(ResolutionError):
    """Automatic choice found every runner blocked; the message ends with a remedy for each
    runner."""

    _remedied = True


class UnsupportedFeatureError(ResolutionError):
    """The runner asked for does not support a feature the config uses; the message ends with
    the remedy for it."""

    _remedied = True


class RemovedFeatureError(ResolutionError):
    """The config uses a feature removed at the version resolved for."""


class AdjustmentError(ResolutionError):
    """Automatic choice chose a runner free on the config of choice, and that runner's own
    adjustments left a config it cannot serve (the message names both steps), or a requirement
    staged after the choice refused it; the message ends with the remedy for that runner (in a
    role other than the base, for the base role's runner)."""

    _remedied = True

"""Overlays installed packages declare: the entry-point group ``matrix.overlays`` (issue 31).

A platform plugin declares its overlay in its ``pyproject.toml``::

    [project.entry-points."matrix.overlays"]
    vllm-npu = "vllm_npu_matrix"              # overlay.toml in that package's folder
    # or "vllm_npu_matrix.data:OVERLAY"       # a module attribute holding the file's path

The entry's name is the overlay's handle (what a host lists and refuses); the upstream matrix
it extends is the one its file's ``[overlay] extends`` names, so a host applies only the
installed overlays written for the matrix it loads.

Cold start: nothing here runs unless the host asks (``matrix.load(installed=True)``,
`matrix.loader.installed_overlays`, ``--installed-overlays``, ``matrix overlays``). Reading
entry points walks the metadata of every installed distribution, and a matrix that answers
differently by what else is installed is the host's decision to make, not an import's. A
module-only entry (no ``:attr``) is found without importing the plugin's top-level package
(`importlib.util.find_spec`), so a heavy plugin costs nothing but its metadata.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import attrs

from . import _messages
from .errors import LoadError, Problem

GROUP = "matrix.overlays"
#: Names of installed overlays (comma-separated) a host's environment refuses; ``*``: all.
REFUSE_ENV = "MATRIX_REFUSE_OVERLAYS"
#: The overlay file a module-only entry names, in that package's folder.
FILE = "overlay.toml"


@attrs.frozen
class InstalledOverlay:
    """One overlay an installed distribution declares in ``matrix.overlays``."""

    name: str  # the entry point's name
    value: str  # the entry point's value (``module`` or ``module:attr``)
    distribution: Optional[str]  # "NAME VERSION" of the distribution that declares it
    file: str  # the overlay file
    extends: str  # what its ``[overlay] extends`` says
    overlay: str  # its ``[overlay] name``
    after: Tuple[str, ...] = ()  # its ``[overlay] after``
    refused: bool = False  # by ``refuse`` or ``MATRIX_REFUSE_OVERLAYS``


def entry_points() -> List[Any]:
    """The entry points of the group, sorted by name (Python 3.9's ``entry_points()`` is a
    dict of groups; 3.10+ selects by ``group=``)."""
    from importlib import metadata

    if sys.version_info >= (3, 10):
        found = list(metadata.entry_points(group=GROUP))
    else:  # pragma: no cover - Python 3.9
        found = list(metadata.entry_points().get(GROUP, ()))
    unique = {(ep.name, ep.value): ep for ep in found}  # a distribution seen twice on the path
    return sorted(unique.values(), key=lambda ep: (ep.name, ep.value))


def file_of(entry: Any) -> str:
    """The overlay file *entry* names: ``overlay.toml`` in the folder of a module-only entry's
    package, else the path a module attribute holds (relative to the module's folder).

    :raises LoadError: when the module or the file is not there.
    """
    module, _, attr = entry.value.partition(":")
    module, attr = module.strip(), attr.strip()
    where = f"entry point {entry.name!r} = {entry.value!r} ({GROUP})"
    try:
        if attr:
            loaded = importlib.import_module(module)
            path = os.fspath(getattr(loaded, attr))
            folder = os.path.dirname(loaded.__file__ or "")
        else:
            spec = importlib.util.find_spec(module)
            if spec is None:
                raise ImportError(module)
            folder = (list(spec.submodule_search_locations or ())[:1] or [os.path.dirname(spec.origin or "")])[0]
            path = FILE
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        raise LoadError(where, [Problem(_messages.installed_overlay_missing(exc), "$", file=where)]) from None
    path = os.path.join(folder, path)
    if not os.path.isfile(path):
        raise LoadError(where, [Problem(_messages.installed_overlay_no_file(path), "$", file=where)])
    return path


def refused_names(refuse: Sequence[str]) -> Tuple[str, ...]:
    """*refuse* and the names of ``MATRIX_REFUSE_OVERLAYS``."""
    env = [n.strip() for n in os.environ.get(REFUSE_ENV, "").split(",") if n.strip()]
    return (*refuse, *env)


def listed(upstream: Tuple[str, ...], refuse: Sequence[str] = ()) -> Tuple[InstalledOverlay, ...]:
    """The installed overlays whose ``extends`` names *upstream* (its names and real path), in
    the order they apply: by entry name, an overlay after those its ``after`` names."""
    from ._files import toml

    from ._toml_errors import syntax_problem

    refused = refused_names(refuse)
    entries = entry_points()
    _warn_unknown(refuse, refused[len(refuse):], [e.name for e in entries])
    found: List[InstalledOverlay] = []
    for entry in entries:
        dist = getattr(entry, "dist", None)
        source = f"{dist.name} {dist.version}" if dist is not None else None
        if "*" in refused or entry.name in refused:
            # Refused: neither imported nor read (a broken plugin cannot break its host), listed
            # as refused for whatever matrix it extends.
            found.append(InstalledOverlay(entry.name, entry.value, source, "", "", entry.name, (), True))
            continue
        file = file_of(entry)
        try:
            with open(file, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise LoadError(file, [Problem(_messages.installed_overlay_missing(exc), "$", file=file)]) from None
        try:
            data = toml().loads(text)
        except Exception as exc:  # the TOML parser's own error (tomllib or tomli)
            raise LoadError(file, [syntax_problem(file, text, exc)]) from None
        head = data.get("overlay", {})
        extends = head.get("extends") if isinstance(head, dict) else None
        if not isinstance(extends, str):
            continue  # said by its load, if a host loads it
        target = os.path.realpath(os.path.join(os.path.dirname(file), extends))
        if extends not in upstream and target not in upstream:
            _path_extends(entry.name, file, text, extends, target)  # a path that names no matrix: said
            continue
        after = head.get("after", [])
        found.append(InstalledOverlay(
            entry.name, entry.value, source, file, extends,
            str(head.get("name", entry.name)), tuple(a for a in after if isinstance(a, str)) if isinstance(after, list) else (),
            "*" in refused or entry.name in refused))
    return _ordered(found)


def _warn_unknown(refuse: Sequence[str], env: Sequence[str], names: List[str]) -> None:
    """Warn of each refused name that no installed entry has (a slip would let the overlay it
    meant apply), with "did you mean"."""
    import warnings

    for source, given in (("refuse=", refuse), (REFUSE_ENV, env)):
        for name in given:
            if name != "*" and name not in names:
                warnings.warn(_messages.refused_overlay_unknown(name, source, sorted(set(names))), UserWarning,
                              stacklevel=_outside())


def _outside() -> int:
    """The ``stacklevel`` of the first frame outside this package, from the caller's: a warning
    points at the user's line, whichever of the package's functions led to it."""
    import sys
    import types

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame: Optional[types.FrameType] = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _path_extends(entry: str, file: str, text: str, extends: str, target: str) -> None:
    """Say an ``extends`` written as a path (as the overlay's load reads one) that names no
    matrix an installed overlay can apply to: a file that is not there, or an overlay file (a
    chain is given by the host, not installed). A path to another matrix's features.toml is
    that matrix's overlay: not listed, as one that names another matrix by name.

    :raises LoadError: at the overlay file's ``extends``.
    """
    if not (extends.endswith(".toml") or "/" in extends or os.sep in extends):
        return
    if not os.path.isfile(target):
        message = _messages.overlay_upstream_missing(extends, file)
    else:
        from ._overlay import is_overlay

        with open(target, encoding="utf-8") as handle:
            if not is_overlay(handle.read()):
                return
        message = _messages.installed_overlay_extends_overlay(entry, extends)
    from ._locate import Locations

    line, column = Locations(text).key(("overlay", "extends")) or (None, None)
    raise LoadError(file, [Problem(message, "$.overlay.extends", file=file, line=line, column=column)])


def applied(upstream: Tuple[str, ...], refuse: Sequence[str] = ()) -> Tuple[InstalledOverlay, ...]:
    """The installed overlays ``load(installed=True)`` applies: those `listed`, not refused."""
    return tuple(o for o in listed(upstream, refuse) if not o.refused)


def not_given(installed: Sequence[InstalledOverlay], given: Sequence[str]) -> List[str]:
    """The files of *installed* that are none of the overlay files *given* explicitly (the same
    file by its real path, or a copy of it, byte for byte: a plugin's overlay given by
    ``--overlay`` from its source tree and installed too is applied once, where it is given)."""
    def read(path: str) -> Optional[bytes]:
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except OSError:
            return None

    paths = {os.path.realpath(f) for f in given}
    texts = {read(f) for f in given} - {None}
    return [o.file for o in installed if os.path.realpath(o.file) not in paths and read(o.file) not in texts]


def _ordered(found: List[InstalledOverlay]) -> Tuple[InstalledOverlay, ...]:
    """*found* (sorted by name) with each overlay moved after those its ``after`` names."""
    by_title: Dict[str, InstalledOverlay] = {o.overlay: o for o in found}
    out: List[InstalledOverlay] = []
    placing: List[str] = []

    def place(o: InstalledOverlay) -> None:
        if o in out or o.overlay in placing:
            return
        placing.append(o.overlay)
        for name in o.after:
            if name in by_title:
                place(by_title[name])
        out.append(o)

    for o in found:
        place(o)
    return tuple(out)

"""Writing files so that nothing is lost: atomic replacement, and marker-delimited injection."""

from __future__ import annotations

import os
import sys
from typing import IO, Any, Dict, List, Optional, Tuple, Union

from . import _messages
from .errors import UsageError

#: Marker pairs by the kind of file they stand in.
MARKERS = {
    "rst": (".. matrix:begin", ".. matrix:end"),
    "markup": ("<!-- matrix:begin -->", "<!-- matrix:end -->"),
}


def toml() -> Any:  # the tomllib module (tomli before Python 3.11)
    # Imported on first load, not by `import matrix` (see benchmarks/).
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def markers_for(path: str) -> Tuple[str, str]:
    return MARKERS["rst" if path.endswith((".rst", ".rest")) else "markup"]


def read_text(path: str) -> Optional[str]:
    """The file's text, or None when it does not exist."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name, or not UTF-8
        raise UsageError(_messages.cannot_read_page(path, exc)) from None


def inject(original: str, content: str, path: str) -> str:
    """*original* with what stands between its two marker lines replaced by *content*.

    Everything outside the markers (the marker lines included) stays byte for byte.
    :raises UsageError: a marker is missing, repeated, or the two are out of order.
    """
    begin, end = markers_for(path)
    lines = original.splitlines(keepends=True)
    found: Dict[str, List[int]] = {begin: [], end: []}
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped in found:
            found[stripped].append(index)
    for marker in (begin, end):
        if not found[marker]:
            raise UsageError(_messages.marker_missing(path, marker, begin, end))
        if len(found[marker]) > 1:
            raise UsageError(_messages.marker_repeated(path, marker, found[marker]))
    first, last = found[begin][0], found[end][0]
    if last < first:
        raise UsageError(_messages.markers_reversed(path, begin, first, end, last))
    newline = "\r\n" if lines[first].endswith("\r\n") else "\n"
    body = content.replace("\n", newline) if newline != "\n" else content
    if not body.endswith(newline):
        body += newline
    return "".join(lines[: first + 1]) + newline + body + newline + "".join(lines[last:])


def atomic_write(path: str, data: Union[str, bytes], *, new_mode: int = 0o644) -> None:
    """Replace *path* with *data* (text, written as UTF-8, or bytes) all at once: a temporary
    file beside it, then a rename, so an interrupted run never leaves a half-written file. The
    file keeps its mode; a new one gets *new_mode*."""
    import tempfile  # not for every command that only finds its matrix (see benchmarks/coldstart.py)

    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        raw = data if isinstance(data, bytes) else data.encode("utf-8")
        with os.fdopen(handle, "wb") as out:
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        except FileNotFoundError:
            os.chmod(temporary, new_mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


#: What `find_matrix` answers for ``[tool.matrix] matrix = "default"`` (and ``--matrix default``).
PACKAGED = "default"


def find_matrix(start: str) -> Tuple[Optional[str], List[str]]:
    """The matrix to use from folder *start*, found the way ruff and mypy find their config:
    in *start*, then each folder above it, up to the root of the repository (a folder holding
    ``.git`` or ``.hg``) or of the file system. In each folder, a ``pyproject.toml`` whose
    ``[tool.matrix]`` names a ``matrix`` wins (a path relative to that folder, or ``default``
    for the packaged matrix), else a ``features.toml``.

    :returns: the path found (`PACKAGED` for the packaged matrix), or None, and the folders
        looked in, for the message that says where none was found.
    :raises UsageError: a ``pyproject.toml`` that does not parse or names no string.
    """
    folder = os.path.abspath(start)
    looked: List[str] = []
    while True:
        looked.append(folder)
        named = _pyproject_matrix(os.path.join(folder, "pyproject.toml"))
        if named is not None:
            return (named if named == PACKAGED else os.path.join(folder, named)), looked
        candidate = os.path.join(folder, "features.toml")
        if os.path.isfile(candidate):
            return candidate, looked
        parent = os.path.dirname(folder)
        if parent == folder or any(os.path.exists(os.path.join(folder, v)) for v in (".git", ".hg")):
            return None, looked
        folder = parent


def found_here(stderr: Optional[IO[str]] = None) -> str:
    """The matrix every command uses without ``--matrix``: `find_matrix` from the current folder,
    as named from it, or `PACKAGED`; said on *stderr* when it is not ``./features.toml``.

    :raises UsageError: none was found (the message names the folders looked in).
    """
    found, looked = find_matrix(os.getcwd())
    if found is None:
        raise UsageError(_messages.no_matrix_found(looked))
    if found == PACKAGED:
        return found
    name = shown(found)
    if stderr is not None and os.path.dirname(os.path.abspath(found)) != os.path.abspath(os.getcwd()):
        stderr.write(f"matrix: note: {_messages.using_matrix(name)}\n")
    return name


def _pyproject_matrix(path: str) -> Optional[str]:
    """``[tool.matrix] matrix`` of the ``pyproject.toml`` at *path*, or None."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise UsageError(_messages.cannot_read_pyproject(path, exc)) from None
    if "tool.matrix" not in text and "[tool]" not in text and "tool =" not in text:
        return None  # the common case, decided without importing a TOML reader
    tomllib = toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(_messages.pyproject_not_toml(path, exc)) from None
    tool = data.get("tool")
    section = tool.get("matrix") if isinstance(tool, dict) else None
    if not isinstance(section, dict) or "matrix" not in section:
        return None
    named = section["matrix"]
    if not isinstance(named, str) or not named:
        raise UsageError(_messages.pyproject_matrix_not_a_path(path, named))
    return named


def shown(path: str) -> str:
    """*path* as named from the current folder, so that messages give clickable places."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive, on Windows
        return path


def is_revision(spec: str) -> bool:
    """Whether *spec* names a matrix in git, ``REV:PATH`` (not a file that exists, nor a Windows drive)."""
    revision, colon, _ = spec.partition(":")
    return bool(colon) and not os.path.exists(spec) and len(revision) > 1

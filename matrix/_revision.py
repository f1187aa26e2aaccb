"""Matrices read from git, ``REV:PATH`` (the command line's ``--matrix``, ``matrix diff``'s sides):
a features.toml with the runner files of that revision, or an overlay with the files it names
there, read with ``git show``. PATH is from the top of the repository, as git reads it; a file
an overlay at REV names beside it (its ``extends``, its upstream's runner folder) is read at REV
too, and an overlay in the working tree may extend ``REV:PATH`` (it names that file as it stands
in the working tree, or by the matrix's name)."""

from __future__ import annotations

import os
import posixpath
import subprocess
from typing import Any, Dict, List, Optional, Sequence

from . import _messages, loader
from ._files import is_revision, toml
from .errors import UsageError
from .schema import Matrix


def load(spec: str, overlays: Sequence[str] = ()) -> Matrix:
    """The matrix *spec* names (a file, or ``REV:PATH``), with the overlay files *overlays*
    (each a file or ``REV:PATH``) applied in order, as `matrix.load` composes them."""
    if not is_revision(spec) and not any(is_revision(o) for o in overlays):
        return loader.load(spec, list(overlays) or None)
    if overlays:
        return loader.load_reading(_reading(), spec, overlays)
    return _load(spec)


def at(revision: str, file: str) -> str:
    """``REV:PATH`` for the working-tree file *file* (relative to the current folder, or absolute)
    as it stands at *revision*: PATH from the top of the repository, as git reads it (``matrix diff
    --base`` run from a subfolder names the same file). Outside a repository *file* is kept as
    given, and git's own words say why it cannot be read.

    :raises UsageError: *file* lies outside the repository (git has no ``REV:PATH`` for it).
    """
    top = _git_ok(["rev-parse", "--show-toplevel"])
    if top is None:
        return f"{revision}:{file}"
    path = _inside(file, top.strip())
    if path is None:
        raise UsageError(_messages.diff_base_outside(file, top.strip()))
    return f"{revision}:{path}"


def top() -> Optional[str]:
    """The top folder of the git work tree the current folder is in (None: not in one)."""
    found = _git_ok(["rev-parse", "--show-toplevel"])
    return None if found is None or not found.strip() else found.strip()


def from_top(file: str, folder: Optional[str]) -> str:
    """*file* (a working-tree file, relative to the current folder or absolute) as a path from
    *folder*, the top of the repository (`top`), with ``/``: as GitHub reads an annotation's file
    and code scanning a SARIF location. Kept as given outside a repository, or outside *folder*."""
    path = None if folder is None else _inside(file, folder)
    return file if path is None else path


def _inside(file: str, folder: str) -> Optional[str]:
    """*file* (relative to the current folder, or absolute) as a path from *folder*, both with
    their links resolved, with ``/`` between its parts; None where it lies outside *folder*
    (above it, or on another drive)."""
    path = os.path.relpath(os.path.realpath(file), os.path.realpath(folder))
    if path == os.pardir or path.startswith(os.pardir + os.sep) or os.path.isabs(path):
        return None
    return path.replace(os.sep, "/")


def absent(spec: str) -> bool:
    """Whether ``REV:PATH`` names a file that is not in the revision, a commit git knows (a matrix
    new since REV), or REV is ``HEAD`` before the first commit (a branch not yet born: everything
    is new); False for a revision git does not know, which reading it says."""
    if not is_revision(spec):
        return False
    revision, _, path = spec.partition(":")
    if _git_ok(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"]) is None:
        return revision == "HEAD" and _git_ok(["symbolic-ref", "--quiet", "HEAD"]) is not None
    return _git_ok(["cat-file", "-e", _object(revision, path)]) is None


def beside(file: str, relative: str) -> str:
    """The file *relative* names from the folder of *file*, at *file*'s revision if it has one."""
    if not is_revision(file):
        return os.path.join(os.path.dirname(file), relative)
    revision, _, path = file.partition(":")
    return f"{revision}:{posixpath.normpath(posixpath.join(posixpath.dirname(path), relative))}"


def working(spec: str) -> Optional[str]:
    """Where the file ``REV:PATH`` stands in the working tree (None: not a revision, or not in a
    repository): an overlay there that extends it by path names it so."""
    if not is_revision(spec):
        return None
    top = _git_ok(["rev-parse", "--show-toplevel"])
    return None if top is None else os.path.realpath(os.path.join(top.strip(), spec.partition(":")[2]))


def _reading() -> Any:
    """The loader's `Loading`, each file ``REV:PATH`` read from git, the others as it reads them."""
    files = loader.reading()

    def read(name: str, path: str) -> str:
        return _show(*path.split(":", 1)) if is_revision(path) else files.read(name, path)

    def exists(path: str) -> bool:
        if not is_revision(path):
            return files.exists(path)  # type: ignore[no-any-return]
        return _git_ok(["cat-file", "-e", _object(*path.split(":", 1))]) is not None

    return files._replace(read=read, load=_load, exists=exists, beside=beside, working=working)


def _load(spec: str) -> Matrix:
    """The matrix ``REV:PATH``: a features.toml with the runner files of that revision, or an
    overlay with the files it names there."""
    if not is_revision(spec):
        return loader.load(spec)
    revision, _, path = spec.partition(":")
    text = _show(revision, path)
    from ._overlay import is_overlay

    if is_overlay(text):
        return loader.load_reading(_reading(), spec)
    tomllib = toml()
    try:
        header = tomllib.loads(text).get("matrix", {})
    except tomllib.TOMLDecodeError:
        header = {}
    folder = header.get("runners", "runners") if isinstance(header, dict) else "runners"
    runners: Dict[str, str] = {}
    if isinstance(folder, str):
        where = beside(spec, folder).partition(":")[2]
        listed = _git(["ls-tree", "--full-tree", "--name-only", f"{revision}:{where}"], spec)
        for name in listed.split():
            if name.endswith(".toml"):
                runners[name[:-5]] = _show(revision, f"{where}/{name}")
    return loader.loads(text, runners=runners, path=spec)


def _object(revision: str, path: str) -> str:
    return f"{revision}:{os.path.normpath(path).replace(os.sep, '/')}"


def _show(revision: str, path: str) -> str:
    return _git(["show", _object(revision, path)], f"{revision}:{path}")


def _git(arguments: List[str], spec: str) -> str:
    try:
        done = subprocess.run(["git", *arguments], capture_output=True, text=True, check=False)
    except OSError as error:
        raise UsageError(_messages.git_unreadable(spec, str(error))) from None
    if done.returncode != 0:
        revision = spec.partition(":")[0]
        # A near miss only in a repository (outside one, git's own words say so).
        if revision and _git_ok(["rev-parse", "--git-dir"]) is not None and \
                not _git_ok(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"]):
            names = _git_ok(["for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags", "refs/remotes"])
            raise UsageError(_messages.diff_no_revision(spec, revision, (names or "").split()))
        raise UsageError(_messages.git_unreadable(spec, done.stderr.strip()))
    return done.stdout


def _git_ok(arguments: List[str]) -> Optional[str]:
    """What git prints for *arguments*, or None where it fails."""
    try:
        done = subprocess.run(["git", *arguments], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None

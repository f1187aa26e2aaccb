"""A cache of loaded matrices, so that a new process answers without reading TOML.

Loading a matrix costs more than everything else a host's first `resolve` does (importing
cattrs and tomllib, building the converter, parsing and type-checking every gate, compiling the
fast path). `load()` and `default()` therefore keep what they built in a cache file: the
`Matrix` (pickled), what its fast path is made of at every release it names (`matrix._compile.Parts`,
pickled with it: a cached plan is assembled, not generated) and the compiled code (marshalled).

An entry is used only when everything it was built from is the same, byte for byte:

- the key hashes the engine (the source of every module of this package, and the Python
  implementation and version: marshalled code and pickles are never trusted across Python
  versions; the hash of the source is kept in the folder under the modules' sizes and times, see
  `engine`) with the name the file was loaded by (it is shown in messages), which names the
  cache file (an edited file replaces its entry), and the text of ``features.toml``, which the
  entry must hold;
- the entry lists the runner files it read, with their hashes; a runner file added, removed
  or changed makes it stale.
- a matrix composed with overlays (issue 31) is keyed by the names and texts of the files given,
  and its entry lists every file the composition read (upstream's, each overlay of a chain),
  with its hash: a change to any makes it stale.

Entries are written atomically (`matrix._files.atomic_write`: a temporary file renamed into
place), so processes sharing
the folder never read half an entry; a folder that cannot be written (read-only, full) only
means nothing is saved; entries unused for 30 days are removed when another is written. An entry is read only from a file owned by the current user and not
writable by others (a pickle runs code when read). The folder is ``$MATRIX_CACHE_DIR``, else
``$XDG_CACHE_HOME/support-matrix``, else ``~/.cache/support-matrix``; ``MATRIX_CACHE_DIR=""``
turns the cache off. The wheel ships an entry for the default matrix inside the package
(``matrix/_default/compiled.pickle``, written when the wheel is built).
"""

from __future__ import annotations

import gc
import marshal
import os
import sys
from typing import BinaryIO, List, Optional, Sequence, Tuple

from . import _derived
from .schema import Matrix, named_versions

# The C modules themselves where CPython has them: `hashlib` loads OpenSSL and `pickle` its
# Python layer, 5 ms each, which a new process would pay on every cached load.
try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python
    from hashlib import blake2b
try:
    from _pickle import load as _unpickle
except ImportError:  # pragma: no cover - another Python
    from pickle import load as _unpickle

_FORMAT = 3  # of an entry; part of the key (2: code by its source, for every release named; 3: plans' parts)
_engine: Optional[str] = None

#: Where the wheel puts the default matrix's entry, next to the default matrix itself.
SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_default", "compiled.pickle")


def engine() -> str:
    """A hash of this package's source and of the Python running it.

    Reading and hashing every module's source (a megabyte) was a quarter of a cached first
    resolve (issue 29): the hash of the sources is kept in the cache folder under a hash of
    their names, sizes and modification times (``engine-<that>.txt``, as Python keeps its
    bytecode by a source's size and time), so a new process reads the source only when a
    module was changed, added or removed since."""
    global _engine
    if _engine is None:
        here = os.path.dirname(os.path.abspath(__file__))
        names = sorted(name for name in os.listdir(here) if name.endswith(".py"))
        head = f"{_FORMAT} {sys.implementation.cache_tag} {sys.version}".encode()
        # The folder's real path, and each module's inode and change time beside its size and
        # modification time: a copy or an edit whose modification time is set back (cp -p,
        # rsync -t, os.utime) changes the change time, which no one can set (review).
        stamp = blake2b(head + os.path.realpath(here).encode(), digest_size=16)
        for name in names:
            info = os.stat(os.path.join(here, name))
            stamp.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}\0{info.st_ctime_ns}\0".encode())
        where = folder()
        memo = None if where is None else os.path.join(where, f"engine-{stamp.hexdigest()}.txt")
        _engine = _remembered(memo)
        if _engine is None:
            digest = blake2b(head)
            for name in names:
                with open(os.path.join(here, name), "rb") as handle:
                    digest.update(name.encode() + b"\0" + handle.read() + b"\0")
            _engine = digest.hexdigest()
            if memo is not None:
                _remember(memo, _engine)
    return _engine


def _remembered(memo: Optional[str]) -> Optional[str]:
    """The engine hash kept at *memo* (a file of ours only: a forged one would make a stale
    entry look fresh), or None."""
    if memo is None:
        return None
    try:
        with open(memo, "rb") as handle:
            if not _safe(handle.fileno()):
                return None
            text = handle.read(200).decode("ascii")
    except (OSError, ValueError):
        return None
    return text if len(text) == 128 and all(c in "0123456789abcdef" for c in text) else None


def _remember(memo: str, value: str) -> None:
    from ._files import atomic_write

    try:
        os.makedirs(os.path.dirname(memo), mode=0o700, exist_ok=True)
        atomic_write(memo, value.encode("ascii"), new_mode=0o600)
        os.chmod(memo, 0o600)  # a kept hash replaced because others could write it: ours only now
    except Exception:  # a folder that cannot be written: the source is read again next time
        return


def folder() -> Optional[str]:
    """The cache folder, or None when the cache is off."""
    chosen = os.environ.get("MATRIX_CACHE_DIR")
    if chosen is not None:
        return chosen or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "support-matrix")


def key(name: str, text: str) -> str:
    """The key of an entry: ``<file>-<content>``, where *file* hashes the engine and the name
    (one cache file per matrix file: an edit replaces its entry) and *content* the text."""
    where = blake2b(engine().encode() + b"\0" + name.encode("utf-8", "surrogateescape"), digest_size=16)
    what = blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16)
    return f"{where.hexdigest()}-{what.hexdigest()}"


def _file(where: str, entry_key: str) -> str:
    return os.path.join(where, entry_key.partition("-")[0] + ".pickle")


def runner_files(runner_folder: str) -> List[Tuple[str, str]]:
    """``(file name, hash)`` of every runner file in *runner_folder*, as the loader reads them."""
    out = []
    try:
        names = sorted(f for f in os.listdir(runner_folder) if f.endswith(".toml"))
    except OSError:
        return []
    for name in names:
        try:
            with open(os.path.join(runner_folder, name), "rb") as handle:
                out.append((name, blake2b(handle.read()).hexdigest()))
        except OSError:
            out.append((name, ""))
    return out


def get(entry_key: str, base: str, *, path: Optional[str] = None, trusted: bool = False) -> Optional[Matrix]:
    """The matrix of the entry *entry_key* (in the cache folder, or at *path*) for a file in
    the folder *base*, or None when there is none, it is stale, or it cannot be trusted.
    *trusted*: the file ships with the package, so it is as trusted as the package's code."""
    if path is None:
        where = folder()
        if where is None:
            return None
        path = _file(where, entry_key)
    try:
        with open(path, "rb") as handle:
            if not trusted and not _safe(handle.fileno()):
                return None
            entry = _read(handle)
        if not isinstance(entry, dict) or entry.get("key") != entry_key:
            return None
        matrix = entry["matrix"]
        runners = os.path.join(base, entry["runner_folder"])
        if not isinstance(matrix, Matrix) or runner_files(runners) != entry["runner_files"]:
            return None
        if _hashes([path for path, _ in entry.get("files", ())]) != entry.get("files", []):
            return None  # a file a composed matrix was made of changed
        derived = _derived.of(matrix)
        derived.code.update(entry["code"])  # unmarshalled when a plan needs it
        derived.parts.update(entry["parts"])  # assembled into a plan when one is asked for
        return matrix
    except Exception:  # a missing, partial, foreign or stale entry: load as if there were none
        return None


def _read(handle: BinaryIO) -> object:
    """The unpickled entry in *handle*. The collector is off meanwhile: unpickling makes thousands
    of objects and no garbage, and the passes it made over them while they were made were a
    third of a cached first resolve's unpickling (issue 29, cold start)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _unpickle(handle)
    finally:
        if enabled:
            gc.enable()


def _hashes(paths: Sequence[str]) -> List[Tuple[str, str]]:
    """``(absolute path, hash)`` of each file of *paths* ("" for one that cannot be read)."""
    out = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                out.append((os.path.abspath(path), blake2b(handle.read()).hexdigest()))
        except OSError:
            out.append((os.path.abspath(path), ""))
    return out


def entry(entry_key: str, matrix: Matrix, base: str, runner_folder: str, files: Sequence[str] = ()) -> bytes:
    """The bytes of an entry for *matrix*, loaded from a file in the folder *base* whose
    runners are in *runner_folder* (kept relative to *base*: the wheel's entry is written in
    the source tree and read where the package is installed)."""
    import pickle

    from ._compile import parts, plan

    # The fast path at every release the file names (a host may resolve as of an older one),
    # compiled once: a few milliseconds each, which the process that writes the entry pays.
    made = {}
    for version in named_versions(matrix):
        plan(matrix, version)
        made[version] = parts(matrix, version)
    code = {source: compiled if isinstance(compiled, bytes) else marshal.dumps(compiled)
            for source, compiled in _derived.of(matrix).code.items()}
    # A Matrix pickles without its plans and other caches (Matrix.__getstate__); the parts are
    # pickled with it, so the gates they hold are the matrix's own objects when read back.
    return pickle.dumps({"key": entry_key, "matrix": matrix, "runner_folder": os.path.relpath(runner_folder, base or "."),
                         "runner_files": runner_files(runner_folder), "code": code, "parts": made,
                         "files": _hashes(list(dict.fromkeys(files)))},
                        protocol=pickle.HIGHEST_PROTOCOL)


def put(entry_key: str, matrix: Matrix, base: str, runner_folder: str, *, files: Sequence[str] = ()) -> None:
    """Save an entry for *matrix*; nothing happens when the folder cannot be written. *files*:
    the files beside features.toml it was made of (a composed matrix's), checked by `get`."""
    where = folder()
    if where is None:
        return
    from ._files import atomic_write

    try:
        data = entry(entry_key, matrix, base, runner_folder, files)
        os.makedirs(where, mode=0o700, exist_ok=True)
        atomic_write(_file(where, entry_key), data, new_mode=0o600)  # others never read a pickle of ours
        _prune(where)
    except Exception:  # read-only, full, or a matrix that does not pickle: nothing is saved
        return


#: Entries not read or written for this long are removed when another is written (those of
#: an engine version no longer installed, of a file no longer used).
MAX_AGE_SECONDS = 30 * 24 * 3600


def _prune(where: str) -> None:
    import time

    cutoff = time.time() - MAX_AGE_SECONDS
    for item in os.scandir(where):
        try:
            if item.name.endswith((".pickle", ".tmp")) or item.name.startswith("engine-"):
                info = item.stat()
                if max(info.st_atime, info.st_mtime) < cutoff:
                    os.unlink(item.path)
        except OSError:
            continue


def _safe(fd: int) -> bool:
    """Whether the open file is the current user's and only they can write it."""
    if not hasattr(os, "getuid"):  # pragma: no cover - not POSIX: no owners to compare
        return True
    info = os.fstat(fd)
    return info.st_uid == os.getuid() and not info.st_mode & 0o022

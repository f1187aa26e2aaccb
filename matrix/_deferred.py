"""A module of the package imported when one of its names is first read.

`matrix._messages` holds every sentence the package says (2,000 lines, the largest module on
the import path): a cached `resolve` that raises nothing says none, and reading and running the
module was 1.3 ms of every new process's first answer, 3 % of ``import attrs`` (issue 29, cold
start). ``from . import _messages`` gets a placeholder; the module is imported at the first
name read from it, and its names are copied into the placeholder, so that later reads are plain
module attribute reads. The module must not rebind its globals after it ran (its names are
copied once), and must not be used while the package's modules run (`defer` is called before
any of them is imported; tests/test_cache.py checks that it stays unimported by ``import
matrix`` and a cached resolve). `importlib.util.LazyLoader` is not used: on Python 3.11 the
import system reads its ``__spec__`` on every ``from . import``, which loads it.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types

_lock = threading.RLock()


class _Placeholder(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        with _lock:
            module = sys.modules.get(self.__name__)
            if module is self:  # not imported yet: this thread imports it
                del sys.modules[self.__name__]
                try:
                    module = importlib.import_module(self.__name__)
                except BaseException:
                    sys.modules[self.__name__] = self
                    raise
                vars(self).update({k: v for k, v in vars(module).items() if k != "__class__"})
        return getattr(module, name)


def defer(name: str) -> None:
    """Put a placeholder for the module *name* (``package.module``) where importing finds it."""
    package, _, attribute = name.rpartition(".")
    placeholder = _Placeholder(name)
    sys.modules[name] = placeholder
    setattr(sys.modules[package], attribute, placeholder)


def imported(name: str) -> bool:
    """Whether the module *name* has been imported (its placeholder replaced, if it had one)."""
    return name in sys.modules and not isinstance(sys.modules[name], _Placeholder)

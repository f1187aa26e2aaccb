"""A module of the package imported when one of its names is first read.

`matrix._messages` holds every sentence the package says (2,000 lines, the largest module on
the import path): a cached `resolve` that raises nothing says none, and reading and running the
module was 1.3 ms of every new process's first answer, 3 % of ``import attrs`` (issue 29, cold
start). ``from . import _messages`` gets a placeholder: the module object itself, whose code
runs at the first name read from it, in that same object, which then becomes a plain module.
So every importer holds one module (monkeypatching and ``importlib.reload`` work), and later
reads are plain module attribute reads. It must not be used while the package's modules run
(`defer` is called before any of them is imported; tests/test_cache.py checks that it stays
unimported by ``import matrix`` and a cached resolve). `importlib.util.LazyLoader` is not used:
on Python 3.11 the import system reads its ``__spec__`` on every ``from . import``, which loads
it; here ``__spec__`` is None until the code runs.
"""

from __future__ import annotations

import sys
import threading
import types

_lock = threading.RLock()


class _Placeholder(types.ModuleType):
    """The module itself, before its code has run: the first name read runs the code in this
    very object (as `importlib.util.LazyLoader` does), which then becomes a plain module, so
    that every importer holds one and the same module (monkeypatching and reloading work)."""

    def __getattr__(self, name: str) -> object:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # the import system's probes (__path__, …) load nothing
        with _lock:
            if type(self) is _Placeholder:
                if vars(self).get("_deferred_running"):
                    raise AttributeError(name)  # read by the module's own code while it runs
                self._run()
        return getattr(self, name)

    def _run(self) -> None:
        import importlib.machinery

        package = self.__name__.rpartition(".")[0]
        spec = importlib.machinery.PathFinder.find_spec(self.__name__, sys.modules[package].__path__)
        if spec is None or spec.loader is None:  # pragma: no cover — the package ships it
            raise ImportError(f"cannot find {self.__name__}", name=self.__name__)
        vars(self)["_deferred_running"] = True
        try:
            self.__spec__, self.__loader__, self.__file__, self.__package__ = spec, spec.loader, spec.origin, package
            spec.loader.exec_module(self)
        finally:
            del vars(self)["_deferred_running"]
        self.__class__ = types.ModuleType  # type: ignore[assignment]  # a plain module from now on


def defer(name: str) -> None:
    """Put a placeholder for the module *name* (``package.module``) where importing finds it."""
    package, _, attribute = name.rpartition(".")
    placeholder = _Placeholder(name)
    sys.modules[name] = placeholder
    setattr(sys.modules[package], attribute, placeholder)


def imported(name: str) -> bool:
    """Whether the module *name* has been imported (its placeholder replaced, if it had one)."""
    return name in sys.modules and not isinstance(sys.modules[name], _Placeholder)

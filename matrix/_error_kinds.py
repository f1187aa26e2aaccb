"""Error kinds (issue 30, F5): the Python built-in exceptions a requirement may name as what
the host raises when it fails (``kind = "ValueError"``), so that a host moving to `matrix`
keeps its public exceptions (`matrix.binding.raise_as_host`).

A fixed set of built-in names rather than a list each matrix declares: `raise_as_host` must
construct the exception from its name alone, which only a built-in allows without importing
the host's code, and one set, the same on every Python `matrix` supports, lets the loader say
"did you mean" for a misspelt name. Each takes one message argument (``UnicodeError`` and the
exception groups do not, and ``StopIteration`` is not an error a host raises to its users).
"""

from __future__ import annotations

import builtins
from typing import Tuple, Type

#: The kinds a requirement may name, sorted.
ERROR_KINDS: Tuple[str, ...] = (
    "ArithmeticError", "AssertionError", "AttributeError", "EOFError", "Exception", "FileNotFoundError",
    "ImportError", "IndexError", "KeyError", "LookupError", "MemoryError", "ModuleNotFoundError",
    "NotImplementedError", "OSError", "OverflowError", "PermissionError", "RecursionError", "RuntimeError",
    "TimeoutError", "TypeError", "ValueError", "ZeroDivisionError",
)


def builtin(kind: str) -> Type[Exception]:
    """The built-in exception class named *kind* (one of `ERROR_KINDS`)."""
    found = getattr(builtins, kind)
    assert isinstance(found, type) and issubclass(found, Exception), kind
    return found

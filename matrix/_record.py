"""`Record`: the frozen, slotted values of the engine that `import matrix` creates classes for.

attrs makes a class by generating the source of its methods and compiling it: 0.2 to 0.8 ms a
class, which was most of what ``import matrix`` cost beyond attrs itself once the import path
held 38 attrs classes (issue 29, cold start). The predicate nodes (`matrix._nodes`) and the
engine's private records are therefore written out as plain slotted classes, each with its own
``__init__``; what attrs wrote for them is here, read off the fields the class declares, and
behaves as attrs' did:

- equal when of the same class with equal fields, a field listed in ``hidden`` left out
  (spans), or equal by the ``key`` the class gives (`matrix._nodes.Literal`: ``True != 1``);
  hashed by the same; no ordering;
- read-only: assigning or deleting a field raises attrs' `FrozenInstanceError`;
- ``repr`` names the class and each compared field (``Path(name='a.b')``);
- copies and pickles are equal values (rebuilt by ``__init__`` from the fields in order);
- ``replace(**changes)`` is ``attrs.evolve``.

A subclass declares its fields as ``__slots__`` (after its bases'), in the order its
``__init__`` takes them, and sets them with ``_set`` (``object.__setattr__``); a subclass of a
record with the same fields declares ``__slots__ = ()`` and inherits them, ``hidden`` included.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, ClassVar, Optional, Tuple, TypeVar

from attr.exceptions import FrozenInstanceError

_set = object.__setattr__

R = TypeVar("R", bound="Record")


def _nothing(record: object) -> Tuple[()]:
    """The key of a record with no compared fields: every two such records of a class are equal."""
    return ()


class Record:
    """The base of a frozen slotted value (see the module's docstring)."""

    # Weak references to a record may be taken (as to attrs' slotted classes).
    __slots__ = ("__weakref__",)
    #: Every field, in the order ``__init__`` takes them (the class's ``__slots__``).
    _fields: ClassVar[Tuple[str, ...]] = ()
    #: The fields equality, hashing and ``repr`` leave out.
    _hidden: ClassVar[Tuple[str, ...]] = ()
    #: The fields equality, hashing and ``repr`` read.
    _compared: ClassVar[Tuple[str, ...]] = ()
    #: ``key(record)``: what equality and hashing compare (a callable read from the class as is,
    #: never bound: an `operator.attrgetter` or a staticmethod).
    _key: ClassVar[Any]
    #: Whether ``_key`` was given by the class or a base (``key=``), rather than read off the fields.
    _keyed: ClassVar[bool] = False
    __match_args__: ClassVar[Tuple[str, ...]] = ()

    def __init_subclass__(cls, hidden: Optional[Tuple[str, ...]] = None, key: Optional[Callable[[Any], Any]] = None,
                          **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(name for klass in reversed(cls.__mro__) for name in klass.__dict__.get("__slots__", ())
                            if name != "__weakref__")
        if hidden is not None:
            cls._hidden = hidden  # else the base's
        cls._compared = tuple(f for f in cls._fields if f not in cls._hidden)
        # A positional pattern (``case Path(name):``) matches the fields in ``__init__``'s order.
        cls.__match_args__ = cls._fields  # type: ignore[misc]
        if key is not None:
            cls._key = staticmethod(key)
            cls._keyed = True
        elif not cls._keyed:  # a base's own key (`matrix._nodes.Literal`'s) is inherited, as `hidden` is
            compared = cls._compared
            cls._key = attrgetter(*compared) if compared else _nothing

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        key = self._key
        return key(self) == key(other)  # type: ignore[no-any-return]

    def __hash__(self) -> int:
        return hash((self.__class__, self._key(self)))

    def __repr__(self) -> str:
        said = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._compared)
        return f"{self.__class__.__qualname__}({said})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError()

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError()

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        return (self.__class__, tuple(getattr(self, name) for name in self._fields))

    def replace(self: R, **changes: Any) -> R:
        """A copy with *changes* (field name → value), as ``attrs.evolve``."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return self.__class__(**values)


class Model:
    """The equality, hashing and ``repr`` of the models: attrs classes decorated
    ``@attrs.frozen(eq=False, repr=False)`` that derive from this class.

    attrs would generate and compile these three methods for each class (half of what building
    one costs, issue 29); these read the class's attrs fields instead, and do what attrs' own
    would: equal when of the same class with equal fields (those declared ``eq=False`` left
    out), hashed by the same fields, and printed as ``Class(field=value, …)`` (those declared
    ``repr=False`` left out). Everything else of attrs stays: ``attrs.fields``,
    ``attrs.evolve``, validators, converters, slots, and `FrozenInstanceError` on assignment.
    """

    __slots__ = ()
    #: ``key(model)``: what equality and hashing compare (an `operator.attrgetter`).
    _model_key: ClassVar[Any]
    #: The fields ``repr`` shows, each with the function that prints its value.
    _model_shown: ClassVar[Tuple[Tuple[str, Callable[[object], str]], ...]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = cls.__dict__.get("__attrs_attrs__")
        if fields is None:  # the class before attrs made its slotted copy, which comes here next
            return
        assert not any(a.eq_key or a.hash is not None for a in fields), cls  # none of ours: not done here
        compared = [a.name for a in fields if a.eq]
        cls._model_key = attrgetter(*compared)
        cls._model_shown = tuple((a.name, a.repr if callable(a.repr) else repr) for a in fields if a.repr)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        key = self._model_key
        return key(self) == key(other)  # type: ignore[no-any-return]

    def __hash__(self) -> int:
        return hash((self.__class__, self._model_key(self)))

    def __repr__(self) -> str:
        said = ", ".join(f"{name}={show(getattr(self, name))}" for name, show in self._model_shown)
        return f"{self.__class__.__qualname__}({said})"

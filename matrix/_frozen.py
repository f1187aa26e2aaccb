"""`FrozenMap`: the read-only, hashable mapping the models hold (a frozen attrs class holding a
plain dict is frozen only on the surface: ``feature.support["v1"] = ()`` used to succeed)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, Mapping, Optional, Tuple, TypeVar, Union

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(Mapping[K, V]):
    """A mapping that cannot change: no item assignment, no ``update``; equal to any mapping
    with the same items, and hashable (equal maps hash equal) when its values are."""

    __slots__ = ("_data", "_hash")
    _data: Dict[K, V]
    _hash: Optional[int]

    def __init__(self, items: Union[Mapping[K, V], Iterable[Tuple[K, V]]] = ()) -> None:
        object.__setattr__(self, "_data", dict(items))
        object.__setattr__(self, "_hash", None)

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def get(self, key: K, default: Optional[Any] = None) -> Any:
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        known = self._hash
        if known is None:
            known = hash(frozenset(self._data.items()))
            object.__setattr__(self, "_hash", known)
        return known

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def __reduce__(self) -> Tuple[type, Tuple[Dict[K, V]]]:
        return (FrozenMap, (self._data,))

    def __copy__(self) -> FrozenMap[K, V]:
        return self

    def __deepcopy__(self, memo: Dict[int, object]) -> FrozenMap[K, V]:
        return self


def frozen_map(items: Union[Mapping[Any, Any], Iterable[Tuple[Any, Any]]]) -> FrozenMap[Any, Any]:
    """*items* as a `FrozenMap` (the same object when it is one): the models' converter."""
    return items if isinstance(items, FrozenMap) else FrozenMap(items)

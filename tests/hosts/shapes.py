"""Host config classes covering every mapping `matrix schema --from` makes (tests import them as
``tests.hosts.shapes``; the CLI tests import them from this folder as ``shapes``)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Dict, List, Literal, Optional, Tuple, Union

import attrs
import pydantic
from packaging.version import Version
from pydantic.dataclasses import dataclass as pydantic_dataclass


class Mode(enum.Enum):
    FAST = 1
    SAFE = 2


class Color(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Leaf:
    depth: int = 3
    """How deep the leaf is.

    Only the first paragraph is kept."""


@dataclasses.dataclass
class Branch:
    leaf: Leaf = dataclasses.field(default_factory=Leaf)
    tags: List[str] = dataclasses.field(default_factory=lambda: ["a"])


@attrs.define
class Limits:
    gpus: int = attrs.field(default=1, metadata={"doc": "GPUs per node"})
    ids: Tuple[int, ...] = (1, 2)


class Tuning(pydantic.BaseModel):
    ratio: float = pydantic.Field(0.5, ge=0.0, le=1.0, description="A fraction")
    workers: int = pydantic.Field(4, gt=0, lt=65)
    margin: float = pydantic.Field(1.0, gt=0.0)
    label: Optional[str] = None


@pydantic_dataclass
class Extras:
    level: Annotated[int, pydantic.Field(ge=1)] = 2


@dataclasses.dataclass
class Job:
    flag: bool = False
    count: int = 0
    scale: float = 1.5
    name: str = "job"
    version: Version = dataclasses.field(default_factory=lambda: Version("1.2"))
    policy: Literal["fifo", "lifo"] = "fifo"
    priority: Literal[1, 2, 3] = 1
    mode: Mode = Mode.FAST
    color: Color = Color.RED
    maybe: Optional[int] = None
    either: Union[str, None] = "x"
    branch: Branch = dataclasses.field(default_factory=Branch)
    limits: Optional[Limits] = None
    tuning: Tuning = dataclasses.field(default_factory=Tuning)
    extras: Extras = dataclasses.field(default_factory=Extras)
    settings: Dict[str, Any] = dataclasses.field(default_factory=dict)
    backend: Union[str, type, None] = None
    weights: List[float] = dataclasses.field(default_factory=list)
    required: int = dataclasses.field(default=0, metadata={"description": "From metadata"})

    @property
    def is_big(self) -> bool:
        """Whether the job is big."""
        return self.count > 10


@dataclasses.dataclass
class Node:
    name: str = "n"
    child: Optional[Node] = None

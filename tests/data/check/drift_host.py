"""The host config class the class-* corpus matrices describe (imported from this folder)."""

import dataclasses
from typing import Literal, Optional


@dataclasses.dataclass
class Parallel:
    size: int = 1


@dataclasses.dataclass
class Config:
    mode: Literal["fast", "safe"] = "safe"
    name: str = "x"
    level: Optional[int] = None
    parallel: Parallel = dataclasses.field(default_factory=Parallel)

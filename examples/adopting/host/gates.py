"""The hand-written gate function that features.toml replaces, as frames writes it."""

from .config import FramesConfig, Join


def has_pyarrow() -> bool:
    """A fact frames computes from its environment, not a config field."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def pandas_unsupported(config: FramesConfig, pyarrow: bool) -> list:
    unsupported = []
    if config.io.lazy:
        unsupported.append("lazy reading")
    if config.query.threads > 1:
        unsupported.append("multithreaded execution")
    if config.query.join == Join.SORT_MERGE:
        unsupported.append("sort-merge joins")
    if config.spill is not None:
        unsupported.append("spilling to disk")
    if config.io.format == "parquet" and not pyarrow:
        unsupported.append("parquet without pyarrow")
    return unsupported

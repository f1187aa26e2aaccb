"""The hand-written gate function that features.toml replaces, as vLLM writes it."""

from .config import CompilationMode, VllmConfig


def has_triton() -> bool:
    """A fact the host computes from its environment, not a config field."""
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


def get_v2_unsupported_features(config: VllmConfig, triton: bool) -> list:
    unsupported = []
    if config.compilation_config.mode == CompilationMode.STOCK_TORCH_COMPILE:
        unsupported.append("stock torch.compile")
    if config.speculative_config is not None and config.speculative_config.method in ("ngram", "draft_model"):
        unsupported.append(f"speculative method '{config.speculative_config.method}'")
    if config.parallel_config.enable_elastic_ep:
        unsupported.append("elastic expert parallelism")
    if config.cache_config.mamba_cache_mode == "all":
        unsupported.append("mamba cache mode 'all'")
    if not triton:
        unsupported.append("missing Triton")
    return unsupported

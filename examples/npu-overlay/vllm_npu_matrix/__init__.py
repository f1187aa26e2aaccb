"""vLLM's model-runner matrix on an NPU: ``overlay.toml`` beside this file, declared in the
entry-point group ``matrix.overlays`` (found without importing this package)."""

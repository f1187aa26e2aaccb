"""Hatch build hook: the wheel ships the default matrix already loaded.

It loads ``features.toml`` and ``runners/`` with this very source tree and writes the entry of
the cache of loaded matrices (`matrix._cache`) as ``matrix/_default/compiled.pickle``, so the
first `resolve` after ``pip install`` parses nothing. The entry is keyed by the engine's source
and by the Python that builds the wheel: under another Python it is ignored, and the default
matrix is loaded (and cached per user) as any other file is.
"""

import os
import sys
import tempfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CompiledDefaultMatrix(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name != "wheel" or version == "editable":
            return  # an editable install reads the source tree, which has no entry
        sys.path.insert(0, self.root)
        try:
            from matrix import _cache, loader

            features = os.path.join(self.root, "features.toml")
            with open(features, encoding="utf-8") as handle:
                text = handle.read()
            # Loaded as `matrix.default()` names it, from the folder it is installed beside.
            builder = loader._Builder()
            matrix = builder.build(text, "features.toml", runners=None, base=self.root)
            data = _cache.entry(_cache.key("features.toml", text), matrix, self.root, builder.runners_read_from)
        finally:
            sys.path.remove(self.root)
            for name in [m for m in sys.modules if m == "matrix" or m.startswith("matrix.")]:
                del sys.modules[name]
        out = os.path.join(tempfile.mkdtemp(prefix="matrix-wheel-"), "compiled.pickle")
        with open(out, "wb") as handle:
            handle.write(data)
        build_data["force_include"][out] = "matrix/_default/compiled.pickle"

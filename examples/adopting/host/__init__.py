"""frames, a dataframe library: the part of it that picks an engine."""

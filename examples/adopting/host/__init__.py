"""A host project shaped like vLLM: config classes, and the hand-written gate being replaced."""

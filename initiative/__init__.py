"""initiative."""

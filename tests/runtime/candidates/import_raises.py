"""Test candidate: raises while being imported."""

raise RuntimeError("boom at import")

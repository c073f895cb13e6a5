"""Python runtime of kgb's worker processes: inputs, comparison, anti-hack scan, timing, protocol.

`python -m runtime.worker` evaluates one candidate against one task (docs/protocol.md);
`python -m runtime.platform` describes the machine. Importing a module does no work.
"""

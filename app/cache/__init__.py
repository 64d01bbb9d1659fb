"""The Redis window cache of session memory: window.py (versioned entries, the write-through
script, back-off on errors), evictions.py (entries of deleted sessions)."""

"""The memory inspector at /ui: static ES modules and CSS served by Engram itself."""

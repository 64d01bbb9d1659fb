"""`python -m app`: the `engram` command, for when the console script is not on PATH."""

from app.cli import main

main()

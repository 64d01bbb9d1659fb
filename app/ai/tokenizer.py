"""Exact token counts for budgets, from an offline tiktoken encoding (no download at run time).

The encoding's table (cl100k: ~40 MB per process) is loaded on the first count, not when a
`Tokenizer` is made: the worker's main process hands its counts to the text-rule children
(`count_tokens` through app.jobs.cpu), which share the one table their fork server loaded, so the
main process never loads a copy of its own."""

from __future__ import annotations

import functools

import tiktoken


class Tokenizer:
    def __init__(self, encoding: str) -> None:
        if encoding not in tiktoken.list_encoding_names():  # unknown name: say which ones exist
            raise ValueError(f"unknown tokenizer {encoding!r}; available: {tiktoken.list_encoding_names()}")
        self.name = encoding

    @functools.cached_property
    def _enc(self) -> tiktoken.Encoding:
        return tiktoken.get_encoding(self.name)  # tiktoken keeps it for the process's next Tokenizer

    def load(self) -> Tokenizer:
        """Load the table now (a process that forks others loads it once for all of them)."""
        _ = self._enc
        return self

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def count_many(self, texts: list[str]) -> list[int]:
        # One by one: tiktoken's batch call hands the texts to a thread pool, which measured ~3x
        # slower for a batch of 100 chat messages than this loop.
        return [self.count(t) for t in texts]


@functools.cache
def named(name: str) -> Tokenizer:
    """This process's tokenizer of that encoding: what a child process counts with."""
    return Tokenizer(name)


def count_tokens(name: str, text: str) -> int:
    """`count` as a module function of the encoding's name, so a child process can run it."""
    return named(name).count(text)

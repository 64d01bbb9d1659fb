"""Per-session derived work other than embeddings (summaries, fact extraction): the jobs table."""

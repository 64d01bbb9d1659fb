"""Encryption at rest of memory content (ENGRAM_ENCRYPTION_KEYS): envelope, fields, keys, rotation."""

"""Export and import of a user's memory as JSON Lines: the format, the streaming export, the import."""

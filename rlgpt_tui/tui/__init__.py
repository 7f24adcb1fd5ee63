"""The Textual app: a view over engine events (live or replayed from the store)."""

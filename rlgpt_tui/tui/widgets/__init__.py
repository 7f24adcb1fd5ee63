"""One module per pane; each pane has ``show(event)`` for engine events (dicts)."""

"""Screens: the session browser, the new-session form, the live/replay run, and dialogs."""

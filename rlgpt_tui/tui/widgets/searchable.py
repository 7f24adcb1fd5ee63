"""A scrolling text pane that can be searched (``/`` on the run screen, ``n`` for the next)."""

from __future__ import annotations

from typing import Any

from textual.widgets import RichLog


class SearchableLog(RichLog):
    """A RichLog that wraps at its own width, keeps the reader's place when scrolled up,
    and finds text in its lines."""

    def __init__(self, title: str, markup: bool, **kwargs: Any) -> None:
        # min_width: wrap at the pane's width, however narrow (RichLog's default is 78)
        super().__init__(wrap=True, markup=markup, min_width=16, **kwargs)
        self.border_title = title
        self.query_text = ""
        self.matches: list[int] = []
        self.match_index = -1

    def add(self, content: Any) -> None:
        """Write a line; follow the end only when the reader is already there."""
        self.write(content, scroll_end=self.is_vertical_scroll_end or self.max_scroll_y == 0)

    def search(self, text: str) -> int:
        """Scroll to the first line holding ``text`` (case-insensitive); the match count."""
        self.query_text = text.strip().lower()
        self.matches = [
            y for y, line in enumerate(self.lines) if self.query_text in line.text.lower()
        ]
        self.match_index = -1
        return self.next_match()

    def next_match(self) -> int:
        """Scroll to the next match (wrapping around); the match count."""
        if not self.matches:
            self.border_subtitle = f"/{self.query_text}: no match" if self.query_text else ""
            return 0
        self.match_index = (self.match_index + 1) % len(self.matches)
        y = self.matches[self.match_index]
        self.scroll_to(y=max(0, y - 1), animate=False)
        self.border_subtitle = (
            f"/{self.query_text}: {self.match_index + 1} of {len(self.matches)} (n: next)"
        )
        return len(self.matches)

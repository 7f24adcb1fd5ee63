"""A scrolling text pane that can be searched (``/`` on the run screen; ``n``/``N`` for the
next and previous match). Every match is highlighted, the current one more strongly, and
the count follows the lines that arrive after the search."""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.events import Resize
from textual.strip import Strip
from textual.widgets import RichLog

MATCH = Style(color="black", bgcolor="yellow")
CURRENT = Style(color="black", bgcolor="bright_magenta", bold=True)


def highlight(strip: Strip, spans: list[tuple[int, int]], style: Style) -> Strip:
    """``strip`` with the cells of each (start, end) span in ``style``."""
    length = strip.cell_length
    cuts = sorted({c for span in spans for c in span if 0 < c < length} | {length})
    parts, position = [], 0
    for part in strip.divide(cuts):
        end = position + part.cell_length
        if any(start <= position and end <= stop for start, stop in spans):
            part = Strip(Segment.apply_style(iter(part), post_style=style), part.cell_length)
        parts.append(part)
        position = end
    return Strip.join(parts)


class SearchableLog(RichLog):
    """A RichLog that wraps at its own width, keeps the reader's place when scrolled up,
    and finds text in its lines."""

    def __init__(self, title: str, markup: bool, **kwargs: Any) -> None:
        # min_width: wrap at the pane's width, however narrow (RichLog's default is 78)
        super().__init__(wrap=True, markup=markup, min_width=16, **kwargs)
        self.border_title = title
        self.query_text = ""
        self.matches: list[int] = []  # line numbers holding the text
        self.match_index = -1
        self.entries: list[Any] = []  # what was written, to wrap again at a new width
        self._wrapped_at = 0

    def add(self, content: Any) -> None:
        """Write a line; follow the end only when the reader is already there."""
        self.entries.append(content)
        self.write(content, scroll_end=self.is_vertical_scroll_end or self.max_scroll_y == 0)
        if self.query_text:  # the count follows new lines; the current match stays
            current = self.current_line
            self.matches = self._find()
            if current is not None and current in self.matches:
                self.match_index = self.matches.index(current)
            self._show_count()

    def on_resize(self, event: Resize) -> None:
        """A new width (a zoom, a smaller terminal): the text wraps again to fit it."""
        width = self.scrollable_content_region.width
        if self._wrapped_at and width != self._wrapped_at and self.entries:
            at_end = self.is_vertical_scroll_end
            self.clear()
            for content in self.entries:
                self.write(content, scroll_end=False)
            if self.query_text:
                self.matches = self._find()
                self.match_index = min(self.match_index, len(self.matches) - 1)
            if at_end:
                self.scroll_end(animate=False)
        self._wrapped_at = width

    @property
    def current_line(self) -> int | None:
        """The line of the current match (None: no match)."""
        if not self.matches or self.match_index < 0:
            return None
        return self.matches[self.match_index]

    def _find(self) -> list[int]:
        return [y for y, line in enumerate(self.lines) if self.query_text in line.text.lower()]

    def search(self, text: str) -> int:
        """Go to the first line holding ``text`` (case-insensitive); the match count."""
        self.query_text = text.strip().lower()
        self.matches = self._find()
        self.match_index = -1
        return self.next_match()

    def next_match(self, step: int = 1) -> int:
        """Go to the next match (``step`` -1: the previous one), wrapping around; the count."""
        if not self.matches:
            self._show_count()
            return 0
        if self.match_index < 0:
            self.match_index = 0 if step > 0 else len(self.matches) - 1
        else:
            self.match_index = (self.match_index + step) % len(self.matches)
        y = self.matches[self.match_index]
        self.scroll_to(y=max(0, y - self.scrollable_content_region.height // 2), animate=False)
        self._show_count()
        self._line_cache.clear()
        self.refresh()
        return len(self.matches)

    def _show_count(self) -> None:
        if not self.query_text:
            self.border_subtitle = ""
        elif not self.matches:
            self.border_subtitle = f"/{self.query_text}: no match"
        else:
            where = self.match_index + 1
            self.border_subtitle = (
                f"/{self.query_text}: {where} of {len(self.matches)} (n/N: next/previous)"
            )

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        line = self.scroll_offset.y + y
        if not self.query_text or line >= len(self.lines) or line not in self.matches:
            return strip
        text, size = self.lines[line].text.lower(), len(self.query_text)
        shift = self.scroll_offset.x
        spans, start = [], text.find(self.query_text)
        while start >= 0:
            spans.append((start - shift, start - shift + size))
            start = text.find(self.query_text, start + size)
        style = CURRENT if line == self.current_line else MATCH
        return highlight(strip, spans, style)

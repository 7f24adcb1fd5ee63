"""Typed access to the store's tables through sqlite-utils."""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.db import Table


def table_of(db: Database, name: str) -> Table:
    """The table ``name`` of ``db``: the store makes no views, so every name it uses is a table."""
    found = db[name]
    if not isinstance(found, Table):
        raise TypeError(f"{name!r} is a view, not a table")
    return found


def inserted_id(row_id: int | None) -> int:
    """The id of the row an INSERT just wrote (sqlite reports None only when none was written)."""
    if row_id is None:
        raise RuntimeError("the INSERT wrote no row")
    return row_id

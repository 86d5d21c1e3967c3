"""A fresh store's SQLite file in a millisecond: a copy of one made at the first need of a test session.

Opening a store on a new file runs every migration, one transaction each (tens of milliseconds), and the
end-to-end and store tests open hundreds of fresh stores. Their subject is what the bot does with its
store, not how a schema is built; ``tests/test_store.py`` and the migration tests open files of their own
and run the migrations themselves. The copy is the file a store left after it opened a new database and
closed: its schema and version, and no rows.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from bot.store import Store

_template: Path | None = None


async def _made() -> Path:
    global _template
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="veletas-template-"))
        atexit.register(shutil.rmtree, folder, True)
        file = folder / "veletas.sqlite3"
        store = await Store.open(file)
        await store.close()
        leftovers = sorted(p.name for p in folder.iterdir() if p != file)
        assert not leftovers, f"a closed store left {leftovers} beside its file"
        _template = file
    return _template


async def fresh_sqlite(path: Path) -> None:
    """Put an up-to-date, empty store's file at ``path``, unless a database is there already."""
    if path.exists():
        return
    template = await _made()
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, path)

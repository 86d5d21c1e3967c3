"""A process's family from the kernel's process table (``/proc``), for the tests that kill a real bot."""

from __future__ import annotations

from pathlib import Path


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a process, or None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[19])


def family(root: int) -> dict[int, int]:
    """Every living descendant of ``root``: pid -> start time (so a reused pid is not mistaken for it)."""
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (found := _stat(int(entry.name))) is not None and found[0] != "Z":
            children.setdefault(found[1], []).append(int(entry.name))
            started[int(entry.name)] = found[2]
    out: dict[int, int] = {}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out[child] = started[child]
            todo.append(child)
    return out


def still_running(processes: dict[int, int]) -> list[int]:
    """Those of ``processes`` not dead yet (a zombie is dead: only its exit status is left to collect)."""
    alive = []
    for pid, start in processes.items():
        found = _stat(pid)
        if found is not None and found[2] == start and found[0] != "Z":
            alive.append(pid)
    return alive


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "(gone)"

"""How an agent's file is written, once :mod:`kandev_tui.acp.files` has said it may be: atomically (a temporary file
beside it, renamed over it: a reader sees the old file or the new one, never half), its mode and owner kept, and
every step relative to its folder's descriptor, reached from the workspace root without following a symlink. A
folder swapped for a symlink after the path was checked (a race an agent's own process can run) is
:class:`FolderSwapped`, never written through: the write would land outside the workspace."""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path


class FolderSwapped(OSError):
    """A folder on the way to the file is no folder of the root's any more (a symlink, a file)."""


def write_atomically(root: Path, target: Path, data: bytes, mode: int | None, owner: tuple[int, int] | None) -> None:
    """Write ``target`` (a real path inside ``root``, its missing folders made); ``mode`` None: a new file's, as the
    agent's own tools would make it (the umask's). OSError when it cannot be written."""
    if mode is None:
        from kandev_tui.base.userpaths import process_umask

        mode = 0o666 & ~process_umask()
    folder = _walk_to_parent(root, target.relative_to(root).parts)
    temporary = f".{target.name[:100]}.{secrets.token_hex(6)}.kandev-tmp"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fchmod(handle.fileno(), mode)
                if owner is not None:
                    try:
                        os.fchown(handle.fileno(), *owner)
                    except OSError:
                        pass  # not ours to give away: the file keeps the writer's owner
                os.fsync(handle.fileno())
            os.replace(temporary, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except OSError:
            try:
                os.unlink(temporary, dir_fd=folder)
            except OSError:
                pass
            raise
    finally:
        os.close(folder)


def _walk_to_parent(root: Path, parts: tuple[str, ...]) -> int:
    """A descriptor of the folder ``parts[:-1]`` names under ``root``, each step opened without following a symlink
    (``O_NOFOLLOW``) and made when missing; :class:`FolderSwapped` where a step is no folder of the root's."""
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            try:
                os.mkdir(part, 0o777, dir_fd=folder)
            except FileExistsError:
                pass
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise FolderSwapped(exc.errno, f"{part} is no folder") from None
                raise
            os.close(folder)
            folder = inner
    except BaseException:
        os.close(folder)
        raise
    return folder

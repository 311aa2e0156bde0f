"""The client's files: ``fs/read_text_file`` and ``fs/write_text_file``, confined to the session's workspace.

An agent names a file by its absolute path (a relative one is taken from the workspace root). The path must lie
inside one of the session's roots (the workspace and the ``--repo`` directories), and then passes the same rules as
a file preview (:class:`kandev_tui.workspace.reads.Workspace`): symlinks resolved, also through parent directories, and
the real path still inside its root; a regular file, opened without blocking (a FIFO or device is refused, never
waited on). A read is bounded (:data:`READ_AT_MOST`; a bigger file is read in parts with ``line`` and ``limit``)
and must be UTF-8 text. A write is atomic: the new text goes to a temporary file beside the target, which is then
renamed over it, so a reader (the user's editor) sees the old file or the new one, never half of it; the file's
mode is kept, missing parent directories are created inside the root. Writes go to the workspace only (``--repo``
folders are read, not written), never into a repository's own files (``.git``: git would run what an agent wrote
there), and walk to their folder without following a symlink (:mod:`kandev_tui.acp.writing`).

A refused request is answered with a JSON-RPC error whose message names the rule. A file that does not exist (inside
the workspace) reads as empty text, with ``_meta.kandevTui.missing``, as Zed answers (a new file is an empty buffer
there): Gemini CLI reads a file through the client before it writes it, and fails its ``write_file`` and ``replace``
on *any* error answer. (0.61's ``AcpFileSystemService`` would take a message saying "Resource not found" for ENOENT,
but the SDK rejects with the plain JSON-RPC error object, whose ``String()`` is "[object Object]", so no error
message can reach that check.)
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kandev_tui.presentation.paths import path_problem
from kandev_tui.workspace.reads import FileMissing, Workspace, WorkspaceError, decode_text

from .writing import FolderSwapped, write_atomically

READ_AT_MOST = 16 * 1024 * 1024  # bytes of text one read answers with
WRITE_AT_MOST = 16 * 1024 * 1024  # bytes one write may bring (the transport's line bound is lower still)
DIFF_OLD_AT_MOST = 4 * 1024 * 1024  # bytes of a file's former text kept for the transcript's diff
BEFORE_AT_MOST = 256 * 1024  # bytes of a file read as it is before an agent's edit (its text goes in a local frame)

RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class FileRequestError(Exception):
    """A file request kandev-tui refused or could not do: ``code`` and ``str()`` go into the JSON-RPC error."""

    def __init__(self, code: int, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.path = path


@dataclass(frozen=True)
class Written:
    """What a write did: the real path, the former text (None for a new file, or when it was not text or too
    big to keep, then ``note`` says which), and whether the file is new."""

    path: str
    old: str | None
    new_file: bool
    note: str | None = None


def _git_name(part: str) -> bool:
    """Whether a path segment names a repository's own directory, in any case and as file systems that drop trailing
    dots and spaces, or keep a short name, would read it."""
    return part.lower().rstrip(". ") in (".git", "git~1")


def _existing_part(path: Path) -> Path:
    """The deepest part of ``path`` that exists (the path itself when it does)."""
    while not (path.exists() or path.is_symlink()) and path.parent != path:
        path = path.parent
    return path


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1_000_000 else f"{count:,} bytes"


class ClientFiles:
    """The files one session's agent may read and write."""

    def __init__(self, workspace: Path, repos: dict[str, Path] | None = None) -> None:
        self.workspace = Workspace(workspace, repos)
        self._git_dir_cache: dict[Path, tuple[Path, ...]] = {}

    # -- paths ---------------------------------------------------------------

    def locate(self, path: Any, directory: bool = False) -> tuple[str | None, str]:
        """(the repo name, or None for the workspace root; the path relative to it) of an agent's path. With
        ``directory``, a root itself is a fine answer (``"."``)."""
        if not isinstance(path, str) or not path.strip():
            raise FileRequestError(INVALID_PARAMS, "the path must be a non-empty string")
        if "\x00" in path:
            raise FileRequestError(INVALID_PARAMS, "the path must not contain NUL")
        if not path.startswith("/"):
            if directory and posixpath.normpath(path) == ".":
                return None, "."
            problem = path_problem(path)
            if problem:
                raise FileRequestError(INVALID_PARAMS, f"refused {path[:200]!r}: the path {problem}", path)
            return None, posixpath.normpath(path)
        wanted = posixpath.normpath(path)
        best: tuple[int, str | None, str] | None = None
        roots: list[tuple[str | None, Path]] = [(None, self.workspace.root)]
        roots += list(self.workspace.repos.items())
        for name, root in roots:
            bases = {posixpath.normpath(str(root.absolute()))}
            try:
                bases.add(str(root.resolve(strict=True)))
            except (OSError, RuntimeError):
                pass
            for base in bases:
                if wanted == base and directory:
                    return name, "."
                if wanted == base:
                    raise FileRequestError(INVALID_PARAMS, f"refused {path[:200]!r}: it is the workspace directory, "
                                                           "not a file", path)
                prefix = base.rstrip("/") + "/"
                if wanted.startswith(prefix) and (best is None or len(base) > best[0]):
                    best = (len(base), name, wanted[len(prefix):])
        if best is None:
            shown = ", ".join(str(root) for _, root in roots)
            raise FileRequestError(INVALID_PARAMS, f"refused {path[:200]!r}: outside the workspace "
                                                   f"(kandev-tui serves files under {shown[:300]})", path)
        return best[1], best[2]

    def existing_file(self, path: Any) -> tuple[str, Path]:
        """(its path relative to its root, the file) of a file the user names (``@`` in a prompt), checked as the
        agent's reads are: refused outside the workspace, or when it is no file."""
        repo, relative = self.locate(path)
        self._inside(repo, relative, path)
        target = self.workspace.root_for(repo) / relative
        if not target.is_file():
            raise FileRequestError(RESOURCE_NOT_FOUND, "no such file", path)
        return relative, target

    def _inside(self, repo: str | None, relative: str, path: str) -> None:
        """Refuse a path that does not exist unless where it would be is inside its root."""
        try:
            root = self.workspace.root_for(repo).resolve(strict=True)
            would_be = (root / relative).resolve()
        except (OSError, RuntimeError):
            raise FileRequestError(RESOURCE_NOT_FOUND, f"Resource not found: {path[:300]}", path) from None
        if root not in would_be.parents:
            raise FileRequestError(INVALID_PARAMS, f"refused {path[:300]!r}: the path leads outside the workspace", path)

    def _refused(self, path: str, exc: WorkspaceError) -> FileRequestError:
        if isinstance(exc, FileMissing):
            return FileRequestError(RESOURCE_NOT_FOUND, f"Resource not found: {path[:300]} ({exc})", path)
        return FileRequestError(INVALID_PARAMS, f"refused {path[:300]!r}: {exc}", path)

    # -- reads -----------------------------------------------------------------

    def before(self, path: Any) -> dict[str, Any] | None:
        """A file as it is now, before an agent's edit changes it: ``{"real_path", "exists": False}`` or
        ``{"real_path", "exists": True, "text"}`` (no ``text`` for a file over :data:`BEFORE_AT_MOST` bytes or not
        text); None for a path kandev-tui does not serve (outside the workspace, not a regular file)."""
        try:
            repo, relative = self.locate(path)
            root = self.workspace.root_for(repo).resolve(strict=True)
        except (FileRequestError, WorkspaceError, OSError, RuntimeError):
            return None
        real = str(root / relative)
        try:
            fd, info = self.workspace.open_regular(relative, repo)
        except FileMissing:
            return {"real_path": real, "exists": False}
        except WorkspaceError:
            return None
        try:
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(BEFORE_AT_MOST + 1) if info.st_size <= BEFORE_AT_MOST else b""
        except OSError:
            return None
        text = decode_text(data, truncated=False) if data and len(data) <= BEFORE_AT_MOST else None
        if info.st_size == 0:
            text = ""
        return {"real_path": real, "exists": True, **({"text": text} if text is not None else {})}

    def read(self, params: Any) -> dict[str, Any]:
        """``fs/read_text_file``: ``{content}`` of the file, or of ``limit`` lines from line ``line`` (1-based)."""
        params = params if isinstance(params, dict) else {}
        path = params.get("path")
        line, limit = params.get("line"), params.get("limit")
        for name, value in (("line", line), ("limit", limit)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise FileRequestError(INVALID_PARAMS, f"{name} must be a whole number, got {str(value)[:40]!r}")
        repo, relative = self.locate(path)
        try:
            fd, info = self.workspace.open_regular(relative, repo)
        except FileMissing:
            self._inside(repo, relative, str(path))
            return {"content": "", "_meta": {"kandevTui": {"missing": True}}}
        except WorkspaceError as exc:
            raise self._refused(str(path), exc) from None
        with os.fdopen(fd, "rb", buffering=1 << 16) as handle:
            try:
                if line is None and limit is None:
                    if info.st_size > READ_AT_MOST:
                        raise FileRequestError(INVALID_PARAMS, f"refused {str(path)[:300]!r}: the file is "
                                               f"{_size(info.st_size)}, more than the {READ_AT_MOST >> 20} MiB "
                                               "kandev-tui reads at once; read it in parts with line and limit", path)
                    data = handle.read(READ_AT_MOST + 1)
                else:
                    data = self._lines(handle, max(1, line or 1), limit, str(path))
            except OSError as exc:
                raise FileRequestError(INTERNAL_ERROR, f"could not read {str(path)[:300]!r}: "
                                                       f"{exc.strerror or type(exc).__name__}", path) from None
        if len(data) > READ_AT_MOST:
            raise FileRequestError(INVALID_PARAMS, f"refused {str(path)[:300]!r}: the file grew past "
                                                   f"{READ_AT_MOST >> 20} MiB while it was read", path)
        text = decode_text(data, truncated=False)
        if text is None:
            raise FileRequestError(INVALID_PARAMS, f"refused {str(path)[:300]!r}: not a text file "
                                                   "(it holds NUL bytes or is not UTF-8)", path)
        return {"content": text}

    @staticmethod
    def _lines(handle: Any, first: int, count: int | None, path: str) -> bytes:
        """The bytes of ``count`` lines (all when None) from line ``first``, never holding more than the bound."""
        number = 1
        while number < first:  # skip, a bounded piece at a time (a line may be longer than memory should hold)
            piece = handle.readline(1 << 20)
            if not piece:
                return b""
            if piece.endswith(b"\n"):
                number += 1
        kept: list[bytes] = []
        size = 0
        taken = 0
        while count is None or taken < count:
            piece = handle.readline(READ_AT_MOST + 1 - size)
            if not piece:
                break
            kept.append(piece)
            size += len(piece)
            if size > READ_AT_MOST:
                raise FileRequestError(INVALID_PARAMS, f"refused {path[:300]!r}: the lines asked for hold more than "
                                                       f"the {READ_AT_MOST >> 20} MiB kandev-tui reads at once", path)
            if piece.endswith(b"\n"):
                taken += 1
        return b"".join(kept)

    # -- writes ----------------------------------------------------------------

    def write(self, params: Any) -> Written:
        """``fs/write_text_file``: replace (or create) the file with ``content``, atomically."""
        params = params if isinstance(params, dict) else {}
        path, content = params.get("path"), params.get("content")
        if not isinstance(content, str):
            raise FileRequestError(INVALID_PARAMS, "content must be a string")
        data = content.encode("utf-8", "surrogatepass")
        if len(data) > WRITE_AT_MOST:
            raise FileRequestError(INVALID_PARAMS, f"refused to write {str(path)[:300]!r}: {_size(len(data))} is more "
                                                   f"than the {WRITE_AT_MOST >> 20} MiB kandev-tui writes at once", path)
        repo, relative = self.locate(path)
        shown = str(path)[:300]
        if repo is not None:  # a --repo folder: for reading (it is not the session's, nor checkpointed with it)
            raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: it is in --repo {repo}, which agents may read "
                                                   "but not write (writes stay in the workspace)", path)
        try:
            root = self.workspace.root_for(repo).resolve(strict=True)
        except WorkspaceError as exc:
            raise self._refused(shown, exc) from None
        except (OSError, RuntimeError):
            raise FileRequestError(INTERNAL_ERROR, "the workspace is no longer available", path) from None
        self._refuse_git_files(root, relative, _existing_part(root / relative), shown)  # before any folder is made
        target = self._target(root, relative, shown)
        self._refuse_git_files(root, relative, target, shown)
        old, note, mode, owner = None, None, None, None
        new_file = not target.exists()
        if not new_file:
            try:
                fd, info = self.workspace.open_regular(str(target.relative_to(root)), repo)
            except WorkspaceError as exc:
                raise self._refused(shown, exc) from None
            with os.fdopen(fd, "rb") as handle:
                former = handle.read(DIFF_OLD_AT_MOST + 1)
            mode, owner = stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid)
            if len(former) > DIFF_OLD_AT_MOST:
                note = f"the former file ({_size(info.st_size)}) was too big to compare"
            else:
                old = decode_text(former, truncated=False)
                if old is None:
                    note = "the former file was not text"
        try:
            write_atomically(root, target, data, mode, owner)
        except FolderSwapped:
            raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: a folder on its way changed as it was written "
                                                   "(to a symlink?)") from None
        except OSError as exc:
            raise FileRequestError(INTERNAL_ERROR, f"could not write {shown!r}: "
                                                   f"{exc.strerror or type(exc).__name__}") from None
        return Written(path=str(target), old=old, new_file=new_file, note=note)

    def _refuse_git_files(self, root: Path, relative: str, target: Path, shown: str) -> None:
        """A repository's own files are not the agent's to write: its configuration, hooks and attributes there run
        code in every git that looks at it (kandev-tui's own checkpoints included). Refused: any path with a
        ``.git`` segment (any case, as said or as resolved) and anything inside the directory git names as the
        repository's (a ``.git`` file, a worktree's, a separate git dir)."""
        target = target.resolve() if target.exists() or target.is_symlink() else target
        within = target.relative_to(root).parts if target.is_relative_to(root) else ()
        named = any(_git_name(part) for part in (*relative.split("/"), *within))
        if named or any(target == place or place in target.parents for place in self._git_dirs(root)):
            raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: it is inside the repository's own files (.git), "
                                                   "which kandev-tui never lets an agent write: git runs what they "
                                                   "say", shown)

    def _git_dirs(self, root: Path) -> tuple[Path, ...]:
        """The repository's own directories for the workspace root ``root`` (none when it is no repository), asked of
        git once per root."""
        if root not in self._git_dir_cache:
            from kandev_tui.workspace.gitrun import run_git

            places: tuple[Path, ...] = ()
            try:
                done = run_git(("rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"), root,
                               error=OSError, missing="git is not installed", timeout=10, text=True)
                if done.returncode == 0:
                    places = tuple(Path(line).resolve() for line in done.stdout.splitlines() if line.strip())
            except OSError:
                pass
            self._git_dir_cache[root] = places
        return self._git_dir_cache[root]

    def _target(self, root: Path, relative: str, shown: str) -> Path:
        """The real path to write (its missing folders are made as it is written, inside the root): a symlink
        followed (inside the root only)."""
        target = root / relative
        parent = target.parent
        missing: list[str] = []
        while not parent.exists():
            if parent.is_symlink():  # a dangling link among the parents: where it points is not ours to create
                raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: a parent directory is a broken symlink")
            missing.append(parent.name)
            parent = parent.parent
        real_parent = parent.resolve()
        if real_parent != root and root not in real_parent.parents:
            raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: the path leads outside the workspace")
        if not real_parent.is_dir():
            raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: a parent is not a directory")
        target = real_parent.joinpath(*reversed(missing), target.name)
        if target.is_symlink():
            try:
                target = target.resolve(strict=True)
            except (OSError, RuntimeError):
                raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: it is a broken symlink") from None
            if root not in target.parents:
                raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: the symlink leads outside the workspace")
        if target.exists() and not target.is_file():
            raise FileRequestError(INVALID_PARAMS, f"refused {shown!r}: not a regular file")
        return target

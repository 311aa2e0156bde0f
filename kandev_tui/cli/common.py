"""What the commands share: exit statuses, one-line failures, the workspace and the store as the options name them, the app's run."""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from kandev_tui.app.kandev_app import KandevApp


EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class Failure(Exception):
    """A command could not do what it was asked: ``str()`` is the one line said (``kandev-tui CMD: what; what to
    do``), and the exit status is :attr:`code`. :func:`kandev_tui.cli.main` says it."""

    code = EXIT_FAIL


class UsageError(Failure):
    """What the command line asks cannot be done as asked (a missing directory, a database that is not one)."""

    code = EXIT_USAGE


def _fail(message: str, code: int = EXIT_FAIL) -> int:
    from kandev_tui.base.sanitize import visible

    print(visible(message), file=sys.stderr)
    return code


def _workspace_at(directory: str, args: argparse.Namespace) -> Any:
    """The Workspace at ``directory`` with the --repo directories (a session continued where it ran)."""
    return _workspace(argparse.Namespace(**{**vars(args), "workspace": directory}))


def _workspace(args: argparse.Namespace) -> Any:
    """The Workspace of --workspace and --repo (checked as they were read), or of a directory a stored session or a
    preset names (UsageError: it is not there)."""
    from kandev_tui.base.userpaths import not_a_directory
    from kandev_tui.workspace.reads import Workspace

    root = Path(args.workspace).expanduser() if args.workspace else Path.cwd()
    problem = not_a_directory(root)
    if problem:
        raise UsageError(f"kandev-tui {args.command}: --workspace {root}: {problem}")
    return Workspace(root, dict(args.repo))


class Unreadable(UsageError):
    """A file named on the command line cannot be read: ``PATH: reason``."""


class BadJson(Failure):
    """A file was read and is not JSON: ``invalid JSON: where: what``."""


def read_json(file: str) -> Any:
    """The JSON in ``file`` (``-``: standard input); :class:`Unreadable` or :class:`BadJson` say why there is none."""
    try:
        if file == "-":
            text = sys.stdin.read()
        else:
            text = Path(file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise Unreadable(f"{file}: no such file") from None
    except IsADirectoryError:
        raise Unreadable(f"{file}: is a directory") from None
    except UnicodeDecodeError:
        raise Unreadable(f"{file}: not UTF-8 text") from None
    except OSError as exc:
        raise Unreadable(f"{file}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadJson(f"invalid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise BadJson("invalid JSON: nested too deeply") from None


def _open_store(args: argparse.Namespace, *, create: bool = True) -> Any:
    """The Store of --db (or the default); UsageError when it cannot be opened.

    ``create=False`` (commands that only read): a missing database is not made. Then an EmptyStore when it is
    the default one (nothing has been stored yet), and an error when the user named it (--db, KANDEV_TUI_DB).
    """
    from kandev_tui.transcript.store import EmptyStore, Store, StoreError, StoreMissing, default_db_path

    path = Path(args.db).expanduser() if args.db else default_db_path()
    try:
        return Store(path, create=create)
    except StoreMissing as exc:
        if args.db or os.environ.get("KANDEV_TUI_DB"):
            raise UsageError(_store_problem(args, path, exc)) from None
        return EmptyStore()
    except StoreError as exc:
        raise UsageError(_store_problem(args, path, exc)) from None


def _store_problem(args: argparse.Namespace, path: Path, exc: Any) -> str:
    """One line, in the shape of every file option's: ``kandev-tui CMD: --db PATH: reason``."""
    command = f"kandev-tui {args.command}" if args.command else "kandev-tui"
    if not exc.reason:  # what is in the file (damaged, a newer schema) says it all
        return f"{command}: {exc}"
    where = "--db" if args.db else "KANDEV_TUI_DB" if os.environ.get("KANDEV_TUI_DB") else "the session database"
    return f"{command}: {where} {path}: {exc.reason}"


def _find_session(command: str, store: Any, wanted: str) -> dict[str, Any]:
    """The one stored session ``wanted`` names (an id or a unique prefix); Failure: the line that says why there is
    none."""
    from kandev_tui.transcript.store import NotNamed

    try:
        return store.named(wanted)
    except NotNamed as exc:
        raise Failure(f"kandev-tui {command}: {exc}") from None


@contextmanager
def open_store(args: argparse.Namespace, *, create: bool = True) -> Iterator[Any]:
    """The Store of --db (see :func:`_open_store`: an EmptyStore when nothing is stored yet and ``create`` is
    False), closed when the block ends however it ends."""
    store = _open_store(args, create=create)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def stored_session(command: str, args: argparse.Namespace, wanted: str) -> Iterator[tuple[Any, dict[str, Any]]]:
    """(store, session) of the stored session ``wanted`` names, the store closed when the block ends. Failure when
    there is no such session, UsageError when the database cannot be opened."""
    with open_store(args, create=False) as store:
        yield store, _find_session(command, store, wanted)


NOTHING_STORED = "No stored sessions yet. Start one with: kandev-tui run --headless --prompt TEXT -- AGENT_CMD"


def _resumable(store: Any, command: list[str], wanted: str) -> dict[str, Any]:
    """The stored session ``--resume`` continues (:meth:`~kandev_tui.transcript.store.Store.resumable`); Failure: the
    line that says why there is none."""
    from kandev_tui.transcript.continuing import NotContinuable

    try:
        return store.resumable(command, wanted)
    except NotContinuable as exc:
        raise Failure(f"kandev-tui run --resume: {exc}") from None


def _run_app(args: argparse.Namespace, store: Any, source: Any, initial_prompt: str | None = None,
             settings: Any = None, launcher: Any = None, kandev: Any = None, worktrees: list[Any] | None = None) -> int:
    """Open the app on a source (or a list of them: a session each, the first on screen, each sent
    ``initial_prompt``) over ``store`` (the caller's, open until the app ends). ``worktrees``: one per source (or
    None), made for its session and closed with it."""
    problem = _no_terminal()
    if problem:
        return _fail(problem, EXIT_USAGE)
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.base.settings import SettingsStore

    from kandev_tui.transcript.store import default_db_path

    # next to the sessions (a replay without a store logs where the default store lives, never in the cwd)
    _log_to_file(Path(getattr(store, "path", None) or default_db_path()).parent / "logs" / "kandev-tui.log")
    settings = settings or SettingsStore()
    size_from_the_terminal()
    sources = source if isinstance(source, list) else [source]
    app = KandevApp(sources[0], settings_store=settings, initial_prompt=initial_prompt, launcher=launcher,
                    kandev=kandev, stats_path=Path(args.stats).expanduser() if args.stats else None)
    for more in sources[1:]:
        app.open_session(more, initial_prompt)
    for session, tree in zip(app.sessions, worktrees or []):
        session.worktree = tree
    try:
        app.run()
    finally:
        for session in app.sessions:  # not closed by the app (it failed before its sessions ended): closed here
            if session.worktree is not None and not session.closing_note:
                from kandev_tui.workspace.worktree import close as close_worktree

                session.closing_note = close_worktree(session.worktree)
    return app_exit_status(app)


def size_from_the_terminal() -> None:
    """The app on a terminal takes its size from the terminal, not from ``COLUMNS`` and ``LINES``: Textual reads its
    size (at the start and at each resize) with ``shutil.get_terminal_size``, which prefers those variables, and a
    program that started kandev-tui may have exported them once (readline does; so do some container and notebook
    terminals): the app was then pinned to that size, through resizes too. The agents do not inherit them either.
    Served in a browser (not a terminal), the variables are how textual-serve gives the page's size: kept."""
    if sys.stdout.isatty():
        for name in ("COLUMNS", "LINES"):
            os.environ.pop(name, None)


def _no_terminal() -> str | None:
    """Why the app cannot open here (no terminal, or one that cannot draw it: TERM=dumb), or None."""
    if os.environ.get("KANDEV_TUI_FORCE_APP"):
        return None
    if os.environ.get("TEXTUAL_DRIVER", "").endswith(":WebDriver"):  # kandev-tui serve: a browser, over pipes
        return None
    if os.environ.get("TERM") == "dumb":  # Emacs' shell, some CI runners: no cursor moves, no colours
        return ("kandev-tui: this terminal (TERM=dumb) cannot draw the app; use 'kandev-tui run --headless' or "
                "'kandev-tui transcript', or a terminal that can (TERM=xterm-256color)")
    if sys.stdout.isatty():
        return None
    return ("kandev-tui: the app needs a terminal; for scripts and CI use "
            "'kandev-tui run --headless' or 'kandev-tui transcript'")


def app_exit_status(app: KandevApp) -> int:
    """The status the command exits with once the app has closed: the app's return code (1 after a crash, or once
    the session failed, e.g. an agent that never started, whose reason is then said on stderr); never 0 for an
    app that did not exit normally."""
    for failure in app.life.failures():  # each session that failed, in order
        _fail(f"kandev-tui: {failure}")
    for number, text in app.life.unsent():  # queued or typed ahead, never sent: not lost
        print(f"kandev-tui: never sent to its agent, session {number}:\n{text}", file=sys.stderr)
    for note in app.life.closing_notes():  # where a worktree with uncommitted work was kept
        print(f"kandev-tui: {note}", file=sys.stderr)
    code = app.return_code
    return EXIT_FAIL if code is None else code


LOG_AT_MOST = 8 * 1024 * 1024  # bytes of kandev-tui's own log before it starts a new one (the older one kept)


def _log_to_file(path: Path) -> None:
    """While the app owns the terminal, every log record goes to a file (never onto the screen): in a private folder,
    LOG_AT_MOST bytes and one older file at most."""
    import logging
    from logging.handlers import RotatingFileHandler

    from kandev_tui.base.userpaths import open_private, private_dir

    try:
        private_dir(path.parent)
        open_private(path, "a").close()  # made 0600 before the handler opens it
        handler: logging.Handler = RotatingFileHandler(path, maxBytes=LOG_AT_MOST, backupCount=1, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(logging.INFO)



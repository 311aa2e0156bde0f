"""Confined, bounded workspace reads: symlinks, FIFOs, devices, huge files, permissions."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kandev_tui.workspace.reads import (
    AccessDenied,
    FileMissing,
    InvalidPath,
    NotRegularFile,
    OutsideWorkspace,
    UnknownRepo,
    Workspace,
    WorkspaceGone,
    decode_text,
    parse_repo_option,
)


@pytest.fixture
def ws(tmp_path: Path) -> tuple[Workspace, Path, Path]:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "ok.txt").write_text("hello")
    (outside / "secret.txt").write_text("secret")
    return Workspace(root), root, outside


def test_reads_a_regular_file(ws):
    workspace, root, _ = ws
    read = workspace.read_bytes("ok.txt", 100)
    assert read.data == b"hello" and not read.truncated and read.size == 5


@pytest.mark.reliability("Files", "symlink out of the workspace", cases=1,
                         held="refused")
def test_symlink_out_of_the_workspace(ws):
    workspace, root, outside = ws
    (root / "link.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(OutsideWorkspace):
        workspace.read_bytes("link.txt", 100)


@pytest.mark.reliability("Files", "symlink out via a parent directory", cases=1,
                         held="refused")
def test_symlink_out_via_a_parent_directory(ws):
    workspace, root, outside = ws
    (root / "dir").symlink_to(outside)
    with pytest.raises(OutsideWorkspace):
        workspace.read_bytes("dir/secret.txt", 100)


def test_symlink_inside_the_workspace_is_followed(ws):
    workspace, root, _ = ws
    (root / "alias.txt").symlink_to(root / "ok.txt")
    assert workspace.read_bytes("alias.txt", 100).data == b"hello"


@pytest.mark.reliability("Files", "symlink loop", cases=1,
                         held="refused, no hang")
def test_symlink_loop(ws):
    workspace, root, _ = ws
    (root / "loop").symlink_to(root / "loop")
    with pytest.raises(FileMissing):
        workspace.read_bytes("loop", 100)


@pytest.mark.reliability("Files", "FIFO", cases=1,
                         held="refused without opening it for reading")
def test_fifo_never_blocks(ws):
    workspace, root, _ = ws
    os.mkfifo(root / "x.csv")
    done = threading.Event()
    errors = []

    def attempt():
        try:
            workspace.read_bytes("x.csv", 100)
        except NotRegularFile as exc:
            errors.append(exc)
        done.set()

    threading.Thread(target=attempt, daemon=True).start()
    assert done.wait(5), "reading a FIFO blocked"
    assert errors and str(errors[0]) == "not a regular file"


@pytest.mark.reliability("Files", "device file behind a symlink", cases=1,
                         held="refused")
def test_device_behind_a_symlink(ws):
    workspace, root, _ = ws
    (root / "zero.csv").symlink_to("/dev/zero")
    with pytest.raises(OutsideWorkspace):
        workspace.read_bytes("zero.csv", 100)


def test_directory_is_not_a_regular_file(ws):
    workspace, root, _ = ws
    (root / "sub").mkdir()
    with pytest.raises(NotRegularFile):
        workspace.read_bytes("sub", 100)


@pytest.mark.reliability("Files", "5 GiB sparse file", cases=1,
                         held="read bounded")
def test_huge_sparse_file_is_read_bounded(ws):
    workspace, root, _ = ws
    with open(root / "huge.bin", "wb") as handle:
        handle.truncate(5 * 1024**3)  # 5 GiB, sparse
    read = workspace.read_bytes("huge.bin", 1000)
    assert len(read.data) == 1000 and read.truncated and read.size == 5 * 1024**3


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_permission_denied(ws):
    workspace, root, _ = ws
    (root / "ok.txt").chmod(0)
    with pytest.raises(AccessDenied):
        workspace.read_bytes("ok.txt", 100)


@pytest.mark.reliability("Files", "permission denied (as an unprivileged user)", cases=1,
                         held="clear unavailable state")
def test_permission_denied_as_a_real_user():
    """As root, drop to an unprivileged uid in a forked child to see the refusal."""
    if os.geteuid() != 0:
        pytest.skip("covered by test_permission_denied")
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="kandev-perm-", dir="/tmp"))
    try:
        root.chmod(0o755)
        (root / "locked.txt").write_text("no")
        (root / "locked.txt").chmod(0)
        workspace = Workspace(root)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child becomes nobody and tries the read
            outcome = b"?"
            try:
                os.setgid(65534)
                os.setuid(65534)
                workspace.read_bytes("locked.txt", 100)
                outcome = b"read"
            except AccessDenied as exc:
                outcome = str(exc).encode()
            except BaseException as exc:  # noqa: BLE001
                outcome = type(exc).__name__.encode()
            finally:
                os.write(write_fd, outcome)
                os._exit(0)
        os.close(write_fd)
        os.waitpid(pid, 0)
        assert os.read(read_fd, 100) == b"permission denied"
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_path_rules_apply(ws):
    workspace, _, _ = ws
    for bad in ("../x", "/etc/passwd", "~/x", "C:x", "."):
        with pytest.raises(InvalidPath):
            workspace.read_bytes(bad, 10)


@pytest.mark.reliability("Files", "missing file, workspace deleted", cases=2,
                         held="clear unavailable state")
def test_missing_file_and_gone_workspace(ws, tmp_path):
    workspace, root, _ = ws
    with pytest.raises(FileMissing) as info:
        workspace.read_bytes("nope.txt", 10)
    assert str(info.value) == "no such file"
    gone = Workspace(tmp_path / "deleted")
    with pytest.raises(WorkspaceGone) as info:
        gone.read_bytes("x", 10)
    assert str(info.value) == "the workspace is no longer available"


def test_repo_roots(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "f").write_text("A")
    (b / "f").write_text("B")
    workspace = Workspace(a, {"b": b})
    assert workspace.read_bytes("f", 5).data == b"A"
    assert workspace.read_bytes("f", 5, repo="b").data == b"B"
    with pytest.raises(UnknownRepo) as info:
        workspace.read_bytes("f", 5, repo="c")
    assert str(info.value) == "unknown repository 'c' (known: b)"


def test_a_repo_root_cannot_reach_the_default_root(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "f").write_text("A")
    (b / "link").symlink_to(a / "f")
    with pytest.raises(OutsideWorkspace):
        Workspace(a, {"b": b}).read_bytes("link", 5, repo="b")


@pytest.mark.reliability("Files", "file growing while read", cases=1,
                         held="read bounded")
def test_file_changing_while_read_stays_bounded(ws):
    workspace, root, _ = ws
    target = root / "growing.log"
    target.write_bytes(b"x" * 10)
    stop = threading.Event()

    def grow():
        with open(target, "ab") as handle:
            while not stop.is_set():
                handle.write(b"y" * 65536)
                handle.flush()

    thread = threading.Thread(target=grow, daemon=True)
    thread.start()
    try:
        for _ in range(20):
            read = workspace.read_bytes("growing.log", 100_000)
            assert len(read.data) <= 100_000
    finally:
        stop.set()
        thread.join()


def test_text_reads_and_binary_detection(ws):
    workspace, root, _ = ws
    (root / "bin.dat").write_bytes(b"PK\x03\x04\x00\x00")
    assert workspace.read_text("bin.dat", 100).text is None
    (root / "latin1.txt").write_bytes("café".encode("latin-1"))
    assert workspace.read_text("latin1.txt", 100).text is None
    (root / "euro.txt").write_text("€€€")
    cut = workspace.read_text("euro.txt", 7)  # cuts the third € after one byte
    assert cut.text == "€€" and cut.truncated


def test_decode_text_only_forgives_a_cut_at_the_end():
    assert decode_text("€".encode()[:2], truncated=True) == ""
    assert decode_text(b"\xe2\x82", truncated=False) is None
    assert decode_text(b"a\xffb", truncated=True) is None


def test_parse_repo_option():
    assert parse_repo_option("docs=/tmp/docs") == ("docs", Path("/tmp/docs"))
    for bad in ("docs", "=x", "docs="):
        with pytest.raises(ValueError):
            parse_repo_option(bad)

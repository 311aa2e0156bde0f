"""A workspace with files to mention with ``@`` (text, an image, a folder), as the ``workspace`` fixture
(registered for every test by ``tests/conftest.py``)."""

from __future__ import annotations

import pytest

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "w"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "my notes.md").write_text("# Notes\n")
    (root / "shot.png").write_bytes(PNG)
    (tmp_path / "secret.txt").write_text("outside")
    return root

"""The ACP SDK's import, made cheaper: the one place kandev-tui reaches into pydantic's private names.

The SDK's schema (``acp.schema``) declares its models with ``use_attribute_docstrings=True``: as each of its few
hundred models is built, pydantic reads the class's source file and parses it (``ast``) to turn the docstring under
each field into the field's description. Those descriptions serve JSON schemas; kandev-tui never asks the SDK's
models for one. Parsing them was 0.2 s of the SDK's 0.5 s import (``python -X importtime -c "import
acp.connection"``: ``acp.schema`` 0.39 s), in every process that starts an agent, on a thread that competes with the
first frames and the agents' readers for the interpreter.

There is no public switch: the setting is the SDK's own, per model, and pydantic has no global override. So
:func:`import_sdk` wraps pydantic's ``_fields._update_fields_from_docstrings`` to skip the models of the ``acp``
package only (every other model, kandev-tui's own among them, keeps its descriptions). When pydantic renames it, the
wrapper is not installed and the import is only slower;
``tests/system/test_dialects.py::test_the_sdks_models_are_built_without_reading_their_source`` fails then, to say so.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType
from typing import Any

_lock = threading.Lock()
_installed = False


def skip_sdk_docstrings() -> bool:
    """Install the wrapper (once; any thread). False when pydantic no longer has the function it wraps."""
    global _installed
    with _lock:
        if _installed:
            return True
        try:
            from pydantic._internal import _fields
        except ImportError:
            return False
        original = getattr(_fields, "_update_fields_from_docstrings", None)
        if original is None:
            return False

        def update_fields_from_docstrings(cls: type[Any], *args: Any, **kwargs: Any) -> None:
            if getattr(cls, "__module__", "").partition(".")[0] == "acp":
                return  # the SDK's models: their descriptions are never read here
            original(cls, *args, **kwargs)

        _fields._update_fields_from_docstrings = update_fields_from_docstrings
        _installed = True
        return True


def import_sdk(name: str = "acp.connection") -> ModuleType:
    """Import the SDK's module ``name`` (in a thread, as the client does), its models built without their source."""
    skip_sdk_docstrings()
    return importlib.import_module(name)

"""Typed settings: a TOML file, ``KANDEV_TUI_*`` environment overrides, atomic saves.

The file lives in the platform config directory (``KANDEV_TUI_CONFIG`` names
another path). Environment variables win over the file for the session they
are set in and are never written back.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

ENV_PREFIX = "KANDEV_TUI_"
THEMES = ("textual-dark", "textual-light", "nord", "gruvbox", "tokyo-night", "solarized-light")


class Settings(BaseModel):
    """Everything a user can set. Field names are the TOML keys."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    theme: str = Field("textual-dark", description="The colour theme")
    chart_animation: bool = Field(True, description="Charts animate in once when first drawn")
    card_limit: int = Field(16, ge=1, le=100, description="Cards shown per turn before further ones fold into the tool group")
    inject_guidance: bool = Field(True, description="Prepend the rich-output guidance to an agent's first prompt")


def config_path() -> Path:
    override = os.environ.get("KANDEV_TUI_CONFIG")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_path

    return user_config_path("kandev-tui", appauthor=False) / "config.toml"


def _env_overrides() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in Settings.model_fields:
        value = os.environ.get(ENV_PREFIX + name.upper())
        if value is not None:
            out[name] = value
    return out


class SettingsStore:
    """Loads, validates and saves :class:`Settings`; problems become ``warnings``, never crashes."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_path()
        self.warnings: list[str] = []
        self.file_values: dict[str, Any] = {}
        self.settings = self._load()

    def _load(self) -> Settings:
        if self.path.exists():
            try:
                data = tomllib.loads(self.path.read_text(encoding="utf-8"))
                self.file_values = {k: v for k, v in data.items() if k in Settings.model_fields}
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                self.warnings.append(f"{self.path}: ignored ({exc}); using defaults")
        values: dict[str, Any] = {}
        for source in (self.file_values, _env_overrides()):
            for key, value in source.items():
                try:
                    Settings(**{**values, key: value})
                    values[key] = value
                except ValidationError:
                    self.warnings.append(f"setting {key}={value!r} is not valid; using the default")
        return Settings(**values)

    def update(self, **changes: Any) -> Settings:
        """Apply changes (validated) and save them atomically."""
        self.settings = self.settings.model_copy(update=Settings(**{**self.settings.model_dump(), **changes}).model_dump())
        self.file_values.update(changes)
        self.save()
        return self.settings

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = ["# kandev-tui settings (edited by the settings screen, F2)"]
        for key in Settings.model_fields:
            if key in self.file_values:
                lines.append(f"{key} = {_toml_value(getattr(self.settings, key))}")
        handle, temp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write("\n".join(lines) + "\n")
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'

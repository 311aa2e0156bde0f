"""Typed settings: a TOML file, ``KANDEV_TUI_*`` environment overrides, atomic saves.

The file lives in the platform config directory (``KANDEV_TUI_CONFIG`` names
another path). Environment variables win over the file for the session they
are set in and are never written back. The ``[agents."COMMAND"]`` tables keep
what was last chosen for an agent command (``mode``, ``model``): a new session
of that agent starts with them.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type

ENV_PREFIX = "KANDEV_TUI_"
THEMES = ("textual-dark", "textual-light", "nord", "gruvbox", "tokyo-night", "solarized-light")
_TRUE = ("true", "1", "yes", "on", "t", "y")
_FALSE = ("false", "0", "no", "off", "f", "n")


class SettingError(ValueError):
    """A setting's value has the wrong type or is out of range."""


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    word = value.strip().lower() if isinstance(value, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise SettingError("expected true or false")


def _as_int(value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise SettingError("expected a whole number")
    try:
        number = int(value.strip()) if isinstance(value, str) else value
    except ValueError:
        raise SettingError("expected a whole number") from None
    if not low <= number <= high:
        raise SettingError(f"expected {low} to {high}")
    return number


def _as_theme(value: Any) -> str:
    """A theme's name (the app says when Textual has no such theme: it knows more than :data:`THEMES`)."""
    if not isinstance(value, str) or not value.strip():
        raise SettingError(f"expected a theme's name, e.g. {', '.join(THEMES)}")
    return value


@dataclass(frozen=True)
class Declared:
    """One setting, as every place that shows it reads it: its ``label`` on the settings screen (F2), its
    ``meaning`` in the README's table (a test holds the table to it), the ``check`` its value goes through (a file's,
    the environment's, the screen's), whether it applies to ``new_sessions`` only, and a whole number's ``bounds``.
    Its name and default are its :class:`Settings` field's (:func:`setting` declares both at once)."""

    name: str
    label: str
    meaning: str
    check: Callable[[Any], Any] = field(repr=False, default=_as_bool)
    new_sessions: bool = False
    bounds: tuple[int, int] | None = None

    @property
    def screen_label(self) -> str:
        """The label as the settings screen shows it: ``(new sessions)`` said where it applies to those only."""
        if not self.new_sessions:
            return self.label
        return self.label[:-1] + ", new sessions)" if self.label.endswith(")") else self.label + " (new sessions)"


def setting(default: Any, label: str, meaning: str, check: Callable[[Any], Any] = _as_bool, *,
            new_sessions: bool = False, bounds: tuple[int, int] | None = None) -> Any:
    """A :class:`Settings` field and its declaration, in one place (the declaration is the field's metadata; its
    name is filled in from the field's)."""
    if bounds is not None:
        low, high = bounds
        check = lambda value: _as_int(value, low, high)  # noqa: E731 - the check a number's bounds make
    return field(default=default, metadata={"declared": Declared("", label, meaning, check, new_sessions, bounds)})


@dataclass(frozen=True)
class Settings:
    """Everything a user can set, each declared once: the field's name is the TOML key, its default the default,
    and :func:`setting` gives what the settings screen, the README's table and the checks read (:data:`DECLARED`).
    Values are checked on construction (strings from the environment are read as the field's type); a bad one
    raises :class:`SettingError`."""

    theme: str = setting("textual-dark", "Theme", "colour theme: any of Textual's 21 (`textual-light`, `nord`, "
                         "`gruvbox`, `dracula`, `tokyo-night`, `solarized-light`…; F2 lists them all)", _as_theme)
    chart_animation: bool = setting(True, "Chart animation", "charts animate in once; `TEXTUAL_ANIMATIONS=none` "
                                    "(reduced motion) turns every animation off whatever this says")
    card_limit: int = setting(16, "Cards per turn", "renderer cards per turn before further ones fold into the tool "
                              "group (rich output always stands alone)", bounds=(1, 100))
    inject_guidance: bool = setting(True, "Rich-output guidance for agents", "give agents the rich-output guidance "
                                    "(as a system prompt where they take one, else before the first prompt)")
    edits_inline: bool = setting(True, "Edits as cards of their own", "an edit is a card of its own with its diff "
                                 "(off: edits fold into the tool group)", new_sessions=True)
    attention_bell: bool = setting(True, "Ring the bell when the agent needs you elsewhere", "ring the terminal's "
                                   "bell when the agent needs you while the terminal is not in view")
    attention_title: bool = setting(True, "Say it in the terminal's title", "say so in the terminal's title then")
    attention_desktop: bool = setting(True, "And in a desktop notification (OSC 777 / OSC 9)", "and, when a session "
                                      "starts waiting for you, in a desktop notification where the terminal shows "
                                      "one (OSC 777 and OSC 9; inside tmux through its passthrough, `set -g "
                                      "allow-passthrough on`)")
    client_fs_read: bool = setting(True, "Agents read files through kandev-tui", "agents may read the workspace's "
                                   "files through kandev-tui (`fs/read_text_file`, confined to the workspace and "
                                   "`--repo` directories)", new_sessions=True)
    client_fs_write: bool = setting(True, "Agents write files through kandev-tui", "agents may write them "
                                    "(`fs/write_text_file`: atomic, inside the workspace only; shown as an edit "
                                    "with its diff)", new_sessions=True)
    client_terminals: bool = setting(True, "Agents run commands in kandev-tui's terminals", "agents may run commands "
                                     "in kandev-tui's terminals (`terminal/*`: a pseudo-terminal each, output "
                                     "streamed into the tool call)", new_sessions=True)
    track_changes: bool = setting(True, "Say what each turn changed (git workspaces)", "record each turn in a git "
                                  "workspace (checkpoints) and show what it changed after its last message",
                                  new_sessions=True)
    checkpoint_days: int = setting(30, "Keep checkpoints for (days)", "checkpoints older than this many days are "
                                   "removed when a session starts in that repository (never the session's own)",
                                   bounds=(1, 3650))

    def __post_init__(self) -> None:
        for declared in DECLARED:
            object.__setattr__(self, declared.name, declared.check(getattr(self, declared.name)))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


# every setting's declaration, in the order of the fields (the settings screen's and the README's order)
DECLARED: tuple[Declared, ...] = tuple(replace(f.metadata["declared"], name=f.name) for f in fields(Settings))


def _typed_as_in_toml(key: str, value: Any) -> None:
    """A setting in the file has its own TOML type (``chart_animation = "yes"`` is text, not a switch)."""
    default = getattr(Settings, key)
    if isinstance(default, bool) and not isinstance(value, bool):
        raise SettingError("expected true or false, without quotes")
    if isinstance(default, int) and not isinstance(default, bool) and (isinstance(value, bool)
                                                                        or not isinstance(value, int)):
        raise SettingError("expected a whole number, without quotes")


def config_path() -> Path:
    override = os.environ.get("KANDEV_TUI_CONFIG")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_path

    return user_config_path("kandev-tui", appauthor=False) / "config.toml"


def _env_overrides() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in Settings.names():
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
        self.agents: dict[str, dict[str, str]] = {}  # agent command → its remembered choices (mode, model)
        self.preset_table: Any = None  # the file's [presets.NAME] tables, as read (kandev_tui/base/presets.py)
        self.unreadable = ""  # why the file could not be read (it is not TOML, say), when it could not
        self.settings = self._load()

    def _load(self) -> Settings:
        if self.path.exists():
            try:
                data = tomllib.loads(self.path.read_text(encoding="utf-8"))
                self.file_values = {k: v for k, v in data.items() if k in Settings.names()}
                agents = of_type(data, "agents", dict, {})
                self.agents = {command: {k: v for k, v in choices.items() if k in AGENT_CHOICES and isinstance(v, str)}
                               for command, choices in agents.items() if isinstance(choices, dict)}
                self.preset_table = data.get("presets")
                unknown = [k for k in data if k not in Settings.names() and k not in ("agents", "presets")]
                if unknown:
                    self.warnings.append(f"{self.path}: unknown setting{'s' if len(unknown) > 1 else ''} "
                                         f"{', '.join(unknown)} (kept in the file, not used)")
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                self.unreadable = str(exc)
                self.warnings.append(f"{self.path}: ignored ({exc}); using defaults")
        values: dict[str, Any] = {}
        for source in ("file", "environment"):
            for key, value in (self.file_values if source == "file" else _env_overrides()).items():
                where = f"{self.path}: {key} = {_toml_value(value)}" if source == "file" else \
                    f"{ENV_PREFIX}{key.upper()}={value!r} (the setting {key})"
                try:
                    if source == "file":
                        _typed_as_in_toml(key, value)  # the environment's strings are read as the type
                    Settings(**{**values, key: value})
                    values[key] = value
                except (SettingError, TypeError) as exc:
                    self.warnings.append(f"{where} is not valid ({exc}); the default is used")
        return Settings(**values)

    def update(self, **changes: Any) -> Settings:
        """Apply changes (validated) and save them atomically."""
        self.settings = replace(self.settings, **changes)
        self.file_values.update(changes)
        self.save()
        return self.settings

    def presets(self) -> tuple[dict[str, Any], list[str]]:
        """The agent presets (built in, then the file's ``[presets.NAME]``, which win), and a warning for each of
        the file's that cannot be used."""
        from kandev_tui.base.presets import builtin_presets, read_presets

        mine, warnings = read_presets(self.preset_table, str(self.path))
        return {**builtin_presets(), **mine}, warnings

    def agent_choices(self, command: list[str]) -> dict[str, str]:
        """What was last chosen for this agent command (``mode``, ``model``)."""
        return dict(self.agents.get(agent_key(command), {}))

    def remember_agent_choice(self, command: list[str], choice: str, value: str) -> None:
        """Keep ``choice`` (``mode`` or ``model``) for this agent command: its next sessions start with it."""
        if choice in AGENT_CHOICES:
            self.agents.setdefault(agent_key(command), {})[choice] = value
            self.save()

    def save(self) -> None:
        """Write the settings set in the file, keeping every other line of it (comments, keys this version does
        not know, tables) as it was: a setting's line is replaced where it stands, a new one is added; the
        ``[agents."…"]`` tables are written anew at the end."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        values = {key: f"{key} = {_toml_value(getattr(self.settings, key))}"
                  for key in Settings.names() if key in self.file_values}
        lines = _without_agent_tables(self._existing_lines()) or [
            "# kandev-tui settings (edited by the settings screen, F2)"]
        top_level = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
        for index in range(top_level):
            key = lines[index].split("=", 1)[0].strip() if "=" in lines[index] else ""
            if key in values:
                lines[index] = values.pop(key)
        lines[top_level:top_level] = list(values.values())  # before the first table: still top-level keys
        for command, choices in sorted(self.agents.items()):
            if choices:
                lines += ["", f"[agents.{_toml_value(command)}]"]
                lines += [f"{key} = {_toml_value(value)}" for key, value in sorted(choices.items())]
        target = self.path.resolve()  # a link (a dotfiles repository's) stays a link: the file it names is written
        handle, temp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=target.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write("\n".join(lines) + "\n")
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


    def _existing_lines(self) -> list[str]:
        """The file's lines, when it is TOML this version could read (a broken one is replaced)."""
        try:
            text = self.path.read_text(encoding="utf-8")
            tomllib.loads(text)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return []
        return text.splitlines()


AGENT_CHOICES = ("mode", "model")


def agent_key(command: list[str]) -> str:
    """An agent command as the ``[agents."…"]`` tables name it."""
    return " ".join(command)


def _without_agent_tables(lines: list[str]) -> list[str]:
    """The file's lines less its ``[agents.…]`` tables (written anew from :attr:`SettingsStore.agents`)."""
    kept, skipping = [], False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("["):
            skipping = stripped.startswith("[agents.") or stripped == "[agents]"
        if not skipping:
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'

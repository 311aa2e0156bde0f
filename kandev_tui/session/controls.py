"""What the agent lets the user choose for a session, read from its ``session_info`` item: modes, config options
(mode, model, thought level…), the older ``models`` list, and its slash commands. Headless.

Agents announce these in their answer to ``session/new`` (``modes``, ``configOptions``, ``models``) and change them
with ``current_mode_update``, ``config_option_update`` and ``available_commands_update``; the normaliser keeps the
newest of each in the session's ``session_info`` item (stored, so a stored session shows them too). Here they
become :class:`Controls`: what the status line shows (the mode and the model by name), what the picker lists, and
how a choice is sent (``session/set_mode``, ``session/set_config_option``, or the older ``session/set_model``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kandev_tui.base.jsonutil import of_type

MODE, MODEL = "mode", "model"


@dataclass(frozen=True)
class Choice:
    value: str
    name: str
    description: str = ""


@dataclass(frozen=True)
class Control:
    """One thing to choose: ``kind`` says how a choice is sent (``mode``: session/set_mode; ``config``:
    session/set_config_option with ``id``; ``model``: session/set_model)."""

    kind: str
    id: str
    name: str
    category: str  # "mode", "model", "thought_level", or the agent's own
    current: str
    choices: tuple[Choice, ...]

    def choice(self, value: str) -> Choice | None:
        return next((c for c in self.choices if c.value == value), None)

    @property
    def current_name(self) -> str:
        chosen = self.choice(self.current)
        return chosen.name if chosen is not None else self.current

    def request(self, value: str) -> tuple[str, dict[str, Any]]:
        """The ACP method and params (less ``sessionId``) that choose ``value``."""
        if self.kind == MODE:
            return "session/set_mode", {"modeId": value}
        if self.kind == MODEL:
            return "session/set_model", {"modelId": value}
        return "session/set_config_option", {"configId": self.id, "value": value}


@dataclass(frozen=True)
class Command:
    name: str
    description: str = ""
    hint: str = ""  # what the command takes after its name


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _choices(options: Any, value_key: str) -> tuple[Choice, ...]:
    found = []
    for option in options if isinstance(options, list) else []:
        if isinstance(option, dict) and isinstance(option.get(value_key), str):
            found.append(Choice(option[value_key], _text(option.get("name")) or option[value_key],
                                _text(option.get("description"))))
        elif isinstance(option, dict) and isinstance(option.get("options"), list):  # a group of options
            found.extend(_choices(option["options"], value_key))
    return tuple(found)


class Controls:
    """The choices of one session (see the module docstring), from a ``session_info`` payload."""

    def __init__(self, info: dict[str, Any] | None = None) -> None:
        info = info if isinstance(info, dict) else {}
        self.controls: list[Control] = []
        config = info.get("config")
        for option in config if isinstance(config, list) else []:
            if not isinstance(option, dict) or not isinstance(option.get("id"), str):
                continue
            if option.get("type", "select") != "select":  # a boolean or another type: not a list to pick from
                continue
            choices = _choices(option.get("options"), "value")
            if choices:
                self.controls.append(Control("config", option["id"], _text(option.get("name")) or option["id"],
                                             _text(option.get("category")), _text(option.get("currentValue")),
                                             choices))
        modes = of_type(info, "modes", dict, {})
        mode = of_type(info, "mode", str, _text(modes.get("currentModeId")))
        mode_choices = _choices(modes.get("availableModes"), "id")
        if mode:  # the agent's newest word on the mode (current_mode_update) wins over the option's value
            self.controls = [Control(c.kind, c.id, c.name, c.category, mode, c.choices) if c.category == MODE else c
                             for c in self.controls]
        if mode_choices and not self.by_category(MODE):
            self.controls.insert(0, Control(MODE, MODE, "Mode", MODE, mode, mode_choices))
        models = of_type(info, "models", dict, {})
        model_choices = _choices(models.get("availableModels"), "modelId")
        self.models = Control(MODEL, MODEL, "Model", MODEL, _text(models.get("currentModelId")), model_choices) \
            if model_choices else None  # the older list (ids with effort: gpt-5.5[xhigh]), kept for --model
        if self.models is not None and not self.by_category(MODEL):
            self.controls.append(self.models)
        self.commands: list[Command] = []
        for command in info.get("commands") or [] if isinstance(info.get("commands"), list) else []:
            if isinstance(command, str):  # stored by an earlier kandev-tui: names only
                self.commands.append(Command(command))
            elif isinstance(command, dict) and isinstance(command.get("name"), str) and command["name"].strip():
                hint = command.get("input")
                self.commands.append(Command(command["name"].strip(), _text(command.get("description")),
                                             _text(hint.get("hint")) if isinstance(hint, dict) else ""))

    def __bool__(self) -> bool:
        return bool(self.controls)

    def by_category(self, category: str) -> Control | None:
        return next((c for c in self.controls if c.category == category), None)

    def summary(self) -> str:
        """The mode and the model by name, for the status line (``Default · Opus``)."""
        parts = [c.current_name for c in (self.by_category(MODE), self.by_category(MODEL)) if c and c.current]
        return " · ".join(parts)

    def resolve(self, category: str, value: str) -> tuple[Control, str]:
        """The control and value that choose ``value`` for ``category`` (``mode`` or ``model``): a value of the
        agent's option of that category, a mode's id, or, for a model, an id of the older ``availableModels``
        list (effort included: ``gpt-5.5[xhigh]``). ValueError lists what the agent offers."""
        candidates = [c for c in (self.by_category(category), self.models if category == MODEL else None) if c]
        for control in candidates:
            if control.choice(value) is not None:
                return control, value
        offered = [choice.value for control in candidates for choice in control.choices]
        if not offered:
            raise ValueError(f"the agent offers no {category} to choose")
        shown = ", ".join(dict.fromkeys(offered[:30])) + (f" (+{len(offered) - 30} more)" if len(offered) > 30 else "")
        raise ValueError(f"the agent has no {category} {value!r}; it offers: {shown}")

    def resolve_option(self, option_id: str, value: str) -> tuple[Control, str]:
        """The agent's option ``option_id`` (its ``configOptions`` id, as ``run --option ID=VALUE`` names it) and
        ``value``, one of its values. ValueError lists what the agent offers."""
        control = next((c for c in self.controls if c.id == option_id), None)
        if control is None:
            ids = ", ".join(c.id for c in self.controls[:30]) or "none"
            raise ValueError(f"the agent has no option {option_id!r}; its options: {ids}")
        if control.choice(value) is None:
            shown = ", ".join(c.value for c in control.choices[:30])
            raise ValueError(f"the agent's option {option_id!r} has no value {value!r}; it offers: {shown}")
        return control, value

    def matching_commands(self, typed: str) -> list[Command]:
        return matching_commands(self.commands, typed)


def matching_commands(commands: list[Command], typed: str) -> list[Command]:
    """The commands for what follows ``/``: names that start with it first, then those that contain it."""
    typed = typed.casefold()
    starts = [c for c in commands if c.name.casefold().startswith(typed)]
    return starts + [c for c in commands if typed in c.name.casefold() and c not in starts]

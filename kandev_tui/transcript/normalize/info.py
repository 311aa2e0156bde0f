"""The session's state as the agent reports it: its modes, config options, commands and title (``session/update``
kinds that change no transcript item of their own), and the answers to kandev-tui's requests that change it."""

from __future__ import annotations

from typing import Any

from kandev_tui.base.jsonutil import of_type

from ..items import SESSION_INFO
from ..items import Item
from .shared import Shared


class SessionInfo:
    """The session's modes, config options, commands and title, in the shared state's ``session_info``."""

    def __init__(self, shared: Shared) -> None:
        self.s = shared

    def answered_request(self, request: str | None, params: dict[str, Any], result: dict[str, Any]) -> list[Item]:
        """What a session's setup says (``session/new``, ``load``, ``resume``: its modes, config options, models),
        and the choices the agent accepted (``session/set_mode``, ``set_config_option``, ``set_model``)."""
        info = self.s.session_info
        if request == "initialize":  # the agent's name: its questions say who asks, and the stored session too
            agent = of_type(result, "agentInfo", dict, {})
            name = agent.get("title") or agent.get("name")
            self.s.elicitations.agent = name[:80] if isinstance(name, str) else ""
            if not self.s.elicitations.agent:
                return []
            info["agent"] = self.s.elicitations.agent
            return [Item("session_info", SESSION_INFO, self.s.turn, dict(info))]
        if request in ("session/new", "session/load", "session/resume", "session/fork"):
            for key in ("modes", "models"):
                if isinstance(result.get(key), dict):
                    info[key] = result[key]
            if isinstance(result.get("configOptions"), list):
                self.set_config(result["configOptions"])
            if isinstance(info.get("modes"), dict) and isinstance(info["modes"].get("currentModeId"), str):
                self.set_mode(info["modes"]["currentModeId"])
        elif request == "session/set_mode" and isinstance(params.get("modeId"), str):
            self.set_mode(params["modeId"])
        elif request == "session/set_config_option":
            if isinstance(result.get("configOptions"), list):
                self.set_config(result["configOptions"])
            elif isinstance(params.get("configId"), str):
                self.set_config([{**o, "currentValue": params.get("value")} if o.get("id") == params["configId"] else o
                                  for o in info.get("config") or [] if isinstance(o, dict)])
        elif request == "session/set_model" and isinstance(params.get("modelId"), str):
            info["models"] = {**(info.get("models") or {}), "currentModelId": params["modelId"]}
        else:
            return []
        return [Item("session_info", SESSION_INFO, self.s.turn, dict(info))]

    def set_mode(self, mode: Any) -> None:
        """The current mode, kept the same in ``mode`` and in a config option of category mode."""
        if not isinstance(mode, str):
            return
        info = self.s.session_info
        info["mode"] = mode
        if isinstance(info.get("config"), list):
            info["config"] = [{**o, "currentValue": mode} if isinstance(o, dict) and o.get("category") == "mode" else o
                              for o in info["config"]]

    def set_config(self, options: list[Any]) -> None:
        info = self.s.session_info
        info["config"] = options
        mode = next((o.get("currentValue") for o in options if isinstance(o, dict) and o.get("category") == "mode"), None)
        if isinstance(mode, str):
            info["mode"] = mode

    def update(self, kind: str, update: dict[str, Any]) -> list[Item]:
        meta = of_type(update, "_meta", dict, {})
        status = meta.get("threadStatus")
        if status is None and isinstance(meta.get("codex"), dict):
            status = meta["codex"].get("threadStatus")
        if isinstance(status, dict) and status.get("type") == "systemError":
            self.s.system_error = True
        info = self.s.session_info
        if kind == "session_info_update":
            for key in ("title", "updatedAt"):
                if isinstance(update.get(key), str):
                    info[key] = update[key]
            if self.s.guidance and isinstance(info.get("title"), str) and self.carries_guidance(info["title"]):
                info["title"] = " ".join(self.s.first_words.split())[:80]  # the user's words, not kandev-tui's
        elif kind == "current_mode_update":
            self.set_mode(update.get("currentModeId"))
        elif kind == "available_commands_update":
            commands = update.get("availableCommands")
            info["commands"] = [{"name": c["name"], "description": c.get("description") or "",
                                 "input": c["input"] if isinstance(c.get("input"), dict) else None}
                                for c in commands if isinstance(c, dict) and isinstance(c.get("name"), str)] \
                if isinstance(commands, list) else []
        elif kind == "config_option_update":
            options = update.get("configOptions", update.get("configOption"))
            if isinstance(options, list):
                self.set_config(options)
        return [Item("session_info", SESSION_INFO, self.s.turn, dict(info))]

    def carries_guidance(self, title: str) -> bool:
        """Whether an agent's title for the session was made from kandev-tui's guidance paragraph (Codex titles a
        session with the start of its first prompt)."""
        head = " ".join(title.split())[:40].rstrip("…. ")
        return bool(head) and head in " ".join(self.s.guidance.split())

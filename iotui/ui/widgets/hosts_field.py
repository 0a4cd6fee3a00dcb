"""The hosts field on Home: ssh destinations typed, or completed from the user's ssh config.

Empty means this machine. ``h1,h2`` runs on both at once (docs/multi-host.md).
The suggestion completes the destination being typed from the ``Host``
entries of ``~/.ssh/config`` (accept it with the right arrow key).
"""

from __future__ import annotations

from textual.suggester import Suggester
from textual.widgets import Input


class SshConfigSuggester(Suggester):
    """Completes the last comma-separated word from the ssh config's Host names."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.names = list(names)

    async def get_suggestion(self, value: str) -> str | None:
        head, _, last = value.rpartition(",")
        typed = last.strip()
        if not typed:
            return None
        taken = {part.strip() for part in head.split(",")}
        for name in self.names:
            if name.startswith(typed) and name != typed and name not in taken:
                prefix = f"{head}," if head else ""
                spacing = last[: len(last) - len(last.lstrip())]
                return f"{prefix}{spacing}{name}"
        return None


class HostsField(Input):
    """An Input for ssh destinations; its placeholder names the config's hosts."""

    def __init__(self, config_hosts: list[str], **kwargs) -> None:
        listed = ", ".join(config_hosts[:4]) + (", …" if len(config_hosts) > 4 else "")
        placeholder = "this machine · or ssh hosts h1,h2" + (f" (ssh config: {listed})" if listed else "")
        super().__init__(placeholder=placeholder, suggester=SshConfigSuggester(config_hosts), **kwargs)

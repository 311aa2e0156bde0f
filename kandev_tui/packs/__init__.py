"""kandev-tui's own renderer packs, registered through the ``kandev_tui.renderers`` entry points as a third party's
are (``pyproject.toml``): rich output (Kandev's ``show_rich_output_kandev`` cards), edits (a diff card per edit
call) and fleet (entity tables and lists). They are UI: they draw with the widgets. The registry and the public API
they use are headless, in :mod:`kandev_tui.renderers`."""

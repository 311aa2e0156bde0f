"""The foundation every layer stands on: JSON, sanitising, paths, settings, presets, pacing, stats, shutdown and the
GC policy. Headless: no Textual, no Rich."""

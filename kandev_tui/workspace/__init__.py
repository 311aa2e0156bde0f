"""The user's repository as kandev-tui touches it: confined reads, kandev-tui's own git (one hardened entry),
checkpoints and each turn's changes, worktrees. Headless."""

"""The Textual app (``kandev_app.KandevApp``) and the collaborators it delegates to: lifecycle, switching, user
actions, lists, attention, starting sessions, each session's view; the headless snapshot."""

"""The app's chrome around the transcript: the prompt (with its command menu and the external editor), the status
line, the footer of keys and the sessions' sidebar."""

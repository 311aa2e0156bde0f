"""The transcript's entries: messages, thoughts, plans, calls, cards, requests and notices, one widget a kind of
entry (``table`` says which draws each kind of item). Importing this package imports none of them: the transcript
loads them when it makes its first entry, after the first frame."""

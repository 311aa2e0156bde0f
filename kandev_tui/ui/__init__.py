"""What the widgets and screens share below them: Textual's hooks (the one module of private names), input and key
order, ANSI, charts drawn through plotext, SVG pictures."""

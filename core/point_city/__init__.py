"""Point City («Карточный город»): the rules as pure functions (see game.py)."""

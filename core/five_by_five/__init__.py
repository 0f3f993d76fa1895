"""5x5 City (Hisashi Hayashi): the pure rules engine.  ``game.GAME`` is the entry point."""

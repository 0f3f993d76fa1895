"""The ``citylog`` command line (typer): one module per command group."""

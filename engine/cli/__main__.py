"""``python -m baccarat.cli``: the ``baccarat`` command without the installed script."""

from . import app

app(prog_name="baccarat")

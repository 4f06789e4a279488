"""``baccarat live``: a scorecard kept at the table, written coup by coup to a file.

- ``entry``: what a person types, read into commands (a coup by its outcome or its cards,
  checked against the drawing rules; undo; a new shoe; the burn);
- ``journal``: the file, a CSV ``baccarat import`` reads, appended and fsynced per entry
  and owned by the output lock for the session's life; ``--resume`` reads it back;
- ``session``: the shoes entered, their tallies, roads and ask marks, the cards left and
  the exact EV of every bet from them;
- ``systems``: what each ``-s`` system would stake next, through the backtest's replay;
- ``scorecard``: input in, a ``View`` out, shared by both screens;
- ``screen``: the sections of the screen as text for a width; ``app``: the full-screen
  Textual app (imported only by the command, so no other command loads Textual).
"""

"""The content guesser: from records already read, what they hold.

The readers (``..tables``, ``..jsonrecords``, ``..sheets``, ``..stream``) turn a file into
records with standard parsers and know nothing of baccarat; the rules here look at the
records' content and propose which list, table or column holds what. Each rule is about
one kind of evidence (a list of a hand's card objects, a table whose rows are coups) and
has its test in ``tests/test_import_guess.py``; none looks at a file's name.
"""

"""The content guesser: from records already read, what they hold.

The readers (``..stream``, ``..jsonrecords``, ``..sheets``, ``..tables``) turn a file into
records with standard parsers; the rules here look at the records' content and propose
which list, table or column holds what: ``evidence`` and ``road`` hold the rules about
one kind of evidence each (a list of a hand's card objects, a table whose rows are
coups, road colours, coded results, a big road's cells), each with its test in
``tests/io/test_import_guess.py``; ``profile`` profiles each column's content and ``plan``
assigns the fields to columns from it. None looks at a file's name.
"""

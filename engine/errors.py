"""The base of every error a user can cause with bad input, so the CLI reports them alike."""


class BaccaratError(ValueError):
    """Bad input: the message names where (file, row, shoe, coup) and what was expected."""

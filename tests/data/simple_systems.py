"""Simple-form systems as a newcomer writes them, for exact risk without declarations."""

from baccarat.strategies import SimpleSelection, SimpleStaking


class AfterPlayer(SimpleSelection):
    """Bet Banker on the coup after a Player win."""

    def reset(self):
        self.last = ""

    def pick(self, view):
        return "B" if self.last == "P" else None

    def learn(self, view, outcome):
        self.last = outcome


class StepUp(SimpleStaking):
    """One unit more after each loss, at most three; back to one after a win."""

    def reset(self):
        self.units = 1

    def stake(self, view):
        return 10 * self.units

    def won(self, view, net):
        self.units = 1

    def lost(self, view, net):
        self.units = min(self.units + 1, 3)


class ReadsHistory(SimpleSelection):
    """Picks by the history the view shows: its state is not its attributes."""

    def pick(self, view):
        return "B" if len(view.history) % 2 else None


class OwesTheNet(SimpleStaking):
    """Stakes what it has lost so far: it reads the amount of each loss."""

    def reset(self):
        self.owed = 0.0

    def stake(self, view):
        return 10 + self.owed

    def lost(self, view, net):
        self.owed -= net

    def won(self, view, net):
        self.owed = 0.0


class KeepsAList(SimpleSelection):
    """Keeps every outcome in a list."""

    def reset(self):
        self.seen = []

    def pick(self, view):
        return "B"

    def learn(self, view, outcome):
        self.seen.append(outcome)

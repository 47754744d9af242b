"""Tiny last-in/first-out container built on a plain list."""


class Pile:
    """Holds elements so the newest is always handed back first."""

    def __init__(self, limit=None):
        # The final slot of the list is treated as the top of the pile.
        self._cells = []
        self.limit = limit

    def put(self, thing):
        """Add a thing above everything already stored."""
        if self.limit is not None and len(self._cells) >= self.limit:
            raise OverflowError("stack is full")
        self._cells.append(thing)

    def take(self):
        """Detach the newest thing and give it to the caller."""
        if self.has_nothing():
            raise IndexError("pop from empty stack")
        return self._cells.pop()

    def glance(self):
        """Look at the newest thing but leave it in place."""
        if self.has_nothing():
            raise IndexError("peek at empty stack")
        return self._cells[-1]

    def has_nothing(self):
        return len(self._cells) == 0

    def __len__(self):
        return len(self._cells)


def flip_text(word):
    """Turn a word backwards using the pile as scratch space."""
    pile = Pile()
    for letter in word:
        pile.put(letter)
    out = []
    while not pile.has_nothing():
        out.append(pile.take())
    return "".join(out)


if __name__ == "__main__":
    print(flip_text("winnowing"))

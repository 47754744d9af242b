"""A simple LIFO stack backed by a Python list."""


class Stack:
    """Last-in, first-out container with an optional size limit."""

    def __init__(self, capacity=None):
        # Items are kept in insertion order; the top is the last element.
        self._items = []
        self.capacity = capacity

    def push(self, item):
        """Place an item on top of the stack."""
        if self.capacity is not None and len(self._items) >= self.capacity:
            raise OverflowError("stack is full")
        self._items.append(item)

    def pop(self):
        """Remove and return the top item."""
        if self.is_empty():
            raise IndexError("pop from empty stack")
        return self._items.pop()

    def peek(self):
        """Return the top item without removing it."""
        if self.is_empty():
            raise IndexError("peek at empty stack")
        return self._items[-1]

    def is_empty(self):
        return len(self._items) == 0

    def __len__(self):
        return len(self._items)


def reverse_string(text):
    """Reverse a string by pushing each character and popping them back."""
    stack = Stack()
    for ch in text:
        stack.push(ch)
    result = []
    while not stack.is_empty():
        result.append(stack.pop())
    return "".join(result)


if __name__ == "__main__":
    print(reverse_string("winnowing"))

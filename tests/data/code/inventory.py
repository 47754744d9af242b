"""Inventory report: read items, total them, print the most valuable."""
import json
import sys
from collections import defaultdict

TAX_RATE = 0.2  # added to every total


class Inventory:
    """Items grouped by category."""

    def __init__(self, owner):
        self.owner = owner
        self.items = defaultdict(list)

    def add_item(self, category, name, price, quantity=1):
        if price < 0:
            raise ValueError("negative price for " + name)
        self.items[category].append((name, price, quantity))

    def total(self, category=None):
        result = 0
        for cat, entries in self.items.items():
            if category is not None and cat != category:
                continue
            for name, price, quantity in entries:
                result += price * quantity
        return result * (1 + TAX_RATE)

    def most_valuable(self, limit=3):
        ranked = []
        for cat, entries in self.items.items():
            for name, price, quantity in entries:
                ranked.append((price * quantity, name, cat))
        ranked.sort(reverse=True)
        return ranked[:limit]


def load(path):
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    inventory = Inventory(data.get('owner', "unknown"))
    for row in data["rows"]:
        inventory.add_item(row["category"], row["name"], row["price"], row.get("quantity", 1))
    return inventory


def main(argv):
    if len(argv) < 2:
        print("usage: inventory.py FILE", file=sys.stderr)
        return 2
    inventory = load(argv[1])
    # the report: one line per item
    for value, name, cat in inventory.most_valuable():
        print(name, cat, round(value, 2))
    print('total:', inventory.total())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

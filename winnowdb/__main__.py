"""``python -m winnowdb``: the same as the ``winnowdb`` command."""
from .cli import main

main()

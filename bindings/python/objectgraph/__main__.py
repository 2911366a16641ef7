"""``python -m objectgraph COMMAND ...``: the store tool (objectgraph.tool)."""

from .tool import run

run()

"""The games app: the rules engine (`engine`, pure Python), the live tables and their views."""

from games.compiled import prefer_sources_if_stale

# The view's and the engine's hot modules may run compiled (games/compiled.py): never an
# old build of them. Here, since the engine is imported on its own too (`toepen_replay`).
prefer_sources_if_stale()

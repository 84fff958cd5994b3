"""The view: what a phone is shown of a table, built from a state (games/services/state.py).

`context` turns the state into one viewer's context, with only the cards the engine's `observe`
gives that viewer's seat; `html` (an app table) and `slate_html` (a slate table) write it out.
The table page and every websocket push render through here, so they cannot differ. `context`
and `html` may run compiled (toepen_site/compiled.py).
"""

"""The view: what a phone is shown of a table, built from a state (games/services/state.py).

`context` turns the state into typed values (`parts`): the public part every phone of a render
shares (`PublicView`, from a spectator's observation) and each phone's own (`SeatView`, its
seat's cards from the engine's `observe` for that seat and its buttons); `html` writes them out
for an app table. `slate_html` writes a slate table, the same for every phone. The table page
and every websocket push render through `context.render_view`, so they cannot differ. `parts`,
`context` and `html` may run compiled (games/compiled.py).
"""

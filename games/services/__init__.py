"""Services: every change to a table, and what it is written with.

`tables` decides a change (a phone's action, a seat, a break, the clock's step) on the table as
one version left it, with the engine's rules (games/engine/); `slate` does the same for a slate
table. `state` is what a change works on, `snapshots` the per-process copies it is decided on,
`store` every SQL statement of the live path (written in one transaction, at the version the
change was decided on), `events` the one way a change is told to the rest of the process once it
commits. Nothing here knows of requests or sockets: the websocket wing (games/live/) and the
views call in, and render what it leaves with games/view/.
"""

"""The websocket wing: phones at a table, and everything that keeps them up to date.

`consumers` (an app table) and `slate_consumer` (a slate table) take a phone's frames and hand
them to games/services/; `hub` renders each change once per phone of this process and sends it,
and keeps the tables' presence (a heartbeat of the phones connected here); `notices` carries a
change between server processes (PostgreSQL's NOTIFY); `clock` fires the tables' deadlines;
`routing` names the sockets' URLs.
"""

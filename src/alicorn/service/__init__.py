"""Alicorn as a service (issue 15): `alicorn serve`, an HTTP API over the journal.

`app.create_app` is the one factory; `tokens` (API tokens in `control:tokens`), `auth` (who is asking, 401/403),
`index` (the run index: a rebuildable projection of the journal), `views` (a run's folded state), `events`
(Server-Sent Events resumable by seq) and `problems` (RFC 9457 problem details). Nothing here is imported by the
layers below: the service sits beside the command line.
"""

"""The context builder and the artifact store (Norbi Core's "keep context to the necessary minimum").

Modules: `fragments` (Fragment, ContextEnvelope), `builder` (ContextBuilder, budgets, exposure policy, rendering),
`redact` and `names` (finding and replacing private data and secrets), `fence` (untrusted text as data), `tokens`
(counting), `artifacts` (content-addressed attachments and their safe views), `tap` (journaling), `errors`.

Nothing is imported here, so importing a submodule stays cheap.
"""

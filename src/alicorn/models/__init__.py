"""Models: profiles, providers, the router, structured output, consultants and the arbiter, intent classification.

Modules: `profiles` (ModelProfile, loading TOML/JSON), `defaults` (built-in profiles), `providers` (OpenAI-compatible
HTTP, in-process llama.cpp, scripted), `recorder` (ModelClient, journaling llm.* events), `structured` (schema,
validation, repair), `router` (requirements → profile, with a record), `arbiter` (consultants, evidence over votes),
`intent` (classification: kind, language, forbidden effects), `cli` (`alicorn models`), `errors`.

Nothing is imported here, so `alicorn --help` stays fast.
"""

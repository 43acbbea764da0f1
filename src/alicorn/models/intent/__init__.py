"""Intent classification: `classifier` (IntentClassifier) over `langid`, `forbidden` (`lexicon` and
`prohibitive`), `cues`, `embed`, `examples`."""

"""Intent classification: `classifier` (IntentClassifier) over `langid`, `lexicon`, `cues`, `embed`, `examples`."""

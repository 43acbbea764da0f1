"""Anvil: permissions, reputation, budgets and explainable policy decisions.

Parts (each a small module; policy evaluation and the folds are pure functions over immutable values):

- `identity`: humans and agents; agents never approve, the proposer never approves.
- `rights`, `agents`: Rights as values; the PermissionRegistry, a fold of each agent's `agent:NAME` stream.
- `reputation`: the ReputationOracle and the CuriosityReward (points per run outcome, tiers that move rights).
- `budget`: the BudgetController's arithmetic: usage as a fold, limits per run and per project.
- `labels`, `risk`, `replan`: data-flow classifications, whole-plan risk, material change of a replan.
- `policy`, `decide`, `sentences`: Cedar rules (shipped in `policies/default.cedar`), the allow / needs_approval /
  deny flow, and the sentence journaled with each decision.
- `terms`, `settings`, `gate`, `service`: a run's terms, the operator's settings, where decision inputs come from
  (live or replayed), and the service the app wires together.
- `proposals`, `explain`: ProposalEnvelopes, `alicorn why` and `alicorn rights` (the commands themselves are in
  `alicorn.anvil_cli`, the command-line layer: approving a run drives it, and policy does not drive runs).

This package imports nothing at its top, so the command line can load what it needs of it cheaply.
"""

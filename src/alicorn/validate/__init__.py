"""Result validators by artifact type: a run's artifact checked against its outcome contract's criteria.

Modules: `base` (CheckResult, ValidationReport: complete | partial | failed), `document`, `code`, `schedule`,
`conversation`. Each `validate_<type>(artifact, criteria)` takes plain JSON (what a run's nodes produced and what the
outcome contract asks for) and never raises on a malformed artifact: malformed is a failed check that says what is
wrong. A result that passes some error checks and fails others is *partial*, and is reported as partial.
"""

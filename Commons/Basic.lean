/-
Commons.Basic: curated vocabulary that statements and submissions may share.

Everything under `Commons/` is trusted: the verifier treats its constants as opaque when it
computes `elaborated_term_hash`, and a statement's meaning can depend on them. Additions are
definitions only (never helper lemmas, which would move part of a proof outside the verified
region), and every change needs human review.

This module is intentionally empty for now: S001 needs nothing beyond Mathlib. It exists so
that `import Commons.Basic` resolves for every statement and submission.
-/

namespace Commons

end Commons

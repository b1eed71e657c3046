/- Attack: a name glued to a symbol and ending in a keyword. If an import's token table holds a
symbol that ends in letters (`∯x`), Lean reads `∯xsorry` as that token and `sorry`; the scan
cannot know every token an import adds, so it refuses the spelling. -/
-- refused by: xsorry
import Mathlib

theorem t : False := by
  exact ∯xsorry

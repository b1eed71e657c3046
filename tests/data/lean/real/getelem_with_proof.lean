import Mathlib

/-!
# Indexing with a proof of bounds

`xs[i]'h` indexes a list with an explicit proof that `i` is in range; the proof can be any
term, `(by omega)` included.
-/

namespace GetElemProof

structure Path where
  cells : List (ℕ × ℕ)
  long : 2 ≤ cells.length

/-- The cell just before the last one. -/
def Path.penultimate (p : Path) : ℕ × ℕ :=
  p.cells[p.cells.length - 2]'(by have := p.long; omega)

theorem head_eq (xs : List ℕ) (h : 0 < xs.length) : xs[0]'h = xs.head (by
    intro hnil; simp [hnil] at h) := by
  cases xs with
  | nil => simp at h
  | cons x xs => rfl

theorem getElem_map_succ (xs : List ℕ) (i : ℕ) (h : i < (xs.map Nat.succ).length) :
    (xs.map Nat.succ)[i]'h = xs[i]'(by simpa using h) + 1 := by
  simp

end GetElemProof

import Mathlib

/-!
# Structures, instances and well-founded recursion
-/

namespace Walks

structure Point where
  x : ℤ
  y : ℤ
  deriving DecidableEq, Repr

instance : Add Point := ⟨fun p q => ⟨p.x + q.x, p.y + q.y⟩⟩

@[simp] theorem add_x (p q : Point) : (p + q).x = p.x + q.x := rfl
@[simp] theorem add_y (p q : Point) : (p + q).y = p.y + q.y := rfl

@[ext] theorem Point.ext' {p q : Point} (hx : p.x = q.x) (hy : p.y = q.y) : p = q := by
  cases p; cases q; simp_all

instance (priority := low) : Inhabited Point := ⟨⟨0, 0⟩⟩

/-- Binary digits, most significant first. -/
def digits2 : ℕ → List ℕ
  | 0 => []
  | n + 1 => digits2 ((n + 1) / 2) ++ [(n + 1) % 2]
termination_by n => n
decreasing_by omega

theorem digits2_ne_nil (n : ℕ) (hn : n ≠ 0) : digits2 n ≠ [] := by
  obtain ⟨m, rfl⟩ := Nat.exists_eq_succ_of_ne_zero hn
  simp [digits2]

theorem add_comm' (p q : Point) : p + q = q + p := by
  ext <;> simp [add_comm]

end Walks

import Alpha

namespace Beta

theorem open_step : True := by
  sorry

theorem main (n : Nat) : (n + n) % 2 = 0 := by
  have := open_step
  omega

end Beta

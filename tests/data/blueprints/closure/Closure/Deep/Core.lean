namespace Closure

theorem core_fact (n : Nat) : n + 0 = n := rfl

end Closure

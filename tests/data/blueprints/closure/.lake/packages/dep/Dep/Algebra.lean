namespace Dep

theorem algebra_fact (a b : Nat) : a + b = b + a := Nat.add_comm a b

end Dep

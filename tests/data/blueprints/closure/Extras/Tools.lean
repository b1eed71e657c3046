namespace Extras

theorem tool : 2 + 2 = 4 := rfl

end Extras

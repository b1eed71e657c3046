-- Built by the library's glob, imported by no root.
namespace Alpha

theorem extra : 1 + 1 = 2 := rfl

end Alpha

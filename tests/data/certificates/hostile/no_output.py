# Says nothing at all.

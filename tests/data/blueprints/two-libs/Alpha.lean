import Alpha.Basic

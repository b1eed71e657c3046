"""The LaTeX side: finding the root document, compiling it, reading its log and statements."""

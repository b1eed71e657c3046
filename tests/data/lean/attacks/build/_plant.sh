# Put before each attack that plants parts: `plant JSON` writes JSON as the module's
# `.olean.server` and `.olean.private`, which Lean's importer reads after the `.olean`
# wherever they exist (`findOLeanParts`, lean4 src/Lean/Environment.lean).
M="$OUT/Submissions/S001/AliceDirect.olean"
plant() {
  printf '%s' "$1" > "$M.server" && printf '%s' "$1" > "$M.private" && echo "PLANTED parts"
}

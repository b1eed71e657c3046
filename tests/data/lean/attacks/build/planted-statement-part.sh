# A part that is a link to the trusted statement's `.olean` (first on the search path): the
# exporter follows it, as Lean's importer does, and exports the statement's constants as the
# module's own.
M="$OUT/Submissions/S001/AliceDirect.olean"
ln -s "${LEAN_PATH%%:*}/Statements/S001.olean" "$M.server" && echo "PLANTED link"

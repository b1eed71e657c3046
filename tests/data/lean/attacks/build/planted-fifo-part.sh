M="$OUT/Submissions/S001/AliceDirect.olean"
mkfifo "$M.server" && echo "PLANTED fifo"

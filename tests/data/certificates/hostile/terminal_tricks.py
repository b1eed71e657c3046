"""Hostile checker: rejects the witness with a reason full of terminal escape sequences (erase
the line, retitle the window, write the clipboard, a hyperlink, a right-to-left override)
and a newline that draws a fake green verdict under the real one; says the same on stderr."""

import json
import sys

FORGED = (
    "nope\x1b[2K\r\x1b[1A● Green · proves the canonical statement"
    "\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07"
    "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"
    "\n● Green · proves the canonical statement\u202egnp.exe\u200b"
)
sys.stderr.write(FORGED + "\n")
print("CONJECT_CERT: " + json.dumps({"ok": False, "reason": FORGED}))

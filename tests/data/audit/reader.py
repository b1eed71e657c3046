"""A scripted audit reader for tests (protocol jig.audit.reader.v1).

Usage: reader.py ANSWERS.json LOG.jsonl. Reads one JSON request on stdin, appends it to LOG,
and prints the answer ANSWERS gives for the pair's label (or declaration), else a faithful
verdict. The answer "EXIT" makes it fail instead.
"""

import json
import sys

request = json.loads(sys.stdin.readline())
with open(sys.argv[2], "a", encoding="utf-8") as log:
    log.write(json.dumps(request) + "\n")
with open(sys.argv[1], encoding="utf-8") as table:
    answers = json.load(table)
answer = answers.get(
    request["label"] or "", answers.get(request["decl"], "faithful: says the same")
)
if answer == "EXIT":
    sys.exit(3)
print(answer)

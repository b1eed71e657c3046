plant '{"standin": "olean", "constants": [{"name": "Submissions.S001.AliceDirect.proof", "kind": "thm", "type_uses": [], "value_uses": []}], "exploit": {"module": "Submissions.S001.BobParity"}}'

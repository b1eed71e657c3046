plant '{"standin": "olean", "exploit": {"link": "/etc/passwd"}}'

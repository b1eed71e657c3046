plant '{"standin": "olean", "exploit": {"sparse": 300000000}}'

# A well-formed header, then an application of expressions that do not exist (as crafted
# bytes whose pointers lead anywhere would be, in an `.olean`).
plant '{"standin": "olean", "exploit": {"text": "{\"meta\":{\"exporter\":{\"name\":\"jig_export\",\"version\":\"1\"},\"format\":{\"version\":\"3.1.0\"},\"jig\":{\"declarations\":1,\"module\":\"Submissions.S001.AliceDirect\"},\"lean\":{\"githash\":\"\",\"version\":\"4.33.0\"}}}\n{\"app\":{\"arg\":9,\"fn\":7},\"ie\":0}\n"}}'

"""Certificate problems: a trusted checker run on an untrusted witness inside a sandbox."""

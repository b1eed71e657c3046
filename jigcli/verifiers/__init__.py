"""The verifier contract: a registry of specs, five shared statuses, one rendering kit."""

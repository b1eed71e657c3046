"""The faithfulness audit: pairing statements with declarations, and the ledger of verdicts."""

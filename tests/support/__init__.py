"""Helpers the end-to-end scripts under tests/ share."""

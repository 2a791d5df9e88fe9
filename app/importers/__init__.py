"""Importers: files that architects already export -> scenario documents."""

"""The PDF comparison report (QPdfWriter; needs Qt)."""

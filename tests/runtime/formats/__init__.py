"""Tests for runtime.formats."""

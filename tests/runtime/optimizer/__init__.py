"""Tests for runtime.optimizer."""

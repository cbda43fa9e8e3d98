"""Tests of runtime/audio: windows and mel functions, feature layers, the wave backend, the datasets."""

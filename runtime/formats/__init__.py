"""Paddle file formats: safe pickles, paddle.save/load, .pdmodel/.pdiparams."""

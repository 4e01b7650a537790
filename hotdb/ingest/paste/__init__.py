"""Pasted and rendered text: renderings undone (unrender.py), then the text cut into the
artifacts it holds (blocks.py), each read by its format's reader."""

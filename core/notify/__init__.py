"""Telling the artist that a batch ended or needs attention: the desktop's notifications and a
batch's webhook, sent by the controller that saw it (no Qt: the background controller sends them
with no window open)."""

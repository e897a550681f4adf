"""Talking to GitHub: events, the API client, and what the action reads and posts."""

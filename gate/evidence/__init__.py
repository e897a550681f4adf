"""Evidence collectors: each turns one source (a file, GitHub, a live probe) into items."""

"""Storage: the connection with its migrations and views, and the one bulk loader."""

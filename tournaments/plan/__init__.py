"""What a tournament is before any game: its file and settings, the bots' commands and
identities, the schedule of deals and seats, and a tournament made ready to play."""

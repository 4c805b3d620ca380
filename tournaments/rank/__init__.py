"""What the games say: ratings, the tables, the sequential test and the rock-paper-scissors
cycles among the bots."""

"""`python -m tournaments` is `arena`."""

import sys

from tournaments.cli import main

if __name__ == "__main__":  # not when a checking process re-imports it (`executors.checking`)
    sys.exit(main())

"""`python -m tournaments` is `arena`."""

import sys

from tournaments.cli import main

sys.exit(main())

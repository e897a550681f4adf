"""`python -m gate` runs the command line."""

import sys

from gate.cli import main

sys.exit(main())

"""`python -m gate` runs the command line."""

import sys

from gate.faces.cli import main

sys.exit(main())

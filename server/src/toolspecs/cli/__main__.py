"""``python -m toolspecs.cli``: the ``toolspecs`` command."""

import sys

from toolspecs.cli import main

sys.exit(main())

"""``python -m graphblast.bench``: see :mod:`graphblast.bench`."""

import sys

from . import main

sys.exit(main())

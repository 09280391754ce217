import sys

from ragrecall_core.cli import main

sys.exit(main())

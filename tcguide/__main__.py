import sys

from tcguide.cli import main

sys.exit(main())

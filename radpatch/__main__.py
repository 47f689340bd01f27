import sys

from radpatch.cli import main

sys.exit(main())

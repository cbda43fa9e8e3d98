"""``python -m dy2st ...``: the dy2st command (see `dy2st.cli.main`)."""
import sys

from dy2st.cli.main import main

sys.exit(main())

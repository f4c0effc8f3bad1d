"""schedreport: the reports of schedbench's database (tables, comparisons, plots, HTML).

scripts/report.py is the command line; the seed threads' own tables live next to each seed, in
jobs/<seed>/seed_report.py (see seeds.py), so that a new seed adds files, not branches here.
"""
import os

# The data directory: the checkout, or $(PREFIX)/share/schedengine when installed (same layout:
# results/schema.sql, scripts/report.py, scripts/schedreport/, jobs/).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class ReportError(Exception):
    """A report that cannot be made: a one-line message and the exit status (2 input, 3 nothing)."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, EXIT_NOTHING = 0, 1, 2, 3

from tests.tables import (  # noqa: F401  (fixtures)
    fast_clocks,
    forget_kept_changes,
    klaver,
    stop_the_clock,
)

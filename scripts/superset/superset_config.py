# Superset's configuration for the client test (run-superset.sh): a
# throwaway instance on loopback whose metadata lives in a temporary
# directory. Every setting that matters to how a release is shown is
# Superset's default except the row limits, which are set low so that a
# release of a few thousand cells exceeds them (the same holds at the
# defaults, ROW_LIMIT 50000 and SQL_MAX_ROW 100000, for larger releases).
import os

_state = os.environ["DP_SUPERSET_STATE"]

SECRET_KEY = os.environ["DP_SUPERSET_SECRET_KEY"]
SQLALCHEMY_DATABASE_URI = "sqlite:///" + os.path.join(_state, "superset.db")
DATA_DIR = _state

# A chart's query returns at most ROW_LIMIT rows; SQL Lab at most
# SQL_MAX_ROW (DISPLAY_MAX_ROW shown).
ROW_LIMIT = int(os.environ.get("DP_SUPERSET_ROW_LIMIT", "1000"))
SQL_MAX_ROW = ROW_LIMIT
DISPLAY_MAX_ROW = ROW_LIMIT
DEFAULT_SQLLAB_LIMIT = ROW_LIMIT

# No result cache (Superset's default): every view of a chart queries the
# database again, which is what the test needs to show that a view draws
# nothing.
CACHE_CONFIG = {"CACHE_TYPE": "NullCache"}
DATA_CACHE_CONFIG = {"CACHE_TYPE": "NullCache"}

# The loopback instance is served over plain HTTP: no HTTPS redirect or
# secure-only cookies.
TALISMAN_ENABLED = False
SESSION_COOKIE_SECURE = False
CONTENT_SECURITY_POLICY_WARNING = False
RATELIMIT_STORAGE_URI = "memory://"

# No example data, no telemetry, no thumbnails.
FEATURE_FLAGS = {"THUMBNAILS": False, "ALERT_REPORTS": False}
LOG_LEVEL = "WARNING"

"""The WSGI application run-superset.sh serves with gunicorn
(`superset_app:create()`): Superset's, on a new metadata database prepared
first in the same process (its schema, what `superset db upgrade` does; its
roles and permissions, `superset init`; the analyst's Superset account),
which saves loading the whole application once more for each of those CLI
commands.

The schema, roles and permissions take about 25 s of CPU to make (a minute on a busy 2-core machine) and depend
only on Superset's version, so they are made once and kept in
DP_SUPERSET_TEMPLATE (a SQLite file beside the virtual environment, made when
missing); each run copies it and adds the account. The configuration is
superset_config.py (SUPERSET_CONFIG_PATH), whose DP_SUPERSET_STATE holds the
new database; the account's name and password are DP_SUPERSET_USER and
DP_SUPERSET_PASSWORD.
"""
import os
import sqlite3


def copy_sqlite(source, target):
    """A consistent copy, through SQLite's backup API."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def create():
    template = os.environ["DP_SUPERSET_TEMPLATE"]
    database = os.path.join(os.environ["DP_SUPERSET_STATE"], "superset.db")
    if os.path.exists(template):
        copy_sqlite(template, database)

    from superset.app import create_app

    app = create_app()
    with app.app_context():
        import flask_migrate
        from superset import appbuilder, security_manager

        if not os.path.exists(template):
            flask_migrate.upgrade()
            appbuilder.add_permissions(update_perms=True)
            security_manager.sync_role_definitions()
            partial = f"{template}.{os.getpid()}"
            copy_sqlite(database, partial)
            os.replace(partial, template)
        # Superset's own roles decide who may use the database connection;
        # what the connection may read is decided by its PostgreSQL role alone.
        user = security_manager.add_user(
            os.environ["DP_SUPERSET_USER"], "Ana", "Lyst", "analyst@example.invalid",
            security_manager.find_role("Admin"), password=os.environ["DP_SUPERSET_PASSWORD"])
        if not user:
            raise RuntimeError("Superset did not create the account " + os.environ["DP_SUPERSET_USER"])
    return app

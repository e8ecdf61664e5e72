"""A small client of Superset's REST API (/api/v1), as a script or an analyst's
tool calls it: log in for a bearer token, then send the CSRF token Superset
requires on every request that changes something."""
import json

import requests


class SupersetError(Exception):
    """A request Superset refused or failed: says which, with its answer."""


class Superset:
    def __init__(self, url, timeout=60):
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers["Referer"] = self.url

    def log_in(self, user, password):
        token = self.request("POST", "/api/v1/security/login", {
            "username": user, "password": password, "provider": "db", "refresh": True})
        self.session.headers["Authorization"] = "Bearer " + token["access_token"]
        csrf = self.request("GET", "/api/v1/security/csrf_token/")
        self.session.headers["X-CSRFToken"] = csrf["result"]

    def send(self, method, path, payload=None):
        """The HTTP status and the decoded answer, whatever the status."""
        try:
            response = self.session.request(method, self.url + path, json=payload,
                                            timeout=self.timeout)
        except requests.RequestException as error:
            raise SupersetError(f"{method} {path}: no answer from {self.url}: {error}") from None
        try:
            body = response.json()
        except ValueError:
            body = {"text": response.text[:2000]}
        return response.status_code, body

    def request(self, method, path, payload=None):
        """The decoded answer of a request that must succeed."""
        status, body = self.send(method, path, payload)
        if status not in (200, 201):
            raise SupersetError(f"{method} {path}: HTTP {status}: {json.dumps(body)[:2000]}")
        return body

    def create(self, path, payload):
        """Creates an object (a database, dataset, chart, dashboard): its id."""
        return self.request("POST", path, payload)["id"]

    def sql_lab(self, database, sql, limit):
        """Runs SQL as SQL Lab's editor does (synchronously): the HTTP status
        and the answer, an error's included."""
        return self.send("POST", "/api/v1/sqllab/execute/", {
            "database_id": database, "sql": sql, "runAsync": False,
            "schema": "public", "tab": "client test", "queryLimit": limit,
            "client_id": ""})

"""A signed-in browser session over urllib: cookies, the sign-in form's CSRF value."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request


class WebSession:
    def __init__(self, url: str) -> None:
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(f"{self.url}{path}", timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def post(self, path: str, fields: dict[str, str], content_type: str = "") -> tuple[int, str]:
        data = urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(f"{self.url}{path}", data=data, method="POST")
        if content_type:
            request.add_header("Content-Type", content_type)
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def sign_in(self, token: str) -> tuple[int, str]:
        _, page = self.get("/signin")
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
        assert csrf, page
        return self.post("/signin", {"csrf": csrf.group(1), "token": token})

    def form_csrf(self) -> str:
        _, page = self.get("/my")
        found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
        assert found, page
        return found.group(1)

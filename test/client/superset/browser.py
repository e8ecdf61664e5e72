"""A headless Chromium (Debian's chromium and chromium-driver) driven through
Selenium: logs in to Superset as a person does and reads what a dashboard's
charts show: a table's cells, a chart header's warning, a band chart's
tooltip, a paginated table's pages."""
import re
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


class BrowserError(Exception):
    """The page did not show what was waited for: says what, and where."""


def chart(name):
    """The CSS selector of a dashboard chart by its name."""
    return f'[data-test-chart-name="{name}"]'


class Browser:
    def __init__(self, chromium, chromedriver, timeout=90):
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        # As root (the test command runs as root) Chromium needs --no-sandbox.
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--disable-gpu", "--window-size=1400,1320", "--lang=en-US",
                         "--disable-extensions", "--no-first-run"):
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service(chromedriver), options=options)
        self.driver.set_script_timeout(timeout)
        self.timeout = timeout

    def close(self):
        self.driver.quit()

    def wait(self, what, condition, timeout=None):
        try:
            return WebDriverWait(self.driver, timeout or self.timeout, poll_frequency=0.25).until(
                lambda _: condition())
        except TimeoutException:
            raise BrowserError(f"{what}: not shown within {timeout or self.timeout} s "
                               f"at {self.driver.current_url}") from None

    def log_in(self, url, user, password, attempts=3):
        """Logs in through Superset's login form, as a person does; returns
        the number of attempts it took. The login page logs its own view
        (a beacon to /superset/log/, a second after it shows) before anyone
        is logged in, and the answer to that request rewrites the session
        cookie: a login sent while it is under way is undone a moment later
        (the next page finds no user and sends the browser back to the login
        form). So the form is sent once the page's beacon has been answered,
        and a login undone anyway is made again, as a person would, up to
        `attempts` times."""
        for attempt in range(1, attempts + 1):
            self.driver.get(url + "/login/")
            self.wait("the login form", lambda: self.driver.find_elements(By.ID, "username"))
            try:
                self.wait("the login page's log of its view", lambda: self.driver.execute_script(
                    "return performance.getEntriesByType('resource')"
                    ".some(e => e.name.includes('/superset/log/'))"), timeout=10)
            except BrowserError:
                pass  # a page that logs nothing: the check below still holds
            self.driver.find_element(By.ID, "username").send_keys(user)
            self.driver.find_element(By.ID, "password").send_keys(password, Keys.ENTER)
            # Another page, or the login form again with the page it was
            # to lead to (next=): sent back, the login did not hold.
            try:
                self.wait("the page after logging in", lambda: self.driver.execute_script(
                    "return document.readyState") == "complete" and (
                        "/login" not in self.driver.current_url or "next=" in self.driver.current_url))
            except BrowserError as error:
                raise BrowserError(f"{error}; the page says: {self.page_text()!r}") from None
            if "/login" not in self.driver.current_url and self.session_user_answers():
                return attempt
        raise BrowserError(f"the login did not hold {attempts} times in a row; at {self.driver.current_url} "
                           f"the page says: {self.page_text()!r}")

    def page_text(self):
        """The first 600 characters the page shows."""
        return self.driver.execute_script("return document.body ? document.body.innerText : ''")[:600]

    def session_user_answers(self):
        """Whether Superset knows the browser's session: its /api/v1/me/
        answers 200, and the page is still not the login form."""
        status = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/api/v1/me/', {credentials: 'same-origin'}).then(r => done(r.status), () => done(0));")
        return status == 200 and "/login" not in self.driver.current_url

    def open_dashboard(self, url, slug, tables, canvases):
        """Opens a dashboard and waits until each named table chart shows
        rows and each named ECharts chart has drawn."""
        self.driver.get(f"{url}/superset/dashboard/{slug}/?standalone=1")
        for name in tables:
            self.wait(f'the rows of "{name}"', lambda: self.table(name))
        for name in canvases:
            self.wait(f'the chart "{name}"', lambda: self.driver.find_elements(
                By.CSS_SELECTOR, f"{chart(name)} [_echarts_instance_] canvas"))
        self.wait("every chart loaded", lambda: not self.driver.find_elements(
            By.CSS_SELECTOR, '[data-test="loading-indicator"]'))

    def table(self, name):
        """The cells of a table chart's body rows, as text, row by row."""
        return self.driver.execute_script(
            "const body = document.querySelector(arguments[0] + ' table tbody');"
            "return body ? Array.from(body.rows, row => Array.from(row.cells, "
            "cell => cell.textContent.trim())) : [];", chart(name))

    def warning(self, name):
        """The text of the warning a chart's header shows (hovered, as a
        person reads it), or None when it shows none."""
        icons = self.driver.find_elements(
            By.CSS_SELECTOR, f'{chart(name)} [data-test="slice-header"] [data-test="warning"]')
        if not icons:
            return None
        ActionChains(self.driver).move_to_element(icons[0]).perform()
        tip = self.wait(f'the tooltip of the warning of "{name}"', lambda: [
            t for t in self.driver.find_elements(By.CSS_SELECTOR, '[role="tooltip"]')
            if t.is_displayed() and t.text.strip()])
        text = tip[0].text.strip()
        self.rest_pointer()
        return text

    def band_tooltips(self, name, steps=80):
        """What the tooltip of a time-series chart says across its width:
        {x value: text after it}. The pointer sweeps the chart in one chain of
        `steps` moves while an observer records every tooltip the page shows."""
        canvas = self.driver.find_element(By.CSS_SELECTOR, f"{chart(name)} [_echarts_instance_]")
        self.driver.execute_script("""
            window.dpTooltips = new Set();
            const record = () => document.querySelectorAll('.echarts-tooltip').forEach(t => {
                if (t.offsetParent !== null && t.innerText.trim()) window.dpTooltips.add(t.innerText.trim());
            });
            window.dpTooltipObserver = new MutationObserver(record);
            window.dpTooltipObserver.observe(document.body, {subtree: true, childList: true,
                                                             characterData: true, attributes: true});""")
        width = canvas.size["width"]
        sweep = ActionChains(self.driver, duration=20)
        for step in range(steps):
            sweep.move_to_element_with_offset(canvas, int(-width / 2 + 2 + step * (width - 4) / (steps - 1)), 0)
            sweep.pause(0.04)
        sweep.perform()
        texts = self.driver.execute_script(
            "window.dpTooltipObserver.disconnect(); return Array.from(window.dpTooltips);")
        self.rest_pointer()
        seen = {}
        for text in texts:
            head, _, rest = text.partition("\n")
            if rest:
                seen[head.strip()] = rest.strip()
        return seen

    def rest_pointer(self):
        """Moves the pointer to the page's top left corner, off every chart,
        so that no tooltip stays open."""
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(2, 2)
        actions.perform()

    def last_page(self, name):
        """The number of a paginated table's last page, as its pager shows it."""
        links = self.driver.find_elements(By.CSS_SELECTOR, f"{chart(name)} .dt-pagination li a")
        numbers = [int(link.text) for link in links if re.fullmatch(r"\d+", link.text.strip())]
        return max(numbers) if numbers else None

    def go_to_page(self, name, page):
        """Shows a paginated table's page `page` (1-based) and waits for it."""
        before = self.table(name)
        self.driver.find_element(
            By.CSS_SELECTOR, f'{chart(name)} .dt-pagination a[href="#page-{page - 1}"]').click()
        self.wait(f'page {page} of "{name}"', lambda: self.table(name) and self.table(name) != before)
        time.sleep(0.5)
        return self.table(name)

    def screenshot(self, path, hover=None, at=0.4):
        """A picture of the whole dashboard (the window grown to show every
        chart), with the tooltip of chart `hover` open at `at` of its width."""
        for _ in range(2):
            bottom = self.driver.execute_script(
                "return Math.max(...Array.from(document.querySelectorAll('[data-test-chart-name]'),"
                " e => e.getBoundingClientRect().bottom + window.scrollY))")
            chrome = self.driver.execute_script("return window.outerHeight - window.innerHeight")
            self.driver.set_window_size(1400, min(int(bottom) + 24 + chrome, 4000))
            time.sleep(2)
        if hover:
            canvas = self.driver.find_element(By.CSS_SELECTOR, f"{chart(hover)} [_echarts_instance_]")
            ActionChains(self.driver).move_to_element_with_offset(
                canvas, int((at - 0.5) * canvas.size["width"]), 0).perform()
            time.sleep(1)
        saved = self.driver.save_screenshot(path)
        self.rest_pointer()
        return saved

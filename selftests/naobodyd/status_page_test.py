#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's status page in a real browser: Debian's chromium, headless,
driven by chromedriver through Debian's python3-selenium, against
naobodyd --sim serving the source tree's page (--www). The token is typed
into the page's form (a wrong one first); a touch scripted on the
simulated body lights its sensor in the DOM; the IMU plot's pixels change
between two states; the stop button latches the simulated body's switch
(its control socket and GET /state say so). On a phone-sized window the
page does not scroll sideways and the stop button stays on screen.
Screenshots: $O/logs/status-page.png and status-page-phone.png. Without
chromium, chromedriver or selenium it fails and says to run make deps. TAP."""

import importlib.util
import os
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import LATE, SRCTREE, Daemon, Tap, check, note, wait_for  # noqa: E402
from resttest import request, token_of  # noqa: E402

tap = Tap()
WWW = os.path.join(SRCTREE, "userspace", "naobodyd", "www")
LOGS = os.path.join(os.environ.get("O") or os.path.join(SRCTREE, "build"), "logs")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
# chromium runs the page slowly on a loaded machine: every wait's bound grows.
SLOW = 1 + LATE
MISSING = ("the status page's browser test needs Debian's chromium, chromium-driver and "
           "python3-selenium: run 'make deps' (scripts/deps.sh installs them)")


def browser(tmp, width, height):
    """Headless chromium: --no-sandbox because tests run as root in a container."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
              f"--user-data-dir={tmp}", f"--window-size={width},{height}"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(CHROMEDRIVER, log_path=os.devnull), options=opts)


def canvas_pixels(drv, cid):
    """The canvas's pixels, as the page drew them."""
    return drv.execute_script(f"return document.getElementById('{cid}').toDataURL();")


def text(drv, eid):
    return drv.execute_script(f"return document.getElementById('{eid}').textContent;")


def attr(drv, eid, name):
    return drv.execute_script(f"return document.getElementById('{eid}').dataset.{name};")


def log_in(drv, d, port):
    from selenium.webdriver.common.by import By

    drv.get(f"http://127.0.0.1:{port}/")
    wait_for(lambda: drv.find_element(By.ID, "login").is_displayed(), 10 * SLOW, "the token form")
    box = drv.find_element(By.ID, "token-input")
    box.send_keys("0" * 64)
    drv.find_element(By.ID, "token-submit").click()
    wait_for(lambda: "refused" in text(drv, "login-msg"), 5 * SLOW, "the wrong token's message")
    box.send_keys(token_of(d))
    drv.find_element(By.ID, "token-submit").click()
    wait_for(lambda: not drv.find_element(By.ID, "login").is_displayed(), 5 * SLOW,
             "the form to go once the token is right")
    wait_for(lambda: "SIMULATED-BODY-00001" in text(drv, "robot-id"), 5 * SLOW, "the robot's id")
    wait_for(lambda: attr(drv, "link", "state") == "up", 5 * SLOW, "the live stream")


@tap.test
def test_status_page():
    """the token form, a touch lit in the DOM, the IMU plot moving, the stop button latching the switch"""
    from selenium.webdriver.common.by import By

    tmp = tempfile.mkdtemp(prefix="naobodyd-chromium-")
    drv = None
    try:
        with Daemon("--www", WWW, rest=True) as d:
            t0 = time.monotonic()
            drv = browser(tmp, 1280, 1500)
            note(f"chromium up in {time.monotonic() - t0:.1f} s")
            log_in(drv, d, d.rest_port)

            # Live: the cycle moves; 26 joints with figures.
            c1 = wait_for(lambda: text(drv, "cycle").isdigit() and int(text(drv, "cycle")), 5 * SLOW,
                          "a cycle number")
            wait_for(lambda: int(text(drv, "cycle")) > c1 + 10, 5 * SLOW, "the cycle to move")
            rows = drv.find_elements(By.CSS_SELECTOR, "#joints-body tr")
            check(len(rows) == 26, f"{len(rows)} joint rows")
            check("°" in rows[0].text and "°C" in rows[0].text and " A" in rows[0].text,
                  f"the head yaw's row: {rows[0].text!r}")
            check(text(drv, "battery-temperature") == "30 °C",
                  f"battery temperature {text(drv, 'battery-temperature')!r}")
            check(attr(drv, "stopped", "stopped") == "false", "latched before any stop")

            # A scripted touch: that sensor lights, no other.
            for name in ("head_front", "chest_button", "left_foot"):
                check(attr(drv, f"touch-{name}", "pressed") == "false", f"{name} lit at rest")
            d.body.touch("head_front", True)
            wait_for(lambda: attr(drv, "touch-head_front", "pressed") == "true", 3 * SLOW,
                     "head front to light")
            check(attr(drv, "touch-chest_button", "pressed") == "false", "the chest lit too")
            wait_for(lambda: "touch sensor=head_front pressed=true" in text(drv, "events-list"),
                     3 * SLOW, "the touch in the event list")

            # The IMU plot moves: two samples, two different pictures; the
            # feet have their sensors drawn.
            wait_for(lambda: canvas_pixels(drv, "imu-plot") != canvas_pixels(drv, "feet-plot"),
                     3 * SLOW, "a plot")
            d.control("push front")
            a = canvas_pixels(drv, "imu-plot")
            wait_for(lambda: canvas_pixels(drv, "imu-plot") != a, 3 * SLOW, "the IMU plot to move")
            check(len(canvas_pixels(drv, "feet-plot")) > 2000, "the feet are not drawn")
            os.makedirs(LOGS, exist_ok=True)
            drv.save_screenshot(os.path.join(LOGS, "status-page.png"))
            d.body.touch("head_front", False)
            wait_for(lambda: attr(drv, "touch-head_front", "pressed") == "false", 3 * SLOW,
                     "head front to go dark")

            # The stop button latches the switch.
            check(not d.body.stopped(), "stopped before the button")
            drv.find_element(By.ID, "stop").click()
            wait_for(d.body.stopped, 3 * SLOW, "the simulated body to be stopped")
            wait_for(lambda: request(d.rest_port, "GET", "/state", token_of(d)).json["stopped"],
                     2 * SLOW, "/state to say stopped")
            wait_for(lambda: attr(drv, "stopped", "stopped") == "true", 3 * SLOW, "the page to say latched")
            check("from REST 127.0.0.1 status page" in d.log(), "the log does not say who stopped")
            note(f"the whole run {time.monotonic() - t0:.1f} s")
    finally:
        if drv:
            drv.quit()
        shutil.rmtree(tmp, ignore_errors=True)


@tap.test
def test_phone():
    """on a phone-sized window: no sideways scroll, big touch targets, the stop button on screen scrolled down too"""
    from selenium.webdriver.common.by import By

    tmp = tempfile.mkdtemp(prefix="naobodyd-chromium-")
    drv = None
    try:
        with Daemon("--www", WWW, rest=True) as d:
            drv = browser(tmp, 390, 844)
            # A phone's screen, not a small window: 390 by 844 CSS pixels
            # at 3 device pixels each, with touch (a window has a minimum width).
            drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
            drv.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                                {"enabled": True, "maxTouchPoints": 5})
            log_in(drv, d, d.rest_port)
            wait_for(lambda: text(drv, "cycle").isdigit(), 5 * SLOW, "a state")
            wide = drv.execute_script("return [document.documentElement.scrollWidth, innerWidth];")
            check(wide[1] == 390, f"the viewport is {wide[1]} px wide, not the phone's 390: "
                  "something wider than the screen made the browser zoom out")
            check(wide[0] <= wide[1], f"the page is {wide[0]} px wide on a {wide[1]} px screen")
            rect = "return document.getElementById('stop').getBoundingClientRect().toJSON();"
            r = drv.execute_script(rect)
            check(r["height"] >= 48 and r["width"] >= 300, f"the stop button is {r}")
            drv.execute_script("window.scrollTo(0, document.body.scrollHeight);")

            def on_screen():
                r = drv.execute_script(rect)
                return r["top"] >= 0 and r["bottom"] <= 844 and drv.execute_script("return scrollY;")
            wait_for(on_screen, 2 * SLOW, "the stop button on screen, scrolled down")
            for el in drv.find_elements(By.CSS_SELECTOR, ".sensor"):
                check(el.size["height"] >= 40, f"a touch sensor {el.size} is too small to see")
            drv.execute_script("window.scrollTo(0, 0);")
            os.makedirs(LOGS, exist_ok=True)
            drv.save_screenshot(os.path.join(LOGS, "status-page-phone.png"))
            drv.find_element(By.ID, "stop").click()
            wait_for(d.body.stopped, 3 * SLOW, "the phone's stop to latch the switch")
    finally:
        if drv:
            drv.quit()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if importlib.util.find_spec("selenium") is None:
        missing.append("python3-selenium")
    if missing:
        print("TAP version 13\n1..1")
        print(f"not ok 1 {MISSING} (missing: {', '.join(missing)})")
        sys.exit(1)
    # One browser at a time: the machine's cores, and the ~30 s budget.
    os.environ.setdefault("NBTEST_JOBS", "1")
    tap.run()

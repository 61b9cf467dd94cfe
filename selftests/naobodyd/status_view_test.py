#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The status page draws the robot and plots chosen values, live and from
a recording, in headless Chromium (Debian's chromium, chromium-driver and
python3-selenium, as status_page_test.py), against naobodyd --sim serving
the tree's page. What the page drew is compared with the States the
daemon sent: the figure's knee angle (measured from the drawn segments),
the plotted value (read back from the drawn point), as a robot API client
stands the robot, sits it down, and naoctl record keeps it in a file that
the page then replays. TAP."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import Client, Daemon, Tap, binary, check, note, wait_for  # noqa: E402
from resttest import request, token_of  # noqa: E402
from status_page_test import CHROMEDRIVER, CHROMIUM, LOGS, MISSING, WWW, browser, log_in  # noqa: E402

tap = Tap()
KNEE = 17  # left_knee_pitch in the robot API's order
PLOTTED = "left knee pitch (rad)"


def drawn(drv):
    """The figure's left knee as drawn (rad), and the plot's knee value."""
    return drv.execute_script(
        "const f = document.getElementById('figure-plot').dataset;"
        "const p = JSON.parse(document.getElementById('plot').dataset.plotted || '{}');"
        f"return [Number(f.leftKnee), p['{PLOTTED}']];")


def still(d, c, pred, what):
    """The client's State once pred holds and the knee stopped moving; /state's knee."""
    c.until(pred, 15, what)
    prev = None
    for _ in range(50):
        knee = request(d.rest_port, "GET", "/state", token_of(d)).json["joint_positions"][KNEE]
        if prev is not None and abs(knee - prev) < 1e-4:
            return knee
        prev = knee
        c.heartbeat_for(0.1)
    check(False, f"the knee never settled for {what}")


@tap.test
def figure_and_plot_follow_state_then_replay():
    """the figure's knee and the plotted knee are State's, standing and sitting; a recording replays"""
    from selenium.webdriver.common.by import By

    tmp = tempfile.mkdtemp(prefix="naobodyd-chromium-")
    drv = None
    try:
        with Daemon("--www", WWW, rest=True) as d:
            drv = browser(tmp, 1280, 1600)
            log_in(drv, d, d.rest_port)
            c = Client(d)
            c.hello("status_view_test")
            c.send({"Subscribe": {"state": True}})
            c.send({"Power": "Wake"})
            knee = still(d, c, lambda s: s["motion"] == "Stand" and
                         s["primary_state"] == "Initial", "standing")
            wait_for(lambda: abs(drawn(drv)[0] - knee) < 0.01, 5,
                     f"the figure's knee at {knee:.3f} (drew {drawn(drv)})")
            wait_for(lambda: drawn(drv)[1] is not None and abs(drawn(drv)[1] - knee) < 0.01, 5,
                     f"the plotted knee at {knee:.3f} (drew {drawn(drv)})")
            note(f"standing: State's knee {knee:.4f}, drawn {drawn(drv)}")

            # Sitting down, recorded by naoctl record as it happens.
            rec = os.path.join(tmp, "sit.jsonl")
            p = subprocess.Popen([binary("naoctl"), "record", "--host",
                                  f"127.0.0.1:{d.rest_port}", "-r", "25", "-t", "4", rec],
                                 env=dict(os.environ, NAOBODY_TOKEN=token_of(d)),
                                 stderr=subprocess.PIPE, text=True)
            time.sleep(0.5)
            c.send({"Motion": "SitDown"})
            sit = still(d, c, lambda s: s["motion"] == "SitDown" and
                        s["fall_state"] == "Sitting", "sitting")
            check(sit > knee + 0.5, f"the knee sitting {sit} vs standing {knee}")
            wait_for(lambda: abs(drawn(drv)[0] - sit) < 0.01, 5,
                     f"the figure's knee at {sit:.3f} (drew {drawn(drv)})")
            _, err = p.communicate(timeout=30)
            check(p.returncode == 0, err)
            os.makedirs(LOGS, exist_ok=True)
            drv.save_screenshot(os.path.join(LOGS, "status-page-figure.png"))

            # The recording, replayed: the first state, the last, and playing to the end.
            with open(rec) as f:
                states = [m["data"] for m in map(json.loads, list(f)[1:]) if m["event"] == "state"]
            knees = [s["joint_positions"][KNEE] for s in states]
            check(len(states) > 40 and knees[-1] - knees[0] > 0.5, f"{len(states)} states, "
                  f"knee {knees[0]:.2f} -> {knees[-1]:.2f}")
            drv.find_element(By.ID, "replay-file").send_keys(rec)
            wait_for(lambda: f"state 1 of {len(states)}" in
                     drv.find_element(By.ID, "replay-status").text, 5, "the replay's start")
            wait_for(lambda: abs(drawn(drv)[0] - knees[0]) < 0.01, 3,
                     f"the replay's first knee {knees[0]:.3f} (drew {drawn(drv)})")
            mid = len(states) // 2
            drv.execute_script("const s = document.getElementById('replay-seek');"
                               f"s.value = {mid}; s.dispatchEvent(new Event('input'));")
            wait_for(lambda: abs(drawn(drv)[0] - knees[mid]) < 0.01, 3,
                     f"the replay's knee {knees[mid]:.3f} at state {mid + 1} (drew {drawn(drv)})")
            drv.find_element(By.ID, "replay-play").click()
            wait_for(lambda: "(the end)" in drv.find_element(By.ID, "replay-status").text, 15,
                     "the replay to play to its end")
            wait_for(lambda: abs(drawn(drv)[0] - knees[-1]) < 0.01 and
                     abs(drawn(drv)[1] - knees[-1]) < 0.01, 3,
                     f"the replay's last knee {knees[-1]:.3f} (drew {drawn(drv)})")
            drv.find_element(By.ID, "replay-live").click()
            wait_for(lambda: drv.find_element(By.ID, "replay-status").text == "Live.", 3, "live")
    finally:
        if drv:
            drv.quit()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    import importlib.util
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if importlib.util.find_spec("selenium") is None:
        missing.append("python3-selenium")
    if missing:
        print("TAP version 13\n1..1")
        print(f"not ok 1 {MISSING} (missing: {', '.join(missing)})")
        sys.exit(1)
    tap.run()

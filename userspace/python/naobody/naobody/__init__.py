# SPDX-License-Identifier: GPL-2.0-only
"""naobody: naobodyd's robot API from Python (Documentation/robot-api.rst).

    import naobody

    with naobody.connect("localhost", name="my-brain") as robot:
        robot.subscribe(state=True)
        robot.wake()
        robot.walk_to(0.5, 0.0)
        for event in robot.events(timeout=10):
            print(event)
"""

from .client import DEFAULT_PORT, Robot, connect
from .errors import (BadValueError, ConnectionClosed, HandshakeError, MalformedError,
                     NaobodyError, RefusedError, RobotError, UnknownFieldError,
                     UnknownMessageError, VersionError)
from .messages import (JOINT_NAMES, VERSION, ArmsUp, Battery, ErrorEvent, Event, FallEvent,
                       Head, Image, Imu, Joints, Leds, Microphone, Motion, OtherEvent, Power,
                       RobotInfo, SitDown, Sonar, Speaker, Speed, Squat, Stand, State,
                       Subscribe, TemperatureEvent, Touch, TouchEvent, Volume, WalkTo,
                       WalkToward, WatchdogEvent)

__all__ = [
    "DEFAULT_PORT", "Robot", "connect",
    "NaobodyError", "ConnectionClosed", "RobotError", "UnknownMessageError",
    "UnknownFieldError", "BadValueError", "MalformedError", "HandshakeError",
    "VersionError", "RefusedError",
    "JOINT_NAMES", "VERSION", "Joints", "Power", "Speed", "Head", "Motion", "Stand",
    "WalkTo", "WalkToward", "SitDown", "ArmsUp", "Squat", "Leds", "Subscribe", "Volume",
    "Speaker", "RobotInfo", "State", "Battery", "Imu", "Sonar", "Touch", "Event",
    "TouchEvent", "FallEvent", "WatchdogEvent", "TemperatureEvent", "ErrorEvent",
    "OtherEvent", "Image",
    "Microphone",
]

# SPDX-License-Identifier: GPL-2.0-only
"""The robot API's messages as Python types (Documentation/robot-api.rst).

To the robot: Power, the Motion variants, Head, Speed, Leds, Subscribe,
Volume. Each has to_wire(): the value MessagePack carries, with field names
and enums externally tagged, as rmp-serde writes them ("Unit",
{"Newtype": value}, {"Struct": {...}}).

From the robot: RobotInfo (Hello), State and its parts, the events Touch,
Fall, Watchdog and Error, Image and Microphone, each made by from_wire()
from what MessagePack decoded. Fields this version does not know are
ignored, and a field that is missing takes its default, so a newer robot
does not break an older client.
"""

import enum
import math
from collections import namedtuple
from dataclasses import dataclass, field as dc_field
from typing import List, Optional, Sequence, Tuple, Union

#: The robot API's joint order: State's joint_positions, joint_temperatures
#: and joint_currents have 26 values in it.
JOINT_NAMES = (
    "head_yaw", "head_pitch",
    "left_shoulder_pitch", "left_shoulder_roll", "left_elbow_yaw", "left_elbow_roll",
    "left_wrist_yaw", "left_hand",
    "right_shoulder_pitch", "right_shoulder_roll", "right_elbow_yaw", "right_elbow_roll",
    "right_wrist_yaw", "right_hand",
    "left_hip_yaw_pitch", "left_hip_roll", "left_hip_pitch", "left_knee_pitch",
    "left_ankle_pitch", "left_ankle_roll",
    "right_hip_yaw_pitch", "right_hip_roll", "right_hip_pitch", "right_knee_pitch",
    "right_ankle_pitch", "right_ankle_roll",
)

#: 26 values, by index or by name: joints.left_knee_pitch, joints[17].
Joints = namedtuple("Joints", JOINT_NAMES)

#: The version of the robot API this client speaks.
VERSION = 1


class ProtocolError(ValueError):
    """A message from the robot this client cannot read."""


def _num(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ProtocolError(f"{what}: expected a number, got {v!r}")
    return float(v)


def _floats(v, n, what):
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise ProtocolError(f"{what}: expected {n} numbers, got {v!r}")
    return tuple(_num(x, f"{what}[{i}]") for i, x in enumerate(v))


def _finite(v, what):
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{what} must be a finite number, not {v}")
    return v


# ---- to the robot ------------------------------------------------------------------

class Power(str, enum.Enum):
    """Stiff and ready, or limp."""
    WAKE = "Wake"
    REST = "Rest"

    def to_wire(self):
        return {"Power": self.value}


class Speed(str, enum.Enum):
    SLOW = "Slow"
    NORMAL = "Normal"
    FAST = "Fast"


@dataclass(frozen=True)
class Head:
    """Where the head looks: Head.CENTER, Head.LOOK_AROUND, or
    Head.look_at(x, y), a point on the ground in metres relative to the
    robot (x forward, y left)."""
    kind: str = "Center"
    x: float = 0.0
    y: float = 0.0

    @classmethod
    def look_at(cls, x, y):
        return cls("LookAt", _finite(x, "x"), _finite(y, "y"))

    def to_wire(self):
        if self.kind == "LookAt":
            return {"LookAt": {"x": self.x, "y": self.y}}
        return self.kind


Head.CENTER = Head("Center")
Head.LOOK_AROUND = Head("LookAround")


class Motion:
    """What the body does until the next Motion: the variants below."""

    def to_wire(self):
        raise NotImplementedError


@dataclass(frozen=True)
class Stand(Motion):
    """Stand still."""
    head: Head = Head.CENTER

    def to_wire(self):
        return {"Motion": {"Stand": {"head": self.head.to_wire()}}}


@dataclass(frozen=True)
class WalkTo(Motion):
    """Walk to a point relative to the robot (m; x forward, y left), then
    stop there, turned to turn_to (rad, left positive) when given."""
    x: float
    y: float
    turn_to: Optional[float] = None
    speed: Speed = Speed.NORMAL
    head: Head = Head.CENTER

    def to_wire(self):
        return {"Motion": {"WalkTo": {
            "x": _finite(self.x, "x"), "y": _finite(self.y, "y"),
            "turn_to": None if self.turn_to is None else _finite(self.turn_to, "turn_to"),
            "speed": Speed(self.speed).value, "head": self.head.to_wire()}}}


@dataclass(frozen=True)
class WalkToward(Motion):
    """Keep walking toward a point that stays at this offset (m), like a
    joystick: (1, 0) straight on, (0.5, 0.5) a circle. Send it again to
    steer, Stand to stop."""
    x: float
    y: float
    speed: Speed = Speed.NORMAL
    head: Head = Head.CENTER

    def to_wire(self):
        return {"Motion": {"WalkToward": {
            "x": _finite(self.x, "x"), "y": _finite(self.y, "y"),
            "speed": Speed(self.speed).value, "head": self.head.to_wire()}}}


@dataclass(frozen=True)
class SitDown(Motion):
    def to_wire(self):
        return {"Motion": "SitDown"}


@dataclass(frozen=True)
class ArmsUp(Motion):
    def to_wire(self):
        return {"Motion": "ArmsUp"}


@dataclass(frozen=True)
class Squat(Motion):
    def to_wire(self):
        return {"Motion": "Squat"}


Rgb = Tuple[int, int, int]


def _rgb(c, what):
    if len(c) != 3 or not all(isinstance(v, int) and 0 <= v <= 255 for v in c):
        raise ValueError(f"{what}: expected (r, g, b), each 0..255, got {c!r}")
    return list(c)


@dataclass
class Leds:
    """LED groups to override; a group left None stays the robot's own.
    Eyes: 8 (r, g, b), segment 0 at the top, then clockwise as seen from the
    front. Ears: 10 brightnesses 0..1. Chest and feet: one (r, g, b)."""
    left_eye: Optional[Sequence[Rgb]] = None
    right_eye: Optional[Sequence[Rgb]] = None
    left_ear: Optional[Sequence[float]] = None
    right_ear: Optional[Sequence[float]] = None
    chest: Optional[Rgb] = None
    left_foot: Optional[Rgb] = None
    right_foot: Optional[Rgb] = None

    def to_wire(self):
        out = {}
        for name in ("left_eye", "right_eye"):
            v = getattr(self, name)
            if v is not None and len(v) != 8:
                raise ValueError(f"{name}: expected 8 segments, got {len(v)}")
            out[name] = None if v is None else [_rgb(c, f"{name}[{i}]") for i, c in enumerate(v)]
        for name in ("left_ear", "right_ear"):
            v = getattr(self, name)
            if v is not None and len(v) != 10:
                raise ValueError(f"{name}: expected 10 brightnesses, got {len(v)}")
            out[name] = None if v is None else [_finite(b, name) for b in v]
        for name in ("chest", "left_foot", "right_foot"):
            v = getattr(self, name)
            out[name] = None if v is None else _rgb(v, name)
        return {"Leds": out}


@dataclass
class Subscribe:
    """Which streams the robot sends. rate (Hz) asks State at another rate
    than the default 20 (up to the body's cycle, 83.3 Hz on a NAO6)."""
    state: bool = False
    cameras: Sequence[str] = ()
    camera_fps: Optional[float] = None
    microphone: bool = False
    rate: Optional[float] = None

    def to_wire(self):
        for c in self.cameras:
            if c not in ("Top", "Bottom"):
                raise ValueError(f"cameras: {c!r} is neither 'Top' nor 'Bottom'")
        out = {"state": bool(self.state), "cameras": list(self.cameras),
               "camera_fps": None if self.camera_fps is None else float(self.camera_fps),
               "microphone": bool(self.microphone)}
        if self.rate is not None:
            if not self.rate > 0:
                raise ValueError(f"rate must be above 0 Hz, not {self.rate}")
            out["rate"] = float(self.rate)
        return {"Subscribe": out}


@dataclass
class Volume:
    """The speaker's volume, 0..100 %, and mute; None keeps the value."""
    percent: Optional[int] = None
    muted: Optional[bool] = None

    def to_wire(self):
        if self.percent is not None and not (isinstance(self.percent, int) and
                                             0 <= self.percent <= 100):
            raise ValueError(f"percent: expected 0..100, got {self.percent!r}")
        return {"Volume": {"percent": self.percent, "muted": self.muted}}


@dataclass
class Speaker:
    """Mono 16-bit samples at 16 kHz, queued and played back to back."""
    samples: Sequence[int]

    def to_wire(self):
        return {"Speaker": {"samples": list(self.samples)}}


Command = Union[Power, Motion, Leds, Subscribe, Volume, Speaker, str, dict]


def to_wire(command: Command):
    """The MessagePack value of a command: a typed one, a unit variant's
    name ("Heartbeat", "Stop", "SpeakerClear"), or a dict as it is."""
    if isinstance(command, Power):
        return command.to_wire()
    if hasattr(command, "to_wire"):
        return command.to_wire()
    if isinstance(command, (str, dict)):
        return command
    raise TypeError(f"not a robot API command: {command!r}")


# ---- from the robot ------------------------------------------------------------------

def _get(d, key, default=None):
    return d.get(key, default) if isinstance(d, dict) else default


@dataclass
class RobotInfo:
    """The robot's Hello."""
    version: int
    body_id: str = ""
    head_id: str = ""
    simulated: bool = False
    echo_cancellation: bool = False

    @classmethod
    def from_wire(cls, h):
        robot = _get(h, "robot", {})
        return cls(int(_get(h, "version", 0)), str(_get(robot, "body_id", "")),
                   str(_get(robot, "head_id", "")), bool(_get(robot, "simulated", False)),
                   bool(_get(robot, "echo_cancellation", False)))


@dataclass
class Battery:
    charge: float = 0.0        # 0..1
    current: float = 0.0       # A, negative while discharging
    temperature: float = 0.0   # LoLA's scale: 28.5 degrees C reads 2.85
    charging: bool = False


@dataclass
class Imu:
    linear_acceleration: Tuple[float, float, float] = (0.0, 0.0, 0.0)  # m/s2
    angular_velocity: Tuple[float, float, float] = (0.0, 0.0, 0.0)     # rad/s
    roll_pitch: Tuple[float, float] = (0.0, 0.0)                       # rad


@dataclass
class Sonar:
    left: float = 0.0   # m
    right: float = 0.0  # m


TOUCH_NAMES = ("chest_button", "head_front", "head_middle", "head_rear",
               "left_hand", "right_hand", "left_foot", "right_foot")


@dataclass
class Touch:
    chest_button: bool = False
    head_front: bool = False
    head_middle: bool = False
    head_rear: bool = False
    left_hand: bool = False
    right_hand: bool = False
    left_foot: bool = False
    right_foot: bool = False


def _joints(v, what):
    return Joints(*_floats(v, len(JOINT_NAMES), what))


@dataclass
class State:
    """The body at one moment (time: when it was taken, s since the epoch)."""
    time: float
    primary_state: str
    fall_state: str
    motion: str
    battery: Battery
    imu: Imu
    sonar: Sonar
    left_foot_pressure: Tuple[float, float, float, float]   # kg: FL, FR, RL, RR
    right_foot_pressure: Tuple[float, float, float, float]
    touch: Touch
    joint_positions: Joints      # rad (hands 0..1)
    joint_temperatures: Joints   # degrees C
    joint_currents: Joints       # A
    odometry: Optional[Tuple[float, float, float]] = None  # m, m, rad; naobodyd's
    odometry_uncertainty: Optional[float] = None  # m: how far off odometry may be
    hot_joints: Tuple[str, ...] = ()  # naobodyd's: joints held back by their heat

    @classmethod
    def from_wire(cls, s):
        if not isinstance(s, dict):
            raise ProtocolError(f"State: expected a map, got {s!r}")
        b = _get(s, "battery", {})
        imu = _get(s, "imu", {})
        sonar = _get(s, "sonar", {})
        touch = _get(s, "touch", {})
        odo = s.get("odometry")
        return cls(
            time=_num(s.get("time", 0.0), "time"),
            primary_state=str(s.get("primary_state", "")),
            fall_state=str(s.get("fall_state", "")),
            motion=str(s.get("motion", "")),
            battery=Battery(_num(_get(b, "charge", 0.0), "battery.charge"),
                            _num(_get(b, "current", 0.0), "battery.current"),
                            _num(_get(b, "temperature", 0.0), "battery.temperature"),
                            bool(_get(b, "charging", False))),
            imu=Imu(_floats(_get(imu, "linear_acceleration", [0, 0, 0]), 3,
                            "imu.linear_acceleration"),
                    _floats(_get(imu, "angular_velocity", [0, 0, 0]), 3, "imu.angular_velocity"),
                    _floats(_get(imu, "roll_pitch", [0, 0]), 2, "imu.roll_pitch")),
            sonar=Sonar(_num(_get(sonar, "left", 0.0), "sonar.left"),
                        _num(_get(sonar, "right", 0.0), "sonar.right")),
            left_foot_pressure=_floats(s.get("left_foot_pressure", [0] * 4), 4,
                                       "left_foot_pressure"),
            right_foot_pressure=_floats(s.get("right_foot_pressure", [0] * 4), 4,
                                        "right_foot_pressure"),
            touch=Touch(**{k: bool(_get(touch, k, False)) for k in TOUCH_NAMES}),
            joint_positions=_joints(s.get("joint_positions", [0] * 26), "joint_positions"),
            joint_temperatures=_joints(s.get("joint_temperatures", [0] * 26),
                                       "joint_temperatures"),
            joint_currents=_joints(s.get("joint_currents", [0] * 26), "joint_currents"),
            odometry=None if odo is None else _floats(odo, 3, "odometry"),
            odometry_uncertainty=(None if s.get("odometry_uncertainty") is None else
                                  _num(s["odometry_uncertainty"], "odometry_uncertainty")),
            hot_joints=tuple(str(j) for j in (s.get("hot_joints") or [])))


class Event:
    """An event from the robot: TouchEvent, FallEvent, WatchdogEvent,
    TemperatureEvent, ErrorEvent (when errors are not raised), or OtherEvent."""


@dataclass
class TouchEvent(Event):
    sensor: str     # ChestButton, HeadFront, HeadMiddle, HeadRear, LeftHand, ...
    pressed: bool


@dataclass
class FallEvent(Event):
    state: str      # Upright, Falling, Fallen, StandingUp, Sitting


@dataclass
class WatchdogEvent(Event):
    active: bool    # true: the robot's watchdog holds the body


@dataclass
class TemperatureEvent(Event):
    """naobodyd's: a joint became hot (its stiffness held) or cooled down."""
    joint: str          # the API's joint name: left_knee_pitch, ...
    hot: bool
    temperature: float  # degrees C, the reading that did it
    stiffness: float    # the most it gets now: 0.5 while hot, 1 once cool


@dataclass
class ErrorEvent(Event):
    """What the robot said about one of the client's messages."""
    kind: str                 # UnknownMessage, UnknownField, BadValue, Malformed,
    #                           Handshake, Version, Refused
    message: str
    reason: Optional[str] = None     # Refused: Stopped, Uncalibrated, Fallen, ...
    command: Optional[str] = None    # the message it is about
    field: Optional[str] = None      # the field it names ("Motion.WalkTo.x")
    versions: List[int] = dc_field(default_factory=list)  # what the robot speaks
    suppressed: int = 0              # errors the robot did not send before this one


@dataclass
class OtherEvent(Event):
    """An event this client does not know (a newer robot's)."""
    name: str
    data: object


def event_from_wire(e) -> Event:
    if not isinstance(e, dict) or len(e) != 1:
        return OtherEvent(str(e), None)
    (name, d), = e.items()
    if name == "Touch":
        return TouchEvent(str(_get(d, "sensor", "")), bool(_get(d, "pressed", False)))
    if name == "Fall":
        return FallEvent(str(_get(d, "state", "")))
    if name == "Watchdog":
        return WatchdogEvent(bool(_get(d, "active", False)))
    if name == "Temperature":
        return TemperatureEvent(str(_get(d, "joint", "")), bool(_get(d, "hot", False)),
                                _num(_get(d, "temperature", 0.0), "Temperature.temperature"),
                                _num(_get(d, "stiffness", 1.0), "Temperature.stiffness"))
    if name == "Error":
        return ErrorEvent(kind=str(_get(d, "kind", "")), message=str(_get(d, "message", "")),
                          reason=_get(d, "reason"), command=_get(d, "command"),
                          field=_get(d, "field"), versions=list(_get(d, "versions", []) or []),
                          suppressed=int(_get(d, "suppressed", 0) or 0))
    return OtherEvent(str(name), d)


@dataclass
class Image:
    camera: str      # Top or Bottom
    time: float      # capture time, s since the epoch
    width: int
    height: int
    jpeg: bytes


@dataclass
class Microphone:
    time: float              # the first sample's, s since the epoch
    samples: List[int]       # mono, 16 kHz

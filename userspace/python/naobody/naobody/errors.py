# SPDX-License-Identifier: GPL-2.0-only
"""Exceptions: one class per kind of the robot's Error event
(Documentation/robot-api.rst, "Errors"), and the connection's own."""


class NaobodyError(Exception):
    """Anything naobody raises."""


class ConnectionClosed(NaobodyError, ConnectionError):
    """The robot closed the connection (or it broke); why, when it said."""


class RobotError(NaobodyError):
    """The robot's Error event about one of this client's messages.

    kind, reason, command, field and message are the event's fields; event
    is the ErrorEvent itself."""

    def __init__(self, event):
        self.event = event
        self.kind = event.kind
        self.reason = event.reason
        self.command = event.command
        self.field = event.field
        super().__init__(event.message)

    @property
    def message(self):
        return self.event.message


class UnknownMessageError(RobotError):
    """A message the robot does not know; it ignored it."""


class UnknownFieldError(RobotError):
    """A field the robot does not know; it ignored the field, the rest applied."""


class BadValueError(RobotError, ValueError):
    """A value of the wrong type or out of range; the message was ignored."""


class MalformedError(RobotError):
    """Bytes the robot could not read; it closed the connection."""


class HandshakeError(RobotError):
    """Not a good Hello first; the robot closed the connection."""


class VersionError(RobotError):
    """The robot speaks other versions (the event's versions); it closed."""

    @property
    def versions(self):
        return self.event.versions


class RefusedError(RobotError):
    """A command the robot understood and refused: reason says why
    (Stopped, Uncalibrated, Fallen, WalkingDisabled, NoSpeaker, ...)."""


_BY_KIND = {
    "UnknownMessage": UnknownMessageError,
    "UnknownField": UnknownFieldError,
    "BadValue": BadValueError,
    "Malformed": MalformedError,
    "Handshake": HandshakeError,
    "Version": VersionError,
    "Refused": RefusedError,
}


def error_for(event):
    """The exception for an ErrorEvent (RobotError for a kind not known here)."""
    return _BY_KIND.get(event.kind, RobotError)(event)

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the fuzzer's seed corpus (selftests/naobodyd/corpus): one file per
robot API message of the spec, a few LoLA actuator maps, and some edge
cases. Run it again after changing the messages; commit the result."""

import os

import msgpack

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")

RGB = [255, 0, 0]
SEEDS = {
    "hello": {"Hello": {"version": 1, "client": "seed"}},
    "hello_positional": {"Hello": [1, "seed"]},
    "heartbeat": "Heartbeat",
    "heartbeat_map": {"Heartbeat": None},
    "power_wake": {"Power": "Wake"},
    "power_rest": {"Power": "Rest"},
    "motion_stand": {"Motion": {"Stand": {"head": "Center"}}},
    "motion_walk_to": {"Motion": {"WalkTo": {"x": 1.0, "y": -0.5, "turn_to": None,
                                             "speed": "Fast",
                                             "head": {"LookAt": {"x": 1, "y": 2}}}}},
    "motion_walk_toward": {"Motion": {"WalkToward": {"x": 0.02, "y": 0.5, "speed": "Slow",
                                                     "head": "LookAround"}}},
    "motion_sit": {"Motion": "SitDown"},
    "motion_arms_up": {"Motion": "ArmsUp"},
    "motion_squat": {"Motion": "Squat"},
    "leds": {"Leds": {"left_eye": [RGB] * 8, "right_eye": None, "left_ear": [0.5] * 10,
                      "right_ear": [1] * 10, "chest": RGB, "left_foot": RGB,
                      "right_foot": None}},
    "leds_nil": {"Leds": None},
    "speaker": {"Speaker": {"samples": [0, 32767, -32768, 5]}},
    # Speaker's byte walk (codec_decode_speaker): the positional and the
    # newtype shapes, wide integer encodings, a sample out of range.
    "speaker_positional": {"Speaker": [[1, -1, 300, -300, 0]]},
    "speaker_bare": {"Speaker": [127, -32, 255, -129, 25535]},
    "speaker_out_of_range": {"Speaker": {"samples": [1, 40000, -40000]}},
    "speaker_clear": "SpeakerClear",
    "volume": {"Volume": {"percent": 120, "muted": None}},
    "subscribe": {"Subscribe": {"state": True, "cameras": ["Top", "Bottom"],
                                "camera_fps": 15.0, "microphone": True, "rate": 83.3}},
    "stop": "Stop",
    "unknown": {"Dance": {"style": "tango"}},
    "lola_actuators": {"Position": [0.0] * 25, "Stiffness": [1.0] * 25,
                       "Chest": [1.0, 0.0, 0.0], "LEar": [0.5] * 10, "REar": [0.5] * 10,
                       "LEye": [0.1] * 24, "REye": [0.2] * 24, "LFoot": [0, 0, 1],
                       "RFoot": [0, 1, 0], "Skull": [1.0] * 12, "Sonar": [True, False]},
    "lola_partial": {"Stiffness": [0.0] * 25},
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, value in SEEDS.items():
        single = name.startswith("lola")
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(msgpack.packb(value, use_bin_type=True, use_single_float=single))
    # A LoLA stream of two maps, and a few raw edge cases.
    with open(os.path.join(OUT, "lola_stream"), "wb") as f:
        f.write(msgpack.packb(SEEDS["lola_partial"], use_single_float=True) * 2)
    raw = {"deep": b"\x91" * 20 + b"\xc0", "reserved": b"\xc1", "huge_array": b"\xdd\xff\xff\xff\xff",
           "ext": b"\xd6\xff\x00\x00\x00\x00",
           # Every format family once, for libmpread's mp_read() beside its check.
           "formats": b"\xdd\x00\x00\x00\x0d\xc0\xc3\xc2" +
                      b"\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00\xca\xc0\x00\x00\x00" +
                      b"\xcf" + b"\xff" * 8 + b"\xd3\x80" + b"\x00" * 7 +
                      b"\xc4\x01\x00\xc5\x00\x01\x00\xdb\x00\x00\x00\x01a" +
                      b"\xc7\x01\x05\x00\xd8\x01" + b"\x00" * 16 + b"\xdf\x00\x00\x00\x00",
           # Speaker in wide encodings: str 16 key, map 16, array 16, int 16, uint 16, int 64.
           "speaker_wide": b"\xde\x00\x01\xda\x00\x07Speaker\xde\x00\x01\xd9\x07samples" +
                           b"\xdc\x00\x03\xd1\x80\x00\xcd\x7f\xff\xd3" + b"\xff" * 8}
    for name, data in raw.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

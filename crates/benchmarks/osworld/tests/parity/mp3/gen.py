"""Writes files/ and cases.json: OSWorld's `check_mp3_meta` (its `others.py`), an MP3's tags as
mutagen's EasyID3 reads them, each against a rule.

Tags written by mutagen itself (ID3v2.4 in UTF-8, v2.3 in UTF-16, several values), and tags made
byte by byte as other taggers write them: ID3v2.2, ID3v1 alone or under a v2 tag, a repeated
frame, a v2.3 tag unsynchronised, iTunes' plain frame sizes in v2.4, a data length indicator, an
extended header flag with no extended header, Latin-1 and UTF-16 without a byte order mark, an
unknown encoding, no tag at all. Each case's `note` says what it probes.

Needs mutagen (the parity venv). Run from anywhere; it writes beside itself.
"""
import json
import os
import struct

from mutagen.id3 import ID3, TIT2, TPE1, TALB, TRCK

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
AUDIO = b"\xff\xfb\x90\x00" + bytes(200)  # an MPEG frame header and silence
cases = []


def path(name):
    return os.path.join(FILES, name)


def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def v2(major, frames, flags=0, plain_sizes=False, extended=b"", tail=b""):
    """An ID3v2 tag of (id, frame flags, data) frames before the audio."""
    body = b""
    for fid, fflags, data in frames:
        if major == 2:
            body += fid.encode() + struct.pack(">L", len(data))[1:] + data
        elif major == 3 or plain_sizes:
            body += fid.encode() + struct.pack(">LH", len(data), fflags) + data
        else:
            body += fid.encode() + syncsafe(len(data)) + struct.pack(">H", fflags) + data
    body = extended + body + tail
    return b"ID3" + bytes([major, 0, flags]) + syncsafe(len(body)) + body


def v1(title=b"", artist=b"", album=b"", year=b"", comment=b"", track=0, genre=255):
    pad = lambda b, n: (b + bytes(n))[:n]
    comment = pad(comment, 28) + b"\x00" + bytes([track]) if track else pad(comment, 30)
    return b"TAG" + pad(title, 30) + pad(artist, 30) + pad(album, 30) + pad(year, 4) + comment + bytes([genre])


def raw(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return name


def tagged(name, frames, v2_version=4):
    raw(name, AUDIO)
    tags = ID3()
    for frame in frames:
        tags.add(frame)
    tags.save(path(name), v2_version=v2_version)
    return name


def case(name, result, rules, note):
    rule_file = name + ".rule.json"
    with open(path(rule_file), "w") as f:
        json.dump(rules, f)
    cases.append({"name": name, "func": "check_mp3_meta", "result": result, "expected": rule_file,
                  "expected_as": "json", "options": {}, "note": note})


def eq(value):
    return {"method": "eq", "ref": value}


os.makedirs(FILES, exist_ok=True)
for f in os.listdir(FILES):
    os.remove(path(f))

song = tagged("song.mp3", [TIT2(encoding=3, text="Missing You"), TPE1(encoding=3, text="Cheng Xiang")])
case("title_and_artist", song, {"title": eq("Missing You"), "artist": eq("Cheng Xiang")}, "mutagen's own v2.4 tag, both right")
case("artist_wrong", song, {"title": eq("Missing You"), "artist": eq("Han Baoyi")}, "the second rule misses")
case("key_case", song, {"Title": eq("Missing You")}, "EasyID3 lower-cases keys")
case("absent_frame_is_empty", song, {"album": eq("")}, "no TALB: the empty string")
case("unknown_key_is_empty", song, {"no_such_key": eq("")}, "a key EasyID3 does not know reads empty")
case("regex_rule", song, {"title": {"method": "re", "ref": "^Missing"}}, "a pattern")
case("first_miss_stops", song, {"title": eq("Other"), "tracknumber": {"method": "lt", "ref": 3}},
     "the first miss decides; the second rule, which would raise, is never tried (keys in sorted order, "
     "the only order guigym's JSON keeps)")
case("rule_raises", song, {"title": {"method": "lt", "ref": 3}}, "a text against a number raises in Python")
case("no_file", None, {"title": eq("Missing You")}, "no result file")

chinese = tagged("chinese.mp3", [TIT2(encoding=1, text="红日"), TPE1(encoding=1, text="李克勤"), TALB(encoding=1, text="Red Sun")], v2_version=3)
case("v23_utf16", chinese, {"title": eq("红日"), "artist": eq("李克勤"), "album": eq("Red Sun")}, "v2.3, UTF-16 with byte order marks")
many = tagged("many.mp3", [TPE1(encoding=3, text=["Ann", "Bob"]), TRCK(encoding=3, text="3/12")])
case("several_values", many, {"artist": eq("Ann,Bob"), "tracknumber": eq("3/12")}, "two values joined by a comma")
case("several_values_set", many, {"artist": {"method": "str_set_eq", "ref": ["Bob", "Ann"]}}, "as a set")

case("v1_only", raw("v1.mp3", AUDIO + v1(b"Old Song ", b" Singer", b"Album\x0b", b"1999", track=7)),
     {"title": eq("Old Song"), "artist": eq("Singer"), "album": eq("Album"), "tracknumber": eq("7")},
     "an ID3v1 tag alone: fields stripped of ASCII blanks (a vertical tab too), the track from v1.1")
case("v1_track_32", raw("v1_32.mp3", AUDIO + v1(b"T", comment=b"x" * 28 + b"\x01 ")),
     {"tracknumber": eq("")}, "a comment byte where v1.1's track would be: no track")
case("v1_under_v2", raw("both.mp3", v2(4, [("TIT2", 0, b"\x03New Title")]) + AUDIO + v1(b"Old Title", b"Old Artist")),
     {"title": eq("New Title"), "artist": eq("Old Artist")}, "v2 first, v1 for what v2 lacks")
case("v1_latin1", raw("v1_latin1.mp3", AUDIO + v1(b"Caf\xe9")), {"title": eq("Café")}, "v1 is Latin-1")
case("ape_tag_not_v1", raw("ape.mp3", AUDIO + b"APETAGEX" + bytes(120)), {"title": eq("")},
     "TAG inside an APEv2 footer is not a v1 tag: no tag at all, which raises")

case("v22", raw("v22.mp3", v2(2, [("TT2", 0, b"\x00Two Two"), ("TP1", 0, b"\x00Artist 22")]) + AUDIO),
     {"title": eq("Two Two"), "artist": eq("Artist 22")}, "ID3v2.2's three-letter frames")
case("repeated_frame", raw("repeated.mp3", v2(3, [("TIT2", 0, b"\x00First"), ("TIT2", 0, b"\x00Second"), ("TIT2", 0, b"\x00First")]) + AUDIO),
     {"title": eq("First,Second")}, "a frame twice: its new values added to the first")
case("v23_unsynchronised", raw("unsync.mp3", v2(3, [("TIT2", 0, b"\x00A\xff\x00\xfbB")], flags=0x80) + AUDIO),
     {"title": eq("A\xff\xfbB")}, "a v2.3 tag unsynchronised as a whole")
case("v24_frame_unsynchronised", raw("unsync24.mp3", v2(4, [("TIT2", 0x0002, b"\x00A\xff\x00\xfbB")]) + AUDIO),
     {"title": eq("A\xff\xfbB")}, "a v2.4 frame unsynchronised on its own")
long_title = "L" * 200
case("itunes_plain_sizes", raw("itunes.mp3", v2(4, [("TIT2", 0, b"\x03" + long_title.encode()), ("TPE1", 0, b"\x03Plain")], plain_sizes=True) + AUDIO),
     {"title": eq(long_title), "artist": eq("Plain")}, "v2.4 frame sizes written as plain integers (over 127 bytes)")
case("data_length_indicator", raw("datalen.mp3", v2(4, [("TIT2", 0x0001, syncsafe(6) + b"\x03Hello")]) + AUDIO),
     {"title": eq("Hello")}, "four bytes of length before a v2.4 frame's data")
case("extended_flag_without_header", raw("noext.mp3", v2(3, [("TIT2", 0, b"\x00Flagged")], flags=0x40) + AUDIO),
     {"title": eq("Flagged")}, "the extended header flag set, a frame right after the header")
case("extended_header_v23", raw("ext23.mp3", v2(3, [("TIT2", 0, b"\x00Extended")], flags=0x40, extended=struct.pack(">L", 6) + bytes(6)) + AUDIO),
     {"title": eq("Extended")}, "a v2.3 extended header (its size excludes itself)")
case("utf16_without_bom", raw("nobom.mp3", v2(3, [("TIT2", 0, b"\x01H\x00i\x00")]) + AUDIO),
     {"title": eq("Hi")}, "UTF-16 without a byte order mark: little-endian")
case("utf16_odd_length", raw("odd.mp3", v2(3, [("TIT2", 0, b"\x01\xff\xfeH\x00i")]) + AUDIO),
     {"title": eq("Hi")}, "UTF-16 a byte short: mutagen adds one")
case("utf16be", raw("be.mp3", v2(4, [("TIT2", 0, b"\x02\x00H\x00i")]) + AUDIO), {"title": eq("Hi")}, "UTF-16BE")
case("latin1_frame", raw("latin1.mp3", v2(3, [("TIT2", 0, b"\x00Caf\xe9")]) + AUDIO), {"title": eq("Café")}, "Latin-1 in v2.3")
case("zero_padded_values", raw("padded.mp3", v2(3, [("TPE1", 0, b"\x00Ann\x00\x00\x00")]) + AUDIO),
     {"artist": eq("Ann")}, "before v2.4, zeros after a value are padding, not empty values")
case("v24_empty_values", raw("empty24.mp3", v2(4, [("TPE1", 0, b"\x03Ann\x00\x00")]) + AUDIO),
     {"artist": eq("Ann,")}, "in v2.4, a second terminator is an empty value")
case("unknown_encoding", raw("badenc.mp3", v2(4, [("TIT2", 0, b"\x07Junk"), ("TPE1", 0, b"\x03Kept")]) + AUDIO),
     {"title": eq(""), "artist": eq("Kept")}, "a frame of an unknown encoding is dropped")
case("bad_utf8", raw("badutf8.mp3", v2(4, [("TIT2", 0, b"\x03\xc3(")]) + AUDIO), {"title": eq("")}, "text that is no UTF-8 drops the frame")
case("encoding_byte_only", raw("encbyte.mp3", v2(4, [("TIT2", 0, b"\x03")]) + AUDIO), {"title": eq("")}, "nothing after the encoding byte")
case("no_tag", raw("bare.mp3", AUDIO), {"title": eq("")}, "no tag at all: EasyID3 raises")
case("unsupported_version", raw("v25.mp3", b"ID3\x05\x00\x00" + syncsafe(0) + AUDIO + v1(b"From v1")),
     {"title": eq("From v1")}, "an ID3v2.5 header is no tag to mutagen; the v1 tag is read")
case("tag_longer_than_file", raw("cut.mp3", b"ID3\x04\x00\x00" + syncsafe(500) + b"TIT2"), {"title": eq("")}, "a cut tag raises")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(len(cases), "cases")

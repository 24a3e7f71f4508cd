"""check_mp3_meta on the ID3 tag's structure, found by a probe from outside: v2.2/2.3/2.4 headers with
odd flags and sizes, extended headers, unsynchronisation, frame flags (grouping, encryption, a
data length, zlib compression, good and bad), sizes past the tag's end, zero-size frames,
padding, 2.2 names in 2.3 tags, iTunes' plain sizes, repeated frames, the four text encodings,
ID3v1 and v1.1 tags (the track byte only after a NUL), v1 and v2 together, tiny files. Plain
Python. Writes files/ and cases.json beside itself."""
import json, os, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
AUDIO = b"\xff\xfb\x90\x00" + bytes(200)
cases = []

def path(n): return os.path.join(FILES, n)
def syncsafe(n): return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])

def frame(major, fid, data, fflags=0, plain=False, size=None):
    n = len(data) if size is None else size
    if major == 2:
        return fid.encode() + struct.pack(">L", n)[1:] + data
    if major == 3 or plain:
        return fid.encode() + struct.pack(">LH", n, fflags) + data
    return fid.encode() + syncsafe(n) + struct.pack(">H", fflags) + data

def v2(major, frames, flags=0, plain=False, extended=b"", tail=b"", size=None):
    body = b"".join(frame(major, *f) if isinstance(f, tuple) else f for f in frames)
    body = extended + body + tail
    return b"ID3" + bytes([major, 0, flags]) + syncsafe(len(body) if size is None else size) + body

def v1raw(title=b"", artist=b"", album=b"", year=b"", comment30=bytes(30), genre=255):
    pad = lambda b, n: (b + bytes(n))[:n]
    return b"TAG" + pad(title, 30) + pad(artist, 30) + pad(album, 30) + year + comment30 + bytes([genre])

def raw(name, data):
    with open(path(name), "wb") as f: f.write(data)
    return name

def case(name, result, rules, note):
    rf = name + ".rule.json"
    with open(path(rf), "w") as f: json.dump(rules, f)
    cases.append({"name": name, "func": "check_mp3_meta", "result": result, "expected": rf,
                  "expected_as": "json", "options": {}, "note": note})

def eq(v): return {"method": "eq", "ref": v}

os.makedirs(FILES, exist_ok=True)
for f in os.listdir(FILES): os.remove(path(f))

# ---- ID3v1 ----
case("v1_full_comment_no_track", raw("v1_fullcomment.mp3", AUDIO + v1raw(b"T", comment30=b"x" * 30)),
     {"tracknumber": eq("")}, "comment fills all 30 bytes: comment[-2] != 0, so no v1.1 track")
case("v1_nonzero_pair_no_track", raw("v1_pair.mp3", AUDIO + v1raw(b"T", comment30=b"c" * 28 + b"\x05\x07")),
     {"tracknumber": eq("")}, "comment[-2]=5, comment[-1]=7: not v1.1")
case("v1_track_255", raw("v1_255.mp3", AUDIO + v1raw(b"T", comment30=b"c" * 28 + b"\x00\xff")),
     {"tracknumber": eq("255")}, "v1.1 track 255")
case("v1_track_32_v11", raw("v1_32b.mp3", AUDIO + v1raw(b"T", comment30=b"c" * 28 + b"\x00 ")),
     {"tracknumber": eq("32")}, "v1.1 with track byte 32 (a space) after a NUL")
case("v1_short_125", raw("v1_125.mp3", AUDIO + v1raw(b"Short", year=b"1", comment30=b"c" * 28 + b"\x00\x09")),
     {"title": eq("Short"), "tracknumber": eq("9")}, "a 125-byte v1 tag (1-byte year)")
case("v1_short_124", raw("v1_124.mp3", AUDIO + v1raw(b"Shorter", year=b"", comment30=b"c" * 28 + b"\x00\x04")),
     {"title": eq("Shorter"), "tracknumber": eq("4")}, "a 124-byte v1 tag (no year)")
case("v1_nul_then_junk", raw("v1_nul.mp3", AUDIO + v1raw(b"Title\x00junk", b"\tArt \x0c", year=b"2000")),
     {"artist": eq("Art"), "title": eq("Title")}, "field cut at first NUL; blanks stripped")
case("v1_blank_title", raw("v1_blank.mp3", AUDIO + v1raw(b" " * 30, b"A", year=b"2000")),
     {"title": eq("")}, "all-space title: no TIT2")
case("v1_nbsp_not_stripped", raw("v1_nbsp.mp3", AUDIO + v1raw(b"\xa0Hi\xa0", year=b"2000")),
     {"title": eq("\xa0Hi\xa0")}, "bytes.strip() leaves latin-1 NBSP")
case("v1_tag_before_v1", raw("v1_tagtag.mp3", AUDIO + b"TAG" + v1raw(b"Hidden", year=b"2000")),
     {"title": eq("Hidden")}, "a TAG 131 bytes from the end shadows the real v1 (first TAG found too long)")
case("v1_tag_2_before", raw("v1_tag2.mp3", AUDIO + b"TAG\x00\x00" + v1raw(b"Hidden", year=b"2000")[:-2]),
     {"title": eq("Hidden")}, "TAG at -129: too long")
case("v1_apetagex_title", raw("v1_ape.mp3", AUDIO + b"APE" + v1raw(b"EXtra", year=b"2000")),
     {"title": eq("EXtra")}, "'APE' then TAG+'EX': the TAG reads as APETAGEX's: no v1, no tag, raises")
case("v1_ape_elsewhere", raw("v1_ape2.mp3", AUDIO + v1raw(b"xAPETAGEX", year=b"2000")),
     {"title": eq("xAPETAGEX")}, "APETAGEX inside the title, after the TAG: v1 read")
case("tiny_tag_file", raw("tiny.mp3", b"TAG12"), {"title": eq("")}, "5 bytes")
case("empty_file", raw("empty.mp3", b""), {"title": eq("")}, "0 bytes")
case("id3_only_3_bytes", raw("id3short.mp3", b"ID3"), {"title": eq("")}, "3 bytes")
case("v1_only_file", raw("v1_exact.mp3", v1raw(b"Exact", year=b"2000")), {"title": eq("Exact")}, "file is only a v1 tag")
case("v1_under_v2_track", raw("v1v2trk.mp3", v2(3, [("TIT2", b"\x00V2")]) + AUDIO + v1raw(b"V1", b"V1 Artist", year=b"2000", comment30=b"c" * 28 + b"\x00\x03")),
     {"artist": eq("V1 Artist"), "title": eq("V2"), "tracknumber": eq("3")}, "v1 fills artist and track")
case("v1_inside_small_v2", raw("v1inv2.mp3", v2(3, [("TIT2", b"\x00" + b"TAG" + b"Q" * 125)])),
     {"title": eq("TAG" + "Q" * 125)}, "small file: the v2 title's TAG is where v1 is looked for")

# ---- v2 header ----
case("v24_footer_flag", raw("footer.mp3", v2(4, [("TIT2", b"\x03Foot")], flags=0x10) + b"3DI\x04\x00\x10" + syncsafe(15) + AUDIO),
     {"title": eq("Foot")}, "v2.4 footer flag")
case("v23_experimental", raw("exp23.mp3", v2(3, [("TIT2", b"\x00Exp")], flags=0x20) + AUDIO), {"title": eq("Exp")}, "0x20 allowed")
case("v23_flag_0x10", raw("bad23.mp3", v2(3, [("TIT2", b"\x00Bad")], flags=0x10) + AUDIO), {"title": eq("Bad")}, "invalid flag raises")
case("v24_flag_0x01", raw("bad24.mp3", v2(4, [("TIT2", b"\x03Bad")], flags=0x01) + AUDIO), {"title": eq("Bad")}, "invalid flag raises")
case("v22_flag_0x40", raw("v22c.mp3", v2(2, [("TT2", b"\x00Two")], flags=0x40) + AUDIO), {"title": eq("Two")}, "2.2 compression bit read as extended header")
case("v22_flag_0x80", raw("v22u.mp3", v2(2, [("TT2", b"\x00A\xff\x00\xfbB")], flags=0x80) + AUDIO), {"title": eq("A\xff\xfbB")}, "2.2 unsync")
case("v24_ext_header", raw("ext24.mp3", v2(4, [("TIT2", b"\x03Ext")], flags=0x40, extended=syncsafe(6) + b"\x01\x00") + AUDIO),
     {"title": eq("Ext")}, "v2.4 extended header of 6 bytes")
case("v24_ext_not_synchsafe", raw("ext24bad.mp3", v2(4, [("TIT2", b"\x03Ext")], flags=0x40, extended=b"\x00\x00\x00\x86" + bytes(2)) + AUDIO),
     {"title": eq("Ext")}, "extended size not synchsafe")
case("v24_ext_size_2", raw("ext24small.mp3", v2(4, [("TIT2", b"\x03Ext")], flags=0x40, extended=syncsafe(2)) + AUDIO),
     {"title": eq("Ext")}, "extended size below 4")
case("v24_ext_size_4", raw("ext24four.mp3", v2(4, [("TIT2", b"\x03Ext")], flags=0x40, extended=syncsafe(4)) + AUDIO),
     {"title": eq("Ext")}, "extended size exactly 4")
case("v23_ext_zero", raw("ext23zero.mp3", v2(3, [("TIT2", b"\x00Ext")], flags=0x40, extended=bytes(4)) + AUDIO),
     {"title": eq("Ext")}, "v2.3 extended size 0")
case("v23_ext_crc", raw("ext23crc.mp3", v2(3, [("TIT2", b"\x00Crc")], flags=0x40, extended=struct.pack(">LHL", 10, 0x8000, 0) + b"\x12\x34\x56\x78") + AUDIO),
     {"title": eq("Crc")}, "v2.3 extended header with CRC")
case("tag_size_not_synchsafe", raw("nss.mp3", b"ID3\x03\x00\x00\x00\x00\x00\x80" + frame(3, "TIT2", b"\x00X") + bytes(200)), {"title": eq("X")}, "raises")
case("zero_size_tag_then_v1", raw("zero_v1.mp3", b"ID3\x04\x00\x00" + syncsafe(0) + AUDIO + v1raw(b"One", year=b"2000")),
     {"title": eq("One")}, "empty v2 tag, v1 fills")

# ---- unsynchronisation ----
case("v23_unsync_ff_at_end", raw("u_ffend.mp3", v2(3, [("TIT2", b"\x00A\xff\x00B")], flags=0x80, tail=b"\xff") + AUDIO),
     {"title": eq("A\xff,B")}, "FF ends the tag: decode fails, raw kept; NUL then B is a 2nd value")
case("v23_unsync_ffe0", raw("u_ffe0.mp3", v2(3, [("TIT2", b"\x00A\xff\x00B\xff\xe0")], flags=0x80) + AUDIO),
     {"title": eq("A\xff,B\xff\xe0")}, "FF E0 inside: raw kept")
case("v24_global_unsync", raw("u24g.mp3", v2(4, [("TIT2", b"\x03A\xff\x00\xc3\xa9")], flags=0x80) + AUDIO),
     {"title": eq("A\ufffd")}, "v2.4 global unsync decodes per frame: A FF C3 A9 is bad UTF-8 -> dropped")
case("v24_global_unsync_latin1", raw("u24gl.mp3", v2(4, [("TIT2", b"\x00A\xff\x00B")], flags=0x80) + AUDIO),
     {"title": eq("A\xffB")}, "v2.4 global unsync, latin-1")
case("v24_frame_unsync_ff_end", raw("u24end.mp3", v2(4, [("TIT2", b"\x00A\xff\x00B\xff", 0x0002)]) + AUDIO),
     {"title": eq("A\xff\x00B\xff".replace("\x00", ","))}, "frame unsync, ends in FF: raw")
case("v24_unsync_datalen", raw("u24dl.mp3", v2(4, [("TIT2", syncsafe(5) + b"\x00A\xff\x00B", 0x0003)]) + AUDIO),
     {"title": eq("A\xffB")}, "data length then unsync")

# ---- frame flags ----
z = zlib.compress(b"\x00Zipped")
case("v23_compressed", raw("c23.mp3", v2(3, [("TIT2", struct.pack(">L", 7) + z, 0x0080)]) + AUDIO),
     {"title": eq("Zipped")}, "v2.3 zlib frame")
case("v23_compressed_short", raw("c23s.mp3", v2(3, [("TIT2", b"\x00A", 0x0080), ("TPE1", b"\x00Kept")]) + AUDIO),
     {"artist": eq("Kept"), "title": eq("")}, "v2.3 compressed, < 4 bytes: junk")
case("v23_compressed_bad_zlib", raw("c23b.mp3", v2(3, [("TIT2", b"\x00\x00\x00\x05\x00Plain", 0x0080)]) + AUDIO),
     {"title": eq("")}, "v2.3 compressed, not zlib: junk")
case("v24_compressed_datalen", raw("c24.mp3", v2(4, [("TIT2", syncsafe(7) + z, 0x0009)]) + AUDIO),
     {"title": eq("Zipped")}, "v2.4 zlib with data length")
case("v24_compressed_no_len", raw("c24n.mp3", v2(4, [("TIT2", z, 0x0008)]) + AUDIO),
     {"title": eq("Zipped")}, "v2.4 zlib without the 4 length bytes (QL 0.12 fallback)")
case("v24_encrypted", raw("e24.mp3", v2(4, [("TIT2", b"\x01\x00Secret", 0x0004)]) + AUDIO), {"title": eq("")}, "encrypted: dropped")
case("v23_encrypted", raw("e23.mp3", v2(3, [("TIT2", b"\x01\x00Secret", 0x0040)]) + AUDIO), {"title": eq("")}, "encrypted: dropped")
case("v23_grouping", raw("g23.mp3", v2(3, [("TIT2", b"\x03\x00Grp", 0x0020)]) + AUDIO), {"title": eq(",Grp")}, "group byte read as encoding")
case("v24_grouping", raw("g24.mp3", v2(4, [("TIT2", b"\x07\x03Grp", 0x0040)]) + AUDIO), {"title": eq("")}, "group byte 7 as encoding: junk")
case("v24_datalen_short", raw("dl2.mp3", v2(4, [("TIT2", b"\x00\x00", 0x0001)]) + AUDIO), {"title": eq("")}, "data length flag, 2 bytes")

# ---- frame walking ----
case("frame_past_end", raw("past.mp3", v2(3, [("TIT2", b"\x00Hello", 0, False, 100)]) + AUDIO), {"title": eq("Hello")}, "size past the tag")
case("zero_size_then_frame", raw("zs.mp3", v2(3, [("TPE1", b"", 0), ("TIT2", b"\x00After")]) + AUDIO), {"title": eq("After")}, "empty frame skipped")
case("padding_then_frame", raw("padf.mp3", v2(3, [("TPE1", b"\x00A")], tail=bytes(10) + frame(3, "TIT2", b"\x00Lost")) + AUDIO),
     {"title": eq("")}, "frames after padding are not read")
case("odd_name_then_frame", raw("oddn.mp3", v2(3, [b"\x00\x00\x00X" + bytes(6), ("TIT2", b"\x00After")]) + AUDIO),
     {"title": eq("After")}, "name 000X not padding")
case("v22_names_in_v23", raw("n22.mp3", v2(3, [("TT2\x00", b"\x00Old"), ("TP1\x00", b"\x00Name")]) + AUDIO),
     {"artist": eq("Name"), "title": eq("Old")}, "2.2 names in 2.3")
case("v22_name_and_v23_name", raw("n22b.mp3", v2(4, [("TT2\x00", b"\x03One"), ("TIT2", b"\x03Two")]) + AUDIO),
     {"title": eq("One,Two")}, "merged")
case("v22_compilation", raw("v22tcp.mp3", v2(2, [("TCP", b"\x001"), ("TT2", b"\x00T"), ("TT2", b"\x00U")]) + AUDIO),
     {"compilation": eq("1"), "title": eq("T,U")}, "2.2 TCP and repeated TT2")
case("repeat_dedupe_encodings", raw("rep.mp3", v2(3, [("TPE1", b"\x00A\x00B"), ("TPE1", b"\x01\xff\xfeA\x00\x00\x00C\x00")]) + AUDIO),
     {"artist": eq("A,B,C")}, "merge across encodings")
case("repeat_own_dupes", raw("rep2.mp3", v2(4, [("TPE1", b"\x03A\x00A"), ("TPE1", b"\x03B\x00B")]) + AUDIO),
     {"artist": eq("A,A,B")}, "first frame's own duplicates kept, second's deduped")

# ---- iTunes sizes ----
t200 = "L" * 200
case("itunes_ambiguous_pad", raw("it1.mp3", v2(4, [("TIT2", b"\x03" + t200.encode())], plain=True, tail=bytes(30)) + AUDIO),
     {"title": eq(t200)}, "one plain-size frame then padding")
case("itunes_256", raw("it2.mp3", v2(4, [("TIT2", b"\x03" + b"M" * 255), ("TPE1", b"\x03P")], plain=True) + AUDIO),
     {"artist": eq("P"), "title": eq("M" * 255)}, "256 bytes: synchsafe reading gives 128")
case("synchsafe_big_frame", raw("ss.mp3", v2(4, [("TIT2", b"\x03" + b"S" * 300), ("TPE1", b"\x03Q")]) + AUDIO),
     {"artist": eq("Q"), "title": eq("S" * 300)}, "correct synchsafe sizes > 127")
case("itunes_unknown_frames", raw("it3.mp3", v2(4, [("XXXX", b"\x03" + b"x" * 140), ("TIT2", b"\x03Y")], plain=True) + AUDIO),
     {"title": eq("Y")}, "unknown frame names: no frame counted either way")

# ---- encodings ----
case("utf16_be_bom", raw("bebom.mp3", v2(3, [("TIT2", b"\x01\xfe\xff\x00H\x00i")]) + AUDIO), {"title": eq("Hi")}, "BOM FE FF")
case("utf16_two_boms", raw("twobom.mp3", v2(4, [("TPE1", b"\x01\xff\xfeA\x00\x00\x00\xfe\xff\x00B")]) + AUDIO), {"artist": eq("A,B")}, "second value big-endian")
case("utf16_lone_surrogate", raw("lone.mp3", v2(4, [("TIT2", b"\x01\xff\xfe\x00\xd8A\x00")]) + AUDIO), {"title": eq("")}, "dropped")
case("utf16_pair", raw("pair.mp3", v2(4, [("TIT2", b"\x01\xff\xfe\x3d\xd8\x00\xde")]) + AUDIO), {"title": eq("\U0001F600")}, "surrogate pair")
case("utf16_empty_first", raw("emp1.mp3", v2(3, [("TPE1", b"\x01\xff\xfe\x00\x00\xff\xfeA\x00")]) + AUDIO), {"artist": eq(",A")}, "empty first value")
case("utf16_single_zero", raw("z1.mp3", v2(3, [("TIT2", b"\x01\x00")]) + AUDIO), {"title": eq("")}, "one zero byte")
case("utf16_odd_after_term", raw("odd2.mp3", v2(4, [("TPE1", b"\x01\xff\xfeA\x00\x00\x00B")]) + AUDIO), {"artist": eq("A,B")}, "odd tail value")
case("utf16_bom_in_middle", raw("bommid.mp3", v2(4, [("TIT2", b"\x01\xff\xfeA\x00\xff\xfeB\x00")]) + AUDIO), {"title": eq("A\ufeffB")}, "BOM mid-string kept")
case("utf16be_odd", raw("beodd.mp3", v2(4, [("TIT2", b"\x02\x00H\x00")]) + AUDIO), {"title": eq("H")}, "UTF-16BE odd")
case("utf16be_bom", raw("bebom2.mp3", v2(4, [("TIT2", b"\x02\xfe\xff\x00H")]) + AUDIO), {"title": eq("\ufeffH")}, "BE codec keeps FEFF")
case("utf8_bom", raw("u8bom.mp3", v2(4, [("TIT2", b"\x03\xef\xbb\xbfHi")]) + AUDIO), {"title": eq("\ufeffHi")}, "UTF-8 BOM kept")
case("utf8_surrogate", raw("u8sur.mp3", v2(4, [("TIT2", b"\x03\xed\xa0\x80"), ("TPE1", b"\x03ok")]) + AUDIO), {"artist": eq("ok"), "title": eq("")}, "encoded surrogate rejected")
case("latin1_nul_v23", raw("l1nul.mp3", v2(3, [("TPE1", b"\x00A\x00B\x00\x00")]) + AUDIO), {"artist": eq("A,B")}, "v2.3 list, trailing zeros")
case("utf16_pad_v23", raw("u16pad.mp3", v2(3, [("TIT2", b"\x01\xff\xfeA\x00\x00\x00\x00\x00\x00")]) + AUDIO), {"title": eq("A")}, "padding after UTF-16 in 2.3")
case("utf16_pad_v24", raw("u16pad4.mp3", v2(4, [("TIT2", b"\x01\xff\xfeA\x00\x00\x00\x00\x00\x00")]) + AUDIO), {"title": eq("A,,")}, "same in 2.4")
case("utf16_nobom_be_text", raw("nobombe.mp3", v2(3, [("TIT2", b"\x01\x00H\x00i")]) + AUDIO), {"title": eq("\u4800\u6900")}, "no BOM: LE, even if BE text")
case("utf16_oddlen_nobom", raw("oddnobom.mp3", v2(3, [("TIT2", b"\x01H\x00i")]) + AUDIO), {"title": eq("Hi")}, "odd, no BOM")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1, ensure_ascii=False); f.write("\n")
print(len(cases), "cases")

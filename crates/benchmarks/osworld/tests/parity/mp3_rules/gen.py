"""check_mp3_meta's keys (EasyID3's, unknown ones, refused ones) and OSWorld's _match_value_to_rule
on tag text (str_list_eq and str_set_eq on a text, an object or mixed items; approx with a bool;
re with flags; ne, lt, ge on text), found by a probe from outside. Plain Python. Writes files/ and
cases.json beside itself.

Left out, where ours differs from OSWorld (see the parity README): albumartistsort, which EasyID3
reads from a user-defined frame when TSO2 is absent (refused here, an error); float() of digits
other than ASCII ones; and Python `re` patterns or flags the regex crate reads otherwise or not
at all (lookaround, backreferences, `{,3}`, a lone `{`, re.A, re.X with a space in a class, \s
on \x1f, \w on combining marks and superscripts, re.I on a dotless i)."""
import json, os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
AUDIO = b"\xff\xfb\x90\x00" + bytes(200)
cases = []

def path(n): return os.path.join(FILES, n)
def syncsafe(n): return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
def v24(frames):
    body = b"".join(fid.encode() + syncsafe(len(d)) + b"\x00\x00" + d for fid, d in frames)
    return b"ID3\x04\x00\x00" + syncsafe(len(body)) + body + AUDIO
def raw(name, data):
    with open(path(name), "wb") as f: f.write(data)
    return name
def u8(s): return b"\x03" + s.encode()
def case(name, result, rules, note):
    rf = name + ".rule.json"
    with open(path(rf), "w") as f: json.dump(rules, f, ensure_ascii=False)
    cases.append({"name": name, "func": "check_mp3_meta", "result": result, "expected": rf,
                  "expected_as": "json", "options": {}, "note": note})
def eq(v): return {"method": "eq", "ref": v}
def rule(m, r): return {"method": m, "ref": r}

os.makedirs(FILES, exist_ok=True)
for f in os.listdir(FILES): os.remove(path(f))

# ---- keys ----
txxx = raw("txxx.mp3", v24([("TXXX", b"\x03ALBUMARTISTSORT\x00Sorted"), ("TIT2", u8("T"))]))
both = raw("txxx_tso2.mp3", v24([("TXXX", b"\x03ALBUMARTISTSORT\x00Sorted"), ("TSO2", u8("Frame"))]))
lower = raw("txxx_lower.mp3", v24([("TXXX", b"\x03albumartistsort\x00Sorted")]))
song = raw("song.mp3", v24([("TIT2", u8("Missing You")), ("TIT1", u8("Group")), ("TBPM", u8("１２０")),
                           ("TPE1", u8("A,n,n")), ("TALB", u8("١٢٠")), ("TCOM", u8("a\x1fb")),
                           ("TEXT", u8("e\u0301")), ("TOLY", u8("²")), ("TPE2", u8("I")), ("TCOP", u8("x\n")),
                           ("TPUB", u8("a b")), ("TRCK", u8("1"))]))
case("replaygain_gain_short_key", song, {"replaygain_gain": eq("")}, "'replaygain_gain' doesn't match 'replaygain_*_gain': unknown key, ''")
case("replaygain_peak_short_key", song, {"replaygain_peak": eq("")}, "same for _peak")
case("grouping_key", song, {"grouping": eq("Group")}, "grouping is plain TIT1 in mutagen 1.48")
case("kelvin_key", song, {"trac\u212anumber": eq("1")}, "KELVIN SIGN lower-cases to k in both")
case("bracket_key", song, {"title[": eq("")}, "a [ in the key: pattern path, no match")
case("star_key", song, {"titl*": eq("")}, "a * in the key is not a pattern")

# ---- str_list_eq / str_set_eq ----
case("str_list_eq_ref_string", song, {"artist": rule("str_list_eq", "Ann")}, "list('Ann') == ['A','n','n']")
case("str_set_eq_ref_string", song, {"artist": rule("str_set_eq", "nA")}, "set('nA') == {'A','n'}")
case("str_list_eq_ref_number", song, {"artist": rule("str_list_eq", 3)}, "list(3) raises")
case("str_list_eq_ref_null", song, {"artist": rule("str_list_eq", None)}, "list(None) raises")
case("str_list_eq_ref_mixed", song, {"title": rule("str_list_eq", ["Missing You", 1])}, "a non-string item")
case("str_set_eq_ref_unhashable", song, {"title": rule("str_set_eq", ["Missing You", ["x"]])}, "set() of a list raises")
case("str_list_eq_ref_object", song, {"title": rule("str_list_eq", {"Missing You": 1})}, "list(dict) is its keys")
case("str_set_eq_ok", song, {"artist": rule("str_set_eq", ["n", "A"])}, "control")

# ---- approx ----
case("approx_ref_bool", song, {"tracknumber": rule("approx:0.1", True)}, "abs(1.0 - True)")
case("approx_ref_string", song, {"tracknumber": rule("approx:0.1", "1")}, "float - str raises")
case("approx_control", song, {"tracknumber": rule("approx:0.1", 1)}, "control")

# ---- regex ----
case("re_backslash_Z", song, {"title": rule("re", r"You\Z")}, "\\Z")
case("re_dollar_newline", song, {"copyright": rule("re", "^x$")}, "$ before a final newline")
case("ne_number", song, {"title": rule("ne", 1)}, "'...' != 1")
case("lt_string", song, {"title": rule("lt", "N")}, "str < str")
case("ge_string_unicode", song, {"album": rule("ge", "z")}, "code point order")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1, ensure_ascii=False); f.write("\n")
print(len(cases), "cases")

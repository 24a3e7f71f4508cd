"""Writes the VLC parity cases: OSWorld's VLC metrics over what its VLC getters give, VLC's
web interface's status.xml (`vlc_playing_info`) and VLC's settings file (`vlc_config`), plus
the window and screen sizes `is_vlc_fullscreen` compares.

`vlcrc.base` is an excerpt of the settings file VLC 3.0.24 saves (Debian 12: its [qt] section
and the [core] lines the metrics read, every setting commented at its default, a byte-order
mark first); variants change lines in it as saving preferences does. The status files follow
what VLC 3.0.24's web interface answers (playing, paused, stopped; a file, a stream).

Left out on purpose: a missing result where OSWorld's metric opens it (Python raises on
None), a settings file or status that is no UTF-8, and a status that is no XML or has no
<state>: OSWorld raises on those, the agent's state, and they score 0 here.

Run from anywhere; it writes `files/` and `cases.json` beside itself. Plain Python.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
cases = []


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(FILES, name), mode, **({} if mode == "wb" else {"newline": ""})) as f:
        f.write(data)


def case(name, func, result_file, rule, note, result_as=None, expected_as="json"):
    e = name + ".rule.json"
    with open(os.path.join(FILES, e), "w") as f:
        json.dump(rule, f)
    c = {"name": name, "func": func, "result": result_file, "expected": e, "expected_as": expected_as,
         "options": {}, "note": note}
    if result_as:
        c["result_as"] = result_as
    cases.append(c)


def base():
    with open(os.path.join(HERE, "vlcrc.base"), encoding="utf-8", newline="") as f:
        return f.read()


def vlcrc(name, *changes):
    """A settings file: each change replaces a line of the base (or appends when absent)."""
    text = base()
    for old, new in changes:
        if old is None:
            text += new
        else:
            assert old in text, old
            text = text.replace(old, new)
    write(name, text)
    return name


def status(name, state, meta=None, streams=None, raw_info=None):
    info = raw_info
    if info is None:
        cats = ""
        if meta is not None:
            cats += '\n    <category name="meta">\n' + "".join(
                "    <info name='%s'>%s</info>" % (k, v) for k, v in meta) + "    </category>\n"
        for title, items in streams or []:
            cats += "  <category name='%s'>%s</category>" % (title, "".join(
                "<info name='%s'>%s</info>" % (k, v) for k, v in items))
        info = "<information>%s  </information>" % cats
    state_xml = "<state>%s</state>" % state if state is not None else "<state/>"
    text = ('<?xml version="1.0" encoding="utf-8" standalone="yes" ?>\n\n<root>\n\n'
            "<currentplid>3</currentplid>\n<fullscreen>0</fullscreen>\n<time>5</time>\n"
            "%s\n<loop>false</loop>\n<position>0.28</position>\n<volume>256</volume>\n"
            "<version>3.0.24 Vetinari</version>\n<apiversion>3</apiversion>%s\n"
            "  <stats>\n<decodedaudio>136</decodedaudio>\n  </stats>\n</root>\n") % (state_xml, info)
    write(name, text)
    return name


AUDIO = [("Stream 0", [("Codec", "PCM S16 LE (s16l)"), ("Type", "Audio"), ("Sample rate", "8000 Hz")])]


def playing_cases():
    f = status("file.status.xml", "playing", [("filename", "Rick Astley - Never Gonna Give You Up (Official Music Video).mp4")], AUDIO)
    rick = "Rick Astley - Never Gonna Give You Up (Official Music Video).mp4"
    name = lambda n: {"type": "file_name", "file_name": n}
    case("playing_file", "is_vlc_playing", f, name(rick), "OSWorld's task: the file by its name")
    case("playing_other_file", "is_vlc_playing", f, name("other.mp4"), "another file")
    case("playing_suffix", "is_vlc_playing", f, name("Music Video).mp4"), "a name the played one ends with counts")
    case("playing_empty_name", "is_vlc_playing", f, name(""), "an empty name: every name ends with it")
    case("playing_name_case", "is_vlc_playing", f, name(rick.lower()), "case matters")
    case("playing_name_number", "is_vlc_playing", f, name(5), "a name that is no text: OSWorld raises")
    case("playing_no_name", "is_vlc_playing", f, {"type": "file_name"}, "no file_name: OSWorld raises")
    case("playing_no_type", "is_vlc_playing", f, {"file_name": rick}, "no type while playing: OSWorld raises")
    case("playing_other_type", "is_vlc_playing", f, {"type": "title", "file_name": rick}, "an unknown type scores 0")
    case("playing_type_number", "is_vlc_playing", f, {"type": 1}, "a type that is no text scores 0")
    p = status("paused.status.xml", "paused", [("filename", rick)], AUDIO)
    case("paused_file", "is_vlc_playing", p, name(rick), "paused is not playing")
    case("paused_no_type", "is_vlc_playing", p, {}, "not playing: the rule is never read")
    s = status("stopped.status.xml", "stopped", None)
    case("stopped", "is_vlc_playing", s, name(rick), "stopped, nothing in the playlist")
    e = status("empty_state.status.xml", None, [("filename", rick)])
    case("empty_state", "is_vlc_playing", e, name(rick), "an empty state is not playing")
    sp = status("spaced_state.status.xml", "\nplaying\n", [("filename", rick)])
    case("spaced_state", "is_vlc_playing", sp, name(rick), "the state's text is compared as written")
    t = status("title.status.xml", "playing", [("title", "song.ogg"), ("artist", "x")], AUDIO)
    case("title_only", "is_vlc_playing", t, name("song.ogg"), "no filename: the title is read")
    u = status("uri.status.xml", "playing", [("uri", "file:///home/user/Desktop/a%20b.mp4")])
    case("uri_encoded", "is_vlc_playing", u, name("a b.mp4"), "a URI keeps its escapes")
    case("uri_basename", "is_vlc_playing", u, name("a%20b.mp4"), "the URI's last part")
    pa = status("path.status.xml", "playing", [("filename", "/home/user/Desktop/clip.mp4")])
    case("path_basename", "is_vlc_playing", pa, name("clip.mp4"), "a path: its base name")
    case("path_whole", "is_vlc_playing", pa, name("/home/user/Desktop/clip.mp4"), "a path: the whole path")
    case("path_folder", "is_vlc_playing", pa, name("Desktop"), "a folder on the path is no match")
    ef = status("empty_filename.status.xml", "playing", [("filename", ""), ("title", "clip.mp4")])
    case("empty_filename_title", "is_vlc_playing", ef, name("clip.mp4"), "an empty filename: the title is read")
    ent = status("entities.status.xml", "playing", [("filename", "Tom &amp; Jerry &#233;.mp4")])
    case("entities", "is_vlc_playing", ent, name("Tom & Jerry \u00e9.mp4"), "entities are read as text")
    cd = status("cdata.status.xml", "playing", [("filename", "<![CDATA[a<b>.mp4]]>")])
    case("cdata", "is_vlc_playing", cd, name("a<b>.mp4"), "CDATA is text")
    ch = status("child.status.xml", "playing", [("filename", "x.mp4<b>y</b>z")])
    case("child_text", "is_vlc_playing", ch, name("x.mp4"), "text before a child element only")
    two = status("two_meta.status.xml", "playing", None, None,
                 "<information><category name=\"meta\"><info name='filename'>first.mp4</info></category>"
                 "<category name=\"meta\"><info name='filename'>second.mp4</info></category></information>")
    case("two_meta_first", "is_vlc_playing", two, name("first.mp4"), "the first matching element")
    case("two_meta_second", "is_vlc_playing", two, name("second.mp4"), "a later one is not read")
    deep = status("deep.status.xml", "playing", None, None,
                  "<x><information><category name=\"meta\"><info name='filename'>deep.mp4</info></category></information></x>")
    case("information_nested", "is_vlc_playing", deep, name("deep.mp4"), "information under another element is not read")
    ns = status("namespaced.status.xml", "playing", None, None,
                "<information xmlns=\"urn:x\"><category name=\"meta\"><info name='filename'>ns.mp4</info></category></information>")
    case("info_in_namespace", "is_vlc_playing", ns, name("ns.mp4"), "an element in a namespace is not `information`")
    pre = status("prefixed.status.xml", "playing", None, None,
                 "<information xmlns:m=\"urn:m\"><category name=\"meta\"><m:info name='filename'>p.mp4</m:info>"
                 "<info m:name='filename'>q.mp4</info><info name='filename'>r.mp4</info></category></information>")
    case("prefixed_info", "is_vlc_playing", pre, name("p.mp4"), "a prefixed info is another element")
    case("prefixed_name", "is_vlc_playing", pre, name("q.mp4"), "a prefixed name attribute is another attribute")
    case("plain_after_prefixed", "is_vlc_playing", pre, name("r.mp4"), "the plain one is found")
    cr = status("cdata_cr.status.xml", "playing", [("filename", "<![CDATA[x\r\na.mp4]]>")])
    case("cdata_line_end", "is_vlc_playing", cr, name("x\na.mp4"), "line ends in CDATA are read as LF")
    # Streams.
    url = lambda u: {"type": "url", "url": u}
    yt = "https://www.youtube.com/watch?v=pgBsyTKAwLw"
    su = status("stream_url.status.xml", "playing", [("url", yt)])
    case("url_same", "is_vlc_playing", su, url(yt), "OSWorld's task: the stream's URL")
    case("url_within", "is_vlc_playing", su, url("youtube.com/watch"), "a URL within the shown one")
    case("url_other", "is_vlc_playing", su, url("https://www.youtube.com/watch?v=other"), "another video")
    case("url_number", "is_vlc_playing", su, url(7), "a URL that is no text: OSWorld raises")
    case("url_missing", "is_vlc_playing", su, {"type": "url"}, "no url: OSWorld raises")
    hls = status("stream_hls.status.xml", "playing", [("title", "index.m3u8")])
    case("url_hls_name", "is_vlc_playing", hls, url("https://cdn.example.com/live/index.m3u8"), "VLC shows the stream's file name")
    case("url_hls_other", "is_vlc_playing", hls, url("https://cdn.example.com/live/other.m3u8"), "another file name")
    case("url_hls_slash", "is_vlc_playing", hls, url("https://cdn.example.com/live/"), "a URL with no file name")
    host = status("stream_host.status.xml", "playing", [("filename", "https://cdn.example.com/live/hd/index.m3u8?token=1")])
    case("url_same_host", "is_vlc_playing", host, url("https://cdn.example.com/live"), "same host, the path within")
    case("url_other_host", "is_vlc_playing", host, url("https://cdn2.example.com/live/x"), "another host")
    case("url_host_case", "is_vlc_playing", host, url("https://CDN.example.com/live/x"), "the host compared as written")
    case("url_bad_ipv6", "is_vlc_playing", host, url("https://[::1/live/x"), "an expected URL Python cannot parse: passed over")
    codec = status("stream_codec.status.xml", "playing", None, [("Stream 0", [("Codec", "H264 - MPEG-4 AVC (part 10) (avc1)")])])
    case("url_codec_only", "is_vlc_playing", codec, url("avc1"), "only the stream's codec: read too")
    nothing = status("no_info.status.xml", "playing", [("artist", "x")])
    case("url_missing_no_info", "is_vlc_playing", nothing, {"type": "url"}, "the URL is read before the status: OSWorld raises")
    case("url_no_info", "is_vlc_playing", nothing, url(yt), "no place names what plays")
    case("file_no_info", "is_vlc_playing", nothing, name("x"), "no place names what plays")


def settings_cases():
    plain = vlcrc("default.vlcrc")
    bg0 = vlcrc("bgcone0.vlcrc", ("#qt-bgcone=1", "qt-bgcone=0"))
    for rule, note in [(0, "an integer"), ("0", "a string"), (1, "the default"), ("1", "the default as text"),
                       (False, "a boolean is an int in Python: 'False'"), (0.0, "a float stays a float"), (None, "null")]:
        tag = json.dumps(rule).replace('"', "s").replace(".", "_")
        case("bgcone_off_%s" % tag, "check_qt_bgcone", bg0, {"expected_qt_bgcone": rule}, "cone off; expected " + note)
        case("bgcone_default_%s" % tag, "check_qt_bgcone", plain, {"expected_qt_bgcone": rule}, "left at its default; expected " + note)
    case("bgcone_no_field", "check_qt_bgcone", plain, {}, "no expected value: OSWorld raises")
    both = vlcrc("bgcone_twice.vlcrc", ("#qt-bgcone=1", "qt-bgcone=0"), (None, "qt-bgcone=1\n"))
    case("bgcone_last_wins", "check_qt_bgcone", both, {"expected_qt_bgcone": 1}, "the last line wins")
    cr = vlcrc("bgcone_crlf.vlcrc", ("#qt-bgcone=1\n", "qt-bgcone=0 \r\n"))
    case("bgcone_crlf", "check_qt_bgcone", cr, {"expected_qt_bgcone": 0}, "blanks and a CR around the value")
    exp = vlcrc("bgcone_expands.vlcrc", ("#qt-bgcone-expands=0", "qt-bgcone-expands=1"))
    case("bgcone_expands_not_it", "check_qt_bgcone", exp, {"expected_qt_bgcone": 1}, "qt-bgcone-expands= does not hold qt-bgcone=")
    sep = vlcrc("bgcone_sep.vlcrc", ("#qt-bgcone=1", "qt-bgcone=0\x1f"))
    case("bgcone_unit_separator", "check_qt_bgcone", sep, {"expected_qt_bgcone": 0}, "Python's strip takes U+001F")
    vol = vlcrc("volume200.vlcrc", ("#qt-max-volume=125", "qt-max-volume=200"))
    case("max_volume_200", "check_qt_max_volume", vol, {"expected_qt_max_volume": 200}, "OSWorld's task")
    case("max_volume_200_text", "check_qt_max_volume", vol, {"expected_qt_max_volume": "200"}, "expected as text")
    case("max_volume_default", "check_qt_max_volume", plain, {"expected_qt_max_volume": 200}, "left at 125")
    case("max_volume_default_125", "check_qt_max_volume", plain, {"expected_qt_max_volume": 125}, "125 by default")
    case("max_volume_float", "check_qt_max_volume", vol, {"expected_qt_max_volume": 200.0}, "a float never equals the text")
    mini = vlcrc("minimal.vlcrc", ("#qt-minimal-view=0", "qt-minimal-view=1"))
    case("minimal_on", "check_qt_minimal_view", mini, {"expected_qt_minimal_view": 1}, "OSWorld's task")
    case("minimal_default", "check_qt_minimal_view", plain, {"expected_qt_minimal_view": 1}, "left off")
    case("minimal_default_0", "check_qt_minimal_view", plain, {"expected_qt_minimal_view": 0}, "off by default")
    case("minimal_no_field", "check_qt_minimal_view", plain, {"expected_qt_bgcone": 1}, "another setting's field: OSWorld raises")
    one = vlcrc("one_instance0.vlcrc", ("#one-instance-when-started-from-file=1", "one-instance-when-started-from-file=0"))
    r = {"expected_one_instance_when_started_from_file": 0}
    case("one_instance_off", "check_one_instance_when_started_from_file", one, r, "OSWorld's task")
    case("one_instance_default", "check_one_instance_when_started_from_file", plain, r, "left on")
    case("one_instance_rule_list", "check_one_instance_when_started_from_file", one, [r], "a rule that is a list: OSWorld raises")
    # The global play/pause key: set or not.
    key = vlcrc("global_key.vlcrc", ("#global-key-play-pause=", "global-key-play-pause=Ctrl+Alt+p"))
    rk = lambda v: {"expected_global_key_play_pause": v}
    case("global_key_set", "check_global_key_play_pause", key, rk(1), "a key is set")
    case("global_key_set_0", "check_global_key_play_pause", key, rk(0), "expected unset")
    case("global_key_default", "check_global_key_play_pause", plain, rk(0), "the commented default is empty")
    case("global_key_default_1", "check_global_key_play_pause", plain, rk("1"), "expected set")
    empty = vlcrc("global_key_empty.vlcrc", ("#global-key-play-pause=", "global-key-play-pause=  "))
    case("global_key_blank", "check_global_key_play_pause", empty, rk(0), "a blank value is unset")
    case("global_key_no_field", "check_global_key_play_pause", key, {}, "no field: OSWorld raises")
    case("global_key_true", "check_global_key_play_pause", key, rk(True), "True is 'True', never '1'")
    # The recordings folder: the first uncommented line.
    rec = vlcrc("record.vlcrc", ("#input-record-path=", "input-record-path=/home/user/Desktop"))
    rr = lambda v: {"recording_file_path": v}
    case("record_desktop", "is_vlc_recordings_folder", rec, rr("/home/user/Desktop"), "OSWorld's task")
    case("record_other", "is_vlc_recordings_folder", rec, rr("/home/user/Videos"), "another folder")
    case("record_trailing_slash", "is_vlc_recordings_folder", rec, rr("/home/user/Desktop/"), "compared as written")
    case("record_default", "is_vlc_recordings_folder", plain, rr("/home/user/Desktop"), "only the commented default")
    case("record_default_empty", "is_vlc_recordings_folder", plain, rr(""), "commented lines are skipped")
    case("record_no_field", "is_vlc_recordings_folder", rec, {}, "no field: OSWorld raises")
    case("record_number", "is_vlc_recordings_folder", rec, rr(1), "a number never equals the text")
    eq = vlcrc("record_eq.vlcrc", ("#input-record-path=", "input-record-path=/home/user/a=b"))
    case("record_equals_sign", "is_vlc_recordings_folder", eq, rr("/home/user/a=b"), "the value after the last =")
    case("record_equals_tail", "is_vlc_recordings_folder", eq, rr("b"), "the value after the last =")
    first = vlcrc("record_first.vlcrc", ("#input-record-path=", "input-record-path=/first"), (None, "input-record-path=/second\n"))
    case("record_first_wins", "is_vlc_recordings_folder", first, rr("/first"), "the first line wins here")
    case("record_second", "is_vlc_recordings_folder", first, rr("/second"), "a later line is not read")
    indented = vlcrc("record_indented.vlcrc", ("#input-record-path=", "  #input-record-path=/x"))
    case("record_indented_comment", "is_vlc_recordings_folder", indented, rr("/x"), "a comment not at the line's start counts")


def slider_cases():
    plain = "default.vlcrc"
    dark = vlcrc("slider_dark.vlcrc", ("#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29", "qt-slider-colours=0;0;0;20;20;20;99;99;99;10;10;10"))
    black = {"type": "blackish"}
    case("slider_dark", "check_qt_slider_colours", dark, black, "OSWorld's task: every colour dark")
    case("slider_default", "check_qt_slider_colours", plain, black, "the default colours")
    edge = vlcrc("slider_100.vlcrc", ("#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29", "qt-slider-colours=0;0;0;0;0;100"))
    case("slider_100", "check_qt_slider_colours", edge, black, "100 is not under 100")
    short = vlcrc("slider_short.vlcrc", ("#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29", "qt-slider-colours=0;0;0;200;200"))
    case("slider_partial_colour", "check_qt_slider_colours", short, black, "a colour cut short is not read")
    bad = vlcrc("slider_bad.vlcrc", ("#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29", "qt-slider-colours=0;0;x"))
    case("slider_not_numbers", "check_qt_slider_colours", bad, black, "OSWorld's metric turns the error into 0")
    sp = vlcrc("slider_spaces.vlcrc", ("#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29", "qt-slider-colours= 1 ;+2;3_0;-4;5;6"))
    case("slider_python_ints", "check_qt_slider_colours", sp, black, "int() takes blanks, signs and underscores")
    sep = vlcrc("slider_separator.vlcrc", ("#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29", "qt-slider-colours=0;\x1d5;0"))
    case("slider_int_separator", "check_qt_slider_colours", sep, black, "int() does not take U+001D as a blank")
    trail = vlcrc("slider_trailing.vlcrc", ("#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29", "qt-slider-colours=0;0;0;"))
    case("slider_trailing_semicolon", "check_qt_slider_colours", trail, black, "an empty part does not parse")
    m = "0;0;0;20;20;20;99;99;99;10;10;10"
    case("slider_match", "check_qt_slider_colours", dark, {"type": "match", "expected_qt_slider_colours": m}, "the same colours")
    case("slider_match_other", "check_qt_slider_colours", plain, {"type": "match", "expected_qt_slider_colours": m}, "other colours")
    case("slider_match_no_field", "check_qt_slider_colours", dark, {"type": "match"}, "OSWorld's metric turns the error into 0")
    case("slider_no_type", "check_qt_slider_colours", dark, {}, "OSWorld's metric turns the error into 0")
    case("slider_unknown_type", "check_qt_slider_colours", dark, {"type": "dark"}, "OSWorld's metric gives None")
    case("slider_type_number", "check_qt_slider_colours", dark, {"type": 1}, "OSWorld's metric gives None")


def fullscreen_cases():
    def sizes(name, window, screen, note):
        w = name + ".window.json"
        with open(os.path.join(FILES, w), "w") as f:
            json.dump(window, f)
        case(name, "is_vlc_fullscreen", w, screen, note, result_as="json")
    full = {"width": 1920, "height": 1080}
    sizes("fullscreen_same", full, full, "the window fills the screen")
    sizes("fullscreen_smaller", {"width": 1280, "height": 720}, full, "a smaller window")
    sizes("fullscreen_width_only", {"width": 1920, "height": 1000}, full, "as wide, less tall")
    sizes("fullscreen_float", {"width": 1920.0, "height": 1080}, full, "1920.0 == 1920 in Python")
    sizes("fullscreen_no_height", {"width": 1920}, full, "a size without height: OSWorld raises")
    sizes("fullscreen_expected_null", full, None, "no window: 0")
    sizes("fullscreen_extra_keys", {"width": 1920, "height": 1080, "x": 0}, full, "other keys are not read")


def main():
    os.makedirs(FILES, exist_ok=True)
    for old in os.listdir(FILES):
        os.remove(os.path.join(FILES, old))
    playing_cases()
    settings_cases()
    slider_cases()
    fullscreen_cases()
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print("%d cases" % len(cases))


if __name__ == "__main__":
    main()

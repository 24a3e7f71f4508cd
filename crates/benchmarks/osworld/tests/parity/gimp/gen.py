"""Writes the GIMP parity cases: OSWorld's `check_config_status` over what its
`gimp_config_file` getter gives, one of GIMP's settings files.

`sessionrc.base` is the file GIMP 2.10.34 (Debian 12) writes when it quits after a first
start; `gimprc.base` is the gimprc it writes once a setting is saved, without that setting.
Variants change or add lines as GIMP does when a setting changes (`(hide-docks yes)`,
`(undo-levels 100)`), and some are written as no GIMP would, to pin how the metric reads a
line: a comment only at a line's start, the brackets at a line's ends, Python's whitespace,
line ends.

Left out on purpose, because OSWorld raises on them and they are the agent's state, which
scores 0 here (the Rust unit tests pin those): a file that is no UTF-8, a line of nothing but
blanks or brackets before the matching one, a one-word line where a two-word key's first word
matches.

Run from anywhere; it writes `files/` and `cases.json` beside itself. Plain Python.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
cases = []


def write(name, data):
    with open(os.path.join(FILES, name), "w", encoding="utf-8", newline="") as f:
        f.write(data)
    return name


def base(name):
    with open(os.path.join(HERE, name), encoding="utf-8", newline="") as f:
        return f.read()


def variant(name, base_name, *changes):
    """A settings file: each change replaces text of the base (or, with None, appends)."""
    text = base(base_name)
    for old, new in changes:
        if old is None:
            text = text.replace("\n# end of", new + "\n# end of", 1)
        else:
            assert old in text, old
            text = text.replace(old, new, 1)
    return write(name, text)


def case(name, result_file, rule, note):
    e = name + ".rule.json"
    with open(os.path.join(FILES, e), "w") as f:
        json.dump(rule, f)
    cases.append({"name": name, "func": "check_config_status", "result": result_file, "expected": e,
                  "expected_as": "json", "options": {}, "note": note})


os.makedirs(FILES, exist_ok=True)
for f in os.listdir(FILES):
    os.remove(os.path.join(FILES, f))

session = write("session.sessionrc", base("sessionrc.base"))
hidden = variant("hidden.sessionrc", "sessionrc.base", ("(hide-docks no)", "(hide-docks yes)"))
multi = variant("multi.sessionrc", "sessionrc.base", ("(single-window-mode yes)", "(single-window-mode no)"))
hide_docks = {"key": "hide-docks", "value": "yes"}
case("docks_shown", session, hide_docks, "OSWorld's task: the docks as a first start leaves them")
case("docks_hidden", hidden, hide_docks, "hidden, as GIMP writes it on quitting")
case("docks_hidden_other_value", hidden, {"key": "hide-docks", "value": "no"}, "the other value")
case("single_window", session, {"key": "single-window-mode", "value": "yes"}, "Debian's default")
case("multi_window", multi, {"key": "single-window-mode", "value": "yes"}, "turned off")
case("quoted_word", session, {"key": "session-info", "value": "\"toplevel\""}, "a line's last word keeps its quotes")
case("quoted_word_bare", session, {"key": "session-info", "value": "toplevel"}, "so the bare word does not match")
case("nested_first_word", session, {"key": "factory-entry", "value": "\"gimp-empty-image-window\""},
     "a nested line: its own brackets go, its indent too")
case("nested_last_bracket", session, {"key": "size", "value": "480"}, "the closing brackets of the lists it ends go")
case("two_word_key", session, {"key": ["session-info", "\"toplevel\""], "value": "\"toplevel\""},
     "a two-word key: the line's first and second words")
case("two_word_key_other", session, {"key": ["position", "200"], "value": "100"}, "two words, then the last")
case("list_key_of_three", session, {"key": ["hide-docks", "no", "x"], "value": "no"}, "a key of three words matches nothing")
case("key_number", session, {"key": 5, "value": "no"}, "a key that is no text matches nothing")
case("value_number", variant("undo.gimprc", "gimprc.base", (None, "\n(undo-levels 100)")), {"key": "undo-levels", "value": 100},
     "a value that is no text matches nothing")
case("no_key", session, {"value": "yes"}, "the rule lacks its key: OSWorld raises")
case("no_value_matching_key", session, {"key": "hide-docks"}, "the rule lacks its value once the key matches: OSWorld raises")
case("no_value_other_key", session, {"key": "nothing-such"}, "no line has the key: the value is never read")

undo = {"key": "undo-levels", "value": "100"}
case("undo_set", "undo.gimprc", undo, "OSWorld's task: the setting as Preferences writes it")
case("undo_default", write("default.gimprc", base("gimprc.base")), undo, "not set")
case("undo_quoted", variant("quoted.gimprc", "gimprc.base", (None, "\n(undo-levels \"100\")")), undo,
     "written with quotes (as gimp-gimprc-set writes an unknown token)")
case("undo_other", variant("other.gimprc", "gimprc.base", (None, "\n(undo-levels 10)")), undo, "another number")
case("undo_commented", variant("commented.gimprc", "gimprc.base", (None, "\n# (undo-levels 100)")), undo, "a comment")
case("undo_indented_comment", variant("indented.gimprc", "gimprc.base", ("\n\n# end of", "\n  # (undo-levels 100)\n# end of")),
     undo, "a `#` after blanks is no comment: its first word is `#`")
case("undo_twice", variant("twice.gimprc", "gimprc.base", (None, "\n(undo-levels 10)\n(undo-levels 100)")), undo,
     "the first matching line need not be the one: any line will do")
case("undo_spaced", variant("spaced.gimprc", "gimprc.base", (None, "\n  (  undo-levels    100  )  ")), undo,
     "blanks inside the brackets")
case("undo_brackets", variant("brackets.gimprc", "gimprc.base", (None, "\n(((undo-levels 100)))")), undo, "every bracket at the ends goes")
case("undo_tabbed", variant("tabbed.gimprc", "gimprc.base", (None, "\n(undo-levels\t100)")), undo, "a tab between the words")
case("undo_separator", variant("separator.gimprc", "gimprc.base", (None, "\n(undo-levels\x1c100)")), undo,
     "U+001C splits words in Python")
case("undo_nbsp", variant("nbsp.gimprc", "gimprc.base", (None, "\n(undo-levels\u00a0100)")), undo, "so does a no-break space")
case("undo_zero_width", variant("zw.gimprc", "gimprc.base", (None, "\n(undo-levels\u200b100)")), undo, "a zero-width space does not")
case("undo_crlf", write("crlf.gimprc", (base("gimprc.base") + "(undo-levels 100)\n").replace("\n", "\r\n")), undo, "CRLF line ends")
case("undo_cr", write("cr.gimprc", (base("gimprc.base") + "(undo-levels 100)\n").replace("\n", "\r")), undo, "CR line ends")
case("undo_no_final_newline", write("nonl.gimprc", base("gimprc.base") + "(undo-levels 100)"), undo, "the last line without its end")
case("undo_inner_bracket", variant("inner.gimprc", "gimprc.base", (None, "\n(undo-levels 100) (x)")), undo,
     "only the ends lose brackets: the last word is `(x`")
case("empty_brackets_after", write("empty_after.gimprc", "(undo-levels 100)\n()\n"), undo, "a line of brackets after the match is never read")
case("empty_file", write("empty.gimprc", ""), undo, "an empty file (the getter gives none; the metric scores 0)")
case("bom", write("bom.gimprc", "\ufeff(undo-levels 100)\n"), undo, "a byte-order mark stays part of the first word")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print(len(cases), "cases")

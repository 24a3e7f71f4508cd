"""Writes the Thunderbird parity cases: OSWorld's `check_thunderbird_prefs`,
`check_thunderbird_filter` and `check_thunderbird_folder` (its `thunderbird.py`).

`prefs.js.base` is the preferences file Thunderbird 153 ESR (Debian 12) writes on its first
start; variants add or change lines as Thunderbird does when a setting changes (booleans,
numbers, strings with escapes, the same key twice). Filter files are written as Thunderbird
writes `msgFilterRules.dat` (version, logging, then per filter name, enabled, type, action,
actionValue, condition; quotes and backslashes escaped), and some as no Thunderbird would, to
pin how the metric slices a line (no final newline, CRLF, a condition before any name).

Left out on purpose, because OSWorld raises on them and they are the agent's state, which
scores 0 here (the Rust unit tests pin those): a preference value that is not JSON, a regular
expression rule on a number, a filter field before any `name=` line, a file that is no UTF-8.

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


def base():
    with open(os.path.join(HERE, "prefs.js.base"), encoding="utf-8", newline="") as f:
        return f.read()


def prefs(name, *lines):
    return write(name, base() + "".join(line + "\n" for line in lines))


def case(name, func, result, expected, note, options=None):
    e = None
    if expected is not None and not isinstance(expected, str):
        e = name + ".rule.json"
        with open(os.path.join(FILES, e), "w") as f:
            json.dump(expected, f)
    elif isinstance(expected, str):
        e = expected
    c = {"name": name, "func": func, "result": result, "expected": e, "options": options or {}, "note": note}
    if func != "check_thunderbird_folder":
        c["expected_as"] = "json"
    cases.append(c)


os.makedirs(FILES, exist_ok=True)
for f in os.listdir(FILES):
    os.remove(os.path.join(FILES, f))

P = "check_thunderbird_prefs"
plain = prefs("plain.prefs.js")
spam = prefs("spam.prefs.js", 'user_pref("mail.spam.manualMark", true);', 'user_pref("mail.spam.manualMarkMode", 1);')
sig = prefs("sig.prefs.js", 'user_pref("mail.identity.id1.htmlSigText", "Best,\\nAnn \\"Lee\\" \\\\ Co");',
            'user_pref("mail.identity.id1.sig_on_reply", false);')
twice = prefs("twice.prefs.js", 'user_pref("mailnews.default_sort_order", 1);', 'user_pref("mailnews.default_sort_order", 2);')
floaty = prefs("float.prefs.js", 'user_pref("font.size.scale", "1.25");', 'user_pref("mail.purge_threshhold_mb", 20);')
crlf = write("crlf.prefs.js", base().replace("\n", "\r\n") + 'user_pref("mail.spam.manualMark", true);\r\n')
spaced = prefs("spaced.prefs.js", '   user_pref("mail.spam.manualMark", true);   ', 'user_pref("mail.spam.manualMark" , false);')
case("prefs_spam_on", P, spam, {"expect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}}, "a boolean set")
case("prefs_spam_off", P, plain, {"expect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}}, "never set: absent")
case("prefs_spam_one", P, spam, {"expect": {"mail.spam.manualMark": {"method": "eq", "ref": 1}}}, "True == 1")
case("prefs_mode_ne", P, spam, {"expect": {"mail.spam.manualMarkMode": {"method": "ne", "ref": 0}}}, "not equal")
case("prefs_mode_ge", P, spam, {"expect": {"mail.spam.manualMarkMode": {"method": "ge", "ref": 1}}}, "at least")
case("prefs_mode_lt", P, spam, {"expect": {"mail.spam.manualMarkMode": {"method": "lt", "ref": 1}}}, "less than: no")
case("prefs_both", P, spam, {"expect": {"mail.spam.manualMark": {"method": "eq", "ref": True},
                                        "mail.spam.manualMarkMode": {"method": "eq", "ref": 1}}}, "two keys")
case("prefs_one_of_two", P, spam, {"expect": {"mail.spam.manualMark": {"method": "eq", "ref": True},
                                              "mail.spam.other": {"method": "eq", "ref": 1}}}, "one key missing")
case("prefs_unexpect_hit", P, spam, {"unexpect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}}, "unwanted value there")
case("prefs_unexpect_miss", P, plain, {"unexpect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}}, "unwanted value absent")
case("prefs_sig_re", P, sig, {"expect": {"mail.identity.id1.htmlSigText": {"method": "re", "ref": "Ann \"Lee\""}}}, "JSON unescaped, then searched")
case("prefs_sig_re_i", P, sig, {"expect": {"mail.identity.id1.htmlSigText": {"method": "re.I", "ref": "^best,\\nann"}}}, "ignoring case")
case("prefs_sig_re_anchor", P, sig, {"expect": {"mail.identity.id1.htmlSigText": {"method": "re", "ref": "^Ann"}}}, "^ at the text's start only")
case("prefs_sig_re_multiline", P, sig, {"expect": {"mail.identity.id1.htmlSigText": {"method": "re.M", "ref": "^Ann"}}}, "re.M: at a line's start")
case("prefs_sig_backslash", P, sig, {"expect": {"mail.identity.id1.htmlSigText": {"method": "eq", "ref": "Best,\nAnn \"Lee\" \\ Co"}}}, "escapes")
case("prefs_false", P, sig, {"expect": {"mail.identity.id1.sig_on_reply": {"method": "eq", "ref": False}}}, "false")
case("prefs_false_zero", P, sig, {"expect": {"mail.identity.id1.sig_on_reply": {"method": "eq", "ref": 0}}}, "False == 0")
case("prefs_last_wins", P, twice, {"expect": {"mailnews.default_sort_order": {"method": "eq", "ref": 2}}}, "the last line of a key")
case("prefs_first_loses", P, twice, {"expect": {"mailnews.default_sort_order": {"method": "eq", "ref": 1}}}, "the first is overwritten")
case("prefs_unexpect_any", P, twice, {"unexpect": {"mailnews.default_sort_order": {"method": "eq", "ref": 1}}}, "unexpect: any line")
case("prefs_approx", P, floaty, {"expect": {"font.size.scale": {"method": "approx:0.1", "ref": 1.2}}}, "a number in a string, approx")
case("prefs_approx_far", P, floaty, {"expect": {"font.size.scale": {"method": "approx:0.01", "ref": 1.2}}}, "too far")
case("prefs_range", P, floaty, {"expect": {"mail.purge_threshhold_mb": {"method": "range.te", "ref": [10, 20]}}}, "10 < x <= 20")
case("prefs_range_open", P, floaty, {"expect": {"mail.purge_threshhold_mb": {"method": "range.tt", "ref": [10, 20]}}}, "10 < x < 20")
case("prefs_str_list", P, prefs("list.prefs.js", 'user_pref("mail.tabs.order", "a,b,c");'),
     {"expect": {"mail.tabs.order": {"method": "str_list_eq", "ref": ["a", "b", "c"]}}}, "a list in a string")
case("prefs_str_set", P, "list.prefs.js", {"expect": {"mail.tabs.order": {"method": "str_set_eq", "ref": ["c", "b", "a"]}}}, "as a set")
case("prefs_str_list_order", P, "list.prefs.js", {"expect": {"mail.tabs.order": {"method": "str_list_eq", "ref": ["c", "b", "a"]}}}, "order counts")
case("prefs_crlf", P, crlf, {"expect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}}, "CRLF line ends")
case("prefs_spaced", P, spaced, {"expect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}},
     "blanks around a line are stripped; a space before the comma does not match the pattern")
case("prefs_base_real", P, plain, {"expect": {"calendar.timezone.local": {"method": "eq", "ref": "UTC"}}}, "a line Thunderbird wrote")
case("prefs_base_number", P, plain, {"expect": {"datareporting.policy.dataSubmissionPolicyAcceptedVersion": {"method": "gt", "ref": 1}}}, "a number it wrote")
case("prefs_missing", P, None, {"expect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}}, "no file")
case("prefs_empty_rule", P, plain, {}, "nothing asked")
case("prefs_no_method", P, spam, {"expect": {"mail.spam.manualMark": {"ref": True}}}, "the rule lacks a method: OSWorld raises")

F = "check_thunderbird_filter"
HEAD = 'version="9"\nlogging="no"\n'


def rules_file(name, *filters, head=HEAD, end="\n"):
    text = head
    for f in filters:
        text += "".join('%s="%s"\n' % (k, v) for k, v in f)
    return write(name, text.rstrip("\n") + end)


work = [("name", "Work"), ("enabled", "yes"), ("type", "17"), ("action", "Move to folder"),
        ("actionValue", "mailbox://nobody@Local%20Folders/Work"), ("condition", "AND (subject,contains,report)")]
boss = [("name", "From the boss"), ("enabled", "no"), ("type", "17"), ("action", "Mark flagged"),
        ("condition", 'OR (from,contains,boss@example.org) OR (subject,contains,\\"urgent\\")')]
one = rules_file("one.dat", work)
two = rules_file("two.dat", work, boss)
case("filter_name", F, one, {"expect": [{"name": "Work"}]}, "by name")
case("filter_fields", F, one, {"expect": [{"name": "Work", "enabled": "yes", "action": "Move to folder",
                                           "actionValue": "mailbox://nobody@Local%20Folders/Work"}]}, "all fields")
case("filter_condition", F, one, {"expect": [{"condition": ["AND (subject,contains,report)"]}]}, "the condition list")
case("filter_condition_other", F, one, {"expect": [{"condition": ["AND (subject,contains,invoice)"]}]}, "another condition")
case("filter_or_escaped", F, two, {"expect": [{"name": "From the boss",
                                                "condition": ["OR (from,contains,boss@example.org)", 'OR (subject,contains,"urgent")']}]},
     "OR, with escaped quotes")
case("filter_two_expect", F, two, {"expect": [{"name": "Work"}, {"name": "From the boss", "enabled": "no"}]}, "both filters")
case("filter_enabled_wrong", F, two, {"expect": [{"name": "From the boss", "enabled": "yes"}]}, "disabled")
case("filter_unexpect", F, two, {"unexpect": [{"name": "Work"}]}, "an unwanted filter is there")
case("filter_unexpect_absent", F, one, {"expect": [{"name": "Work"}], "unexpect": [{"name": "Old"}]}, "unwanted one absent")
case("filter_none", F, write("none.dat", HEAD), {"expect": [{"name": "Work"}]}, "no filters")
case("filter_none_nothing", F, "none.dat", {}, "no filters, nothing asked")
case("filter_no_condition", F, rules_file("nocond.dat", work[:-1]), {"expect": [{"name": "Work"}]}, "a filter without a condition is never listed")
case("filter_all", F, rules_file("all.dat", work[:-1] + [("condition", "ALL")]), {"expect": [{"condition": ["ALL"]}]}, "ALL")
case("filter_no_final_newline", F, rules_file("nonl.dat", work, end=""), {"expect": [{"condition": ["AND (subject,contains,report)"]}]},
     "the last line lacks its newline: [11:-2] cuts a character")
case("filter_no_final_newline_cut", F, "nonl.dat", {"expect": [{"condition": ["AND (subject,contains,report"]}]}, "what is left")
case("filter_crlf", F, write("crlf.dat", open(os.path.join(FILES, "two.dat")).read().replace("\n", "\r\n")),
     {"expect": [{"name": "Work"}]}, "CRLF")
case("filter_later_field", F, rules_file("later.dat", work + [("enabled", "no")]), {"expect": [{"name": "Work", "enabled": "no"}]},
     "a field after the condition still changes the listed filter")
case("filter_twice", F, rules_file("twice.dat", work + [("condition", "AND (from,is,a@b.c)")]), {"expect": [{"condition": ["AND (from,is,a@b.c)"]}]},
     "a second condition line: listed twice, the same filter")
case("filter_missing", F, None, {"expect": [{"name": "Work"}]}, "no file")
case("filter_spaces", F, rules_file("spaces.dat", work[:-1] + [("condition", "AND (subject,doesn't contain,spam offer)")]),
     {"expect": [{"condition": ["AND (subject,doesn't contain,spam offer)"]}]}, "an apostrophe and spaces")
case("filter_number_value", F, one, {"expect": [{"type": 17}]}, "a number never equals the text")

# check_thunderbird_folder(result, reference): whole folder files.
D = "check_thunderbird_folder"
mbox = "From - Mon Jan  1 00:00:00 2024\nX-Mozilla-Status: 0001\nX-Mozilla-Status2: 00000000\nSubject: hi\n\nbody\n"
other = "From - Tue Jan  2 00:00:00 2024\nX-Mozilla-Status: 0000\nSubject: other\n\nsomething else\n"
a, b = write("Inbox", mbox), write("Archive", other)
empty = write("Empty", "")
upper = write("Upper", "FROM - x\nSubject: a\n")
case("folder_same", D, a, a, "the same folder")
case("folder_other", D, a, b, "another folder: no piece of either is blank")
case("folder_empty_vs_mail", D, empty, a, "an empty folder against one with mail")
case("folder_empty_both", D, empty, write("Empty2", "\n\n"), "two empty folders")
case("folder_upper", D, upper, a, "an upper-case separator makes a blank first piece")
case("folder_upper_both", D, upper, write("Upper2", "FROM - y\n"), "both")
case("folder_upper_no_dedupe", D, write("Upper3", "FROM - FROM - x"), upper, "two blank pieces, kept apart", {"remove_duplicate": False})
case("folder_missing", D, None, a, "no result")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print(len(cases), "cases")

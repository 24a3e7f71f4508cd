"""Writes the settings parity cases: the metrics of OSWorld's Ubuntu tasks that read the
desktop's settings (check_gnome_favorite_apps, is_utc_0, check_text_enlarged on what
`gsettings`/`timedatectl` print; check_auto_saving_time on LibreOffice's
registrymodifications.xcu; check_left_panel on the accessibility tree's XML).

Left out on purpose, where ours differs from OSWorld by design: a state the agent left that
makes OSWorld's metric raise (a favourites list printed as `@as []`, which Python's eval
cannot read; a scaling factor that is no number; fewer than four lines of timedatectl; a
tree or registry that is not well-formed; a prop without a value) scores 0 here, the
agent's failure, where OSWorld's exception escapes its evaluator. A task's own rule that
lacks its field is an error on both sides, and is kept.

Run from anywhere; it writes `files/` and `cases.json` beside itself. Plain Python.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")

TIMEDATECTL = ("               Local time: Fri 2024-01-05 10:00:00 {abbr}\n"
               "           Universal time: Fri 2024-01-05 10:00:00 UTC\n"
               "                 RTC time: Fri 2024-01-05 10:00:00\n"
               "                Time zone: {zone}\n"
               "System clock synchronized: yes\n"
               "              NTP service: inactive\n"
               "          RTC in local TZ: no\n")

XCU_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
            'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n')
SAVE = "/org.openoffice.Office.Common/Save/Document"


def autosave(minutes, path=SAVE, name="AutoSaveTimeIntervall"):
    return ('<item oor:path="%s"><prop oor:name="%s" oor:op="fuse"><value>%s</value></prop></item>\n'
            % (path, name, minutes))


def xcu(*items):
    return XCU_HEAD + "".join(items) + "</oor:items>\n"


def tree(*frames):
    inner = "".join('<document-frame name="%s" st:showing="true" cp:screencoord="(0, 0)"/>' % f for f in frames)
    return ('<desktop-frame xmlns:st="uri:deskat:state.at-spi.gnome.org" '
            'xmlns:cp="uri:deskat:component.at-spi.gnome.org" name="main">\n'
            '  <application name="soffice">\n    <frame name="Untitled 1 - LibreOffice Impress">\n'
            '      <panel name="">%s</panel>\n    </frame>\n  </application>\n</desktop-frame>\n' % inner)


CASES = []


def case(name, func, result, text, expected=None, rules=None, result_as="text"):
    """`text`: the result file's content; `rules`: the expected rule (a JSON file)."""
    os.makedirs(FILES, exist_ok=True)
    with open(os.path.join(FILES, result), "w", newline="") as f:
        f.write(text)
    c = {"name": name, "func": func, "result": result, "expected": None, "options": {}}
    if result_as:
        c["result_as"] = result_as
    if rules is not None:
        c["expected"] = name + ".rules.json"
        with open(os.path.join(FILES, c["expected"]), "w") as f:
            json.dump(rules, f)
        c["expected_as"] = "json"
    else:
        c["expected_as"] = "absent"
    CASES.append(c)


FAV = {"expected": ["google-chrome.desktop", "thunderbird.desktop"]}
case("fav_same", "check_gnome_favorite_apps", "fav_same.txt", "['google-chrome.desktop', 'thunderbird.desktop']\n", rules=FAV)
case("fav_reordered", "check_gnome_favorite_apps", "fav_reordered.txt", "['thunderbird.desktop', 'google-chrome.desktop']\n", rules=FAV)
case("fav_extra", "check_gnome_favorite_apps", "fav_extra.txt", "['thunderbird.desktop', 'vim.desktop', 'google-chrome.desktop']\n", rules=FAV)
case("fav_other", "check_gnome_favorite_apps", "fav_other.txt", "['vim.desktop', 'google-chrome.desktop']\n", rules=FAV)
case("fav_duplicate", "check_gnome_favorite_apps", "fav_duplicate.txt", "['google-chrome.desktop', 'google-chrome.desktop']\n", rules=FAV)
case("fav_quoted", "check_gnome_favorite_apps", "fav_quoted.txt", "[\"it's.desktop\", 'thunderbird.desktop']\n", rules={"expected": ["it's.desktop", "thunderbird.desktop"]})
case("fav_case", "check_gnome_favorite_apps", "fav_case.txt", "['Google-Chrome.desktop', 'thunderbird.desktop']\n", rules=FAV)
case("fav_escapes", "check_gnome_favorite_apps", "fav_escapes.txt", "['\\U0001f600.desktop', 'a\\x41\\101\\q.desktop']\n",
     rules={"expected": ["\U0001f600.desktop", "aAA\\q.desktop"]})
case("fav_no_rule", "check_gnome_favorite_apps", "fav_no_rule.txt", "['google-chrome.desktop']\n", rules={"wanted": []})

for name, zone, abbr in [("utc", "Etc/UTC (UTC, +0000)", "UTC"), ("faroe", "Atlantic/Faroe (WET, +0000)", "WET"),
                         ("paris", "Europe/Paris (CET, +0100)", "CET"), ("minus", "America/New_York (EST, -0500)", "EST"),
                         ("trailing_space", "Etc/UTC (UTC, +0000) ", "UTC"), ("minus_zero", "Etc/Unknown (XYZ, -0000)", "XYZ")]:
    case("utc_" + name, "is_utc_0", "utc_%s.txt" % name, TIMEDATECTL.format(zone=zone, abbr=abbr))

case("utc_crlf", "is_utc_0", "utc_crlf.txt", TIMEDATECTL.format(zone="Etc/UTC (UTC, +0000)", abbr="UTC").replace("\n", "\r\n"))

for name, printed in [("larger", "1.25\n"), ("one", "1.0\n"), ("smaller", "0.75\n"), ("just_above", "1.0000001\n"),
                      ("integer", "2\n"), ("spaces", "  1.5  \n"), ("exponent", "1e1\n"), ("negative", "-3.0\n")]:
    case("scale_" + name, "check_text_enlarged", "scale_%s.txt" % name, printed)

case("panel_open", "check_left_panel", "panel_open.xml", tree("Slides View", "Slide"))
case("panel_closed", "check_left_panel", "panel_closed.xml", tree("Slide"))
case("panel_other_case", "check_left_panel", "panel_other_case.xml", tree("slides view"))
case("panel_none", "check_left_panel", "panel_none.xml", tree())

MIN = {"minutes": 3}
for name, text in [("three", xcu(autosave(3))), ("ten", xcu(autosave(10))), ("absent", xcu()),
                   ("last_wins", xcu(autosave(3), autosave(5))), ("last_wins_back", xcu(autosave(5), autosave(3))),
                   ("other_path", xcu(autosave(3, path="/org.openoffice.Office.Recovery/AutoSave"))),
                   ("other_name", xcu(autosave(3, name="AutoSaveTimeInterval"))),
                   ("spaces", xcu(autosave(" 3 "))), ("empty_value", xcu(autosave(""))),
                   ("empty_then_set", xcu(autosave(""), autosave(3))), ("set_then_empty", xcu(autosave(3), autosave("")))]:
    case("autosave_" + name, "check_auto_saving_time", "autosave_%s.xcu" % name, text, rules=MIN, result_as=None)
case("autosave_string_rule", "check_auto_saving_time", "autosave_string_rule.xcu", xcu(autosave(3)), rules={"minutes": "3"}, result_as=None)
case("autosave_no_rule", "check_auto_saving_time", "autosave_no_rule.xcu", xcu(autosave(3)), rules={"interval": 3}, result_as=None)

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(CASES, f, indent=1)
    f.write("\n")

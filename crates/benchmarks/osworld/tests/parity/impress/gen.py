#!/usr/bin/env python3
"""Writes files/ and cases.json: the metrics OSWorld's Impress tasks use once each
(check_presenter_console_disable, check_slide_orientation_Portrait, check_transition,
check_page_number_colors, check_strikethrough, check_slide_numbers_color,
check_image_stretch_and_center, evaluate_presentation_fill_to_rgb_distance), on decks python-pptx makes and on the same decks saved again
by LibreOffice Impress (`soffice --convert-to pptx`), as an agent's would be, then edited
part by part where a case needs it. Each case's `note` says what it probes.

Needs python-pptx and Pillow (the parity venv) and LibreOffice. LibreOffice gives its text
fields a new id at each save, so its decks differ from run to run in those ids only.

Cases left out, where guigym deliberately scores 0 what OSWorld raises on (the agent's file):
a deck with no slide size, a master with fewer than two colours or one that is not
hexadecimal, a missing file for the metrics that open it as a zip, and a slide number whose
master colour python-pptx cannot give as RGB (every deck LibreOffice saves: its master
paragraph has no colour of its own), or no slide number at all (OSWorld returns None).
"""
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

import pptx
from pptx.util import Inches
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
FIXED_ZIP_TIME = (2024, 1, 1, 0, 0, 0)
FIXED_ISO = "2024-01-01T00:00:00Z"
CASES = []


def case(name, func, result, expected, options=None, note="", expected_as=None):
    assert all(c["name"] != name for c in CASES), name
    for f in (result, expected):
        assert f is None or os.path.exists(os.path.join(FILES, f)), f
    c = {"name": name, "func": func, "result": result, "expected": expected, "options": options or {}, "note": note}
    if expected_as:
        c["expected_as"] = expected_as
    CASES.append(c)


def rewrite(source, name, patches=None):
    """Copies a deck under a new name, deterministically, applying {part: fn(text) -> text}."""
    patches = patches or {}
    with zipfile.ZipFile(os.path.join(FILES, source)) as z:
        items = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for part, data in items:
            if part in patches:
                new = patches[part](data.decode("utf-8"))
                assert new != data.decode("utf-8"), f"the patch of {part} for {name} changed nothing"
                data = new.encode("utf-8")
            if part == "docProps/core.xml":
                text = data.decode("utf-8")
                text = re.sub(r"(<dcterms:(created|modified)[^>]*>)[^<]*", r"\g<1>" + FIXED_ISO, text)
                data = text.encode("utf-8")
            info = zipfile.ZipInfo(part, date_time=FIXED_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    with open(os.path.join(FILES, name), "wb") as f:
        f.write(out.getvalue())
    return name


def png(colour, size=(40, 30)):
    b = io.BytesIO()
    Image.new("RGB", size, colour).save(b, "PNG")
    b.seek(0)
    return b


def made(name, picture=(1.0, 4.5, 2.0, 1.5), colour=(200, 30, 30), second_picture=None, picture_first=False, portrait=False):
    """python-pptx's deck: a title slide, then a slide with a title, a two-paragraph text box
    and a picture. With `picture_first` the picture is on the first slide (for the stretch
    metric, which looks there)."""
    prs = pptx.Presentation()
    if portrait:
        prs.slide_width, prs.slide_height = Inches(7.5), Inches(10)

    def add_picture(slide, at, colour):
        slide.shapes.add_picture(png(colour), Inches(at[0]), Inches(at[1]), Inches(at[2]), Inches(at[3]))

    first = prs.slides.add_slide(prs.slide_layouts[6 if picture_first else 0])
    if picture_first:
        if picture:
            add_picture(first, picture, colour)
        if second_picture:
            add_picture(first, second_picture[0], second_picture[1])
    else:
        first.shapes.title.text = "Quarterly review"
        first.placeholders[1].text = "Q3"
    second = prs.slides.add_slide(prs.slide_layouts[5])
    second.shapes.title.text = "Highlights"
    frame = second.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(2)).text_frame
    frame.paragraphs[0].add_run().text = "Revenue up"
    frame.add_paragraph().add_run().text = "Costs down"
    if not picture_first and picture:
        add_picture(second, picture, colour)
    path = os.path.join(FILES, name)
    prs.save(path)
    rewrite(name, name)
    return name


def saved_by_libreoffice(source, name):
    """The deck as LibreOffice Impress saves it again."""
    with tempfile.TemporaryDirectory() as tmp:
        profile = "file://" + os.path.join(tmp, "profile")
        subprocess.run(["soffice", f"-env:UserInstallation={profile}", "--headless", "--convert-to", "pptx",
                        "--outdir", tmp, os.path.join(FILES, source)], check=True, capture_output=True, timeout=180)
        shutil.copy(os.path.join(tmp, source), os.path.join(FILES, name))
    rewrite(name, name)
    return name


def sub(pattern, repl, count=1):
    return lambda text: re.sub(pattern, repl, text, count=count, flags=re.S)


# --------------------------------------------------------------------------- the registry
REGISTRY_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
                 'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n')
START = "/org.openoffice.Office.Impress/Misc/Start"


def item(path, prop, value):
    inner = "" if value is None else f"<value>{value}</value>" if value != "" else "<value/>"
    return f'<item oor:path="{path}"><prop oor:name="{prop}" oor:op="fuse">{inner}</prop></item>\n'


def registry(name, *items):
    with open(os.path.join(FILES, name), "w") as f:
        f.write(REGISTRY_HEAD + "".join(items) + "</oor:items>\n")
    return name


def gen_registry():
    F = "check_presenter_console_disable"
    save = item("/org.openoffice.Office.Common/Save/Document", "AutoSaveTimeIntervall", "10")
    case("console_off", F, registry("console_off.xcu", save, item(START, "EnablePresenterScreen", "false")), None, note="turned off", expected_as="absent")
    case("console_on", F, registry("console_on.xcu", item(START, "EnablePresenterScreen", "true")), None, note="turned on", expected_as="absent")
    case("console_off_capital", F, registry("console_off_capital.xcu", item(START, "EnablePresenterScreen", "False")), None, note="the value's case is folded", expected_as="absent")
    case("console_off_spaced", F, registry("console_off_spaced.xcu", item(START, "EnablePresenterScreen", " false ")), None, note="spaces are kept", expected_as="absent")
    case("console_empty_value", F, registry("console_empty_value.xcu", item(START, "EnablePresenterScreen", "")), None, note="a value without text", expected_as="absent")
    case("console_no_value", F, registry("console_no_value.xcu", item(START, "EnablePresenterScreen", None)), None, note="a prop without a value", expected_as="absent")
    case("console_first_decides", F, registry("console_first_decides.xcu", item(START, "EnablePresenterScreen", "true"), item(START, "EnablePresenterScreen", "false")), None,
         note="the first matching prop decides", expected_as="absent")
    case("console_other_prop_first", F, registry("console_other_prop_first.xcu", item(START, "EnablePresenterMode", "true"), item(START, "EnablePresenterScreen", "false")), None,
         note="another prop under the same path is passed over", expected_as="absent")
    case("console_other_path", F, registry("console_other_path.xcu", item("/org.openoffice.Office.Impress/Misc", "EnablePresenterScreen", "false")), None,
         note="the same prop under another path", expected_as="absent")
    case("console_unset", F, registry("console_unset.xcu", save), None, note="never set", expected_as="absent")
    with open(os.path.join(FILES, "console_not_xml.xcu"), "w") as f:
        f.write("<oor:items><item>")
    case("console_not_xml", F, "console_not_xml.xcu", None, note="not well-formed", expected_as="absent")
    case("console_no_file", F, None, None, note="no registry file", expected_as="absent")


# --------------------------------------------------------------------------- decks
def gen_decks():
    base = made("base.pptx")
    lo = saved_by_libreoffice(base, "lo_base.pptx")
    presentation = "ppt/presentation.xml"

    F = "check_slide_orientation_Portrait"
    portrait = rewrite(lo, "lo_portrait.pptx", {presentation: sub(r'<p:sldSz cx="\d+" cy="\d+"', '<p:sldSz cx="6858000" cy="9144000"')})
    case("portrait", F, portrait, None, note="narrower than tall", expected_as="absent")
    case("landscape", F, lo, None, note="LibreOffice's 4:3", expected_as="absent")
    case("square", F, rewrite(lo, "lo_square.pptx", {presentation: sub(r'<p:sldSz cx="\d+" cy="\d+"', '<p:sldSz cx="6858000" cy="6858000"')}), None,
         note="as wide as tall", expected_as="absent")
    case("portrait_made", F, made("made_portrait.pptx", portrait=True), None, note="python-pptx's portrait deck", expected_as="absent")
    case("orientation_no_file", F, None, None, note="no file: python-pptx's default deck, landscape", expected_as="absent")

    F = "check_transition"
    slide2 = "ppt/slides/slide2.xml"
    dissolve = rewrite(lo, "lo_dissolve.pptx", {slide2: sub(r"(<mc:Choice Requires=\"p14\"><p:transition[^>]*>)(</p:transition>)", r"\1<p:dissolve/>\2")})
    both = rewrite(lo, "lo_dissolve_both.pptx", {slide2: sub(r"(<p:transition[^>]*>)(</p:transition>)", r"\1<p:dissolve/>\2", count=2)})
    vortex = rewrite(lo, "lo_vortex.pptx", {slide2: sub(r"(<mc:Choice Requires=\"p14\"><p:transition[^>]*>)(</p:transition>)", r'\1<p14:vortex dir="r"/>\2')})
    plain = rewrite(made("made_plain.pptx"), "made_fade.pptx", {slide2: sub(r"</p:cSld>", r'</p:cSld><p:transition><p:fade thruBlk="1"/></p:transition>')})
    rule = lambda idx, kind: {"slide_idx": idx, "transition_type": kind}
    for name, r in [("rule_dissolve_1.json", rule(1, "dissolve")), ("rule_dissolve_0.json", rule(0, "dissolve")), ("rule_fade_1.json", rule(1, "fade")),
                    ("rule_vortex_1.json", rule(1, "vortex")), ("rule_fade_5.json", rule(5, "fade")), ("rule_fade_minus.json", rule(-1, "fade")),
                    ("rule_fade_float.json", rule(1.0, "fade")), ("rule_fade_true.json", rule(True, "fade")), ("rule_no_type.json", {"slide_idx": 1})]:
        with open(os.path.join(FILES, name), "w") as f:
            json.dump(r, f)
    case("dissolve", F, dissolve, "rule_dissolve_1.json", note="LibreOffice's transition inside mc:Choice", expected_as="json")
    case("dissolve_both", F, both, "rule_dissolve_1.json", note="in the choice and the fallback", expected_as="json")
    case("dissolve_other_slide", F, dissolve, "rule_dissolve_0.json", note="the first slide has an empty transition", expected_as="json")
    case("dissolve_none", F, lo, "rule_dissolve_1.json", note="LibreOffice's empty transitions", expected_as="json")
    case("dissolve_not_fade", F, dissolve, "rule_fade_1.json", note="another kind", expected_as="json")
    case("vortex_p14", F, vortex, "rule_vortex_1.json", note="a p14 element is not p:vortex", expected_as="json")
    case("fade_made", F, plain, "rule_fade_1.json", note="a transition without mc", expected_as="json")
    case("fade_no_such_slide", F, plain, "rule_fade_5.json", note="slide6.xml is not there", expected_as="json")
    case("fade_negative", F, plain, "rule_fade_minus.json", note="slide0.xml is not there", expected_as="json")
    case("fade_float", F, plain, "rule_fade_float.json", note="slide2.0.xml is not there", expected_as="json")
    case("fade_bool", F, plain, "rule_fade_true.json", note="True + 1 is slide2.xml", expected_as="json")
    case("transition_rule_missing", F, plain, "rule_no_type.json", note="rules without a transition type", expected_as="json")

    F = "check_page_number_colors"
    master = "ppt/slideMasters/slideMaster1.xml"

    def second_to_last(val):
        def patch(text):
            spans = [m.span(1) for m in re.finditer(r'<a:solidFill>(?:(?!</a:solidFill>).)*?<a:srgbClr val="(\w+)"', text, flags=re.S)]
            a, b = spans[-2]
            return text[:a] + val + text[b:]
        return patch

    colours = {}
    for val in ["FF0000", "0000FF", "010101", "F00000", "0F0F0F", "00F0F0"]:
        colours[val] = rewrite(lo, f"lo_master_{val}.pptx", {master: second_to_last(val)})
    for colour in ["red", "blue", "green", "black", "purple"]:
        with open(os.path.join(FILES, f"rule_{colour}.json"), "w") as f:
            json.dump({"color": colour}, f)
    case("numbers_red", F, colours["FF0000"], "rule_red.json", note="FF0000 read as F0, 00, 0", expected_as="json")
    case("numbers_red_vs_blue", F, colours["FF0000"], "rule_blue.json", note="not blue", expected_as="json")
    case("numbers_blue_as_written", F, colours["0000FF"], "rule_blue.json", note="0000FF reads as 00, 0F, F: not blue", expected_as="json")
    case("numbers_blue_shifted", F, colours["00F0F0"], "rule_blue.json", note="00F0F0 reads as 0F, 0F, 0: not blue either", expected_as="json")
    case("numbers_green", F, colours["0F0F0F"], "rule_green.json", note="0F0F0F reads as F0, F0, F", expected_as="json")
    case("numbers_red_shifted", F, colours["F00000"], "rule_red.json", note="F00000 reads as 00, 00, 0: not red", expected_as="json")
    case("numbers_black", F, colours["010101"], "rule_black.json", note="010101 reads as 10, 10, 1", expected_as="json")
    case("numbers_black_default", F, lo, "rule_black.json", note="LibreOffice's own master", expected_as="json")
    case("numbers_red_default", F, lo, "rule_red.json", note="LibreOffice's own master is not red", expected_as="json")
    case("numbers_unknown_colour", F, lo, "rule_purple.json", note="a colour OSWorld does not know passes", expected_as="json")

    F = "check_strikethrough"
    rules = {
        "strike_box_both.json": {"slide_index_s": [1], "shape_index_s": [1], "paragraph_index_s": [0, 1]},
        "strike_box_first.json": {"slide_index_s": [1], "shape_index_s": [1], "paragraph_index_s": [0]},
        "strike_title.json": {"slide_index_s": [1], "shape_index_s": [0], "paragraph_index_s": [0]},
        "strike_negative.json": {"slide_index_s": [-1], "shape_index_s": [-2], "paragraph_index_s": [-1]},
        "strike_picture.json": {"slide_index_s": [1], "shape_index_s": [2], "paragraph_index_s": [0]},
        "strike_out_of_range.json": {"slide_index_s": [1], "shape_index_s": [1], "paragraph_index_s": [2]},
        "strike_empty.json": {"slide_index_s": [], "shape_index_s": [1], "paragraph_index_s": [0]},
        "strike_string_index.json": {"slide_index_s": ["1"], "shape_index_s": [1], "paragraph_index_s": [0]},
        "strike_string_list.json": {"slide_index_s": [1], "shape_index_s": [1], "paragraph_index_s": "0"},
        "strike_no_paragraphs_key.json": {"slide_index_s": [1], "shape_index_s": [1]},
        "strike_no_slide.json": {"slide_index_s": [7], "shape_index_s": [1], "paragraph_index_s": [0]},
    }
    for name, r in rules.items():
        with open(os.path.join(FILES, name), "w") as f:
            json.dump(r, f)
    made_plain = "made_plain.pptx"
    first_struck = rewrite(made_plain, "made_strike_first.pptx", {slide2: sub(r"<a:r><a:t>Revenue up", r'<a:r><a:rPr lang="en-US" strike="sngStrike"/><a:t>Revenue up')})
    both_struck = rewrite(first_struck, "made_strike_both.pptx", {slide2: sub(r"<a:r><a:t>Costs down", r'<a:r><a:rPr lang="en-US" strike="dblStrike"/><a:t>Costs down')})
    case("strike_lo_always", F, lo, "strike_box_both.json", note="LibreOffice writes strike=noStrike on every run: OSWorld counts it", expected_as="json")
    case("strike_made_none", F, made_plain, "strike_box_first.json", note="no run properties at all", expected_as="json")
    case("strike_made_first", F, first_struck, "strike_box_first.json", note="the first paragraph struck", expected_as="json")
    case("strike_made_first_not_second", F, first_struck, "strike_box_both.json", note="the second paragraph is not", expected_as="json")
    case("strike_made_both", F, both_struck, "strike_box_both.json", note="both struck", expected_as="json")
    case("strike_made_title", F, both_struck, "strike_title.json", note="the title is not", expected_as="json")
    case("strike_made_negative", F, both_struck, "strike_negative.json", note="negative indices count from the end", expected_as="json")
    case("strike_picture", F, both_struck, "strike_picture.json", note="a picture has no text frame", expected_as="json")
    case("strike_out_of_range", F, both_struck, "strike_out_of_range.json", note="no third paragraph", expected_as="json")
    case("strike_no_slide", F, both_struck, "strike_no_slide.json", note="no eighth slide", expected_as="json")
    case("strike_empty_lists", F, made_plain, "strike_empty.json", note="no slide to look at", expected_as="json")
    case("strike_string_index", F, both_struck, "strike_string_index.json", note="an index that is a string", expected_as="json")
    case("strike_string_list", F, both_struck, "strike_string_list.json", note="a string iterates as characters", expected_as="json")
    case("strike_rule_missing", F, both_struck, "strike_no_paragraphs_key.json", note="rules without paragraph indices", expected_as="json")
    case("strike_no_file", F, None, "strike_box_first.json", note="no file: python-pptx's default deck has no slides", expected_as="json")
    case("strike_no_file_no_slides", F, None, "strike_empty.json", note="no file, no slide asked for", expected_as="json")

    F = "check_slide_numbers_color"
    # A slide number on the second slide (its text all digits), and the master's <number>
    # placeholder given a colour of its own in its first paragraph.
    numbered = rewrite(made_plain, "made_numbered.pptx", {slide2: sub(r"<a:t>Highlights</a:t>", "<a:t>2</a:t>")})
    numbered_lo = rewrite(lo, "lo_numbered.pptx", {slide2: sub(r"<a:t>Highlights</a:t>", "<a:t>2</a:t>")})

    def number_colour(fill):
        return sub(r'(<a:p><a:pPr indent="0" algn="r"><a:lnSpc><a:spcPct val="100000"/></a:lnSpc><a:buNone/>)(</a:pPr><a:fld[^>]*type="slidenum")',
                   r"\1<a:defRPr>" + fill + r"</a:defRPr>\2")

    red = rewrite(numbered_lo, "lo_numbered_red.pptx", {master: number_colour('<a:solidFill><a:srgbClr val="FF0000"/></a:solidFill>')})
    red_lower = rewrite(numbered_lo, "lo_numbered_red_lower.pptx", {master: number_colour('<a:solidFill><a:srgbClr val="ff0000"/></a:solidFill>')})
    red_unnumbered = rewrite(lo, "lo_unnumbered_red.pptx", {master: number_colour('<a:solidFill><a:srgbClr val="FF0000"/></a:solidFill>')})
    blue = rewrite(numbered_lo, "lo_numbered_blue.pptx", {master: number_colour('<a:solidFill><a:srgbClr val="0000FF"/></a:solidFill>')})
    case("slide_numbers_red", F, red, None, note="the master's number in red", expected_as="absent")
    case("slide_numbers_red_lower", F, red_lower, None, note="written in lower case", expected_as="absent")
    case("slide_numbers_blue", F, blue, None, note="in blue", expected_as="absent")
    case("slide_numbers_made", F, numbered, None, note="python-pptx's master shows no <number> placeholder", expected_as="absent")

    F = "check_image_stretch_and_center"
    original = made("stretch_original.pptx", picture_first=True)
    full = (0.0, 0.0, 10.0, 7.5)
    case("stretched", F, made("stretch_full.pptx", picture=full, picture_first=True), original, note="over the whole slide")
    case("stretched_nearly", F, made("stretch_nearly.pptx", picture=(0.2, 0.2, 9.6, 7.1), picture_first=True), original, note="within half an inch")
    case("stretched_off_centre", F, made("stretch_off_centre.pptx", picture=(0.6, 0.0, 10.0, 7.5), picture_first=True), original, note="shifted by 0.6 in")
    case("stretched_too_small", F, made("stretch_small.pptx", picture=(0.5, 0.5, 9.0, 6.5), picture_first=True), original, note="one inch short")
    case("stretched_other_image", F, made("stretch_other.pptx", picture=full, colour=(30, 30, 200), picture_first=True), original, note="another picture")
    case("stretched_unchanged", F, original, original, note="left as it was")
    case("stretched_last_copy", F, made("stretch_two.pptx", picture=full, second_picture=((1.0, 1.0, 2.0, 1.5), (200, 30, 30)), picture_first=True), original,
         note="two copies: the last decides")
    case("stretched_first_copy", F, made("stretch_two_first.pptx", picture=(1.0, 1.0, 2.0, 1.5), second_picture=(full, (200, 30, 30)), picture_first=True), original,
         note="the stretched copy last")
    case("stretched_no_picture", F, made("stretch_none.pptx", picture=None, picture_first=True), original, note="the picture deleted")
    case("stretched_original_has_none", F, original, "stretch_none.pptx", note="the original has no picture")
    case("stretched_by_libreoffice", F, saved_by_libreoffice("stretch_full.pptx", "lo_stretch_full.pptx"), original, note="saved again by LibreOffice")


def gen_backgrounds():
    F = "evaluate_presentation_fill_to_rgb_distance"
    lo = "lo_base.pptx"
    slide1, slide2, master1 = "ppt/slides/slide1.xml", "ppt/slides/slide2.xml", "ppt/slideMasters/slideMaster1.xml"

    def bg(fill):
        return sub(r"<p:cSld(\s[^>]*)?>", lambda m: m.group(0) + "<p:bg><p:bgPr>" + fill + "<a:effectLst/></p:bgPr></p:bg>")

    def solid(val, kind="srgbClr"):
        return f'<a:solidFill><a:{kind} val="{val}"/></a:solidFill>'

    both_blue = rewrite(lo, "bg_both_blue.pptx", {slide1: bg(solid("0000FF")), slide2: bg(solid("0000ff"))})
    one_blue = rewrite(lo, "bg_one_blue.pptx", {slide1: bg(solid("0000FF"))})
    near_blue = rewrite(lo, "bg_near_blue.pptx", {slide1: bg(solid("1020E0")), slide2: bg(solid("0000F0"))})
    scheme = rewrite(lo, "bg_scheme.pptx", {slide1: bg(solid("accent1", "schemeClr")), slide2: bg(solid("0000FF"))})
    gradient = rewrite(lo, "bg_gradient.pptx", {slide1: bg('<a:gradFill><a:gsLst><a:gs pos="0"><a:srgbClr val="0000FF"/></a:gs>'
                                                            '<a:gs pos="100000"><a:srgbClr val="0000FF"/></a:gs></a:gsLst></a:gradFill>'),
                                                  slide2: bg(solid("0000FF"))})
    master_blue = rewrite(lo, "bg_master_blue.pptx", {master1: sub(r'<p:bg><p:bgPr><a:solidFill><a:srgbClr val="ffffff"/>', '<p:bg><p:bgPr><a:solidFill><a:srgbClr val="0000ff"/>')})
    no_fill = rewrite(master_blue, "bg_no_fill_master_blue.pptx", {slide1: bg("<a:noFill/>")})
    theme_ref = rewrite(master_blue, "bg_theme_ref.pptx", {slide1: sub(r"<p:cSld(\s[^>]*)?>", lambda m: m.group(0) + '<p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg>')})
    empty_bgpr = rewrite(lo, "bg_empty_bgpr.pptx", {slide1: bg(""), slide2: bg(solid("0000FF"))})
    bad_hex = rewrite(lo, "bg_bad_hex.pptx", {slide1: bg(solid("00G0FF")), slide2: bg(solid("0000FF"))})
    long_hex = rewrite(lo, "bg_long_hex.pptx", {slide1: bg(solid("0000FFF")), slide2: bg(solid("0000FF"))})
    made_deck = made("made_plain.pptx") if not os.path.exists(os.path.join(FILES, "made_plain.pptx")) else "made_plain.pptx"
    for name, r in [("bg_blue.json", {"rgb": [0, 0, 255]}), ("bg_blue_from_white.json", {"rgb": [0, 0, 255], "original_rgb": [255, 255, 255]}),
                    ("bg_blue_from_blue.json", {"rgb": [0, 0, 255], "original_rgb": [0, 0, 255]}), ("bg_float.json", {"rgb": [0, 0, 254.5]}),
                    ("bg_no_rgb.json", {"original_rgb": [0, 0, 0]}), ("bg_original_null.json", {"rgb": [0, 0, 255], "original_rgb": None}), ("bg_two_numbers.json", {"rgb": [0, 255]})]:
        with open(os.path.join(FILES, name), "w") as f:
            json.dump(r, f)
    case("bg_both_blue", F, both_blue, "bg_blue.json", note="every slide blue, in either case of hex", expected_as="json")
    case("bg_one_blue", F, one_blue, "bg_blue.json", note="one of two; the other takes the master's white", expected_as="json")
    case("bg_near_blue", F, near_blue, "bg_blue.json", note="near blue: a fraction", expected_as="json")
    case("bg_white", F, lo, "bg_blue.json", note="LibreOffice's white master", expected_as="json")
    case("bg_white_from_white", F, lo, "bg_blue_from_white.json", note="still the original colour", expected_as="json")
    case("bg_blue_from_blue", F, both_blue, "bg_blue_from_blue.json", note="the original colour was blue already", expected_as="json")
    case("bg_scheme", F, scheme, "bg_blue.json", note="a theme colour has no RGB for python-pptx", expected_as="json")
    case("bg_gradient", F, gradient, "bg_blue.json", note="a gradient is not solid", expected_as="json")
    case("bg_master_blue", F, master_blue, "bg_blue.json", note="slides without a background take the master's", expected_as="json")
    case("bg_no_fill_master_blue", F, no_fill, "bg_blue.json", note="no fill takes the master's", expected_as="json")
    case("bg_theme_ref", F, theme_ref, "bg_blue.json", note="a theme reference reads as no fill", expected_as="json")
    case("bg_empty_bgpr", F, empty_bgpr, "bg_blue.json", note="background properties without a fill", expected_as="json")
    case("bg_bad_hex", F, bad_hex, "bg_blue.json", note="a colour that is not hexadecimal", expected_as="json")
    case("bg_long_hex", F, long_hex, "bg_blue.json", note="seven digits: blue past 255", expected_as="json")
    case("bg_float_rule", F, near_blue, "bg_float.json", note="a rule colour with a fraction", expected_as="json")
    case("bg_made", F, made_deck, "bg_blue.json", note="python-pptx's deck: a theme background", expected_as="json")
    case("bg_original_null", F, one_blue, "bg_original_null.json", note="original_rgb null is as if absent", expected_as="json")
    case("bg_no_rgb", F, both_blue, "bg_no_rgb.json", note="rules without rgb", expected_as="json")
    case("bg_two_numbers", F, both_blue, "bg_two_numbers.json", note="rgb of two numbers", expected_as="json")
    case("bg_two_numbers_unused", F, gradient, "bg_two_numbers.json", note="rgb of two numbers, read for the solid slide", expected_as="json")


def main():
    if os.path.isdir(FILES):
        shutil.rmtree(FILES)
    os.makedirs(FILES)
    gen_registry()
    gen_decks()
    gen_backgrounds()
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=1)
        f.write("\n")
    print(f"{len(CASES)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()

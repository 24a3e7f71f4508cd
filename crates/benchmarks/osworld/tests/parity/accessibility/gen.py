"""Writes the accessibility-tree parity cases: trees (XML as OSWorld's `/accessibility` gives
them, some pretty-printed) and rule files, judged by `check_accessibility_tree`.

Run from anywhere; it writes `files/` and `cases.json` beside itself. Plain Python, no
dependencies; the output is deterministic.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
NS = ('xmlns:st="https://accessibility.ubuntu.example.org/ns/state" '
      'xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes" '
      'xmlns:cp="https://accessibility.ubuntu.example.org/ns/component"')

EDITOR = (
    '<desktop-frame %s name="main">'
    '<application name="mousepad">'
    '<frame name="notes.txt - Mousepad" st:active="true" st:showing="true" cp:screencoord="(0, 0)" cp:size="(800, 600)">'
    '<menu-bar name=""><menu name="File" st:showing="true"/><menu name="Edit"/><menu name="Help"/></menu-bar>'
    '<scroll-pane name=""><text name="" st:editable="true" st:focused="true" st:multi_line="true">Agenda\nMeeting at noon</text></scroll-pane>'
    '<push-button name="Save" attr:id="save-button" attr:class="primary wide"/>'
    '<label name="Status">Saved</label>'
    '</frame>'
    '</application>'
    '<application name="pcmanfm">'
    '<frame name="Documents" st:showing="true">'
    '<list name="Files"><list-item name="a.txt" st:selected="true">a.txt</list-item><list-item name="b.txt">b.txt</list-item></list>'
    '</frame>'
    '</application>'
    '</desktop-frame>'
) % NS

# The same tree pretty-printed: a parent's text is then the whitespace before its first child.
PRETTY = EDITOR.replace("><", ">\n  <")

CASES = [
    # name, tree, rules
    ("exact_text", "editor", [{"selectors": ["text[st|focused=\"true\"]"], "text": "Agenda\nMeeting at noon", "exact": True}]),
    ("exact_text_near_miss", "editor", [{"selectors": ["text[st|focused=\"true\"]"], "text": "Agenda\nMeeting at noon.", "exact": True}]),
    ("fuzzy_text", "editor", [{"selectors": ["text"], "text": "Agenda\nmeeting at Noon", "exact": False}]),
    ("fuzzy_text_far", "editor", [{"selectors": ["text"], "text": "Something else entirely", "exact": False}]),
    ("no_element", "editor", [{"selectors": ["check-box"]}]),
    ("selected_only", "editor", [{"selectors": ["list-item"]}]),
    ("application_scope", "editor", [{"selectors": ["application[name=mousepad] list-item"]}]),
    ("application_scope_other", "editor", [{"selectors": ["application[name=\"pcmanfm\"] list-item[st|selected=true]"], "text": "a.txt", "exact": True}]),
    ("child_combinator_miss", "editor", [{"selectors": ["frame > text"]}]),
    ("child_combinator_hit", "editor", [{"selectors": ["frame > scroll-pane > text"], "text": "Agenda\nMeeting at noon", "exact": True}]),
    ("first_child", "editor", [{"selectors": ["menu-bar > menu:first-child"]}, {"selectors": ["menu:first-child[name=File]"]}]),
    ("last_child_miss", "editor", [{"selectors": ["menu:last-child[name=Edit]"]}]),
    ("nth_child", "editor", [{"selectors": ["menu:nth-child(2)[name=Edit]"]}]),
    ("attr_namespaced", "editor", [{"selectors": ["push-button[attr|id=\"save-button\"]"]}]),
    ("attr_unprefixed_miss", "editor", [{"selectors": ["push-button[id=\"save-button\"]"]}]),
    ("attr_word", "editor", [{"selectors": ["push-button[attr|class~=wide]"]}]),
    ("attr_prefix_suffix", "editor", [{"selectors": ["frame[name^=\"notes\"][name$=\"Mousepad\"]"]}]),
    ("attr_substring_miss", "editor", [{"selectors": ["frame[name*=\"Writer\"]"]}]),
    ("attr_presence", "editor", [{"selectors": ["text[st|multi_line]"]}]),
    ("attr_not_equal", "editor", [{"selectors": ["menu[name!=File][name!=Edit]"], "text": None, "exact": True}]),
    ("two_rules_one_fails", "editor", [{"selectors": ["text"]}, {"selectors": ["menu[name=View]"]}]),
    ("two_rules_fuzzy_product", "editor", [{"selectors": ["label"], "text": "Save", "exact": False}, {"selectors": ["list-item"], "text": "a.tx", "exact": False}]),
    ("selector_list", "editor", [{"selectors": ["check-box", "label[name=Status]"], "text": "Saved", "exact": True}]),
    ("no_text_exact_none", "editor", [{"selectors": ["menu[name=Help]"], "text": None, "exact": True}]),
    ("no_text_vs_text", "editor", [{"selectors": ["menu[name=Help]"], "text": "Help", "exact": True}]),
    ("universal_descendant", "editor", [{"selectors": ["desktop-frame * label"]}]),
    ("contains", "editor", [{"selectors": ["list:contains(\"b.txt\")"]}]),
    ("pretty_parent_text", "pretty", [{"selectors": ["scroll-pane"], "text": "\n  ", "exact": True}]),
    ("pretty_leaf_text", "pretty", [{"selectors": ["text"], "text": "Agenda\nMeeting at noon", "exact": True}]),
    ("pretty_fuzzy_parent", "pretty", [{"selectors": ["frame"], "text": "x", "exact": False}]),
    ("exact_truthy_number", "editor", [{"selectors": ["label"], "text": "Saved", "exact": 1}]),
    ("exact_falsy_string", "editor", [{"selectors": ["label"], "text": "Saved!", "exact": ""}]),
]


# Edge cases from a differential run against OSWorld's metric (`edges.py`). Left out, where our
# metric deliberately differs: selectors it refuses with an error (namespaced or colon types, the
# `i` flag, sibling combinators, :not, xpath, a rule without selectors), and trees our getter
# never writes (comments or processing instructions inside a text, a DTD, a default namespace,
# prefixed elements) or that are not well-formed (OSWorld raises; ours scores 0).
LEFT_OUT = {
    "esc_colon_tag", "esc_colon_tag2", "ns_tag", "ns_tag_attr", "case_flag", "sibling", "not",
    "selectors_string", "xpath", "no_sel_after_zero",
    "text_comment_exact", "text_comment_full", "text_pi_exact", "text_pi_fuzzy", "xml_decl_enc",
    "xml_doctype_entity", "xml_default_ns", "xml_prefixed_elem", "xml_undeclared_prefix",
    "xml_extra_root", "xml_trailing_junk", "xml_broken", "xml_empty", "xml_undefined_entity",
    "xml_dup_attr", "xml_lt_in_attr", "xml_amp_raw", "xml_text_then_comment_only",
}


def main():
    os.makedirs(FILES, exist_ok=True)
    for name, text in [("editor.xml", EDITOR), ("pretty.xml", PRETTY)]:
        with open(os.path.join(FILES, name), "w") as f:
            f.write(text)
    cases = []
    for name, tree, rules in CASES:
        rules_file = "%s.rules.json" % name
        with open(os.path.join(FILES, rules_file), "w") as f:
            json.dump(rules, f, indent=1)
            f.write("\n")
        cases.append({"name": name, "func": "check_accessibility_tree", "result": tree + ".xml", "expected": rules_file,
                      "options": {}, "result_as": "text", "expected_as": "json"})
    import hashlib
    import sys
    sys.path.insert(0, HERE)
    import edges
    for name, xml, rules in edges.EDGES:
        if name in LEFT_OUT:
            continue
        tree = "edge-%s.xml" % hashlib.sha1(xml.encode()).hexdigest()[:10]
        with open(os.path.join(FILES, tree), "w", encoding="utf-8", newline="") as f:
            f.write(xml)
        rules_file = "edge_%s.rules.json" % name
        with open(os.path.join(FILES, rules_file), "w") as f:
            json.dump(rules, f, indent=1)
            f.write("\n")
        cases.append({"name": "edge_" + name, "func": "check_accessibility_tree", "result": tree, "expected": rules_file,
                      "options": {}, "result_as": "text", "expected_as": "json"})
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

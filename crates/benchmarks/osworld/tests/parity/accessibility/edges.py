"""Edge cases for check_accessibility_tree (selector syntax, texts, XML oddities), written
for a differential run against OSWorld's metric; gen.py turns them into fixture cases."""
U = "https://accessibility.ubuntu.example.org/ns/"
NS = 'xmlns:st="%sstate" xmlns:attr="%sattributes" xmlns:cp="%scomponent"' % (U, U, U)

BASE = ('<desktop-frame %s name="main"><application name="mousepad">'
        '<frame name="notes.txt - Mousepad" st:showing="true" cp:screencoord="(0, 0)">'
        '<menu-bar name=""><menu name="File" st:showing="true"/><menu name="Edit"/><menu name="Help"/></menu-bar>'
        '<scroll-pane name=""><text name="" st:focused="true" st:multi_line="true">Agenda\nMeeting at noon</text></scroll-pane>'
        '<push-button name="Save" attr:id="save-button" attr:class="primary wide" id="save-button" class="primary wide" data-role="ok-now"/>'
        '<label name="Status">Saved</label>'
        '<label name="Café">caf&#233; &amp; bar</label>'
        '<panel name="mix">Head<label name="inner">in</label>tail</panel>'
        '<label name="cdata"><![CDATA[a<b>&c]]></label>'
        '<label name="comment">abc<!-- note -->def</label>'
        '<label name="pi">abc<?php x?>def</label>'
        '<label name="Upper">HELLO World</label>'
        '</frame></application></desktop-frame>') % NS


def r(*sels, **kw):
    d = {"selectors": list(sels)}
    d.update(kw)
    return [d]


EDGES = []


def e(name, rules, xml=BASE):
    EDGES.append((name, xml, rules))


# selector-syntax edges
e("esc_hex_string", r('menu[name="\\46 ile"]'))
e("esc_hex_ident", r('menu[name=\\46 ile]'))
e("esc_hex_tag", r('\\6d enu[name=File]'))
e("esc_plain", r('push\\-button'))
e("esc_colon_tag", r('st\\:text'))
e("esc_colon_tag2", r('a\\:text'))
e("esc_newline_string", r('menu[name="Fi\\\nle"]'))
e("ws_in_brackets", r('menu[ name = "File" ]'))
e("ws_combinator", r('menu-bar   >   menu'))
e("ws_tab_newline", r('frame\t\n>\nmenu-bar\tmenu'))
e("ws_leading_trailing", r('  menu  '))
e("nbsp_leading", r('\u00a0menu'))
e("nbsp_descendant", r('menu-bar \u00a0menu'))
e("ideographic_space", r('menu-bar\u3000menu'))
e("vt_space", r('menu-bar\x0bmenu'))
e("upper_tag", r('MENU'))
e("upper_pseudo", r('menu:FIRST-CHILD'))
e("attr_dash", r('push-button[data-role|="ok"]'))
e("attr_underscore", r('text[st|multi_line="true"]'))
e("empty_value_eq", r('menu-bar[name=""]'))
e("empty_value_eq_miss", r('menu[name=""]'))
e("tilde_empty", r('push-button[class~=""]'))
e("tilde_space", r('push-button[class~="primary wide"]'))
e("caret_empty", r('push-button[name^=""]'))
e("dollar_empty", r('push-button[name$=""]'))
e("star_empty", r('push-button[name*=""]'))
e("pipe_eq", r('push-button[data-role|=ok]'))
e("pipe_eq_full", r('push-button[data-role|="ok-now"]'))
e("ne_missing", r('menu-bar[st|showing!="true"]'))
e("starts_gt", r('> menu'))
e("trailing_comma", r('menu,'))
e("trailing_comma_list", r('menu', ''))
e("empty_list", r())
e("dangling_child", r('menu-bar >'))
e("double_child", r('frame >> menu'))
e("double_child_sp", r('frame > > menu'))
e("child_then_comma", r('menu-bar > , label'))
e("number_value", r('menu[name=2]'))
e("number_tag", r('2menu'))
e("dashdash_value", r('menu[name=--x]'))
e("unknown_prefix", r('menu[foo|bar]'))
e("unknown_prefix_ne", r('menu[foo|bar!=x]'))
e("xmlns_attr", r('desktop-frame[xmlns|st]'))
e("any_ns_attr", r('text[*|focused]'))
e("any_ns_tag", r('*|text'))
e("ns_tag", r('st|text'))
e("ns_tag_attr", r('attr|push-button'))
e("hash_class", r('#save-button.primary'))
e("hash_class_miss", r('#save-button.prim'))
e("class_attrns", r('push-button[attr|class~=wide]'))
e("root_first_child", r('desktop-frame:first-child'))
e("root_last_child", r('desktop-frame:last-child'))
e("root_nth1", r('desktop-frame:nth-child(1)'))
e("star_first_child_text", [{"selectors": ['*:first-child'], "text": "Agenda\nMeeting at noon", "exact": True}])
e("nth0", r('menu:nth-child(0)'))
e("nth_ws", r('menu:nth-child( 2 )[name=Edit]'))
e("nth_plus", r('menu:nth-child(+2)'))
e("nth_lead0", r('menu:nth-child(02)[name=Edit]'))
e("contains_case", r('label:contains("hello")'))
e("contains_case2", r('label:contains(saved)'))
e("contains_exact_case", r('label:contains("HELLO")'))
e("contains_desc", r('panel:contains("intail")'))
e("contains_unicode", r('label:contains("café")'))
e("contains_upper_unicode", r('label:contains("CAFÉ")'))
e("contains_comment", r('label:contains("note")'))
e("contains_cdata", r('label:contains("<b>")'))
e("unicode_value", r('label[name=Café]'))
e("unicode_value_q", r("label[name='Café']"))
e("quote_in_value", r('label[name="Ca\\"fé"]'))
e("single_quote", r("menu[name='File']"))
e("case_flag", r('menu[name=file i]'))
e("sibling", r('menu + menu'))
e("not", r('menu:not([name=File])'))
e("selectors_string", [{"selectors": "menu"}])
e("xpath", [{"xpath": "//menu"}])
e("no_sel_after_zero", [{"selectors": ["nothing"]}, {"foo": 1}])

# text edges
e("text_tail_exact", [{"selectors": ['panel[name=mix]'], "text": "Head", "exact": True}])
e("text_tail_full", [{"selectors": ['panel[name=mix]'], "text": "Headtail", "exact": True}])
e("text_comment_exact", [{"selectors": ['label[name=comment]'], "text": "abc", "exact": True}])
e("text_comment_full", [{"selectors": ['label[name=comment]'], "text": "abcdef", "exact": True}])
e("text_pi_exact", [{"selectors": ['label[name=pi]'], "text": "abc", "exact": True}])
e("text_pi_fuzzy", [{"selectors": ['label[name=pi]'], "text": "abc", "exact": False}])
e("text_cdata", [{"selectors": ['label[name=cdata]'], "text": "a<b>&c", "exact": True}])
e("text_entities", [{"selectors": ['label[name=Café]'], "text": "café & bar", "exact": True}])
e("text_null_noext", [{"selectors": ['menu[name=File]'], "text": None, "exact": True}])
e("text_null_fuzzy", [{"selectors": ['menu[name=File]'], "text": None, "exact": False}])
e("text_number", [{"selectors": ['menu[name=File]'], "text": 5, "exact": True}])
e("text_number_fuzzy", [{"selectors": ['label[name=Status]'], "text": 5, "exact": False}])
e("text_list", [{"selectors": ['menu[name=File]'], "text": ["x"], "exact": True}])
e("text_empty_on_empty", [{"selectors": ['menu[name=File]'], "text": "", "exact": True}])
e("text_empty_fuzzy", [{"selectors": ['label[name=Status]'], "text": "", "exact": False}])
for v in [0, 1, "", "yes", "false", None, [], {}, 0.0]:
    e("exact_%s" % (repr(v).replace('"', "").replace("'", "q") or "empty"),
      [{"selectors": ['label[name=Status]'], "text": "saved", "exact": v}])
e("text_no_exact", [{"selectors": ['label[name=Status]'], "text": "Saved"}])
e("fuzzy_multi_best", [{"selectors": ['label'], "text": "Savd", "exact": False}])
e("fuzzy_astral", [{"selectors": ['label[name=Status]'], "text": "Sav\U0001F600ed", "exact": False}])

# XML edges
SIMPLE = '<desktop-frame %s><application name="a"><label name="L">%s</label></application></desktop-frame>'
TL = [{"selectors": ["label"], "text": "x\ny", "exact": True}]
e("xml_decl", r('label'), '<?xml version="1.0"?>' + SIMPLE % (NS, "x"))
e("xml_decl_enc", r('label'), '<?xml version="1.0" encoding="UTF-8"?>' + SIMPLE % (NS, "x"))
e("xml_doctype", r('label'), '<!DOCTYPE desktop-frame>' + SIMPLE % (NS, "x"))
e("xml_doctype_entity", [{"selectors": ["label"], "text": "ent", "exact": True}],
  '<!DOCTYPE desktop-frame [<!ENTITY e "ent">]>' + SIMPLE % (NS, "&e;"))
e("xml_leading_comment", r('label'), '<!-- hi -->\n' + SIMPLE % (NS, "x"))
e("xml_leading_pi", r('label'), '<?xml-stylesheet href="a"?>' + SIMPLE % (NS, "x"))
e("xml_crlf", TL, SIMPLE % (NS, "x\r\ny"))
e("xml_cr", TL, SIMPLE % (NS, "x\ry"))
e("xml_charref_cr", [{"selectors": ["label"], "text": "x\ry", "exact": True}], SIMPLE % (NS, "x&#13;y"))
e("xml_bom", r('label'), '\ufeff' + SIMPLE % (NS, "x"))
e("xml_default_ns", r('label'),
  '<desktop-frame xmlns="urn:x" %s><application name="a"><label name="L">x</label></application></desktop-frame>' % NS)
e("xml_default_ns_attr", r('[xmlns]'),
  '<desktop-frame xmlns="urn:x" %s><application name="a"><label name="L">x</label></application></desktop-frame>' % NS)
e("xml_prefixed_elem", r('label'),
  '<desktop-frame %s><application name="a"><st:label name="L">x</st:label></application></desktop-frame>' % NS)
e("xml_other_prefix", r('label[st|focused]'),
  '<desktop-frame xmlns:state="%sstate"><application name="a"><label name="L" state:focused="true">x</label></application></desktop-frame>' % U)
e("xml_st_wrong_uri", r('label[st|focused]'),
  '<desktop-frame xmlns:st="urn:other"><application name="a"><label name="L" st:focused="true">x</label></application></desktop-frame>')
e("xml_undeclared_prefix", r('label'),
  '<desktop-frame><application name="a"><label name="L" st:focused="true">x</label></application></desktop-frame>')
e("xml_attr_newline", r('label[name="a b"]'), '<desktop-frame><label name="a\nb">x</label></desktop-frame>')
e("xml_attr_charref_nl", r('label[name="a b"]'), '<desktop-frame><label name="a&#10;b">x</label></desktop-frame>')
e("xml_attr_tab_class", r('label.b'), '<desktop-frame><label class="a&#9;b">x</label></desktop-frame>')
e("xml_attr_nbsp_class", r('label.b'), '<desktop-frame><label class="a\u00a0b">x</label></desktop-frame>')
e("xml_attr_nbsp_tilde", r('label[class~=b]'), '<desktop-frame><label class="a\u2003b">x</label></desktop-frame>')
e("xml_extra_root", r('label'), SIMPLE % (NS, "x") + '<extra/>')
e("xml_trailing_junk", r('label'), SIMPLE % (NS, "x") + 'junk')
e("xml_broken", r('label'), '<desktop-frame><label>x</desktop-frame>')
e("xml_empty", r('label'), '')
e("xml_undefined_entity", r('label'), SIMPLE % (NS, "&nbsp;"))
e("xml_dup_attr", r('label'), '<desktop-frame><label name="a" name="b">x</label></desktop-frame>')
e("xml_lt_in_attr", r('label'), '<desktop-frame><label name="a<b">x</label></desktop-frame>')
e("xml_amp_raw", r('label'), '<desktop-frame><label>a & b</label></desktop-frame>')
e("xml_ws_text_only", [{"selectors": ["application"], "text": "\n  ", "exact": True}],
  '<desktop-frame>\n  <application>\n  <label/>\n</application>\n</desktop-frame>')
e("xml_cdata_empty", [{"selectors": ["label"], "text": None, "exact": True}],
  '<desktop-frame><label><![CDATA[]]></label></desktop-frame>')
e("xml_text_then_comment_only", [{"selectors": ["label"], "text": None, "exact": True}],
  '<desktop-frame><label><!--c-->after</label></desktop-frame>')
e("root_star_first_child", r('*:first-child[name=main]'))
e("contains_root_case", r('desktop-frame > application:contains("agenda")'))
e("tilde_attr_prefixed", r('push-button[attr|class~="wide"]'))
e("pipe_eq_ns", r('text[st|multi_line|="true"]'))
e("comma_ws", r('nothing ,menu'))

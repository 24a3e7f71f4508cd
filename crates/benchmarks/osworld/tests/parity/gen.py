#!/usr/bin/env python3
"""Generate the OSWorld-parity fixture: small office/text files plus cases.json.

Writes (relative to this script's folder):
  files/<name>.{xlsx,docx,pptx,txt}   fixture files (each well under 20 KB)
  cases.json                          [{name, func, result, expected, options}, ...]

Each case pairs a result file (or null = the result getter returned None) with an
expected file and the options passed to the OSWorld metric.  OSWorld's own verdicts
live in expected.json, produced by scripts/osworld_parity.py (see README.md).

Needs: openpyxl, python-docx, python-pptx (the same venv as the parity script works).
Output is deterministic: zip entries get a fixed timestamp and docProps/core.xml a
fixed created/modified date, so re-running produces byte-identical files for the
same library versions.

Usage:  python gen.py            (from anywhere)
"""
import copy
import io
import json
import os
import re
import shutil
import zipfile

import openpyxl
from openpyxl.styles import Font
import docx
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
import pptx
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_SHAPE
from pptx.enum.text import PP_ALIGN
from pptx.util import Inches, Pt

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
FIXED_ZIP_TIME = (2024, 1, 1, 0, 0, 0)
FIXED_ISO = "2024-01-01T00:00:00Z"

CASES = []


def case(name, func, result, expected, options=None):
    assert all(c["name"] != name for c in CASES), name
    for f in (result, expected):
        assert f is None or os.path.exists(os.path.join(FILES, f)), f
    CASES.append({"name": name, "func": func, "result": result,
                  "expected": expected, "options": options or {}})


# --------------------------------------------------------------------------- zip utils
def _rewrite_zip(path, patches=None, drop=()):
    """Rewrite an OOXML zip deterministically, applying {member: fn(str)->str} patches
    and dropping the members in `drop`."""
    patches = patches or {}
    with zipfile.ZipFile(path) as z:
        items = [(i.filename, z.read(i.filename)) for i in z.infolist() if i.filename not in drop]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for fname, data in items:
            if fname in patches:
                new = patches[fname](data.decode("utf-8"))
                assert new != data.decode("utf-8"), f"patch of {fname} in {path} changed nothing"
                data = new.encode("utf-8")
            if fname == "docProps/core.xml":
                s = data.decode("utf-8")
                s = re.sub(r"(<dcterms:created[^>]*>)[^<]*(</dcterms:created>)", r"\g<1>" + FIXED_ISO + r"\2", s)
                s = re.sub(r"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)", r"\g<1>" + FIXED_ISO + r"\2", s)
                data = s.encode("utf-8")
            zi = zipfile.ZipInfo(fname, date_time=FIXED_ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data)
    with open(path, "wb") as f:
        f.write(out.getvalue())


def _path(name):
    return os.path.join(FILES, name)


# --------------------------------------------------------------------------- xlsx
XLSX_BASE = [["Name", "Qty", "Price"],
             ["apple", 3, 1.25],
             ["pear", 5, 0.5],
             ["plum", 7, 2.75]]


def xlsx(name, sheets, patches=None, style=None):
    """sheets: list of (title, rows); None cells are not written at all.
    style(wb) may tweak the workbook before saving; patches go through _rewrite_zip."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets:
        ws = wb.create_sheet(title)
        for r, row in enumerate(rows, start=1):
            for c, v in enumerate(row, start=1):
                if v is not None:
                    ws.cell(row=r, column=c, value=v)
    if style:
        style(wb)
    p = _path(name)
    wb.save(p)
    _rewrite_zip(p, patches)
    return name


def rows_with(base, edits):
    """Copy of base rows with {(r, c): value} edits (0-based)."""
    rows = copy.deepcopy(base)
    for (r, c), v in edits.items():
        while len(rows) <= r:
            rows.append([])
        while len(rows[r]) <= c:
            rows[r].append(None)
        rows[r][c] = v
    return rows


def sheet_xml_sub(old, new, member="xl/worksheets/sheet1.xml"):
    def fn(s):
        assert old in s, (old, s)
        return s.replace(old, new, 1)
    return {member: fn}


SD0 = {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}
SD01 = {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"},
                  {"type": "sheet_data", "sheet_idx0": 1, "sheet_idx1": "EI1"}]}
SNAME = {"rules": [{"type": "sheet_name"}]}
SNAME_SD0 = {"rules": [{"type": "sheet_name"},
                       {"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}


def gen_xlsx():
    F = "compare_table"
    base = xlsx("t_base.xlsx", [("Sales", XLSX_BASE)])
    two = xlsx("t_two_sheets.xlsx", [("Sales", XLSX_BASE), ("Notes", [["k", "v"], ["a", 1]])])

    case("t_equal", F, xlsx("t_equal.xlsx", [("Sales", XLSX_BASE)]), base, SD0)
    case("t_equal_name_and_data", F, "t_equal.xlsx", base, SNAME_SD0)
    case("t_no_options_equal", F, "t_equal.xlsx", base, None)
    case("t_no_options_missing_result", F, None, base, None)
    case("t_missing_result", F, None, base, SD0)
    case("t_cell_changed", F, xlsx("t_cell_changed.xlsx", [("Sales", rows_with(XLSX_BASE, {(2, 1): 6}))]), base, SD0)
    case("t_string_case_changed", F, xlsx("t_string_case.xlsx", [("Sales", rows_with(XLSX_BASE, {(1, 0): "Apple"}))]), base, SD0)
    case("t_string_trailing_space", F, xlsx("t_string_trailing_space.xlsx", [("Sales", rows_with(XLSX_BASE, {(1, 0): "apple "}))]), base, SD0)
    case("t_header_changed", F, xlsx("t_header_changed.xlsx", [("Sales", rows_with(XLSX_BASE, {(0, 1): "Quantity"}))]), base, SD0)
    case("t_extra_row", F, xlsx("t_extra_row.xlsx", [("Sales", XLSX_BASE + [["fig", 9, 3.5]])]), base, SD0)
    case("t_extra_column", F, xlsx("t_extra_column.xlsx", [("Sales", [r + [v] for r, v in zip(XLSX_BASE, ["Note", "x", "y", "z"])])]), base, SD0)
    case("t_column_reordered", F, xlsx("t_column_reordered.xlsx", [("Sales", [[r[0], r[2], r[1]] for r in XLSX_BASE])]), base, SD0)
    case("t_rows_reordered", F, xlsx("t_rows_reordered.xlsx", [("Sales", [XLSX_BASE[0], XLSX_BASE[3], XLSX_BASE[2], XLSX_BASE[1]])]), base, SD0)
    case("t_blank_row_inserted", F, xlsx("t_blank_row.xlsx", [("Sales", XLSX_BASE[:2] + [[None, None, None]] + XLSX_BASE[2:])]), base, SD0)
    case("t_table_shifted_down", F, xlsx("t_shifted_down.xlsx", [("Sales", [[None]] + XLSX_BASE)]), base, SD0)
    case("t_table_shifted_right", F, xlsx("t_shifted_right.xlsx", [("Sales", [[None] + r for r in XLSX_BASE])]), base, SD0)

    def styled_empties(wb):
        ws = wb["Sales"]
        ws.cell(row=10, column=6).font = Font(bold=True)   # styled but valueless cells
        ws.cell(row=2, column=5).font = Font(italic=True)
        ws["A1"].font = Font(bold=True)
        ws["C2"].number_format = "0.00"
    case("t_style_and_empty_styled_cells", F, xlsx("t_styled.xlsx", [("Sales", XLSX_BASE)], style=styled_empties), base, SD0)

    # sheet names / sheet count
    renamed = xlsx("t_renamed_sheet.xlsx", [("Data", XLSX_BASE)])
    case("t_sheet_renamed_data_rule", F, renamed, base, SD0)
    case("t_sheet_renamed_name_rule", F, renamed, base, SNAME)
    case("t_sheet_name_rule_ignores_data", F, "t_cell_changed.xlsx", base, SNAME)
    case("t_sheet_by_name_RN_EN", F, renamed, base,
         {"rules": [{"type": "sheet_data", "sheet_idx0": "RNData", "sheet_idx1": "ENSales"}]})
    case("t_sheet_by_name_missing", F, "t_equal.xlsx", base,
         {"rules": [{"type": "sheet_data", "sheet_idx0": "RNData", "sheet_idx1": "ENSales"}]})
    case("t_missing_sheet", F, "t_equal.xlsx", two, SD01)
    case("t_missing_sheet_name_rule", F, "t_equal.xlsx", two, SNAME)
    case("t_extra_sheet_first_only", F, xlsx("t_extra_sheet.xlsx", [("Sales", XLSX_BASE), ("Scratch", [["tmp"], [1]])]), base, SD0)
    case("t_extra_sheet_rule_out_of_range", F, "t_extra_sheet.xlsx", base, SD01)
    case("t_two_sheets_equal", F, xlsx("t_two_sheets_equal.xlsx", [("Sales", XLSX_BASE), ("Notes", [["k", "v"], ["a", 1]])]), two, SD01)
    second_diff = xlsx("t_second_sheet_diff.xlsx", [("Sales", XLSX_BASE), ("Notes", [["k", "v"], ["a", 2]])])
    case("t_second_sheet_diff_first_rule", F, second_diff, two, SD0)
    case("t_second_sheet_diff_both_rules", F, second_diff, two, SD01)

    # numeric typing (pandas read_excel semantics)
    case("t_int_vs_float_literal", F,
         xlsx("t_float_literal.xlsx", [("Sales", XLSX_BASE)], patches=sheet_xml_sub('<c r="B2" t="n"><v>3</v>', '<c r="B2" t="n"><v>3.0</v>')),
         base, SD0)
    case("t_float_within_precision_of_int", F, xlsx("t_near_int.xlsx", [("Sales", rows_with(XLSX_BASE, {(1, 1): 3.00001}))]), base, SD0)
    case("t_float_within_precision", F, xlsx("t_price_tiny.xlsx", [("Sales", rows_with(XLSX_BASE, {(1, 2): 1.25001}))]), base, SD0)
    case("t_float_beyond_precision", F, xlsx("t_price_small.xlsx", [("Sales", rows_with(XLSX_BASE, {(1, 2): 1.2501}))]), base, SD0)
    case("t_float_beyond_precision_opt2", F, "t_price_small.xlsx", base,
         {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0", "precision": 2}]})
    case("t_number_as_text_numeric_col", F, xlsx("t_num_text.xlsx", [("Sales", rows_with(XLSX_BASE, {(2, 1): "5"}))]), base, SD0)
    case("t_number_as_text_whole_col", F, xlsx("t_num_text_col.xlsx", [("Sales", rows_with(XLSX_BASE, {(1, 1): "3", (2, 1): "5", (3, 1): "7"}))]), base, SD0)
    mixed = [["Code", "Qty"], ["A1", 1], ["5", 2], ["C3", 3]]
    mixed_base = xlsx("t_mixed_base.xlsx", [("Sales", mixed)])
    case("t_number_vs_text_in_text_col", F, xlsx("t_mixed_num.xlsx", [("Sales", rows_with(mixed, {(2, 0): 5}))]), mixed_base, SD0)
    obj = [["Code", "Val"], ["x", "n/a-ish"], ["y", 1.00001]]
    case("t_object_col_not_rounded", F, xlsx("t_obj_a.xlsx", [("Sales", rows_with(obj, {(2, 1): 1.00002}))]),
         xlsx("t_obj_b.xlsx", [("Sales", obj)]), SD0)
    case("t_bool_vs_int_col", F, xlsx("t_bool_col.xlsx", [("Sales", [["Flag"], [True], [False]])]),
         xlsx("t_int_col.xlsx", [("Sales", [["Flag"], [1], [0]])]), SD0)

    # empties and NA-like strings
    hole = rows_with(XLSX_BASE, {(2, 0): None})
    hole_base = xlsx("t_hole.xlsx", [("Sales", hole)])
    case("t_empty_string_vs_missing", F,
         xlsx("t_empty_string.xlsx", [("Sales", rows_with(XLSX_BASE, {(2, 0): "EMPTY"}))],
              patches=sheet_xml_sub('<c r="A3" t="inlineStr"><is><t>EMPTY</t></is></c>', '<c r="A3" t="inlineStr"><is><t></t></is></c>')),
         hole_base, SD0)
    case("t_na_string_vs_missing", F, xlsx("t_na_string.xlsx", [("Sales", rows_with(XLSX_BASE, {(2, 0): "N/A"}))]), hole_base, SD0)
    case("t_space_string_vs_missing", F, xlsx("t_space_string.xlsx", [("Sales", rows_with(XLSX_BASE, {(2, 0): " "}))]), hole_base, SD0)
    case("t_missing_cell_vs_value", F, hole_base, base, SD0)

    # formulas (openpyxl writes <f> with an empty <v>: no cached value)
    case("t_formula_uncached_vs_value", F,
         xlsx("t_formula_uncached.xlsx", [("Sales", rows_with(XLSX_BASE, {(0, 3): "Total", (1, 3): "=B2*C2"}))]),
         xlsx("t_total_value.xlsx", [("Sales", rows_with(XLSX_BASE, {(0, 3): "Total", (1, 3): 3.75}))]), SD0)
    case("t_formula_uncached_both_differ", F, "t_formula_uncached.xlsx",
         xlsx("t_formula_uncached_other.xlsx", [("Sales", rows_with(XLSX_BASE, {(0, 3): "Total", (1, 3): "=B2+C2"}))]), SD0)
    case("t_formula_cached_vs_value", F,
         xlsx("t_formula_cached.xlsx", [("Sales", rows_with(XLSX_BASE, {(0, 3): "Total", (1, 3): "=B2*C2"}))],
              patches=sheet_xml_sub('<c r="D2"><f>B2*C2</f><v></v></c>', '<c r="D2"><f>B2*C2</f><v>3.75</v></c>')),
         "t_total_value.xlsx", SD0)
    case("t_formula_cached_wrong_value", F,
         xlsx("t_formula_cached_wrong.xlsx", [("Sales", rows_with(XLSX_BASE, {(0, 3): "Total", (1, 3): "=B2*C2"}))],
              patches=sheet_xml_sub('<c r="D2"><f>B2*C2</f><v></v></c>', '<c r="D2"><f>B2*C2</f><v>4</v></c>')),
         "t_total_value.xlsx", SD0)


# --------------------------------------------------------------------------- docx
DOCX_BASE = ["Quarterly Report", "Sales rose by five percent.", "Costs were flat.", "Outlook is positive."]


def docx_file(name, paras, table=None, header=None, after=None):
    """paras: list of str or list of (text, bold) runs. after(doc) may tweak XML."""
    d = docx.Document()
    d.core_properties.author = "guigym"
    for p in paras:
        para = d.add_paragraph()
        if isinstance(p, str):
            if p:
                para.add_run(p)
        else:
            for text, bold in p:
                r = para.add_run(text)
                if bold:
                    r.bold = True
    if table:
        t = d.add_table(rows=len(table), cols=len(table[0]))
        for i, row in enumerate(table):
            for j, v in enumerate(row):
                t.cell(i, j).text = v
    if header:
        d.sections[0].header.paragraphs[0].text = header
    if after:
        after(d)
    p = _path(name)
    d.save(p)
    _slim_docx(p)
    return name


MIN_DOCX_STYLES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    '<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="22"/></w:rPr></w:rPrDefault><w:pPrDefault/></w:docDefaults>'
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
    '<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/></w:style>'
    '</w:styles>')


def _slim_docx(path):
    """python-docx's default template is ~37 KB; drop the parts body text never uses
    (stylesWithEffects, thumbnail, customXml) and swap in a minimal styles.xml."""
    dropped = ["word/stylesWithEffects.xml", "docProps/thumbnail.jpeg", "customXml/item1.xml",
               "customXml/itemProps1.xml", "customXml/_rels/item1.xml.rels"]

    def drop_rels(targets):
        def fn(x):
            for t in targets:
                x = re.sub(r'<Relationship [^>]*Target="%s"/>' % re.escape(t), "", x)
            return x
        return fn

    def drop_overrides(x):
        for part in dropped:
            x = x.replace('<Override PartName="/%s" ' % part, '<DROP ')
        return re.sub(r'<DROP [^>]*/>', "", x)

    _rewrite_zip(path, drop=dropped, patches={
        "word/styles.xml": lambda x: MIN_DOCX_STYLES,
        "_rels/.rels": drop_rels(["docProps/thumbnail.jpeg"]),
        "word/_rels/document.xml.rels": drop_rels(["stylesWithEffects.xml", "../customXml/item1.xml"]),
        "[Content_Types].xml": drop_overrides,
    })


def paras_with(base, idx, text):
    out = list(base)
    out[idx] = text
    return out


def gen_docx():
    F = "compare_docx_files"
    base = docx_file("d_base.docx", DOCX_BASE)
    case("d_equal", F, docx_file("d_equal.docx", DOCX_BASE), base)
    case("d_missing_result", F, None, base)
    case("d_word_changed", F, docx_file("d_word_changed.docx", paras_with(DOCX_BASE, 1, "Sales rose by six percent.")), base)
    case("d_extra_paragraph", F, docx_file("d_extra_para.docx", DOCX_BASE + ["Thanks."]), base)
    blank = docx_file("d_extra_blank.docx", DOCX_BASE[:2] + [""] + DOCX_BASE[2:] + [""])
    case("d_extra_blank_paragraphs", F, blank, base)
    case("d_extra_blank_paragraphs_no_ignore_blanks", F, blank, base, {"ignore_blanks": False})
    case("d_extra_blank_paragraphs_delete_empty_lines", F, blank, base, {"ignore_blanks": False, "delete_empty_lines": True})
    case_ = docx_file("d_case.docx", paras_with(DOCX_BASE, 0, "QUARTERLY report"))
    case("d_case_changed", F, case_, base)
    case("d_case_changed_ignore_case", F, case_, base, {"ignore_case": True})
    case("d_case_changed_ignore_case_no_blanks", F, case_, base, {"ignore_case": True, "ignore_blanks": False})
    ws = docx_file("d_whitespace.docx", paras_with(paras_with(DOCX_BASE, 1, "Sales  rose by five percent. "), 2, "\tCosts were flat."))
    case("d_whitespace_diff", F, ws, base)
    case("d_whitespace_diff_no_ignore_blanks", F, ws, base, {"ignore_blanks": False})
    case("d_nbsp_vs_space", F, docx_file("d_nbsp.docx", paras_with(DOCX_BASE, 2, "Costs\u00a0were flat.")), base)
    reordered = docx_file("d_reordered.docx", [DOCX_BASE[0], DOCX_BASE[2], DOCX_BASE[1], DOCX_BASE[3]])
    case("d_reordered", F, reordered, base)
    case("d_reordered_ignore_order", F, reordered, base, {"ignore_order": True})
    case("d_reordered_ignore_order_no_blanks", F, reordered, base, {"ignore_order": True, "ignore_blanks": False})
    merged = docx_file("d_merged.docx", [DOCX_BASE[0], DOCX_BASE[1] + " " + DOCX_BASE[2], DOCX_BASE[3]])
    case("d_paragraphs_merged", F, merged, base)
    case("d_paragraphs_merged_no_ignore_blanks", F, merged, base, {"ignore_blanks": False})
    case("d_runs_and_bold_ignored", F,
         docx_file("d_bold_runs.docx", paras_with(DOCX_BASE, 1, [("Sales rose by ", False), ("five", True), (" percent.", False)])), base)
    case("d_table_text_ignored", F, docx_file("d_table_a.docx", DOCX_BASE, table=[["k", "v"], ["a", "1"]]),
         docx_file("d_table_b.docx", DOCX_BASE, table=[["k", "v"], ["a", "2"]]))
    case("d_header_text_ignored", F, docx_file("d_header.docx", DOCX_BASE, header="Confidential"), base)

    def tracked_insert(d):
        p = d.paragraphs[2]._p
        ins = OxmlElement("w:ins")
        ins.set(qn("w:id"), "1")
        ins.set(qn("w:author"), "guigym")
        ins.set(qn("w:date"), FIXED_ISO)
        r = OxmlElement("w:r")
        t = OxmlElement("w:t")
        t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        t.text = " Really."
        r.append(t)
        ins.append(r)
        p.append(ins)
    case("d_tracked_insertion_invisible", F, docx_file("d_tracked_ins.docx", DOCX_BASE, after=tracked_insert), base)

    def line_break(d):
        p = d.paragraphs[2]
        p.clear()
        r = p.add_run("Costs were")
        r.add_break()
        p.add_run("flat.")
    lb = docx_file("d_line_break.docx", DOCX_BASE, after=line_break)
    case("d_line_break_vs_space", F, lb, base)
    case("d_line_break_vs_space_no_ignore_blanks", F, lb, base, {"ignore_blanks": False})
    case("d_fuzzy_match_word_changed", F, "d_word_changed.docx", base, {"fuzzy_match": True})


# --------------------------------------------------------------------------- pptx
def deck(name, title1="Quarterly Review", subtitle="Q3 2024", title2="Highlights",
         body=None, box=(1.0, 2.0, 6.0, 2.0), rect=(7.5, 2.0, 2.0, 1.0), rect_shape=MSO_SHAPE.RECTANGLE,
         extra_slide=False, reorder=False, notes=None, bg=None, align=None, slides=True):
    """Base deck: slide 1 title layout (title + subtitle); slide 2 title-only layout with
    a text box (two paragraphs, 18pt runs) and a rectangle. body: list of paragraphs,
    each a list of (text, props-dict) runs."""
    prs = pptx.Presentation()
    # keep the fixture small: only the three layouts used below survive
    lay_title, lay_body, lay_title_only = prs.slide_layouts[0], prs.slide_layouts[1], prs.slide_layouts[5]
    for lay in list(prs.slide_layouts):
        if lay not in (lay_title, lay_body, lay_title_only):
            prs.slide_layouts.remove(lay)
    if body is None:
        body = [[("Revenue up 12%", {})], [("Costs down 3%", {})]]

    def s1():
        s = prs.slides.add_slide(lay_title)
        s.shapes.title.text = title1
        s.placeholders[1].text = subtitle
        if notes:
            s.notes_slide.notes_text_frame.text = notes
        return s

    def s2():
        s = prs.slides.add_slide(lay_title_only)
        s.shapes.title.text = title2
        tb = s.shapes.add_textbox(Inches(box[0]), Inches(box[1]), Inches(box[2]), Inches(box[3]))
        tf = tb.text_frame
        for i, para in enumerate(body):
            p = tf.paragraphs[0] if i == 0 else tf.add_paragraph()
            if align is not None and i == 0:
                p.alignment = align
            for text, props in para:
                r = p.add_run()
                r.text = text
                r.font.size = Pt(props.get("size", 18))
                if "bold" in props:
                    r.font.bold = props["bold"]
                if "underline" in props:
                    r.font.underline = props["underline"]
                if "rgb" in props:
                    r.font.color.rgb = RGBColor.from_string(props["rgb"])
        s.shapes.add_shape(rect_shape, Inches(rect[0]), Inches(rect[1]), Inches(rect[2]), Inches(rect[3]))
        if bg:
            s.background.fill.solid()
            s.background.fill.fore_color.rgb = RGBColor.from_string(bg)
        return s

    def s3():
        s = prs.slides.add_slide(lay_body)
        s.shapes.title.text = "Next steps"
        s.placeholders[1].text = "Hire two engineers"
        return s

    if slides:
        if reorder:
            s2(); s1()
        else:
            s1(); s2()
        if extra_slide:
            s3()
    p = _path(name)
    prs.save(p)
    # drop the 4 KB thumbnail (and its package relationship)
    _rewrite_zip(p, patches={"_rels/.rels": lambda x: re.sub(r'<Relationship [^>]*Target="docProps/thumbnail.jpeg"/>', "", x)},
                 drop=("docProps/thumbnail.jpeg",))
    return name


def gen_pptx():
    F = "compare_pptx_files"
    base = deck("p_base.pptx")
    case("p_equal", F, deck("p_equal.pptx"), base)
    case("p_missing_result", F, None, base)
    case("p_missing_result_vs_empty_deck", F, None, deck("p_empty.pptx", slides=False))
    title = deck("p_title_changed.pptx", title1="Quarterly Overview")
    case("p_title_changed", F, title, base)
    case("p_title_changed_examine_text_false", F, title, base, {"examine_text": False})
    case("p_title_changed_no_text_no_bullets", F, title, base, {"examine_text": False, "examine_bullets": False})
    case("p_title_trailing_space", F, deck("p_title_space.pptx", title2="Highlights "), base)
    case("p_slide_added", F, deck("p_slide_added.pptx", extra_slide=True), base)
    case("p_slide_added_no_count_check", F, "p_slide_added.pptx", base, {"examine_number_of_slides": False})
    case("p_slides_reordered", F, deck("p_reordered.pptx", reorder=True), base)
    moved = deck("p_box_moved.pptx", box=(1.5, 2.0, 6.0, 2.0))
    case("p_shape_moved", F, moved, base)
    case("p_shape_moved_examine_shape_false", F, moved, base, {"examine_shape": False})
    case("p_shape_nudged_within_tolerance", F, deck("p_box_nudged.pptx", box=(1.003, 2.0, 6.0, 2.0)), base)
    case("p_shape_nudged_beyond_tolerance", F, deck("p_box_nudged_more.pptx", box=(1.01, 2.0, 6.0, 2.0)), base)
    case("p_autoshape_type_changed", F, deck("p_oval.pptx", rect_shape=MSO_SHAPE.OVAL), base)
    size = deck("p_font_size.pptx", body=[[("Revenue up 12%", {"size": 20})], [("Costs down 3%", {})]])
    case("p_font_size_changed", F, size, base)
    case("p_font_size_changed_not_examined", F, size, base, {"examine_font_size": False})
    case("p_bold_added", F, deck("p_bold.pptx", body=[[("Revenue up 12%", {"bold": True})], [("Costs down 3%", {})]]), base)
    case("p_bold_false_vs_unset", F, deck("p_bold_false.pptx", body=[[("Revenue up 12%", {"bold": False})], [("Costs down 3%", {})]]), base)
    case("p_underline_false_vs_unset", F, deck("p_ul_false.pptx", body=[[("Revenue up 12%", {"underline": False})], [("Costs down 3%", {})]]), base)
    red = deck("p_red.pptx", body=[[("Revenue up 12%", {"rgb": "FF0000"})], [("Costs down 3%", {})]])
    case("p_color_vs_unset", F, red, base)
    case("p_color_changed", F, deck("p_blue.pptx", body=[[("Revenue up 12%", {"rgb": "0000FF"})], [("Costs down 3%", {})]]), red)
    case("p_run_split", F, deck("p_run_split.pptx", body=[[("Revenue ", {}), ("up 12%", {})], [("Costs down 3%", {})]]), base)
    left = deck("p_align_left.pptx", align=PP_ALIGN.LEFT)
    case("p_alignment_left_vs_unset", F, left, base)
    case("p_alignment_left_vs_unset_no_bullets", F, left, base, {"examine_bullets": False})
    case("p_alignment_center", F, deck("p_align_center.pptx", align=PP_ALIGN.CENTER), base)
    case("p_notes_added", F, deck("p_notes.pptx", notes="Remember the numbers"), base)
    case("p_background_color", F, deck("p_bg.pptx", bg="FFFF00"), base)


# --------------------------------------------------------------------------- txt
def txt(name, content, newline=""):
    with open(_path(name), "w", encoding="utf-8", newline=newline) as f:
        f.write(content)
    return name


def gen_txt():
    F = "compare_text_file"
    base_s = "alpha beta\ngamma delta\n"
    base = txt("x_base.txt", base_s)
    case("x_equal", F, txt("x_equal.txt", base_s), base)
    case("x_missing_result", F, None, base)
    case("x_word_changed", F, txt("x_word_changed.txt", "alpha beta\ngamma epsilon\n"), base)
    no_nl = txt("x_no_trailing_newline.txt", "alpha beta\ngamma delta")
    case("x_trailing_newline_missing", F, no_nl, base)
    case("x_trailing_newline_missing_ignore_blanks", F, no_nl, base, {"ignore_blanks": True})
    case_ = txt("x_case.txt", "Alpha Beta\ngamma DELTA\n")
    case("x_case_changed", F, case_, base)
    case("x_case_changed_ignore_case", F, case_, base, {"ignore_case": True})
    case("x_case_changed_ignore_blanks_only", F, case_, base, {"ignore_blanks": True})
    ws = txt("x_whitespace.txt", "  alpha\tbeta\n\n\ngamma   delta  \n\n")
    case("x_whitespace_diff", F, ws, base)
    case("x_whitespace_diff_ignore_blanks", F, ws, base, {"ignore_blanks": True})
    case("x_lines_joined_ignore_blanks", F, txt("x_one_line.txt", "alpha beta gamma delta"), base, {"ignore_blanks": True})
    case("x_crlf_vs_lf", F, txt("x_crlf.txt", base_s, newline="\r\n"), base)
    case("x_both_ignores", F, txt("x_both.txt", "ALPHA  beta\n\tgamma delta"), base, {"ignore_blanks": True, "ignore_case": True})


def main():
    if os.path.isdir(FILES):
        shutil.rmtree(FILES)
    os.makedirs(FILES)
    gen_xlsx()
    gen_docx()
    gen_pptx()
    gen_txt()
    for fn in os.listdir(FILES):
        size = os.path.getsize(os.path.join(FILES, fn))
        assert size < 20 * 1024, (fn, size)
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=1)
        f.write("\n")
    by = {}
    for c in CASES:
        by[c["func"]] = by.get(c["func"], 0) + 1
    print(f"{len(CASES)} cases, {len(os.listdir(FILES))} files: {by}")


if __name__ == "__main__":
    main()

"""Writes the Calc parity cases: OSWorld's `compare_table` rules `pivot_table` (its
`utils.load_pivot_tables`, on what openpyxl reads of a workbook's pivot tables), `check_cell`
and `sheet_fuzzy` (its `utils.read_cell_value` on the raw XML, and openpyxl's merged cells).

Every workbook is made by LibreOffice Calc itself through its API, as its dialogs make them,
and saved as xlsx by its own filter:
- pivot tables (DataPilot tables) on a sheet of sales data, differing in one respect each (row,
  column, page and data fields, a data field's function and name, hidden items, the source
  range and its sheet, the table's place), compared under the properties OSWorld's tasks ask
  for and the others;
- sheets of cells as the cell tasks hold them (numbers, formulas and their cached results,
  texts with blanks, case and punctuation, booleans, errors, dates, merged ranges), in pairs
  that differ as an agent's answer differs from the expected one.
Copies edited as other writers write them pin what openpyxl and OSWorld's XML reading do with
them.

Needs LibreOffice and its Python bridge (Debian: python3-uno); run with the system Python:
`/usr/bin/python3 gen.py`. It writes `files/` and `cases.json` beside itself.
"""
import json
import math
import os
import shutil
import subprocess
import tempfile
import time
import zipfile

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.table import CellAddress, CellRangeAddress

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")

ROW, COLUMN, PAGE, DATA = (uno.Enum("com.sun.star.sheet.DataPilotFieldOrientation", n) for n in ("ROW", "COLUMN", "PAGE", "DATA"))
SUM, COUNT, AVERAGE, MAX = (uno.Enum("com.sun.star.sheet.GeneralFunction", n) for n in ("SUM", "COUNT", "AVERAGE", "MAX"))

HEADER = ["Region", "Product", "Month", "Sales", "Units"]
REGIONS = ["North", "South", "East", "West"]
PRODUCTS = ["Tea", "Coffee", "Cocoa"]
MONTHS = ["Jan", "Feb", "Mar"]
ROWS = [[REGIONS[i % 4], PRODUCTS[(i * 7) % 3], MONTHS[(i // 4) % 3], 100 + (i * 37) % 250, 1 + (i * 5) % 11] for i in range(24)]


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def connect():
    profile = tempfile.mkdtemp(prefix="guigym-pivot-lo-")
    pipe = "guigym_pivot_%d" % os.getpid()
    office = subprocess.Popen(
        ["soffice", "--headless", "--invisible", "--norestore", "--nologo", "--nodefault",
         "-env:UserInstallation=file://" + profile, "--accept=pipe,name=%s;urp;" % pipe],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(120):
        try:
            ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            break
        except Exception:
            time.sleep(0.5)
    else:
        raise SystemExit("LibreOffice did not answer")
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    return office, desktop, profile


def fill(sheet, top=0, left=0):
    for c, h in enumerate(HEADER):
        sheet.getCellByPosition(left + c, top).setString(h)
    for r, row in enumerate(ROWS, start=1):
        for c, v in enumerate(row):
            cell = sheet.getCellByPosition(left + c, top + r)
            if isinstance(v, str):
                cell.setString(v)
            else:
                cell.setValue(v)


def book(desktop, name, pivots, data_sheet="Data", data_at=(0, 0), extra_column=False):
    """A workbook with the data on `data_sheet` and the pivot tables `pivots` on a sheet
    "Pivot": each a dict of rows, columns, pages (field names), data ([(field, function,
    name)]), hidden ({field: [items]}), at (column, row) and range (columns of the source)."""
    doc = desktop.loadComponentFromURL("private:factory/scalc", "_blank", 0, (prop("Hidden", True),))
    sheets = doc.Sheets
    first = sheets.getByIndex(0)
    first.setName(data_sheet)
    top, left = data_at
    fill(first, top, left)
    if extra_column:
        # A column of notes before the data, inside the source range but in no field.
        first.getCellByPosition(left - 1, top).setString("Note")
    sheets.insertNewByName("Pivot", 1)
    target = sheets.getByName("Pivot")
    for n, spec in enumerate(pivots, start=1):
        tables = target.getDataPilotTables()
        desc = tables.createDataPilotDescriptor()
        start, end = spec.get("range", (0, len(HEADER) - 1))
        desc.setSourceRange(CellRangeAddress(0, left + start - (1 if extra_column else 0), top, left + end, top + len(ROWS)))
        fields = desc.getDataPilotFields()

        def field(name):
            for i in range(fields.getCount()):
                f = fields.getByIndex(i)
                if f.getName() == name:
                    return f
            raise KeyError(name)

        for f in spec.get("rows", []):
            field(f).Orientation = ROW
        for f in spec.get("columns", []):
            field(f).Orientation = COLUMN
        for f in spec.get("pages", []):
            field(f).Orientation = PAGE
        for f, function, _ in spec.get("data", []):
            d = field(f)
            d.Orientation = DATA
            d.Function = function
        col, row = spec.get("at", (0, 20 * (n - 1)))
        tables.insertNewByName(spec.get("name", "DataPilot%d" % n), CellAddress(1, col, row), desc)
        table = tables.getByName(spec.get("name", "DataPilot%d" % n))
        for f, items in spec.get("hidden", {}).items():
            found = table.getDataPilotFields()
            for i in range(found.getCount()):
                fld = found.getByIndex(i)
                if fld.getName() == f:
                    for item in items:
                        fld.getItems().getByName(item).IsHidden = True
        for f, _, label in spec.get("data", []):
            if label:
                found = table.getDataPilotFields()
                for i in range(found.getCount()):
                    fld = found.getByIndex(i)
                    if fld.Orientation == DATA and f in fld.getName():
                        fld.setName(label)
    path = os.path.join(FILES, name)
    doc.storeToURL("file://" + path, (prop("FilterName", "Calc MS Excel 2007 XML"),))
    doc.close(True)
    return name


def zip_edit(src, dst, edit):
    """A copy of `src` with its parts passed through `edit(name, text) -> text`."""
    with zipfile.ZipFile(os.path.join(FILES, src)) as zin, zipfile.ZipFile(os.path.join(FILES, dst), "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith(".xml"):
                data = edit(info.filename, data.decode("utf-8")).encode("utf-8")
            info.date_time = (2024, 1, 1, 0, 0, 0)
            zout.writestr(info, data)
    return dst


cases = []

# Cell sheets: (text, number or formula) per cell, by sheet; merged ranges by sheet.
CONTACTS = [
    ["Name", "Address", "Phone", "Visits", "Rating"],
    ["Ada Lovelace", "12 Baker Rd", "+1 (555) 123-4567", 3, "=575/3"],
    ["  Alan Turing ", "7 Kings St", "+44 20 7946 0958", 12, "=0.1+0.2"],
    ["grace HOPPER", "1 Navy Yard", "555-0100", 0, 10000000000000000],
    ["Edsger Dijkstra", "Hoogstraat 5", "(020) 555 1234", -3670, 0.00001],
    ["Barbara Liskov", "", "n/a", 2.5, "=1/0"],
    ["Linus", "=\"Main \"&\"St\"", "=TRUE()", "=DATE(2024;3;1)", "=\"\""],
]
CONTACTS_ANSWER = [
    ["Name", "Address", "Phone", "Visits", "Rating"],
    ["Ada Lovelace", "12 Baker Road", "15551234567", 3, 191.6667],
    ["Alan Turing", "7 Kings Street", "+44 20 7946 0958", "12", 0.3],
    ["Grace Hopper", "1 navy yard", "555-0100", 0, 1e16],
    ["Edsger Dijkstra", "Hoogstraat 5", "020 555 1234", -3670, 1e-05],
    ["Barbara Liskov", "", "N/A", 2.5, "#DIV/0!"],
    ["Linus", "Main St", "TRUE", 45352, ""],
]
TITLE_SHEET = [
    ["Demographic Profile", "", "", "", ""],
    ["High Interest Rate", "", "Low Interest Rate", "", "Notes"],
    ["0.07", 0.07, "", 0.02, "ok"],
]


def fill_cells(sheet, rows):
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            cell = sheet.getCellByPosition(c, r)
            if isinstance(v, str) and v.startswith("="):
                cell.setFormula(v)
            elif isinstance(v, str):
                if v:
                    cell.setString(v)
            else:
                cell.setValue(float(v))


def cell_book(desktop, name, sheets, merges=()):
    """A workbook of `sheets` [(name, rows)], with `merges` [(sheet, "A1:C1")] merged."""
    doc = desktop.loadComponentFromURL("private:factory/scalc", "_blank", 0, (prop("Hidden", True),))
    all_sheets = doc.Sheets
    for i, (sheet_name, rows) in enumerate(sheets):
        if i == 0:
            all_sheets.getByIndex(0).setName(sheet_name)
        else:
            all_sheets.insertNewByName(sheet_name, i)
        fill_cells(all_sheets.getByName(sheet_name), rows)
    for sheet_name, ref in merges:
        all_sheets.getByName(sheet_name).getCellRangeByName(ref).merge(True)
    doc.storeToURL("file://" + os.path.join(FILES, name), (prop("FilterName", "Calc MS Excel 2007 XML"),))
    doc.close(True)
    return name


def cell_books(desktop):
    cell_book(desktop, "cells_contacts.xlsx", [("Sheet1", CONTACTS), ("Sheet2", TITLE_SHEET)],
              merges=[("Sheet2", "A1:D1"), ("Sheet2", "A2:B2"), ("Sheet2", "C2:D3")])
    cell_book(desktop, "cells_answer.xlsx", [("Sheet1", CONTACTS_ANSWER), ("Sheet2", TITLE_SHEET)],
              merges=[("Sheet2", "A1:C1"), ("Sheet2", "A2:A3")])


def case(name, result, expected, props, note, idx0="RNPivot", idx1="ENPivot", extra_rules=()):
    rule = {"type": "pivot_table", "sheet_idx0": idx0, "sheet_idx1": idx1}
    if props is not None:
        rule["pivot_props"] = props
    cases.append({"name": name, "func": "compare_table", "result": result, "expected": expected,
                  "options": {"rules": list(extra_rules) + [rule]}, "note": note})


TASK_PROPS = ["col_fields", "filter", "row_fields", "data_fields"]


def table_case(name, result, expected, rules, note):
    cases.append({"name": name, "func": "compare_table", "result": result, "expected": expected,
                  "options": {"rules": rules}, "note": note})


def cell(sheet, at, **props):
    return {"type": "check_cell", "sheet_idx": sheet, "coordinate": at,
            "props": {k: {"method": m, "ref": r} for k, (m, r) in props.items()}}


def fuzzy(rules, idx0="RNSheet1", idx1="ENSheet1"):
    return {"type": "sheet_fuzzy", "sheet_idx0": idx0, "sheet_idx1": idx1, "rules": rules}


def cell_cases():
    c, a = "cells_contacts.xlsx", "cells_answer.xlsx"
    # Strings as openpyxl writes them, inline (`<t xml:space="preserve">` when a blank ends
    # them), and a shared string ending in a line break (Alt+Enter in a cell).
    inline = zip_edit(c, "cells_contacts_inline.xlsx", lambda n, t: t.replace(
        '<c r="A3" s="0" t="s"><v>8</v></c>', '<c r="A3" t="inlineStr"><is><t xml:space="preserve">  Alan Turing </t></is></c>').replace(
        '<c r="A2" s="0" t="s"><v>5</v></c>', '<c r="A2" t="inlineStr"><is><t>Ada Lovelace</t></is></c>') if n.endswith("sheet1.xml") else t)
    newline = zip_edit(c, "cells_contacts_newline.xlsx", lambda n, t: t.replace(
        '<t xml:space="preserve">n/a</t>', '<t xml:space="preserve">n/a\n</t>') if n.endswith("sharedStrings.xml") else t)
    table_case("inline_plain", inline, None, [cell(0, "A2", value=("eq", "Ada Lovelace"))], "an inline string without attributes is its text")
    table_case("inline_preserve_eq", inline, None, [cell(0, "A3", value=("eq", "Alan Turing"))], "xml:space on <t>: xmltodict gives a dict, equal to no text")
    table_case("inline_preserve_re", inline, None, [cell(0, "A3", value=("re", "Alan"))], "a pattern on that dict raises, caught: 0")
    table_case("inline_preserve_fuzzy", inline, a, [fuzzy([{"range": ["A3"], "type": "includes"}])], "str() of the dict includes 'Alan Turing'")
    table_case("inline_preserve_fuzzy_exact", inline, a, [fuzzy([{"range": ["A3"], "type": "exact_match", "trim_leadings": " "}])], "str() of the dict is not the name")
    table_case("inline_vs_shared", inline, c, [fuzzy([{"range": ["A2"], "type": "exact_match"}])], "an inline string against the same shared one")
    table_case("newline_dollar", newline, None, [cell(0, "C6", value=("re", "^n/a$"))], "Python's $ matches before a final line break")
    table_case("newline_eq", newline, None, [cell(0, "C6", value=("eq", "n/a"))], "the line break is part of the text")
    table_case("range_coordinate_value", c, None, [cell(0, "A1:B2", value=("eq", None))], "a range is a tuple to openpyxl: its value reads None")
    table_case("range_coordinate_merge", c, None, [cell("RNSheet2", "A1:B2", merge=("eq", False))], "a tuple is no MergedCell")
    table_case("column_coordinate_merge", c, None, [cell("RNSheet2", "B", merge=("eq", False))], "a whole column, likewise")
    table_case("bad_coordinate", c, None, [cell(0, "A1:B2:C3", value=("eq", None))], "no cell reference at all: openpyxl raises, 0")
    # check_cell on the value: numbers as floats, formulas by their cached results.
    table_case("cell_approx_formula", c, None, [cell(0, "E2", value=("approx:0.001", 191.6667))], "=575/3 within 0.001 (no expected workbook)")
    table_case("cell_approx_too_far", c, None, [cell(0, "E2", value=("approx:0.00001", 191.6667))], "=575/3 not within 1e-5")
    table_case("cell_eq_int", c, None, [cell("RNSheet1", "D2", value=("eq", 3))], "3 read as 3.0 equals 3")
    table_case("cell_eq_text_number", c, None, [cell("RNSheet1", "D2", value=("eq", "3"))], "3.0 is not the text 3")
    table_case("cell_eq_text", c, None, [cell("RNSheet2", "A1", value=("eq", "Demographic Profile"))], "a title in a merged cell")
    table_case("cell_eq_text_wrong", c, None, [cell("RNSheet2", "A1", value=("eq", "Demographic profile"))], "case matters")
    table_case("cell_blank_text", c, None, [cell(0, "A3", value=("eq", "  Alan Turing "))], "blanks kept (shared strings are not stripped)")
    table_case("cell_empty_is_none", c, None, [cell(0, "B6", value=("eq", None))], "an empty cell is None")
    table_case("cell_empty_ne_text", c, None, [cell(0, "B6", value=("eq", ""))], "None is not ''")
    table_case("cell_bool_is_none", c, None, [cell(0, "C7", value=("eq", None))], "a boolean reads as None")
    table_case("cell_bool_not_true", c, None, [cell(0, "C7", value=("eq", True))], "a boolean reads as None, not True")
    table_case("cell_error_code", c, None, [cell(0, "E6", value=("eq", "#DIV/0!"))], "an error's code")
    table_case("cell_string_formula", c, None, [cell(0, "B7", value=("eq", "Main St"))], "a text formula's cached result")
    table_case("cell_empty_string_formula", c, None, [cell(0, "E7", value=("eq", None))], "a formula giving '' reads as None (xmltodict)")
    table_case("cell_date_serial", c, None, [cell(0, "D7", value=("eq", 45352))], "a date is its serial")
    table_case("cell_tiny", c, None, [cell(0, "E5", value=("lt", 0.0001))], "1e-05 < 0.0001")
    table_case("cell_huge", c, None, [cell(0, "E4", value=("ge", 1e16))], "1e16")
    table_case("cell_negative_range", c, None, [cell(0, "D5", value=("range.ee", [-4000, -3000]))], "-3670 in [-4000, -3000]")
    table_case("cell_regex", c, None, [cell(0, "C2", value=("re", r"^\+1 \(555\)"))], "a phone number by pattern")
    table_case("cell_regex_on_number", c, None, [cell(0, "D2", value=("re", "3"))], "a pattern on a number: OSWorld catches the raise, 0")
    table_case("cell_lt_none", c, None, [cell(0, "B6", value=("lt", 5))], "None < 5 raises, caught: 0")
    table_case("cell_ne", c, None, [cell(0, "A2", value=("ne", "Ada"))], "ne")
    table_case("cell_lowercase_coordinate", c, None, [cell(0, "a2", value=("eq", None))], "value found by r exactly: a2 finds nothing")
    table_case("cell_out_of_sheet", c, None, [cell(0, "Z99", value=("eq", None))], "a cell never written")
    table_case("cell_missing_sheet", c, None, [cell("RNNope", "A1", value=("eq", None))], "no such sheet: 0")
    table_case("cell_index_out_of_range", c, None, [cell(7, "A1", value=("eq", None))], "a sheet index past the end: 0")
    table_case("cell_second_sheet_by_index", c, None, [cell("RI1", "E3", value=("eq", "ok"))], "RI1")
    table_case("cell_expected_sheet", c, a, [cell("ENSheet1", "B2", value=("eq", "12 Baker Road"))], "a cell of the expected workbook")
    table_case("cell_expected_missing", c, None, [cell("ENSheet1", "B2", value=("eq", "12 Baker Road"))], "the expected workbook is not given: 0")
    table_case("cell_several_props", c, None, [cell("RNSheet2", "A1", value=("eq", "Demographic Profile"), merge=("eq", False))], "value and merge")
    table_case("cell_unknown_method", c, None, [cell(0, "D2", value=("between", 3))], "a method OSWorld does not know: caught, 0")
    table_case("cell_two_rules", c, None, [cell(0, "D2", value=("eq", 3)), cell(0, "D3", value=("gt", 10))], "two cells")
    table_case("cell_two_rules_one_wrong", c, None, [cell(0, "D2", value=("eq", 3)), cell(0, "D3", value=("gt", 12))], "the second fails")
    # merged cells: openpyxl's MergedCell is every cell of a range but its first.
    for at, want in [("A1", False), ("B1", True), ("D1", True), ("E1", False), ("B2", True), ("C2", False), ("D2", True), ("C3", True), ("D3", True), ("E3", False), ("A3", False)]:
        table_case("merge_%s_%s" % (at, str(want).lower()), c, None, [cell("RNSheet2", at, merge=("eq", want))], "merged ranges A1:D1, A2:B2, C2:D3")
    table_case("merge_answer_d1", a, None, [cell("RNSheet2", "D1", merge=("eq", True))], "A1:C1 merged, D1 is not")
    table_case("merge_lowercase", c, None, [cell("RNSheet2", "b1", merge=("eq", True))], "openpyxl reads b1 as B1")
    table_case("merge_missing_sheet", c, None, [cell("RNNope", "B1", merge=("eq", False))], "no such sheet: 0 whatever the rule")

    # sheet_fuzzy: each cell as str(read_cell_value), normalized, compared.
    table_case("fuzzy_names_exact", c, a, [fuzzy([{"range": ["A1:A2", "A5:A7"], "type": "exact_match"}])], "the same names")
    table_case("fuzzy_names_case", c, a, [fuzzy([{"range": ["A4"], "type": "exact_match"}])], "grace HOPPER vs Grace Hopper")
    table_case("fuzzy_names_ignore_case", c, a, [fuzzy([{"range": ["A4"], "type": "exact_match", "ignore_case": True}])], "ignoring case")
    table_case("fuzzy_blanks_trimmed", c, a, [fuzzy([{"range": ["A3"], "type": "exact_match", "trim_leadings": " ", "trim_trailings": " "}])], "blanks trimmed at both ends")
    table_case("fuzzy_blanks_kept", c, a, [fuzzy([{"range": ["A3"], "type": "exact_match"}])], "blanks not trimmed")
    table_case("fuzzy_addresses_normalized", c, a, [fuzzy([{"range": ["B2:B3"], "type": "exact_match", "normalization": [["Rd", "Road"], ["St", "Street"]]}])], "Rd and St written out")
    table_case("fuzzy_addresses_fuzzy", c, a, [fuzzy([{"range": ["B2:B3"], "type": "fuzzy_match", "threshold": 85}])], "Rd vs Road by ratio")
    table_case("fuzzy_addresses_fuzzy_strict", c, a, [fuzzy([{"range": ["B2:B3"], "type": "fuzzy_match", "threshold": 95}])], "ratio under 95")
    table_case("fuzzy_default_threshold", c, a, [fuzzy([{"range": ["B4"], "type": "fuzzy_match", "ignore_case": True}])], "1 Navy Yard vs 1 navy yard")
    table_case("fuzzy_phone_ignore_chars", c, a, [fuzzy([{"range": ["C2"], "type": "includes", "trim_leadings": "+ ", "ignore_chars": " ()-"}])], "a phone number without its punctuation")
    table_case("fuzzy_phone_ignore_chars_5", c, a, [fuzzy([{"range": ["C5"], "type": "exact_match", "ignore_chars": " ()"}])], "(020) vs 020")
    table_case("fuzzy_phone_includes_wrong_way", c, a, [fuzzy([{"range": ["C2"], "type": "included_by", "ignore_chars": " ()-+"}])], "included_by")
    table_case("fuzzy_na_case", c, a, [fuzzy([{"range": ["C6"], "type": "exact_match", "ignore_case": True}])], "n/a vs N/A")
    table_case("fuzzy_numbers_as_text", c, a, [fuzzy([{"range": ["D2:D3"], "type": "exact_match"}])], "3.0 vs 3.0, 12.0 vs the text 12")
    table_case("fuzzy_number_formula", c, a, [fuzzy([{"range": ["E3"], "type": "exact_match"}])], "str(0.1+0.2) vs 0.3")
    table_case("fuzzy_number_huge", c, a, [fuzzy([{"range": ["E4:E5"], "type": "exact_match"}])], "1e+16 and 1e-05 as Python prints them")
    table_case("fuzzy_number_includes", c, a, [fuzzy([{"range": ["E2"], "type": "includes"}])], "191.66666666666666 includes 191.6667? no")
    table_case("fuzzy_error_vs_text", c, a, [fuzzy([{"range": ["E6"], "type": "exact_match"}])], "#DIV/0! both")
    table_case("fuzzy_none_cells", c, a, [fuzzy([{"range": ["B6", "F1:F3"], "type": "exact_match"}])], "empty cells read None both sides")
    table_case("fuzzy_bool_vs_text", c, a, [fuzzy([{"range": ["C7"], "type": "exact_match"}])], "a boolean (None) vs the text TRUE")
    table_case("fuzzy_date_vs_number", c, a, [fuzzy([{"range": ["D7"], "type": "exact_match"}])], "a date's serial vs the number")
    table_case("fuzzy_range_as_string", c, a, [fuzzy([{"range": "A1:A2 A5:A7", "type": "exact_match"}])], "ranges in one string")
    table_case("fuzzy_includes_empty", c, a, [fuzzy([{"range": ["A2"], "type": "includes", "ignore_chars": "ADEacdeloquvy L"}])], "everything ignored: '' in ''")
    table_case("fuzzy_several_rules", c, a, [fuzzy([{"range": ["A1:A2"], "type": "exact_match"}, {"range": ["B2:B3"], "type": "fuzzy_match", "threshold": 90, "ignore_case": True}])], "two rules, the second fails")
    table_case("fuzzy_missing_sheet", c, a, [fuzzy([{"range": ["A1"], "type": "exact_match"}], idx0="RNNope")], "a sheet not there reads None")
    table_case("fuzzy_no_expected", c, None, [fuzzy([{"range": ["A1"], "type": "exact_match"}])], "EN with no expected workbook: OSWorld raises")
    table_case("fuzzy_result_both", c, a, [fuzzy([{"range": ["A1:E7"], "type": "exact_match"}], idx1="RNSheet1")], "a sheet against itself")
    table_case("fuzzy_unknown_type", c, a, [fuzzy([{"range": ["A1"], "type": "similar"}])], "a type OSWorld does not know")
    table_case("fuzzy_with_pivot_book", c, a, [fuzzy([{"range": ["A1"], "type": "exact_match"}]),
                                                 cell(0, "A1", value=("eq", "Name"))], "sheet_fuzzy then check_cell")
    # A ratio exactly at the threshold, and a hair either side: "12 Baker Rd" against
    # "12 Baker Road" is (1 - 2/24) * 100 as rapidfuzz computes it.
    at = (1 - 2 / 24) * 100
    for label, threshold in (("at", at), ("above", math.nextafter(at, math.inf)), ("below", math.nextafter(at, -math.inf))):
        table_case("fuzzy_ratio_" + label, c, a, [fuzzy([{"range": ["B2"], "type": "fuzzy_match", "threshold": threshold}])],
                   "the ratio %r against the threshold %r" % (at, threshold))


def main():
    shutil.rmtree(FILES, ignore_errors=True)
    os.makedirs(FILES)
    office, desktop, profile = connect()
    try:
        region_sales = {"rows": ["Region"], "data": [("Sales", SUM, None)]}
        b = {}
        b["base"] = book(desktop, "pivot_region_sales.xlsx", [region_sales])
        b["again"] = book(desktop, "pivot_region_sales_again.xlsx", [region_sales])
        b["product"] = book(desktop, "pivot_product_sales.xlsx", [{"rows": ["Product"], "data": [("Sales", SUM, None)]}])
        b["two_rows"] = book(desktop, "pivot_region_product_rows.xlsx", [{"rows": ["Region", "Product"], "data": [("Sales", SUM, None)]}])
        b["two_rows_swapped"] = book(desktop, "pivot_product_region_rows.xlsx", [{"rows": ["Product", "Region"], "data": [("Sales", SUM, None)]}])
        b["cols"] = book(desktop, "pivot_region_by_product.xlsx", [{"rows": ["Region"], "columns": ["Product"], "data": [("Sales", SUM, None)]}])
        b["count"] = book(desktop, "pivot_region_count.xlsx", [{"rows": ["Region"], "data": [("Sales", COUNT, None)]}])
        b["average"] = book(desktop, "pivot_region_average.xlsx", [{"rows": ["Region"], "data": [("Sales", AVERAGE, None)]}])
        b["units"] = book(desktop, "pivot_region_units.xlsx", [{"rows": ["Region"], "data": [("Units", SUM, None)]}])
        b["two_data"] = book(desktop, "pivot_region_sales_units.xlsx", [{"rows": ["Region"], "data": [("Sales", SUM, None), ("Units", SUM, None)]}])
        b["page"] = book(desktop, "pivot_region_page_month.xlsx", [{"rows": ["Region"], "pages": ["Month"], "data": [("Sales", SUM, None)]}])
        b["page_hidden"] = book(desktop, "pivot_region_page_month_hidden.xlsx", [{"rows": ["Region"], "pages": ["Month"], "data": [("Sales", SUM, None)], "hidden": {"Month": ["Feb"]}}])
        b["hidden_row"] = book(desktop, "pivot_region_hidden_west.xlsx", [{"rows": ["Region"], "data": [("Sales", SUM, None)], "hidden": {"Region": ["West"]}}])
        b["moved"] = book(desktop, "pivot_region_sales_at_c5.xlsx", [dict(region_sales, at=(2, 4))])
        b["renamed"] = book(desktop, "pivot_region_sales_renamed.xlsx", [dict(region_sales, name="SalesByRegion")])
        b["shifted_data"] = book(desktop, "pivot_data_shifted.xlsx", [region_sales], data_at=(2, 1))
        b["other_sheet"] = book(desktop, "pivot_data_on_sales_sheet.xlsx", [region_sales], data_sheet="Sales")
        b["narrow"] = book(desktop, "pivot_region_sales_narrow_range.xlsx", [{"rows": ["Region"], "data": [("Sales", SUM, None)], "range": (0, 3)}])
        b["product_month"] = book(desktop, "pivot_product_month.xlsx", [{"rows": ["Product"], "columns": ["Month"], "data": [("Units", MAX, None)]}])
        b["product_month_page"] = book(desktop, "pivot_product_month_page_region.xlsx", [{"rows": ["Product"], "columns": ["Month"], "pages": ["Region"], "data": [("Units", MAX, None)]}])
        b["two_tables"] = book(desktop, "pivot_two_tables.xlsx", [region_sales, {"rows": ["Product"], "data": [("Units", SUM, None)], "at": (0, 20)}])
        b["two_tables_swapped"] = book(desktop, "pivot_two_tables_swapped.xlsx", [{"rows": ["Product"], "data": [("Units", SUM, None)]}, dict(region_sales, at=(0, 20))])
        b["none"] = book(desktop, "pivot_none.xlsx", [])
        cell_books(desktop)
    finally:
        try:
            desktop.terminate()
        except Exception:
            pass
        office.wait(timeout=30)
        shutil.rmtree(profile, ignore_errors=True)

    # Edited copies: the same pivot table with what another writer puts in it.
    b["default_items"] = zip_edit(b["base"], "pivot_region_sales_default_items.xlsx",
                                     lambda n, t: t.replace("</items>", "<item t=\"default\"/></items>") if "pivotTables/" in n else t)
    b["data_named"] = zip_edit(b["base"], "pivot_region_sales_data_named.xlsx",
                               lambda n, t: __import__("re").sub(r'(<dataField [^>]*?)name="[^"]*"', r'\1name="Total Sales"', t) if "pivotTables/" in n else t)
    b["hidden_false"] = zip_edit(b["base"], "pivot_region_sales_h_false.xlsx",
                                 lambda n, t: t.replace('<item x="0"/>', '<item x="0" h="false"/>') if "pivotTables/" in n else t)
    b["no_location"] = zip_edit(b["base"], "pivot_region_sales_no_location.xlsx",
                                lambda n, t: __import__("re").sub(r"<location [^>]*/>", "", t) if "pivotTables/" in n else t)
    b["named_source"] = zip_edit(b["base"], "pivot_region_sales_named_source.xlsx",
                                 lambda n, t: __import__("re").sub(r'<worksheetSource ref="[^"]*"', '<worksheetSource name="Sales"', t) if "pivotCacheDefinition" in n else t)
    b["bad_cache_id"] = zip_edit(b["base"], "pivot_region_sales_bad_cache_id.xlsx",
                                 lambda n, t: __import__("re").sub(r'cacheId="\d+"', 'cacheId="77"', t, count=1) if "pivotTables/" in n else t)
    b["bad_subtotal"] = zip_edit(b["base"], "pivot_region_sales_bad_subtotal.xlsx",
                                 lambda n, t: __import__("re").sub(r'subtotal="\w+"', 'subtotal="median"', t) if "pivotTables/" in n else t)

    t = TASK_PROPS
    case("same_table_made_twice", b["again"], b["base"], t, "the same pivot table, made again")
    case("same_file", b["base"], b["base"], t, "a file against itself")
    case("other_row_field", b["product"], b["base"], t, "rows by Product, not Region")
    case("two_row_fields", b["two_rows"], b["two_rows"], t, "two row fields, same")
    case("row_fields_order", b["two_rows_swapped"], b["two_rows"], t, "two row fields in the other order")
    case("column_field_added", b["cols"], b["base"], t, "a column field too")
    case("column_field_same", b["cols"], b["cols"], t, "rows and columns, same")
    case("count_not_sum", b["count"], b["base"], t, "count of Sales, not its sum")
    case("average_not_sum", b["average"], b["base"], t, "average, not sum")
    case("count_not_sum_rows_only", b["count"], b["base"], ["row_fields"], "only the row fields asked: the function is not compared")
    case("other_data_field", b["units"], b["base"], t, "sum of Units, not Sales")
    case("two_data_fields", b["two_data"], b["base"], t, "a second data field")
    case("two_data_fields_same", b["two_data"], b["two_data"], t, "two data fields, same (the data pseudo-field in the columns)")
    case("page_field_added", b["page"], b["base"], t, "a page (filter) field")
    case("page_field_same", b["page"], b["page"], t, "a page field, same")
    case("page_hidden_vs_shown", b["page_hidden"], b["page"], t, "a month hidden in the page field")
    case("page_hidden_vs_shown_selection", b["page_hidden"], b["page"], ["selection"], "a month hidden, compared as a selection")
    case("page_hidden_same_ordered", b["page_hidden"], b["page_hidden"], ["selection", "ordered"], "a month hidden, ordered selection, same")
    case("hidden_row_item", b["hidden_row"], b["base"], t, "a region hidden: the fields the tasks compare are the same")
    case("hidden_row_item_filter", b["hidden_row"], b["base"], ["filter"], "a region hidden, compared by its filter")
    case("hidden_row_item_ordered", b["hidden_row"], b["base"], ["filter", "ordered"], "a region hidden, ordered")
    case("moved_tasks_props", b["moved"], b["base"], t, "the table placed elsewhere, the tasks' properties")
    case("moved_location", b["moved"], b["base"], ["location"], "the table placed elsewhere, its location compared")
    case("same_location", b["again"], b["base"], ["location"], "the same place")
    case("renamed_name", b["renamed"], b["base"], ["name"], "another table name")
    case("renamed_tasks_props", b["renamed"], b["base"], t, "another table name, the tasks' properties")
    case("same_name", b["again"], b["base"], ["name"], "the same table name")
    case("show_flags", b["cols"], b["base"], ["show_total", "show_empty_row", "show_empty_col", "show_headers"], "the display flags")
    case("data_shifted", b["shifted_data"], b["base"], t, "the data placed lower and to the right: another source range")
    case("data_on_other_sheet", b["other_sheet"], b["base"], t, "the data on a sheet with another name")
    case("narrow_range", b["narrow"], b["base"], t, "the source without the unused last column (trimmed by OSWorld)")
    case("narrow_range_filter", b["narrow"], b["base"], ["filter"], "the same, with the selection")
    case("product_month", b["product_month"], b["product_month"], t, "max of Units by product and month")
    case("product_month_vs_page", b["product_month_page"], b["product_month"], t, "a page field added")
    case("two_tables", b["two_tables"], b["two_tables"], t, "two pivot tables on one sheet")
    case("two_tables_swapped", b["two_tables_swapped"], b["two_tables"], t, "two pivot tables made in the other order")
    case("two_tables_vs_one", b["two_tables"], b["base"], t, "two tables against one (same source: the last one kept)")
    case("no_pivot_result", b["none"], b["base"], t, "no pivot table made")
    case("no_pivot_either", b["none"], b["none"], t, "no pivot table in either")
    case("missing_sheet", b["base"], b["base"], t, "a sheet that does not exist", idx0="RNNope")
    case("by_index", b["again"], b["base"], t, "sheets by index", idx0="RI1", idx1="EI1")
    case("data_sheet_has_none", b["base"], b["base"], t, "the data sheet holds no pivot table", idx0="RNData", idx1="ENData")
    case("no_props", b["product"], b["base"], None, "no properties asked: only the sources compared")
    case("no_props_other_source", b["other_sheet"], b["base"], None, "no properties, another source")
    case("data_fields_name", b["data_named"], b["base"], ["data_fields", "data_fields_name"], "a data field named otherwise, names compared")
    case("data_fields_name_same", b["again"], b["base"], ["data_fields", "data_fields_name"], "data field names compared, same")
    case("data_fields_without_name", b["data_named"], b["base"], ["data_fields"], "a data field named otherwise, names not compared")
    case("default_items", b["default_items"], b["base"], t + ["selection"], "subtotal items (no x) written after the others")
    case("h_false", b["hidden_false"], b["base"], ["selection"], "an item written h=\"false\" (False is not None)")
    case("no_location", b["no_location"], b["base"], t, "a pivot table without its location: openpyxl does not load the book")
    case("no_location_expected", b["base"], b["no_location"], t, "the expected book does not load")
    case("named_source", b["named_source"], b["base"], t, "a cache source by name: OSWorld raises")
    case("bad_cache_id", b["bad_cache_id"], b["base"], t, "a pivot table naming a cache that is not there")
    case("bad_subtotal", b["bad_subtotal"], b["base"], t, "a subtotal openpyxl does not know")
    case("with_sheet_data", b["again"], b["base"], t, "after a sheet_data rule on the data", extra_rules=[{"type": "sheet_data", "sheet_idx0": "RNData", "sheet_idx1": "ENData"}])

    cell_cases()

    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()

"""Writes the parity cases of compare_table's rules `freeze` (openpyxl's `freeze_panes`, the
first sheet view's pane), `zoom` (its `zoomScale or 100.0` against a rule), `row_props` (the row
dimensions openpyxl makes) and `data_validation` (the validations against `dv_props`).

Every workbook is made by LibreOffice Calc through its API, as its menus make them (View >
Freeze Cells, the zoom slider, Format > Rows > Hide, Data > Validity) and saved with its xlsx
filter; a few copies are edited as other writers write them.

Needs LibreOffice and its Python bridge (Debian: python3-uno); run with the system Python:
`/usr/bin/python3 gen.py`. It reuses `../calc/gen.py`'s connection to LibreOffice. It writes
`files/` and `cases.json` beside itself.
"""
import importlib.util
import json
import os
import re
import shutil
import zipfile

import uno

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
_spec = importlib.util.spec_from_file_location("calc_gen", os.path.join(HERE, "..", "calc", "gen.py"))
calc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calc)
prop = calc.prop

LIST = uno.Enum("com.sun.star.sheet.ValidationType", "LIST")
WHOLE = uno.Enum("com.sun.star.sheet.ValidationType", "WHOLE")
BETWEEN = uno.Enum("com.sun.star.sheet.ConditionOperator", "BETWEEN")
GREATER = uno.Enum("com.sun.star.sheet.ConditionOperator", "GREATER")

ROWS = [["Name", "Score", "Result"]] + [["Student %d" % i, 40 + (i * 13) % 60, ""] for i in range(1, 12)]


def make(desktop, name, freeze=None, zoom=None, hide_rows=(), validations=()):
    # Not hidden: a hidden document's view settings (frozen panes, zoom) are not saved.
    doc = desktop.loadComponentFromURL("private:factory/scalc", "_blank", 0, ())
    sheet = doc.Sheets.getByIndex(0)
    calc.fill_cells(sheet, ROWS)
    for r in hide_rows:
        sheet.Rows.getByIndex(r).IsVisible = False
    for ref, kind, formula1, formula2, operator in validations:
        cells = sheet.getCellRangeByName(ref)
        v = cells.Validation
        v.Type = kind
        v.Formula1 = formula1
        if formula2 is not None:
            v.Formula2 = formula2
        if operator is not None:
            v.setOperator(operator)
        v.ShowList = 1
        cells.Validation = v
    controller = doc.CurrentController
    if freeze:
        controller.freezeAtPosition(*freeze)
    if zoom:
        controller.ZoomValue = zoom
    doc.storeToURL("file://" + os.path.join(FILES, name), (prop("FilterName", "Calc MS Excel 2007 XML"),))
    doc.close(True)
    return name


def edit(src, dst, pattern, replacement):
    """A copy of `src` with its first sheet's XML edited."""
    with zipfile.ZipFile(os.path.join(FILES, src)) as zin, zipfile.ZipFile(os.path.join(FILES, dst), "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                text, n = re.subn(pattern, replacement, data.decode("utf-8"), count=1)
                assert n == 1, (src, pattern)
                data = text.encode("utf-8")
            zout.writestr(item, data)
    return dst


cases = []


def case(name, result, expected, rule, note):
    cases.append({"name": name, "func": "compare_table", "result": result, "expected": expected,
                  "options": {"rules": [rule]}, "note": note})


def main():
    shutil.rmtree(FILES, ignore_errors=True)
    os.makedirs(FILES)
    office, desktop, profile = calc.connect()
    try:
        plain = make(desktop, "plain.xlsx")
        f_b2 = make(desktop, "freeze_b2.xlsx", freeze=(1, 1))
        f_b2_again = make(desktop, "freeze_b2_again.xlsx", freeze=(1, 1))
        f_row = make(desktop, "freeze_row.xlsx", freeze=(0, 1))
        f_col = make(desktop, "freeze_col.xlsx", freeze=(1, 0))
        z_75 = make(desktop, "zoom_75.xlsx", zoom=75)
        z_250 = make(desktop, "zoom_250.xlsx", zoom=250)
        z_260 = make(desktop, "zoom_260.xlsx", zoom=260)
        h_3 = make(desktop, "hide_3.xlsx", hide_rows=(2,))
        h_3_again = make(desktop, "hide_3_again.xlsx", hide_rows=(2,))
        h_3_5 = make(desktop, "hide_3_5.xlsx", hide_rows=(2, 4))
        h_4 = make(desktop, "hide_4.xlsx", hide_rows=(3,))
        dv_list = make(desktop, "dv_list.xlsx", validations=[("C2:C12", LIST, '"Pass";"Fail";"Held"', None, None)])
        dv_list_order = make(desktop, "dv_list_order.xlsx", validations=[("C2:C12", LIST, '"Held";"Pass";"Fail"', None, None)])
        dv_list_short = make(desktop, "dv_list_short.xlsx", validations=[("C2:C5", LIST, '"Pass";"Fail";"Held"', None, None)])
        dv_list_two = make(desktop, "dv_list_two.xlsx", validations=[("C2:C6", LIST, '"Pass";"Fail";"Held"', None, None),
                                                                    ("C7:C12", LIST, '"Pass";"Fail";"Held"', None, None)])
        dv_list_other = make(desktop, "dv_list_other.xlsx", validations=[("C2:C12", LIST, '"Yes";"No"', None, None)])
        dv_whole = make(desktop, "dv_whole.xlsx", validations=[("B2:B12", WHOLE, "0", "100", BETWEEN)])
        dv_whole_gt = make(desktop, "dv_whole_gt.xlsx", validations=[("B2:B12", WHOLE, "50", None, GREATER)])
        dv_both = make(desktop, "dv_both.xlsx", validations=[("C2:C12", LIST, '"Pass";"Fail";"Held"', None, None),
                                                             ("B2:B12", WHOLE, "0", "100", BETWEEN)])
    finally:
        office.terminate()
        shutil.rmtree(profile, ignore_errors=True)
    split = edit(f_b2, "split_b2.xlsx", r'state="frozen"', 'state="split"')
    no_top_left = edit(f_b2, "freeze_no_top_left.xlsx", r' topLeftCell="[A-Z0-9]+"', "")
    zoom_none = edit(z_75, "zoom_attribute_gone.xlsx", r' zoomScale="\d+"', "")
    zoom_zero = edit(z_75, "zoom_zero.xlsx", r' zoomScale="\d+"', ' zoomScale="0"')
    hidden_true = edit(h_3, "hide_3_true.xlsx", r'hidden="(true|1)"', 'hidden="True"')
    hidden_off = edit(plain, "hidden_capital_false.xlsx", r'(<row r="2"[^>]*?)hidden="(false|0)"', r'\1hidden="False"')
    rows_bare = edit(plain, "rows_bare.xlsx", r'<row r="3"[^>]*>', '<row r="3">')

    f = {"type": "freeze", "sheet_idx0": 0, "sheet_idx1": "EI0"}
    case("freeze_same", f_b2_again, f_b2, f, "frozen at B2, made twice")
    case("freeze_none_vs_b2", plain, f_b2, f, "nothing frozen where B2 is expected")
    case("freeze_row_vs_b2", f_row, f_b2, f, "the first row frozen where B2 is")
    case("freeze_col_vs_row", f_col, f_row, f, "the first column against the first row")
    case("freeze_none_both", plain, plain, f, "nothing frozen in either")
    case("freeze_split", split, f_b2, f, "split, not frozen, at B2: the pane's top left cell is the same")
    case("freeze_no_top_left", no_top_left, f_b2, f, "a pane without topLeftCell")
    case("freeze_missing_sheet", f_b2, f_b2, {"type": "freeze", "sheet_idx0": "RNNope", "sheet_idx1": "EI0"}, "a sheet that does not exist")
    z = lambda method, ref: {"type": "zoom", "sheet_idx": 0, "method": method, "ref": ref}
    case("zoom_75_lt_260", z_75, plain, z("lt", 260), "75 % below 260")
    case("zoom_260_lt_260", z_260, plain, z("lt", 260), "260 % not below 260")
    case("zoom_250_lt_260", z_250, plain, z("lt", 260), "250 % below 260")
    case("zoom_default_eq_100", plain, plain, z("eq", 100), "the default zoom is 100")
    case("zoom_gone_eq_100", zoom_none, plain, z("eq", 100), "no zoomScale: 100.0")
    case("zoom_zero_eq_100", zoom_zero, plain, z("eq", 100), "zoomScale 0: 100.0 (0 or 100.0)")
    case("zoom_75_ge_75", z_75, plain, z("ge", 75), "75 at least 75")
    case("zoom_75_approx", z_75, plain, z("approx:5", 78), "75 within 5 of 78")
    case("zoom_missing_sheet", z_75, plain, {"type": "zoom", "sheet_idx": "RNNope", "method": "lt", "ref": 260}, "a sheet that does not exist")
    r = {"type": "row_props", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["hidden"]}
    case("rows_hidden_same", h_3_again, h_3, r, "row 3 hidden, made twice")
    case("rows_hidden_none", plain, h_3, r, "nothing hidden where row 3 is")
    case("rows_hidden_other", h_4, h_3, r, "row 4 hidden where row 3 is")
    case("rows_hidden_extra", h_3_5, h_3, r, "rows 3 and 5 hidden where row 3 is")
    case("rows_hidden_capital_true", hidden_true, h_3, r, "hidden=\"True\" (openpyxl: any text but false, f, 0 is true)")
    case("rows_hidden_capital_false", hidden_off, plain, r, "hidden=\"False\" is true to openpyxl")
    case("rows_bare_row", rows_bare, plain, r, "a row with its number alone makes no dimension")
    case("rows_height", h_3, plain, {"type": "row_props", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["height", "hidden"]}, "heights and hidden together")
    case("rows_no_props", h_3, plain, {"type": "row_props", "sheet_idx0": 0, "sheet_idx1": "EI0"}, "no properties: the rows that have dimensions compared")
    d = lambda *props: {"type": "data_validation", "sheet_idx": 0, "dv_props": list(props)}
    task = {"ranges": {"method": "spreadsheet_range", "ref": ["C2:C12", "C2:C1048576"]}, "type": {"method": "eq", "ref": "list"},
            "formula1": {"method": "str_set_eq", "ref": ["Pass", "Fail", "Held"]}}
    case("dv_task_rule", dv_list, plain, d(task), "a list of Pass, Fail, Held on C2:C12, as OSWorld's task asks")
    case("dv_task_order", dv_list_order, plain, d(task), "the same items in another order: a set")
    case("dv_task_short", dv_list_short, plain, d(task), "the list on C2:C5 only")
    case("dv_task_two_ranges", dv_list_two, plain, d(task), "the list on two ranges that together cover C2:C12")
    case("dv_task_other_items", dv_list_other, plain, d(task), "another list")
    case("dv_task_none", plain, plain, d(task), "no validation")
    case("dv_task_whole", dv_whole, plain, d(task), "a whole-number validation instead")
    case("dv_task_both", dv_both, plain, d(task), "the list and another validation: every validation must match an entry")
    case("dv_two_entries", dv_both, plain, d(task, {"type": {"method": "eq", "ref": "whole"}, "operator": {"method": "eq", "ref": "between"}}),
         "two entries, each validation matching one")
    case("dv_whole_operator", dv_whole_gt, plain, d({"type": {"method": "eq", "ref": "whole"}, "operator": {"method": "eq", "ref": "greaterThan"},
                                                    "formula1": {"method": "eq", "ref": "50"}}), "greater than 50")
    case("dv_formula2_none", dv_whole_gt, plain, d({"formula2": {"method": "eq", "ref": None}}), "no second formula: None")
    case("dv_bools", dv_list, plain, d({"allowBlank": {"method": "eq", "ref": True}, "showDropDown": {"method": "eq", "ref": False}}),
         "its flags as LibreOffice writes them")
    case("dv_error_style", dv_list, plain, d({"errorStyle": {"method": "eq", "ref": "stop"}}), "the error style")
    case("dv_more_entries_than_validations", dv_list, plain, d(task, task), "two entries, one validation")
    case("dv_missing_sheet", dv_list, plain, {"type": "data_validation", "sheet_idx": "RNNope", "dv_props": [task]}, "a sheet that does not exist")

    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()

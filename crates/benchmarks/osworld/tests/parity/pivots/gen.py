"""Writes the pivot-table parity cases: OSWorld's `compare_table` rule `pivot_table` (its
`utils.load_pivot_tables`, on what openpyxl reads of a workbook's pivot tables).

Every workbook is made by LibreOffice Calc itself: a sheet of sales data, and pivot tables
(DataPilot tables) made through its API as its dialog makes them, saved as xlsx by its own
filter. They differ in one respect each (row, column, page and data fields, a data field's
function and name, hidden items, the source range and its sheet, the table's place), and the
cases compare them under the properties OSWorld's tasks ask for and the others.

Needs LibreOffice and its Python bridge (Debian: python3-uno); run with the system Python:
`/usr/bin/python3 gen.py`. It writes `files/` and `cases.json` beside itself.
"""
import json
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


def case(name, result, expected, props, note, idx0="RNPivot", idx1="ENPivot", extra_rules=()):
    rule = {"type": "pivot_table", "sheet_idx0": idx0, "sheet_idx1": idx1}
    if props is not None:
        rule["pivot_props"] = props
    cases.append({"name": name, "func": "compare_table", "result": result, "expected": expected,
                  "options": {"rules": list(extra_rules) + [rule]}, "note": note})


TASK_PROPS = ["col_fields", "filter", "row_fields", "data_fields"]


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

    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Probe cases for the Rust OSWorld-metric parity (compare_table, compare_docx_files,
compare_pptx_files, compare_text_file).  Writes files/ and cases.json next to this script.

Run with the OSWorld venv python (openpyxl, python-docx, python-pptx, Pillow):
    ~/.cache/guigym/osworld-venv/bin/python crates/benchmarks/osworld/tests/parity/adversarial/gen.py
Needs `soffice` (LibreOffice) for the files marked "LO" (saved by LibreOffice).
Then:
    ~/.cache/guigym/osworld-venv/bin/python scripts/osworld_parity.py \
        --cases crates/benchmarks/osworld/tests/parity/adversarial/cases.json \
        --write-expected crates/benchmarks/osworld/tests/parity/adversarial/expected.json
    cargo test -p guigym-desktop --test parity
The committed cases.json leaves out the cases listed under "Known divergences" in
../README.md (gen.py writes them too).

Each case has a `note` (what the files hold and what the probe targets); the parity
test ignores unknown keys.
"""
import datetime as dt
import io
import json
import os
import re
import shutil
import subprocess
import zipfile

import openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904
import docx
import pptx
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_THEME_COLOR
from pptx.enum.shapes import MSO_SHAPE
from pptx.enum.text import MSO_UNDERLINE
from pptx.util import Inches, Pt

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
LO_WORK = os.path.join(HERE, "lo_work")
LO_PROFILE = "file://" + os.path.join(HERE, "lo-profile")
CASES = []


def case(name, func, result, expected, options=None, note=""):
    assert all(c["name"] != name for c in CASES), name
    CASES.append({"name": name, "func": func, "result": result, "expected": expected,
                  "options": options if options is not None else {}, "note": note})


def fp(name):
    return os.path.join(FILES, name)


# ----------------------------------------------------------------------------- zip utils
def rewrite_zip(src, dst=None, patches=None, drop=(), add=None, raw=None):
    """Copy an OOXML/ODF zip, applying {member: fn(str)->str} text patches,
    {member: bytes} raw replacements, dropping members and adding new ones."""
    dst = dst or src
    patches, add, raw = patches or {}, add or {}, raw or {}
    with zipfile.ZipFile(src) as z:
        items = [(i.filename, z.read(i.filename)) for i in z.infolist() if i.filename not in drop]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for fname, data in items:
            if fname in patches:
                new = patches[fname](data.decode("utf-8"))
                assert new != data.decode("utf-8"), f"patch of {fname} in {src} changed nothing"
                data = new.encode("utf-8")
            if fname in raw:
                data = raw[fname]
            z.writestr(fname, data, compress_type=zipfile.ZIP_STORED if fname == "mimetype" else zipfile.ZIP_DEFLATED)
        for fname, data in add.items():
            z.writestr(fname, data)
    with open(dst, "wb") as f:
        f.write(out.getvalue())


def sub1(pattern, repl, count=1):
    """A patch function: regex replace (must match)."""
    def f(s):
        new, n = re.subn(pattern, repl, s, count=count)
        assert n, f"pattern {pattern!r} not found"
        return new
    return f


# ----------------------------------------------------------------------------- LibreOffice
LO_JOBS = []  # (src path, target ext or filter, out name)


def lo_convert_all():
    """Convert every queued file with soffice, grouped by target, then copy to files/."""
    by_target = {}
    for src, target, out in LO_JOBS:
        infilter = "HTML (StarCalc)" if src.endswith(".html") else None
        by_target.setdefault((target, infilter), []).append((src, out))
    for (target, infilter), items in by_target.items():
        outdir = os.path.join(LO_WORK, "out_" + re.sub(r"\W", "_", target + str(infilter)))
        os.makedirs(outdir, exist_ok=True)
        srcs = [s for s, _ in items]
        extra = [f"--infilter={infilter}"] if infilter else []
        subprocess.run(["soffice", f"-env:UserInstallation={LO_PROFILE}", "--headless"] + extra +
                       ["--convert-to", target, "--outdir", outdir] + srcs,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        ext = target.split(":")[0]
        for src, out in items:
            produced = os.path.join(outdir, os.path.splitext(os.path.basename(src))[0] + "." + ext)
            assert os.path.exists(produced), produced
            shutil.copy(produced, fp(out))


def lo(src_name, content, target, out):
    """Queue: write `content` to lo_work/src/<src_name>, convert to `target` as files/<out>."""
    d = os.path.join(LO_WORK, "src_" + re.sub(r"\W", "_", target))
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, src_name)
    mode = "wb" if isinstance(content, bytes) else "w"
    with open(p, mode) as f:
        f.write(content)
    LO_JOBS.append((p, target, out))


def lo_file(src_path, target, out):
    """Queue an existing file (copied so that names don't collide)."""
    d = os.path.join(LO_WORK, "src_" + re.sub(r"\W", "_", target))
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, os.path.basename(out).rsplit(".", 1)[0] + "__" + os.path.basename(src_path))
    # the converter names the output after the source stem; keep stems unique
    shutil.copy(src_path, p)
    LO_JOBS.append((p, target, out))


# ----------------------------------------------------------------------------- xlsx helpers
def xlsx(name, sheets, fmt=None, epoch=None, iso_dates=False, hidden=()):
    """sheets: {sheet name: rows}; rows: list of lists (None = no cell).
    fmt: {(sheet, row, col): number_format} (1-based)."""
    wb = openpyxl.Workbook(iso_dates=iso_dates)
    if epoch is not None:
        wb.epoch = epoch
    wb.remove(wb.active)
    for sname, rows in sheets.items():
        ws = wb.create_sheet(sname)
        for r, row in enumerate(rows, 1):
            for c, v in enumerate(row, 1):
                if v is None:
                    continue
                cell = ws.cell(r, c, v)
                if fmt and (sname, r, c) in fmt:
                    cell.number_format = fmt[(sname, r, c)]
        if sname in hidden:
            ws.sheet_state = "hidden"
    wb.save(fp(name))
    return name


def one(rows, name, **kw):
    return xlsx(name, {"Sheet1": rows}, **kw)


CT_XLSX = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>
<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>
</Types>"""
RELS_XLSX = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>"""
WB_XLSX = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<workbookPr{pr}/><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"""
WBRELS_XLSX = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>
</Relationships>"""


def raw_xlsx(name, cells, shared=(), numfmts=(), xf_numfmt_ids=(0,), date1904=False):
    """A hand-written workbook: cells = list of rows of raw <c> inner specs
    (ref, attrs, inner xml); shared = list of raw <si> inner xml."""
    styles = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
              '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">']
    if numfmts:
        styles.append(f'<numFmts count="{len(numfmts)}">' + "".join(
            f'<numFmt numFmtId="{i}" formatCode="{c}"/>' for i, c in numfmts) + "</numFmts>")
    styles.append('<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
                  '<fills count="1"><fill><patternFill patternType="none"/></fill></fills>'
                  '<borders count="1"><border/></borders>'
                  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>')
    styles.append(f'<cellXfs count="{len(xf_numfmt_ids)}">' + "".join(
        f'<xf numFmtId="{i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
        for i in xf_numfmt_ids) + "</cellXfs></styleSheet>")
    rows = []
    for r, row in enumerate(cells, 1):
        rows.append(f'<row r="{r}">' + "".join(row) + "</row>")
    sheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
             '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
             '<sheetData>' + "".join(rows) + '</sheetData></worksheet>')
    sst = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
           f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{len(shared)}" uniqueCount="{len(shared)}">'
           + "".join(f"<si>{s}</si>" for s in shared) + "</sst>")
    with zipfile.ZipFile(fp(name), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CT_XLSX)
        z.writestr("_rels/.rels", RELS_XLSX)
        z.writestr("xl/workbook.xml", WB_XLSX.format(pr=' date1904="1"' if date1904 else ""))
        z.writestr("xl/_rels/workbook.xml.rels", WBRELS_XLSX)
        z.writestr("xl/styles.xml", "".join(styles))
        z.writestr("xl/sharedStrings.xml", sst)
        z.writestr("xl/worksheets/sheet1.xml", sheet)
    return name


def c(ref, v=None, t=None, s=None, inner=None):
    a = f' r="{ref}"' + (f' t="{t}"' if t else "") + (f' s="{s}"' if s is not None else "")
    if inner is not None:
        return f"<c{a}>{inner}</c>"
    if v is None:
        return f"<c{a}/>"
    return f"<c{a}><v>{v}</v></c>"


def rule(i0=0, i1="EI0", **kw):
    r = {"type": "sheet_data", "sheet_idx0": i0, "sheet_idx1": i1}
    r.update(kw)
    return {"rules": [r]}


RULE = rule()


def table_cases():
    T = "compare_table"
    # --- booleans ------------------------------------------------------------------
    one([["flag", "n"], ["TRUE", 1], ["FALSE", 2]], "t_boolstr.xlsx")
    one([["flag", "n"], [True, 1], [False, 2]], "t_bool.xlsx")
    case("t2_bool_text_vs_bool", T, "t_boolstr.xlsx", "t_bool.xlsx", RULE,
         "text 'TRUE'/'FALSE' vs real booleans: pandas' parser turns TRUE/True/true strings into bool")
    one([["flag", "n"], ["true", 1], ["False", 2]], "t_boolstr_mixedcase.xlsx")
    case("t2_bool_text_mixedcase_vs_bool", T, "t_boolstr_mixedcase.xlsx", "t_bool.xlsx", RULE,
         "text 'true'/'False' vs booleans")
    one([["flag", "n"], [True, 1], [None, 2], [False, 3]], "t_bool_blank.xlsx")
    one([["flag", "n"], [1, 1], [None, 2], [0, 3]], "t_int_blank.xlsx")
    case("t2_bool_with_blank_vs_int_with_blank", T, "t_bool_blank.xlsx", "t_int_blank.xlsx", RULE,
         "[TRUE, blank, FALSE] vs [1, blank, 0]: pandas makes both float64 [1.0, nan, 0.0]")
    one([["flag", "n"], [True, 1], [1, 2]], "t_bool_and_int.xlsx")
    one([["flag", "n"], [1, 1], [1, 2]], "t_int_int.xlsx")
    case("t2_bool_mixed_with_int_vs_ints", T, "t_bool_and_int.xlsx", "t_int_int.xlsx", RULE,
         "[TRUE, 1] vs [1, 1]: pandas makes [TRUE, 1] an int64 column")
    # --- one-column sheets -------------------------------------------------------------
    one([["h"], [1], [None], [2]], "t_oc_blank_row.xlsx")
    one([["h"], [1], [2]], "t_oc_no_blank.xlsx")
    case("t2_onecol_blank_row_vs_none", T, "t_oc_blank_row.xlsx", "t_oc_no_blank.xlsx", RULE,
         "one-column sheet with a blank row inside vs without: pandas 2.2 keeps the NaN row")
    case("t2_onecol_blank_row_both", T, "t_oc_blank_row.xlsx", "t_oc_blank_row.xlsx", RULE,
         "same one-column sheet with a blank row on both sides")
    one([["h"], ["a"], ["N/A"], ["b"]], "t_oc_na_row.xlsx")
    one([["h"], ["a"], ["b"]], "t_oc_ab.xlsx")
    case("t2_onecol_na_string_row", T, "t_oc_na_row.xlsx", "t_oc_ab.xlsx", RULE,
         "one-column: 'N/A' row (NaN in pandas, kept) vs no such row")
    one([["h"], ["a"], [" "], ["b"]], "t_oc_space_row.xlsx")
    case("t2_onecol_space_row", T, "t_oc_space_row.xlsx", "t_oc_ab.xlsx", RULE,
         "one-column: a single-space row vs none")
    raw_xlsx("t_oc_error_row.xlsx", [[c("A1", 0, t="s")], [c("A2", 1)], [c("A3", "#DIV/0!", t="e")], [c("A4", 2)]],
             shared=["<t>h</t>"])
    case("t2_onecol_error_row", T, "t_oc_error_row.xlsx", "t_oc_no_blank.xlsx", RULE,
         "one-column: #DIV/0! error row (NaN, kept by pandas) vs none")
    one([[None], ["h"], [1], [2]], "t_oc_blank_first.xlsx")
    case("t2_onecol_blank_leading_row", T, "t_oc_blank_first.xlsx", "t_oc_no_blank.xlsx", RULE,
         "one-column with a blank first row vs table at A1")
    # --- headers -------------------------------------------------------------------------
    one([["a", "a.1", "a"], [1, 2, 3]], "t_hdr_a_a1_a.xlsx")
    one([["a", "a.1", "a.2"], [1, 2, 3]], "t_hdr_a_a1_a2.xlsx")
    case("t2_header_dup_after_suffixed", T, "t_hdr_a_a1_a.xlsx", "t_hdr_a_a1_a2.xlsx", RULE,
         "headers a, a.1, a vs a, a.1, a.2: pandas renames the second 'a' to a.2")
    one([["a", "a", "a.1"], [1, 2, 3]], "t_hdr_a_a_a1.xlsx")
    one([["a", "a.2", "a.1"], [1, 2, 3]], "t_hdr_a_a2_a1.xlsx")
    case("t2_header_dup_before_suffixed", T, "t_hdr_a_a_a1.xlsx", "t_hdr_a_a2_a1.xlsx", RULE,
         "headers a, a, a.1 vs a, a.2, a.1 (pandas' dedup result)")
    one([["x", "x"], [1, 2]], "t_hdr_xx.xlsx")
    one([["x", "x.1"], [1, 2]], "t_hdr_x_x1.xlsx")
    case("t2_header_plain_dup", T, "t_hdr_xx.xlsx", "t_hdr_x_x1.xlsx", RULE, "headers x, x vs x, x.1")
    one([[1.5, 1.5], [1, 2]], "t_hdr_float_dup.xlsx")
    one([[1.5, "1.5.1"], [1, 2]], "t_hdr_float_dup_named.xlsx")
    case("t2_header_float_dup", T, "t_hdr_float_dup.xlsx", "t_hdr_float_dup_named.xlsx", RULE,
         "numeric headers 1.5, 1.5 vs 1.5, '1.5.1'")
    one([[1, True], [1, 2]], "t_hdr_int_bool.xlsx")
    one([[1, "True.1"], [1, 2]], "t_hdr_int_true1.xlsx")
    case("t2_header_bool_equals_int", T, "t_hdr_int_bool.xlsx", "t_hdr_int_true1.xlsx", RULE,
         "headers 1, TRUE: pandas dedups TRUE (== 1) to 'True.1'")
    one([[2024, "b"], [1, 2]], "t_hdr_num.xlsx")
    one([["2024", "b"], [1, 2]], "t_hdr_numtext.xlsx")
    case("t2_header_number_vs_text", T, "t_hdr_num.xlsx", "t_hdr_numtext.xlsx", RULE, "header 2024 (number) vs '2024' (text)")
    raw_xlsx("t_hdr_err.xlsx", [[c("A1", 0, t="s"), c("B1", "#N/A", t="e")], [c("A2", 1), c("B2", 2)]], shared=["<t>a</t>"])
    one([["a", None], [1, 2]], "t_hdr_blank.xlsx")
    case("t2_header_error_vs_blank", T, "t_hdr_err.xlsx", "t_hdr_blank.xlsx", RULE,
         "header cell #N/A (error) vs empty header cell: pandas names it nan, not 'Unnamed: 1'")
    one([["NA", "b"], [1, 2]], "t_hdr_NA.xlsx")
    one([[None, "b"], [1, 2]], "t_hdr_blank_first.xlsx")
    case("t2_header_NA_string_vs_blank", T, "t_hdr_NA.xlsx", "t_hdr_blank_first.xlsx", RULE, "header 'NA' vs blank header")
    # --- numbers as text / big ints ------------------------------------------------------
    one([["v"], ["12\u00a0"], [3]], "t_nbsp_num.xlsx")
    one([["v"], [12], [3]], "t_12_3.xlsx")
    case("t2_number_text_with_nbsp", T, "t_nbsp_num.xlsx", "t_12_3.xlsx", RULE,
         "'12<NBSP>' text vs 12: pandas' numeric parse does not strip NBSP (object column)")
    one([["v"], [" 12 "], [3]], "t_space_num.xlsx")
    case("t2_number_text_with_spaces", T, "t_space_num.xlsx", "t_12_3.xlsx", RULE, "' 12 ' text vs 12")
    one([["v"], ["+12"], [3]], "t_plus_num.xlsx")
    case("t2_number_text_with_plus", T, "t_plus_num.xlsx", "t_12_3.xlsx", RULE, "'+12' text vs 12")
    one([["v"], ["10000000000000000"], [3]], "t_bigint_text.xlsx")
    one([["v"], [1e16], [3]], "t_bigint_num.xlsx")
    case("t2_bigint_text_vs_number", T, "t_bigint_text.xlsx", "t_bigint_num.xlsx", RULE,
         "'10000000000000000' (text) vs 1e16 (number): pandas int64 both")
    one([["v"], [1e19], [3]], "t_u64_num.xlsx")
    one([["v"], ["1e19"], [3]], "t_u64_text.xlsx")
    case("t2_u64_number_vs_float_text", T, "t_u64_num.xlsx", "t_u64_text.xlsx", RULE,
         "1e19 number (pandas uint64) vs '1e19' text (float64)")
    one([["v"], [123456789012], [3]], "t_int12.xlsx")
    one([["v"], [123456789012.00002], [3]], "t_int12_frac.xlsx")
    case("t2_large_float_near_int", T, "t_int12.xlsx", "t_int12_frac.xlsx", RULE,
         "123456789012 vs 123456789012.00002")
    one([["v"], ["inf"], [3]], "t_inf_text.xlsx")
    one([["v"], ["Infinity"], [3]], "t_infinity_text.xlsx")
    case("t2_inf_text_spellings", T, "t_inf_text.xlsx", "t_infinity_text.xlsx", RULE, "'inf' vs 'Infinity' in a numeric column")
    one([["v"], ["1e3"], [3]], "t_sci_text.xlsx")
    one([["v"], [1000], [3]], "t_1000.xlsx")
    case("t2_sci_text_vs_int", T, "t_sci_text.xlsx", "t_1000.xlsx", RULE, "'1e3' (float64) vs 1000 (int64)")
    # --- precision ----------------------------------------------------------------------
    one([["v"], [12], [14]], "t_12_14.xlsx")
    one([["v"], [10], [10]], "t_10_10.xlsx")
    case("t2_precision_negative_rounds_ints", T, "t_12_14.xlsx", "t_10_10.xlsx", rule(precision=-1),
         "precision -1: pandas rounds int columns to tens")
    one([["v"], [1.4], [2.6]], "t_14_26.xlsx")
    one([["v"], [1.2], [2.7]], "t_12_27.xlsx")
    case("t2_precision_zero", T, "t_14_26.xlsx", "t_12_27.xlsx", rule(precision=0), "precision 0 float columns")
    one([["v"], [2.675], [1.5]], "t_2675.xlsx")
    one([["v"], [2.67], [1.5]], "t_267.xlsx")
    case("t2_precision2_binary_tie", T, "t_2675.xlsx", "t_267.xlsx", rule(precision=2), "2.675 rounds to 2.67 (binary)")
    case("t2_precision_string", T, "t_14_26.xlsx", "t_12_27.xlsx", rule(precision="0"), "precision given as a string")
    case("t2_precision_float", T, "t_14_26.xlsx", "t_12_27.xlsx", rule(precision=0.0), "precision given as 0.0")
    # --- dates and times -------------------------------------------------------------------
    F = "yyyy-mm-dd hh:mm:ss"
    one([["t"], [45000.520833333299]], "t_time_lo.xlsx", fmt={("Sheet1", 2, 1): F})
    one([["t"], [45000.520833333336]], "t_time_xl.xlsx", fmt={("Sheet1", 2, 1): F})
    case("t2_datetime_serial_ulp_diff", T, "t_time_lo.xlsx", "t_time_xl.xlsx", RULE,
         "datetime serials 45000.520833333299 vs ...336 (same millisecond; openpyxl rounds to ms)")
    one([["d"], [dt.datetime(2023, 3, 15, 12, 30)], [dt.datetime(2024, 1, 1)]], "t_dates_1900.xlsx")
    one([["d"], [dt.datetime(2023, 3, 15, 12, 30)], [dt.datetime(2024, 1, 1)]], "t_dates_1904.xlsx", epoch=CALENDAR_MAC_1904)
    case("t2_date1904_vs_1900", T, "t_dates_1904.xlsx", "t_dates_1900.xlsx", RULE,
         "same datetimes, one workbook uses the 1904 date system")
    one([["d"], [dt.datetime(2023, 3, 15)], [dt.datetime(2024, 1, 1)]], "t_dates_iso.xlsx", iso_dates=True)
    one([["d"], [dt.datetime(2023, 3, 15)], [dt.datetime(2024, 1, 1)]], "t_dates_serial.xlsx")
    case("t2_iso_date_cells_vs_serial", T, "t_dates_iso.xlsx", "t_dates_serial.xlsx", RULE,
         "cells written t=\"d\" (ISO 8601) vs serial numbers with a date format")
    one([["t"], [0.5]], "t_dur.xlsx", fmt={("Sheet1", 2, 1): "[h]:mm"})
    one([["t"], [0.5]], "t_time.xlsx", fmt={("Sheet1", 2, 1): "hh:mm"})
    case("t2_duration_fmt_vs_time_fmt", T, "t_dur.xlsx", "t_time.xlsx", RULE,
         "0.5 as [h]:mm (timedelta) vs hh:mm (time)")
    one([["t"], [0.5]], "t_time_date_fmt.xlsx", fmt={("Sheet1", 2, 1): "yyyy-mm-dd hh:mm"})
    case("t2_time_lt1_date_fmt_vs_time_fmt", T, "t_time_date_fmt.xlsx", "t_time.xlsx", RULE,
         "0.5 formatted as a datetime vs as a time (both time() in openpyxl)")
    one([["d", "n"], [45000, 1], [1e7, 2]], "t_date_oor.xlsx", fmt={("Sheet1", 2, 1): "yyyy-mm-dd", ("Sheet1", 3, 1): "yyyy-mm-dd"})
    one([["d", "n"], [45000, 1], [None, 2]], "t_date_blank.xlsx", fmt={("Sheet1", 2, 1): "yyyy-mm-dd"})
    case("t2_date_out_of_range_vs_blank", T, "t_date_oor.xlsx", "t_date_blank.xlsx", RULE,
         "date-formatted 1e7 (past year 9999: openpyxl makes it an error, NaN) vs blank")
    one([["d"], [45000]], "t_date_num.xlsx", fmt={("Sheet1", 2, 1): "yyyy-mm-dd"})
    one([["d"], [45000]], "t_plain_num.xlsx")
    case("t2_date_fmt_vs_number", T, "t_date_num.xlsx", "t_plain_num.xlsx", RULE, "45000 as date vs as number")
    raw_xlsx("t_numfmt31.xlsx", [[c("A1", 0, t="s")], [c("A2", 45000, s=1)]], shared=["<t>d</t>"], xf_numfmt_ids=(0, 31))
    case("t2_east_asian_builtin_numfmt_vs_number", T, "t_numfmt31.xlsx", "t_plain_num.xlsx", RULE,
         "numFmtId 31 (East-Asian built-in date, no <numFmt>) vs plain 45000: openpyxl sees no date")
    case("t2_east_asian_builtin_numfmt_vs_date", T, "t_numfmt31.xlsx", "t_date_num.xlsx", RULE,
         "numFmtId 31 vs yyyy-mm-dd 45000")
    raw_xlsx("t_fill_fmt.xlsx", [[c("A1", 0, t="s")], [c("A2", 45000, s=1)]], shared=["<t>d</t>"],
             numfmts=[(164, "*d0")], xf_numfmt_ids=(0, 164))
    case("t2_fill_char_fmt_vs_number", T, "t_fill_fmt.xlsx", "t_plain_num.xlsx", RULE,
         "custom format '*d0' (fill with d): openpyxl calls it a date, calamine does not")
    # --- strings: raw XML quirks ---------------------------------------------------------------
    raw_xlsx("t_t_untrimmed.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]], shared=["<t>v</t>", "<t>  abc </t>"])
    raw_xlsx("t_t_abc.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]], shared=["<t>v</t>", "<t>abc</t>"])
    case("t2_shared_string_spaces_without_preserve", T, "t_t_untrimmed.xlsx", "t_t_abc.xlsx", RULE,
         "<t>  abc </t> without xml:space=preserve vs 'abc'")
    raw_xlsx("t_t_space_only.xlsx", [[c("A1", 0, t="s"), c("B1", 2, t="s")], [c("A2", 1, t="s"), c("B2", 1)]],
             shared=["<t>v</t>", "<t> </t>", "<t>w</t>"])
    raw_xlsx("t_t_empty.xlsx", [[c("A1", 0, t="s"), c("B1", 1, t="s")], [c("B2", 1)]], shared=["<t>v</t>", "<t>w</t>"])
    case("t2_shared_string_space_only_without_preserve", T, "t_t_space_only.xlsx", "t_t_empty.xlsx", RULE,
         "<t> </t> (no preserve) vs an empty cell")
    raw_xlsx("t_x000d.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]], shared=["<t>v</t>", "<t>a_x000D_\nb</t>"])
    raw_xlsx("t_cr.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]], shared=["<t>v</t>", "<t>a&#13;\nb</t>"])
    case("t2_x000D_escape_vs_cr", T, "t_x000d.xlsx", "t_cr.xlsx", RULE,
         "shared string 'a_x000D_\\nb' (Excel's escaped CR) vs 'a\\r\\nb'")
    raw_xlsx("t_x0041.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]], shared=["<t>v</t>", "<t>ID_x0041_</t>"])
    raw_xlsx("t_id_a.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]], shared=["<t>v</t>", "<t>IDA</t>"])
    case("t2_x0041_escape_vs_literal", T, "t_x0041.xlsx", "t_id_a.xlsx", RULE, "'ID_x0041_' vs 'IDA'")
    raw_xlsx("t_rph.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]],
             shared=["<t>v</t>", "<r><t>東京</t></r><rPh sb=\"0\" eb=\"2\"><t>トウキョウ</t></rPh><phoneticPr fontId=\"0\"/>"])
    raw_xlsx("t_tokyo.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]], shared=["<t>v</t>", "<t>東京</t>"])
    case("t2_phonetic_run_ignored", T, "t_rph.xlsx", "t_tokyo.xlsx", RULE, "rich string with <rPh> phonetic run vs plain")
    raw_xlsx("t_inline.xlsx", [[c("A1", t="inlineStr", inner="<is><t>v</t></is>")],
                               [c("A2", t="inlineStr", inner="<is><r><t>ab</t></r><r><t>c</t></r></is>")]])
    raw_xlsx("t_abc_shared.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="s")]], shared=["<t>v</t>", "<t>abc</t>"])
    case("t2_inline_rich_vs_shared", T, "t_inline.xlsx", "t_abc_shared.xlsx", RULE, "inline rich string vs shared")
    raw_xlsx("t_str_formula_num.xlsx", [[c("A1", 0, t="s")], [c("A2", t="str", inner="<f>\"5\"</f><v>5</v>")], [c("A3", 3)]],
             shared=["<t>v</t>"])
    raw_xlsx("t_5_3.xlsx", [[c("A1", 0, t="s")], [c("A2", 5)], [c("A3", 3)]], shared=["<t>v</t>"])
    case("t2_formula_string_result_numeric", T, "t_str_formula_num.xlsx", "t_5_3.xlsx", RULE,
         "formula with cached string '5' vs number 5")
    raw_xlsx("t_bool_formula.xlsx", [[c("A1", 0, t="s")], [c("A2", t="b", inner="<f>TRUE()</f><v>1</v>")], [c("A3", 0, t="b")]],
             shared=["<t>v</t>"])
    raw_xlsx("t_bool_plain.xlsx", [[c("A1", 0, t="s")], [c("A2", 1, t="b")], [c("A3", 0, t="b")]], shared=["<t>v</t>"])
    case("t2_bool_formula_vs_bool", T, "t_bool_formula.xlsx", "t_bool_plain.xlsx", RULE, "TRUE() formula vs TRUE")
    raw_xlsx("t_n_text_value.xlsx", [[c("A1", 0, t="s")], [c("A2", inner="<v>abc</v>")]], shared=["<t>v</t>"])
    case("t2_untyped_cell_with_text_value", T, "t_n_text_value.xlsx", "t_abc_shared.xlsx", RULE,
         "<c> without t holding <v>abc</v> (invalid number)")
    one([["d"], [59]], "t_serial59.xlsx", fmt={("Sheet1", 2, 1): "yyyy-mm-dd"})
    one([["d"], [60]], "t_serial60.xlsx", fmt={("Sheet1", 2, 1): "yyyy-mm-dd"})
    case("t2_date_serial_59_vs_60", T, "t_serial59.xlsx", "t_serial60.xlsx", RULE,
         "serials 59 and 60 (Excel's fictitious 1900-02-29) are both 1900-02-28 in openpyxl")
    one([["flag", "n"], ["TRUE", 1], [None, 2], ["FALSE", 3]], "t_boolstr_blank.xlsx")
    case("t2_bool_text_with_blank_vs_bool_with_blank", T, "t_boolstr_blank.xlsx", "t_bool_blank.xlsx", RULE,
         "['TRUE', blank, 'FALSE'] text vs [TRUE, blank, FALSE] booleans")
    lo("t_spaces.csv", 'v,w\n"  abc ",1\n" ",2\n', "xlsx:Calc MS Excel 2007 XML", "t_spaces_lo.xlsx")
    one([["v", "w"], ["  abc ", 1], [" ", 2]], "t_spaces_py.xlsx")
    case("t2_lo_leading_trailing_spaces", T, "t_spaces_lo.xlsx", "t_spaces_py.xlsx", RULE,
         "LO-saved strings with leading/trailing spaces and a lone space vs openpyxl")
    one([["d", "t"], [dt.datetime(2023, 3, 15), dt.time(8, 20, 10)], [dt.datetime(2024, 2, 29), dt.time(0, 0, 1)]], "t_dates_only_orig.xlsx")
    lo_file(fp("t_dates_only_orig.xlsx"), "xlsx:Calc MS Excel 2007 XML", "t_dates_only_lo.xlsx")
    case("t2_lo_roundtrip_dates_and_short_times", T, "t_dates_only_lo.xlsx", "t_dates_only_orig.xlsx", RULE,
         "LO round trip of whole dates and times whose serials LO keeps exactly")

    # --- sheet references ---------------------------------------------------------------
    xlsx("t_two_sheets_last_ok.xlsx", {"Other": [["x"], [9]], "Data": [["v"], [12], [3]]})
    case("t2_sheet_idx_negative_int", T, "t_two_sheets_last_ok.xlsx", "t_12_3.xlsx", rule(-1),
         "sheet_idx0 = -1: Python indexes the last result sheet")
    case("t2_sheet_idx_RI_minus1", T, "t_two_sheets_last_ok.xlsx", "t_12_3.xlsx", rule("RI-1"), "sheet_idx0 = 'RI-1'")
    case("t2_sheet_idx_EI_minus1", T, "t_12_3.xlsx", "t_two_sheets_last_ok.xlsx", rule(0, "EI-1"), "sheet_idx1 = 'EI-1'")
    case("t2_sheet_idx_RI_garbage", T, "t_12_3.xlsx", "t_12_3.xlsx", rule("RIx"), "sheet_idx0 = 'RIx' (not a number)")
    case("t2_sheet_idx_RI_space", T, "t_12_3.xlsx", "t_12_3.xlsx", rule("RI 0"), "sheet_idx0 = 'RI 0' (int(' 0') is 0)")
    case("t2_sheet_idx_bool", T, "t_12_3.xlsx", "t_12_3.xlsx", rule(False), "sheet_idx0 = false (bool is an int in Python)")
    xlsx("t_hidden_mid.xlsx", {"A": [["v"], [12], [3]], "Hid": [["q"], [1]], "B": [["w"], [5]]}, hidden=("Hid",))
    xlsx("t_visible3.xlsx", {"A": [["v"], [12], [3]], "Hid": [["q"], [1]], "B": [["w"], [5]]})
    case("t2_hidden_sheet_names_and_index", T, "t_hidden_mid.xlsx", "t_visible3.xlsx",
         {"rules": [{"type": "sheet_name"}, {"type": "sheet_data", "sheet_idx0": 2, "sheet_idx1": "EI2"}]},
         "a hidden middle sheet counts in names and indexes")
    # chartsheet
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for row in [["v"], [12], [3]]:
        ws.append(row)
    cs = wb.create_chartsheet("Chart1")
    from openpyxl.chart import BarChart, Reference
    ch = BarChart()
    ch.add_data(Reference(ws, min_col=1, min_row=1, max_row=3), titles_from_data=True)
    cs.add_chart(ch)
    wb.save(fp("t_chartsheet.xlsx"))
    xlsx("t_data_only.xlsx", {"Data": [["v"], [12], [3]]})
    case("t2_chartsheet_name_rule", T, "t_chartsheet.xlsx", "t_data_only.xlsx", {"rules": [{"type": "sheet_name"}]},
         "result has an extra chartsheet")
    case("t2_chartsheet_data_rule", T, "t_chartsheet.xlsx", "t_chartsheet.xlsx", rule(1, "EI1"),
         "sheet_data on a chartsheet (both sides)")
    # --- non-xlsx results ----------------------------------------------------------------------
    xlsx("t_plain.xlsx", {"Sheet1": [["v", "w"], [12, "a"], [3, "b"]]})
    lo_file(fp("t_plain.xlsx"), "ods", "t_plain_lo.ods")
    lo_file(fp("t_plain.xlsx"), "xls", "t_plain_lo.xls")
    case("t2_ods_result", T, "t_plain_lo.ods", "t_plain.xlsx", RULE, "LO-saved .ods result vs xlsx (openpyxl refuses .ods)")
    case("t2_xls_result", T, "t_plain_lo.xls", "t_plain.xlsx", RULE, "LO-saved .xls result vs xlsx")
    shutil.copy(fp("t_plain.xlsx"), fp("t_plain_upper.XLSX"))
    case("t2_uppercase_extension", T, "t_plain_upper.XLSX", "t_plain.xlsx", RULE, ".XLSX extension")
    with open(fp("t_empty.xlsx"), "wb") as f:
        pass
    case("t2_empty_result_file", T, "t_empty.xlsx", "t_plain.xlsx", RULE, "zero-byte result")
    # --- LibreOffice-saved workbooks ----------------------------------------------------------------
    mixed = [["id", "name", "price", "when", "ok", "pct", "calc"],
             [1, "Apple", 1.25, dt.datetime(2023, 3, 15, 12, 30), True, 0.125, None],
             [2, "Pear", 3.0, dt.datetime(2024, 2, 29, 8, 0, 0), False, 0.5, None],
             [3, "Fig", 10.125, dt.datetime(2021, 1, 1, 0, 0, 1), True, 1, None]]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    for row in mixed:
        ws.append(row)
    for r in range(2, 5):
        ws.cell(r, 4).number_format = "yyyy-mm-dd hh:mm:ss"
        ws.cell(r, 6).number_format = "0.0%"
        ws.cell(r, 7).value = f"=A{r}*C{r}"
    wb.save(fp("t_mixed_formulas_uncached.xlsx"))
    # expected with literal values
    vals = [row[:] for row in mixed]
    for r in range(1, 4):
        vals[r][6] = vals[r][0] * vals[r][2]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    for row in vals:
        ws.append(row)
    for r in range(2, 5):
        ws.cell(r, 4).number_format = "yyyy-mm-dd hh:mm:ss"
        ws.cell(r, 6).number_format = "0.0%"
    wb.save(fp("t_mixed_values.xlsx"))
    lo_file(fp("t_mixed_formulas_uncached.xlsx"), "xlsx:Calc MS Excel 2007 XML", "t_mixed_lo.xlsx")
    case("t2_lo_roundtrip_mixed_vs_values", T, "t_mixed_lo.xlsx", "t_mixed_values.xlsx", RULE,
         "LO-recalculated formulas, dates, bools, percents vs openpyxl literal values")
    case("t2_lo_roundtrip_mixed_name_rule", T, "t_mixed_lo.xlsx", "t_mixed_values.xlsx",
         {"rules": [{"type": "sheet_name"}, {"type": "sheet_data", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"}]},
         "same with sheet_name + RN/EN")
    csv = "name,qty,flag,when,pct,code\nApple,1,TRUE,2023-03-15,12.5%,007\nPear,2.5,FALSE,2024-02-29,50%,010\n,,,,,\nFig,,TRUE,2021-01-01 10:30,100%,abc\n"
    lo("t_csv_import.csv", csv, "xlsx:Calc MS Excel 2007 XML", "t_csv_lo.xlsx")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "t_csv_import"
    rows = [["name", "qty", "flag", "when", "pct", "code"],
            ["Apple", 1, True, dt.datetime(2023, 3, 15), 0.125, 7],
            ["Pear", 2.5, False, dt.datetime(2024, 2, 29), 0.5, 10],
            [None] * 6,
            ["Fig", None, True, dt.datetime(2021, 1, 1, 10, 30), 1, "abc"]]
    for row in rows:
        ws.append(row)
    wb.save(fp("t_csv_expected.xlsx"))
    case("t2_lo_csv_import_vs_typed", T, "t_csv_lo.xlsx", "t_csv_expected.xlsx", RULE,
         "csv imported by LO (bools, dates, percents, blank row, '007') vs openpyxl typed values")
    # LO: merged cells, styled empty cells, multiple sheets, booleans
    html = ("<html><body><table>"
            "<tr><td>k</td><td>v</td><td>w</td></tr>"
            "<tr><td colspan=2>merged</td><td>1</td></tr>"
            "<tr><td>x</td><td>2</td><td>3</td></tr>"
            "</table></body></html>")
    lo("t_merged.html", html, "xlsx:Calc MS Excel 2007 XML", "t_merged_lo.xlsx")
    one([["k", "v", "w"], ["merged", None, 1], ["x", 2, 3]], "t_merged_expected.xlsx")
    case("t2_lo_html_merged_vs_plain", T, "t_merged_lo.xlsx", "t_merged_expected.xlsx", RULE,
         "LO html import with a merged cell vs plain cells")
    # LO time round trip: openpyxl datetimes -> LO -> xlsx vs original
    one([["t", "d"], [dt.datetime(2023, 3, 15, 12, 30), dt.time(8, 20, 10)], [dt.datetime(2023, 3, 15, 17, 45, 33), dt.time(23, 59, 59)]],
        "t_times_orig.xlsx")
    lo_file(fp("t_times_orig.xlsx"), "xlsx:Calc MS Excel 2007 XML", "t_times_lo.xlsx")
    case("t2_lo_roundtrip_times", T, "t_times_lo.xlsx", "t_times_orig.xlsx", RULE, "LO round trip of datetimes and times")
    # LO: trailing styled empty cells and empty-string formula
    raw_xlsx("t_emptystr_formula.xlsx", [[c("A1", 0, t="s"), c("B1", 1, t="s")], [c("A2", 1), c("B2", t="str", inner="<f>\"\"</f><v></v>")],
                                         [c("A3", 2), c("B3", 3)]], shared=["<t>a</t>", "<t>b</t>"])
    raw_xlsx("t_blank_b2.xlsx", [[c("A1", 0, t="s"), c("B1", 1, t="s")], [c("A2", 1)], [c("A3", 2), c("B3", 3)]],
             shared=["<t>a</t>", "<t>b</t>"])
    case("t2_empty_string_formula_vs_blank", T, "t_emptystr_formula.xlsx", "t_blank_b2.xlsx", RULE, "=\"\" cached empty vs blank")


# ----------------------------------------------------------------------------- docx helpers
def mkdocx(name, paras):
    d = docx.Document()
    for p in paras:
        d.add_paragraph(p)
    d.save(fp(name))
    return name


def docx_patch(src, dst, fn):
    rewrite_zip(fp(src), fp(dst), patches={"word/document.xml": fn})
    return dst


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def raw_docx(name, body_xml):
    mkdocx("_tmp.docx", ["x"])
    docx_patch("_tmp.docx", name, sub1(r"<w:body>.*</w:body>", lambda m: "<w:body>" + body_xml + "</w:body>", 1))
    os.remove(fp("_tmp.docx"))
    return name


def odt_raw(name, body, header=None, extra_styles=""):
    """A minimal hand-written odt (content.xml + styles.xml with optional header)."""
    NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
          'xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3"')
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {NS}>'
               f'<office:body><office:text>{body}</office:text></office:body></office:document-content>')
    hdr = f"<style:header>{header}</style:header>" if header is not None else ""
    styles = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-styles {NS}>'
              f'<office:styles>{extra_styles}</office:styles><office:automatic-styles><style:page-layout style:name="pm1"/></office:automatic-styles>'
              f'<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1">{hdr}</style:master-page></office:master-styles>'
              '</office:document-styles>')
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
                '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>'
                '</manifest:manifest>')
    with zipfile.ZipFile(fp(name), "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text", compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("styles.xml", styles, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
    return name


def fodt(body, header=None):
    hdr = f"<style:header>{header}</style:header>" if header is not None else ""
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            '<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
            'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
            'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
            'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
            'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
            'xmlns:xlink="http://www.w3.org/1999/xlink" '
            'office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">'
            '<office:automatic-styles><style:page-layout style:name="pm1"/></office:automatic-styles>'
            f'<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1">{hdr}</style:master-page></office:master-styles>'
            f'<office:body><office:text>{body}</office:text></office:body></office:document>')


def docs_cases():
    D = "compare_docx_files"
    mkdocx("d_base.docx", ["Hello world", "Second line here"])
    shutil.copy(fp("d_base.docx"), fp("d_base_upper.DOCX"))
    case("d2_uppercase_docx_extension", D, "d_base_upper.DOCX", "d_base.docx", {}, "result named .DOCX (OSWorld's endswith is case-sensitive)")
    rewrite_zip(fp("d_base.docx"), fp("d_base_dotx_ct.docx"), patches={
        "[Content_Types].xml": sub1(r"wordprocessingml\.document\.main\+xml", "wordprocessingml.template.main+xml")})
    case("d2_template_content_type", D, "d_base_dotx_ct.docx", "d_base.docx", {}, "docx whose main part has the .dotx content type")
    rewrite_zip(fp("d_base.docx"), fp("d_base_docm_ct.docx"), patches={
        "[Content_Types].xml": sub1(r"wordprocessingml\.document\.main\+xml", "ms-word.document.macroEnabled.main+xml")})
    case("d2_macro_content_type", D, "d_base_docm_ct.docx", "d_base.docx", {}, "docx whose main part has the .docm content type")
    # strict OOXML namespaces
    def strictify(s):
        return s.replace("http://schemas.openxmlformats.org/wordprocessingml/2006/main", "http://purl.oclc.org/ooxml/wordprocessingml/main")
    def strict_rels(s):
        return s.replace("http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument",
                         "http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument")
    rewrite_zip(fp("d_base.docx"), fp("d_strict_a.docx"), patches={"word/document.xml": strictify, "_rels/.rels": strict_rels})
    mkdocx("d_other.docx", ["Completely different", "text"])
    rewrite_zip(fp("d_other.docx"), fp("d_strict_b.docx"), patches={"word/document.xml": strictify, "_rels/.rels": strict_rels})
    case("d2_strict_same_text", D, "d_strict_a.docx", "d_strict_a.docx", {}, "Strict-OOXML namespaces, same file")
    case("d2_strict_vs_transitional", D, "d_strict_a.docx", "d_base.docx", {}, "Strict vs transitional, same text")
    case("d2_strict_different_text", D, "d_strict_a.docx", "d_strict_b.docx", {}, "two Strict docs with different text")
    # only the body namespace strict (rels transitional)
    rewrite_zip(fp("d_base.docx"), fp("d_strict_ns_only.docx"), patches={"word/document.xml": strictify})
    case("d2_strict_namespace_only", D, "d_strict_ns_only.docx", "d_base.docx", {}, "document.xml in the Strict namespace, rels transitional")
    # encodings
    with zipfile.ZipFile(fp("d_base.docx")) as z:
        docxml = z.read("word/document.xml").decode("utf-8")
    u16 = re.sub(r"encoding=['\"]UTF-8['\"]", 'encoding="UTF-16"', docxml, count=1)
    assert u16 != docxml
    rewrite_zip(fp("d_base.docx"), fp("d_utf16.docx"), raw={"word/document.xml": u16.encode("utf-16")})
    case("d2_utf16_document_xml", D, "d_utf16.docx", "d_base.docx", {}, "word/document.xml encoded as UTF-16 (with BOM)")
    rewrite_zip(fp("d_base.docx"), fp("d_bom.docx"), raw={"word/document.xml": b"\xef\xbb\xbf" + docxml.encode("utf-8")})
    case("d2_utf8_bom_document_xml", D, "d_bom.docx", "d_base.docx", {}, "word/document.xml with a UTF-8 BOM")
    # main part somewhere else
    rewrite_zip(fp("d_base.docx"), fp("d_document2.docx"),
                patches={"[Content_Types].xml": sub1(r"/word/document\.xml", "/word/document2.xml"),
                         "_rels/.rels": sub1(r"word/document\.xml", "word/document2.xml")},
                drop=("word/document.xml", "word/_rels/document.xml.rels"),
                add={"word/document2.xml": docxml.encode("utf-8"),
                     "word/_rels/document2.xml.rels": zipfile.ZipFile(fp("d_base.docx")).read("word/_rels/document.xml.rels")})
    case("d2_main_part_document2", D, "d_document2.docx", "d_base.docx", {}, "main document part at word/document2.xml")
    # body-level and run-level wrappers
    P = lambda t: f'<w:p><w:r><w:t xml:space="preserve">{t}</w:t></w:r></w:p>'
    raw_docx("d_plain_ab.docx", P("Alpha") + P("Beta"))
    raw_docx("d_sdt_body.docx", P("Alpha") + '<w:sdt><w:sdtPr/><w:sdtContent>' + P("Beta") + '</w:sdtContent></w:sdt>')
    case("d2_sdt_body_paragraph", D, "d_sdt_body.docx", "d_plain_ab.docx", {}, "second paragraph inside a body-level content control")
    raw_docx("d_sdt_run.docx", P("Alpha") + '<w:p><w:sdt><w:sdtPr/><w:sdtContent><w:r><w:t>Beta</w:t></w:r></w:sdtContent></w:sdt></w:p>')
    case("d2_sdt_run", D, "d_sdt_run.docx", "d_plain_ab.docx", {}, "run inside an inline content control")
    raw_docx("d_smarttag.docx", P("Alpha") + '<w:p><w:smartTag w:uri="u" w:element="e"><w:r><w:t>Beta</w:t></w:r></w:smartTag></w:p>')
    case("d2_smarttag_run", D, "d_smarttag.docx", "d_plain_ab.docx", {}, "run inside w:smartTag")
    raw_docx("d_fldsimple.docx", P("Alpha") + '<w:p><w:fldSimple w:instr=" PAGE "><w:r><w:t>Beta</w:t></w:r></w:fldSimple></w:p>')
    case("d2_fldsimple_run", D, "d_fldsimple.docx", "d_plain_ab.docx", {}, "run inside w:fldSimple")
    raw_docx("d_fldchar.docx", P("Alpha") + '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>'
             '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>Beta</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>')
    case("d2_complex_field_result", D, "d_fldchar.docx", "d_plain_ab.docx", {}, "complex field: result run is text, instrText is not")
    raw_docx("d_hyperlink_nested.docx", P("Alpha") + '<w:p><w:hyperlink r:id="rId99" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
             '<w:r><w:t>Be</w:t></w:r><w:smartTag w:uri="u" w:element="e"><w:r><w:t>t</w:t></w:r></w:smartTag><w:r><w:t>a</w:t></w:r></w:hyperlink></w:p>')
    raw_docx("d_plain_abea.docx", P("Alpha") + P("Bea"))
    case("d2_hyperlink_with_smarttag", D, "d_hyperlink_nested.docx", "d_plain_abea.docx", {}, "smartTag inside a hyperlink is skipped")
    raw_docx("d_sym_softhyphen.docx", P("Alpha") + '<w:p><w:r><w:t>Be</w:t><w:softHyphen/><w:sym w:font="Symbol" w:char="F020"/><w:t>ta</w:t></w:r></w:p>')
    case("d2_softhyphen_sym", D, "d_sym_softhyphen.docx", "d_plain_ab.docx", {}, "w:softHyphen and w:sym are no text")
    raw_docx("d_page_br.docx", P("Alpha") + '<w:p><w:r><w:t>Be</w:t><w:br w:type="page"/><w:t>ta</w:t></w:r></w:p>')
    case("d2_page_break_no_text_no_blanks", D, "d_page_br.docx", "d_plain_ab.docx", {"ignore_blanks": False}, "page break inside a word")
    raw_docx("d_col_br_clear.docx", P("Alpha") + '<w:p><w:r><w:t>Be</w:t><w:br w:clear="all"/><w:t>ta</w:t></w:r></w:p>')
    raw_docx("d_plain_be_nl_ta.docx", P("Alpha") + '<w:p><w:r><w:t>Be</w:t><w:br/><w:t>ta</w:t></w:r></w:p>')
    case("d2_br_clear_is_newline", D, "d_col_br_clear.docx", "d_plain_be_nl_ta.docx", {"ignore_blanks": False}, "w:br w:clear=all")
    raw_docx("d_del_ins.docx", P("Alpha") + '<w:p><w:r><w:t>Be</w:t></w:r><w:del w:id="1" w:author="a"><w:r><w:delText>XX</w:delText></w:r></w:del><w:r><w:t>ta</w:t></w:r></w:p>')
    case("d2_deleted_text", D, "d_del_ins.docx", "d_plain_ab.docx", {}, "tracked deletion is not text")
    raw_docx("d_altcontent.docx", P("Alpha") + '<w:p xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:r><w:t>Be</w:t></w:r>'
             '<mc:AlternateContent><mc:Choice Requires="w14"><w:r><w:t>ZZ</w:t></w:r></mc:Choice></mc:AlternateContent><w:r><w:t>ta</w:t></w:r></w:p>')
    case("d2_alternate_content", D, "d_altcontent.docx", "d_plain_ab.docx", {}, "mc:AlternateContent inside a paragraph")
    raw_docx("d_math.docx", P("Alpha") + '<w:p xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"><w:r><w:t>Beta</w:t></w:r>'
             '<m:oMath><m:r><m:t>x</m:t></m:r></m:oMath></w:p>')
    case("d2_omml_math", D, "d_math.docx", "d_plain_ab.docx", {}, "inline math is not paragraph text")
    raw_docx("d_customxml.docx", P("Alpha") + '<w:customXml w:element="x">' + P("Beta") + '</w:customXml>')
    case("d2_customxml_body", D, "d_customxml.docx", "d_plain_ab.docx", {}, "paragraph wrapped in body-level customXml")
    # options
    mkdocx("d_blank_extra.docx", ["Hello world", "", "Second line here"])
    case("d2_ignore_blanks_null", D, "d_blank_extra.docx", "d_base.docx", {"ignore_blanks": None},
         "ignore_blanks: null (falsy in Python) with an extra blank paragraph")
    case("d2_ignore_blanks_zero", D, "d_blank_extra.docx", "d_base.docx", {"ignore_blanks": 0}, "ignore_blanks: 0")
    mkdocx("d_base_upper.docx", ["HELLO WORLD", "SECOND LINE HERE"])
    case("d2_ignore_case_one", D, "d_base_upper.docx", "d_base.docx", {"ignore_case": 1}, "ignore_case: 1 (truthy)")
    case("d2_ignore_case_string", D, "d_base_upper.docx", "d_base.docx", {"ignore_case": "yes"}, "ignore_case: 'yes'")
    mkdocx("d_fz_a.docx", ["The quick brown fox", "", "jumps over", "the lazy dog"])
    mkdocx("d_fz_b.docx", ["the quick brown cat", "jumps  over", "", "THE LAZY DOG!"])
    case("d2_content_only_ignore_case", D, "d_fz_a.docx", "d_fz_b.docx", {"content_only": True, "ignore_case": True}, "content_only ratio")
    case("d2_fuzzy_no_blanks_case", D, "d_fz_a.docx", "d_fz_b.docx", {"fuzzy_match": True, "ignore_blanks": False, "ignore_case": True},
         "per-paragraph ratio average")
    case("d2_fuzzy_no_blanks_delete_empty", D, "d_fz_a.docx", "d_fz_b.docx",
         {"fuzzy_match": True, "ignore_blanks": False, "delete_empty_lines": True}, "fuzzy per paragraph after dropping blanks")
    case("d2_order_and_delete_empty", D, "d_fz_a.docx", "d_fz_b.docx",
         {"ignore_order": True, "delete_empty_lines": True, "ignore_blanks": False, "ignore_case": True}, "ignore_order + delete_empty_lines")
    case("d2_content_only_and_fuzzy_false", D, "d_fz_a.docx", "d_fz_a.docx", {"content_only": True, "fuzzy_match": False}, "content_only identical")
    mkdocx("d_sigma_upper.docx", ["ΟΔΟΣ ΣΟΦΙΑΣ"])
    mkdocx("d_sigma_lower.docx", ["οδος σοφιας"])
    case("d2_greek_final_sigma_ignore_case", D, "d_sigma_upper.docx", "d_sigma_lower.docx", {"ignore_case": True},
         "'ΟΔΟΣ' lower-cases to final sigma 'οδος' (ς) vs 'οδοσ'")
    mkdocx("d_turkish_I.docx", ["İstanbul"])
    mkdocx("d_istanbul.docx", ["i̇stanbul"])
    case("d2_dotted_I_ignore_case", D, "d_turkish_I.docx", "d_istanbul.docx", {"ignore_case": True}, "'İ'.lower() is 'i̇'")
    mkdocx("d_ideo_space.docx", ["Hello\u3000world\u2009!", "Second\u00a0line here"])
    mkdocx("d_ascii_space.docx", ["Hello world !", "Second line here"])
    case("d2_unicode_spaces_collapse", D, "d_ideo_space.docx", "d_ascii_space.docx", {}, "ideographic, thin and no-break spaces")
    mkdocx("d_zwsp.docx", ["Hello\u200bworld", "Second line here"])
    mkdocx("d_helloworld.docx", ["Helloworld", "Second line here"])
    case("d2_zero_width_space", D, "d_zwsp.docx", "d_helloworld.docx", {}, "U+200B is not whitespace for either")
    # odt
    odt_raw("o_body_hdr_a.odt", "<text:p>Hello world</text:p><text:p>Second</text:p>", header="<text:p>Header A</text:p>")
    odt_raw("o_body_hdr_b.odt", "<text:p>Hello world</text:p><text:p>Second</text:p>", header="<text:p>Header B</text:p>")
    case("d2_odt_header_differs", D, "o_body_hdr_a.odt", "o_body_hdr_b.odt", {}, "odt with different header text in styles.xml")
    odt_raw("o_body_nohdr.odt", "<text:p>Hello world</text:p><text:p>Second</text:p>")
    case("d2_odt_header_vs_none", D, "o_body_hdr_a.odt", "o_body_nohdr.odt", {}, "odt with a header vs none")
    odt_raw("o_styles_para.odt", "<text:p>Hello world</text:p><text:p>Second</text:p>",
            extra_styles='<text:notes-configuration text:note-class="footnote"><text:note-continuation-notice-forward><text:p>cont</text:p></text:note-continuation-notice-forward></text:notes-configuration>')
    case("d2_odt_text_in_office_styles", D, "o_styles_para.odt", "o_body_nohdr.odt", {}, "a text:p inside office:styles")
    odt_raw("o_span_link.odt", '<text:p>Hello <text:a xlink:href="http://x">world</text:a></text:p><text:p>Sec<text:span>ond<text:span>!</text:span></text:span></text:p>')
    odt_raw("o_hello.odt", '<text:p>Hello </text:p><text:p>Second</text:p>')
    case("d2_odt_link_and_nested_span_dropped", D, "o_span_link.odt", "o_hello.odt", {}, "text in text:a and nested spans is dropped by both?")
    odt_raw("o_heading.odt", '<text:h text:outline-level="1">Title A</text:h><text:p>Body</text:p>')
    odt_raw("o_heading_b.odt", '<text:h text:outline-level="1">Title B</text:h><text:p>Body</text:p>')
    case("d2_odt_heading_ignored", D, "o_heading.odt", "o_heading_b.odt", {}, "text:h is not text:p")
    odt_raw("o_spaces.odt", '<text:p>a<text:s text:c="3"/>b<text:tab/>c<text:line-break/>d</text:p>')
    odt_raw("o_abcd.odt", '<text:p>abcd</text:p>')
    case("d2_odt_space_tab_break_elements", D, "o_spaces.odt", "o_abcd.odt", {}, "text:s/tab/line-break are dropped")
    with open(fp("o_corrupt.odt"), "wb") as f:
        f.write(b"this is not a zip")
    case("d2_odt_corrupt_result", D, "o_corrupt.odt", "o_hello.odt", {}, "result .odt that is not a zip")
    shutil.copy(fp("d_base.docx"), fp("o_docx_named.odt"))
    case("d2_odt_named_docx_content", D, "o_docx_named.odt", "o_hello.odt", {}, "result .odt that is really a docx")
    odt_raw("o_no_manifest_styles.odt", "<text:p>Hello </text:p><text:p>Second</text:p>")
    case("d2_mixed_docx_odt", D, "d_base.docx", "o_hello.odt", {}, "docx vs odt")
    # LO-made documents
    body = ('<text:p>First paragraph with <text:span>span</text:span> and a <text:a xlink:href="http://e.com">link</text:a>.</text:p>'
            '<text:p>Tab<text:tab/>and<text:s text:c="2"/>spaces</text:p>'
            '<table:table table:name="T1"><table:table-column table:number-columns-repeated="2"/>'
            '<table:table-row><table:table-cell><text:p>c1</text:p></table:table-cell><table:table-cell><text:p>c2</text:p></table:table-cell></table:table-row>'
            '</table:table><text:p>Page <text:page-number>1</text:page-number></text:p>'
            '<text:p>Note<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>foot</text:p></text:note-body></text:note></text:p>')
    lo("d_lo_src.fodt", fodt(body, header="<text:p>Head</text:p>"), "odt", "o_lo_a.odt")
    lo("d_lo_src2.fodt", fodt(body.replace("c2", "c3"), header="<text:p>Head</text:p>"), "odt", "o_lo_b.odt")
    lo("d_lo_src3.fodt", fodt(body, header="<text:p>Other head</text:p>"), "odt", "o_lo_c.odt")
    case("d2_odt_lo_table_cell_changed", D, "o_lo_a.odt", "o_lo_b.odt", {}, "LO odt: a table cell changed")
    case("d2_odt_lo_header_changed", D, "o_lo_a.odt", "o_lo_c.odt", {}, "LO odt: only the page header changed")
    case("d2_odt_lo_same", D, "o_lo_a.odt", "o_lo_a.odt", {"ignore_blanks": False}, "LO odt identical, no ignore_blanks")
    lo("d_lo_docx_src.fodt", fodt(body, header="<text:p>Head</text:p>"), "docx:MS Word 2007 XML", "d_lo_a.docx")
    lo("d_lo_docx_src3.fodt", fodt(body, header="<text:p>Other head</text:p>"), "docx:MS Word 2007 XML", "d_lo_c.docx")
    lo("d_lo_docx_src2.fodt", fodt(body.replace("c2", "c3"), header="<text:p>Head</text:p>"), "docx:MS Word 2007 XML", "d_lo_b.docx")
    case("d2_docx_lo_header_changed", D, "d_lo_a.docx", "d_lo_c.docx", {}, "LO docx: only the header changed")
    case("d2_docx_lo_table_cell_changed", D, "d_lo_a.docx", "d_lo_b.docx", {}, "LO docx: a table cell changed")
    mkdocx("d_lo_expected_py.docx", ["First paragraph with span and a link.", "Tab\tand  spaces", "Page 1", "Note1"])
    case("d2_docx_lo_vs_python_docx", D, "d_lo_a.docx", "d_lo_expected_py.docx", {},
         "LO docx (hyperlink, field, footnote ref, table) vs python-docx plain paragraphs")
    case("d2_docx_lo_vs_python_docx_strict", D, "d_lo_a.docx", "d_lo_expected_py.docx", {"ignore_blanks": False},
         "same without ignore_blanks")
    lo_file(fp("d_fz_a.docx"), "docx:MS Word 2007 XML", "d_fz_a_lo.docx")
    case("d2_docx_lo_roundtrip", D, "d_fz_a_lo.docx", "d_fz_a.docx", {"ignore_blanks": False}, "python-docx file round-tripped by LO")
    lo_file(fp("d_fz_a.docx"), "odt", "o_fz_a_lo.odt")
    odt_raw("o_fz_a.odt", "".join(f"<text:p>{t}</text:p>" for t in ["The quick brown fox", "", "jumps over", "the lazy dog"]))
    case("d2_odt_lo_from_docx_vs_raw", D, "o_fz_a_lo.odt", "o_fz_a.odt", {"ignore_blanks": False}, "LO odt from a docx vs hand odt")


# ----------------------------------------------------------------------------- pptx helpers
def png_bytes():
    from PIL import Image
    b = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 0, 0)).save(b, "PNG")
    return b.getvalue()


def deck(name, build, layout=6):
    prs = pptx.Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[layout])
    build(prs, s)
    prs.save(fp(name))
    return name


def tb(s, text, x=1, y=1, w=3, h=1):
    t = s.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h))
    t.text_frame.text = text
    return t


def slides_cases():
    S = "compare_pptx_files"
    # groups with different numbers of text shapes inside the same group box
    def grp(n):
        def b(prs, s):
            tb(s, "Title")
            g = s.shapes.add_group_shape()
            tb(g, "one", 1, 3, 2, 1)
            tb(g, "two", 5, 5, 2, 1)
            if n == 3:
                tb(g, "three", 3, 4, 1, 0.5)
        return b
    deck("p_group2.pptx", grp(2))
    deck("p_group3.pptx", grp(3))
    case("p2_group_inner_text_shape_count", S, "p_group3.pptx", "p_group2.pptx", {},
         "a group holds 3 vs 2 text boxes (same group box); OSWorld skips the text-shape pass when counts differ")
    case("p2_group_inner_count_no_alignment", S, "p_group3.pptx", "p_group2.pptx", {"examine_alignment": False},
         "same with examine_alignment false")
    img = os.path.join(LO_WORK, "px.png")
    os.makedirs(LO_WORK, exist_ok=True)
    with open(img, "wb") as f:
        f.write(png_bytes())
    deck("p_pic.pptx", lambda prs, s: (tb(s, "Title"), s.shapes.add_picture(img, Inches(4), Inches(3), Inches(2), Inches(2))))
    deck("p_box_at_pic.pptx", lambda prs, s: (tb(s, "Title"), tb(s, "", 4, 3, 2, 2)))
    case("p2_picture_vs_empty_textbox", S, "p_pic.pptx", "p_box_at_pic.pptx", {}, "picture vs empty text box at the same place")
    # underline styles
    def und(u):
        def b(prs, s):
            t = tb(s, "Underlined")
            t.text_frame.paragraphs[0].runs[0].font.underline = u
        return b
    deck("p_u_dbl.pptx", und(MSO_UNDERLINE.DOUBLE_LINE))
    deck("p_u_wavy.pptx", und(MSO_UNDERLINE.WAVY_LINE))
    deck("p_u_none.pptx", und(False))
    deck("p_u_unset.pptx", und(None))
    case("p2_underline_double_vs_wavy", S, "p_u_dbl.pptx", "p_u_wavy.pptx", {}, "u=dbl vs u=wavy")
    case("p2_underline_double_vs_unset", S, "p_u_dbl.pptx", "p_u_unset.pptx", {}, "u=dbl vs no u")
    case("p2_underline_double_vs_none", S, "p_u_dbl.pptx", "p_u_none.pptx", {}, "u=dbl vs u=none")
    # background theme colour
    def bg_scheme(prs, s):
        tb(s, "Title")
        s.background.fill.solid()
        s.background.fill.fore_color.theme_color = MSO_THEME_COLOR.ACCENT_1
    deck("p_bg_scheme.pptx", bg_scheme)
    case("p2_background_scheme_color_both", S, "p_bg_scheme.pptx", "p_bg_scheme.pptx", {},
         "solid slide background with a theme colour on both sides (fore_color.rgb raises)")
    case("p2_background_scheme_color_not_examined", S, "p_bg_scheme.pptx", "p_bg_scheme.pptx", {"examine_background_color": False},
         "same with examine_background_color false (still evaluated first)")
    def master_scheme(prs, s):
        tb(s, "Title")
        m = prs.slide_master
        m.background.fill.solid()
        m.background.fill.fore_color.theme_color = MSO_THEME_COLOR.ACCENT_2
    deck("p_master_bg_scheme.pptx", master_scheme)
    case("p2_master_background_scheme_color", S, "p_master_bg_scheme.pptx", "p_master_bg_scheme.pptx", {},
         "master background solid theme colour, slides inherit")
    # broken results
    deck("p_simple.pptx", lambda prs, s: tb(s, "Title"))
    with open(fp("p_zero.pptx"), "wb"):
        pass
    case("p2_zero_byte_result", S, "p_zero.pptx", "p_simple.pptx", {}, "zero-byte result deck")
    rewrite_zip(fp("p_simple.pptx"), fp("p_ppsx_ct.pptx"), patches={
        "[Content_Types].xml": sub1(r"presentationml\.presentation\.main\+xml", "presentationml.slideshow.main+xml")})
    case("p2_slideshow_content_type", S, "p_ppsx_ct.pptx", "p_simple.pptx", {}, "result with the .ppsx main content type")
    # table vs text box at the same place
    def table_deck(prs, s):
        tb(s, "Title")
        s.shapes.add_table(2, 2, Inches(1), Inches(3), Inches(4), Inches(1))
    deck("p_table.pptx", table_deck)
    deck("p_tb_at_table.pptx", lambda prs, s: (tb(s, "Title"), tb(s, "", 1, 3, 4, 1)))
    case("p2_table_vs_textbox", S, "p_table.pptx", "p_tb_at_table.pptx", {}, "result has a table where expected has a text box")
    case("p2_textbox_vs_table", S, "p_tb_at_table.pptx", "p_table.pptx", {}, "result has a text box where expected has a table")
    # table cell text/format
    def table_text(txt, bold=False, size=None):
        def b(prs, s):
            tb(s, "Title")
            t = s.shapes.add_table(2, 2, Inches(1), Inches(3), Inches(4), Inches(1)).table
            t.cell(0, 0).text = txt
            r = t.cell(0, 0).text_frame.paragraphs[0].runs[0]
            r.font.bold = bold
            if size:
                r.font.size = Pt(size)
        return b
    deck("p_tbl_a.pptx", table_text("alpha"))
    deck("p_tbl_b.pptx", table_text("beta"))
    deck("p_tbl_a_bold.pptx", table_text("alpha", bold=True))
    deck("p_tbl_a_big.pptx", table_text("alpha", size=30))
    case("p2_table_cell_text_changed", S, "p_tbl_a.pptx", "p_tbl_b.pptx", {}, "table cell text changed (OSWorld compares no cell text)")
    case("p2_table_cell_bold", S, "p_tbl_a_bold.pptx", "p_tbl_a.pptx", {}, "table cell run bold")
    case("p2_table_cell_font_size", S, "p_tbl_a_big.pptx", "p_tbl_a.pptx", {}, "table cell run size (not compared in tables)")
    # placeholder whose idx is not on the layout (python-pptx: no inherited geometry)
    prs = pptx.Presentation()
    layout = prs.slide_layouts[1]
    s = prs.slides.add_slide(layout)
    s.shapes.title.text = "T"
    body = s.placeholders[1]
    body.text = "body text"
    master_body = [p for p in prs.slide_master.placeholders if p.placeholder_format.type == 2][0]
    geo = (master_body.left, master_body.top, master_body.width, master_body.height)
    body._element.nvSpPr.nvPr.ph.set("idx", "7")
    prs.save(fp("p_orphan_ph.pptx"))
    prs = pptx.Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "T"
    body = s.placeholders[1]
    body.text = "body text"
    body._element.nvSpPr.nvPr.ph.set("idx", "7")
    body.left, body.top, body.width, body.height = geo
    prs.save(fp("p_orphan_ph_xfrm.pptx"))
    case("p2_orphan_placeholder_vs_explicit", S, "p_orphan_ph.pptx", "p_orphan_ph_xfrm.pptx", {},
         "body placeholder idx=7 (not on the layout, no xfrm) vs the same with xfrm = master body geometry")
    case("p2_orphan_placeholder_both", S, "p_orphan_ph.pptx", "p_orphan_ph.pptx", {}, "orphan placeholder on both sides")
    prs = pptx.Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "T"
    s.placeholders[1].text = "body text"
    lay_body = [p for p in prs.slide_layouts[1].placeholders if p.placeholder_format.idx == 1][0]
    prs.save(fp("p_ph_inherit.pptx"))
    prs = pptx.Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "T"
    b = s.placeholders[1]
    b.text = "body text"
    b.left, b.top, b.width, b.height = lay_body.left, lay_body.top, lay_body.width, lay_body.height
    prs.save(fp("p_ph_explicit.pptx"))
    case("p2_placeholder_inherited_vs_explicit", S, "p_ph_inherit.pptx", "p_ph_explicit.pptx", {}, "inherited vs explicit equal geometry")
    # options with non-bool values
    deck("p_box_a.pptx", lambda prs, s: tb(s, "Box", 1, 1))
    deck("p_box_b.pptx", lambda prs, s: tb(s, "Box", 3, 2))
    case("p2_examine_shape_zero", S, "p_box_b.pptx", "p_box_a.pptx", {"examine_shape": 0}, "examine_shape: 0 (falsy)")
    case("p2_examine_shape_null", S, "p_box_b.pptx", "p_box_a.pptx", {"examine_shape": None}, "examine_shape: null")
    case("p2_tolerance_int", S, "p_box_b.pptx", "p_box_a.pptx", {"approximately_tolerance": 1}, "tolerance 1 (int)")
    # text details
    def lines(text_builder):
        def b(prs, s):
            t = s.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(2))
            text_builder(t.text_frame)
        return b
    deck("p_vt.pptx", lines(lambda tf: setattr(tf, "text", "line one\vline two")))
    deck("p_sp.pptx", lines(lambda tf: setattr(tf, "text", "line one line two")))
    case("p2_line_break_vs_space", S, "p_vt.pptx", "p_sp.pptx", {}, "a:br vs space")
    def fld(txt):
        def f(tf):
            tf.text = "Slide "
            p = tf.paragraphs[0]._p
            from lxml import etree
            A = "http://schemas.openxmlformats.org/drawingml/2006/main"
            f_ = etree.SubElement(p, f"{{{A}}}fld", id="{B6F15528-21DE-4FAA-801E-634DDDAF4B2B}", type="slidenum")
            etree.SubElement(f_, f"{{{A}}}t").text = txt
        return f
    deck("p_fld3.pptx", lines(fld("3")))
    deck("p_fld4.pptx", lines(fld("4")))
    case("p2_field_text_differs", S, "p_fld3.pptx", "p_fld4.pptx", {}, "slide-number field text 3 vs 4")
    def trailing_fld_space(tf):
        tf.text = "Slide 3"
    deck("p_plain_slide3.pptx", lines(trailing_fld_space))
    case("p2_field_vs_run_same_text", S, "p_fld3.pptx", "p_plain_slide3.pptx", {}, "'Slide '+field '3' vs run 'Slide 3'")
    def bullets(ch):
        def f(tf):
            tf.text = "item"
            from lxml import etree
            A = "http://schemas.openxmlformats.org/drawingml/2006/main"
            pPr = tf.paragraphs[0]._p.get_or_add_pPr()
            etree.SubElement(pPr, f"{{{A}}}buChar", char=ch)
        return f
    deck("p_bu_dot.pptx", lines(bullets("•")))
    deck("p_bu_dash.pptx", lines(bullets("-")))
    case("p2_bullet_char_differs", S, "p_bu_dot.pptx", "p_bu_dash.pptx", {}, "buChar • vs -")
    case("p2_bullet_char_differs_no_bullets", S, "p_bu_dot.pptx", "p_bu_dash.pptx", {"examine_bullets": False}, "same, bullets off")
    def lvl(tf):
        tf.text = "item"
        tf.paragraphs[0].level = 0
    deck("p_lvl0.pptx", lines(lvl))
    deck("p_nolvl.pptx", lines(lambda tf: setattr(tf, "text", "item")))
    case("p2_explicit_lvl0_vs_no_pPr", S, "p_lvl0.pptx", "p_nolvl.pptx", {}, "pPr lvl=0 vs no pPr (bullet tuple 0 vs No Level)")
    def scheme_font(tf):
        tf.text = "colour"
        tf.paragraphs[0].runs[0].font.color.theme_color = MSO_THEME_COLOR.ACCENT_1
    def red_font(tf):
        tf.text = "colour"
        tf.paragraphs[0].runs[0].font.color.rgb = RGBColor(255, 0, 0)
    deck("p_font_scheme.pptx", lines(scheme_font))
    deck("p_font_red.pptx", lines(red_font))
    case("p2_font_scheme_vs_rgb", S, "p_font_scheme.pptx", "p_font_red.pptx", {}, "theme font colour vs red")
    def bold_true(tf):
        tf.text = "b"
        tf.paragraphs[0].runs[0]._r.get_or_add_rPr().set("b", "true")
    def bold_one(tf):
        tf.text = "b"
        tf.paragraphs[0].runs[0]._r.get_or_add_rPr().set("b", "1")
    deck("p_b_true.pptx", lines(bold_true))
    deck("p_b_one.pptx", lines(bold_one))
    case("p2_bold_true_vs_1", S, "p_b_true.pptx", "p_b_one.pptx", {}, "b='true' vs b='1'")
    def empty_t(tf):
        tf.text = "x"
        from lxml import etree
        A = "http://schemas.openxmlformats.org/drawingml/2006/main"
        p = etree.SubElement(tf._txBody, f"{{{A}}}p")
        pPr = etree.SubElement(p, f"{{{A}}}pPr")
        etree.SubElement(pPr, f"{{{A}}}buChar", char="-")
        r = etree.SubElement(p, f"{{{A}}}r")
        etree.SubElement(r, f"{{{A}}}t")
    def empty_t_b(tf):
        empty_t(tf)
        from lxml import etree
        A = "http://schemas.openxmlformats.org/drawingml/2006/main"
        pPr = tf.paragraphs[0]._p.get_or_add_pPr()
        etree.SubElement(pPr, f"{{{A}}}buChar", char="*")
    deck("p_empty_t_a.pptx", lines(empty_t))
    deck("p_empty_t_b.pptx", lines(empty_t_b))
    case("p2_empty_a_t_skips_bullets", S, "p_empty_t_b.pptx", "p_empty_t_a.pptx", {},
         "an empty <a:t/> makes OSWorld's bullet extraction fail (skipped); bullets differ")
    def notes(txt):
        def b(prs, s):
            tb(s, "Title")
            s.notes_slide.notes_text_frame.text = txt
        return b
    deck("p_notes_ws.pptx", notes("  my notes\n"))
    deck("p_notes.pptx", notes("my notes"))
    case("p2_notes_whitespace", S, "p_notes_ws.pptx", "p_notes.pptx", {}, "notes differ only by surrounding whitespace")
    deck("p_nonotes.pptx", lambda prs, s: tb(s, "Title"))
    deck("p_empty_notes.pptx", notes(""))
    case("p2_no_notes_vs_empty_notes", S, "p_nonotes.pptx", "p_empty_notes.pptx", {}, "no notes slide vs an empty one")
    # python-pptx's paragraph.alignment / .level getters add an empty <a:pPr/> to every
    # paragraph OSWorld has visited before its first bullet check (which runs at the first
    # run pair): a pPr-vs-none difference only counts in paragraphs not yet visited then.
    from lxml import etree
    A = "http://schemas.openxmlformats.org/drawingml/2006/main"
    def ppr_deck(name, paras_per_box, ppr_at=None, algn="l"):
        """paras_per_box: list of text boxes, each a list of paragraph texts ('' = no run);
        ppr_at: (box, para) that gets <a:pPr algn=.../>."""
        def b(prs, s):
            for i, paras in enumerate(paras_per_box):
                t = s.shapes.add_textbox(Inches(1), Inches(1 + 1.5 * i), Inches(4), Inches(1))
                tf = t.text_frame
                for j, txt in enumerate(paras):
                    p = tf.paragraphs[0] if j == 0 else tf.add_paragraph()
                    if txt:
                        p.add_run().text = txt
                    if ppr_at == (i, j):
                        etree.SubElement(p._p, f"{{{A}}}pPr", algn=algn) if p._p.find(f"{{{A}}}pPr") is None else None
                        p._p.insert(0, p._p[-1]) if p._p[-1].tag == f"{{{A}}}pPr" else None
        deck(name, b)
    ppr_deck("p_ppr_first.pptx", [["one"]], ppr_at=(0, 0))
    ppr_deck("p_noppr_first.pptx", [["one"]])
    case("p2_ppr_first_paragraph", S, "p_ppr_first.pptx", "p_noppr_first.pptx", {},
         "only paragraph has <a:pPr algn=l/> vs no pPr: visited (pPr added) before the bullet check")
    ppr_deck("p_ppr_second_para.pptx", [["one", "two"]], ppr_at=(0, 1))
    ppr_deck("p_noppr_two_paras.pptx", [["one", "two"]])
    case("p2_ppr_second_paragraph", S, "p_ppr_second_para.pptx", "p_noppr_two_paras.pptx", {},
         "second paragraph pPr vs none: not yet visited at the first bullet check")
    ppr_deck("p_ppr_after_empty.pptx", [["", "two"]], ppr_at=(0, 1))
    ppr_deck("p_noppr_after_empty.pptx", [["", "two"]])
    case("p2_ppr_after_empty_paragraph", S, "p_ppr_after_empty.pptx", "p_noppr_after_empty.pptx", {},
         "first paragraph empty (no runs), second with pPr vs none")
    ppr_deck("p_ppr_box2.pptx", [[""], ["two"]], ppr_at=(1, 0))
    ppr_deck("p_noppr_box2.pptx", [[""], ["two"]])
    case("p2_ppr_second_box_after_empty_box", S, "p_ppr_box2.pptx", "p_noppr_box2.pptx", {},
         "first text box empty, second box's paragraph pPr vs none")
    ppr_deck("p_ppr_box2_b.pptx", [["one"], ["two"]], ppr_at=(1, 0))
    ppr_deck("p_noppr_box2_b.pptx", [["one"], ["two"]])
    case("p2_ppr_second_box", S, "p_ppr_box2_b.pptx", "p_noppr_box2_b.pptx", {},
         "second box's paragraph pPr vs none, first box has runs")
    case("p2_ppr_first_paragraph_no_alignment", S, "p_ppr_first.pptx", "p_noppr_first.pptx", {"examine_alignment": False},
         "same as p2_ppr_first_paragraph with examine_alignment false (.level still adds pPr)")
    ppr_deck("p_ppr_first_ctr.pptx", [["one"]], ppr_at=(0, 0), algn="ctr")
    case("p2_ppr_first_paragraph_center_no_alignment", S, "p_ppr_first_ctr.pptx", "p_noppr_first.pptx", {"examine_alignment": False},
         "algn=ctr vs none with examine_alignment false")
    def ppr_group(with_ppr):
        def b(prs, s):
            tb(s, "Title")
            g = s.shapes.add_group_shape()
            t = tb(g, "inner", 2, 3, 2, 1)
            if with_ppr:
                t.text_frame.paragraphs[0]._p.insert(0, etree.Element(f"{{{A}}}pPr", algn="l"))
        deck("p_ppr_group_%d.pptx" % with_ppr, b)
    ppr_group(1)
    ppr_group(0)
    case("p2_ppr_in_group", S, "p_ppr_group_1.pptx", "p_ppr_group_0.pptx", {}, "pPr vs none inside a group (never visited before bullets)")

    # LibreOffice round trips
    def lo_deck(prs, s):
        s.shapes.title.text = "Quarterly report"
        body = s.placeholders[1].text_frame
        body.text = "First bullet"
        p = body.add_paragraph()
        p.text = "Second bullet"
        p.level = 1
        t = s.shapes.add_table(2, 2, Inches(1), Inches(5), Inches(4), Inches(1)).table
        t.cell(0, 0).text = "a"
        t.cell(1, 1).text = "b"
        s.notes_slide.notes_text_frame.text = "speaker notes"
    deck("p_lo_src.pptx", lo_deck, layout=1)
    def lo_deck_changed(prs, s):
        lo_deck(prs, s)
        s.shapes.title.text = "Quarterly report 2"
    deck("p_lo_src_changed.pptx", lo_deck_changed, layout=1)
    lo_file(fp("p_lo_src.pptx"), "pptx:Impress MS PowerPoint 2007 XML", "p_lo_a.pptx")
    lo_file(fp("p_lo_src_changed.pptx"), "pptx:Impress MS PowerPoint 2007 XML", "p_lo_b.pptx")
    case("p2_lo_roundtrip_vs_python_pptx", S, "p_lo_a.pptx", "p_lo_src.pptx", {}, "LO round trip vs original python-pptx deck")
    case("p2_lo_roundtrip_vs_python_pptx_loose", S, "p_lo_a.pptx", "p_lo_src.pptx",
         {"examine_shape": False, "examine_font_name": False, "examine_font_size": False, "examine_bullets": False,
          "examine_alignment": False, "examine_indent": False},
         "LO round trip vs original, most checks off")
    case("p2_lo_same", S, "p_lo_a.pptx", "p_lo_a.pptx", {}, "LO deck vs itself")
    case("p2_lo_title_changed", S, "p_lo_b.pptx", "p_lo_a.pptx", {}, "two LO decks, title changed")
    case("p2_lo_title_changed_text_off", S, "p_lo_b.pptx", "p_lo_a.pptx", {"examine_text": False, "examine_bullets": False},
         "two LO decks, title changed, text and bullets off")
    lo_file(fp("p_group3.pptx"), "pptx:Impress MS PowerPoint 2007 XML", "p_group3_lo.pptx")
    case("p2_lo_group_roundtrip", S, "p_group3_lo.pptx", "p_group3.pptx", {}, "LO round trip of a group deck")


# ----------------------------------------------------------------------------- text
def text_cases():
    X = "compare_text_file"
    def w(name, data):
        with open(fp(name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        return name
    w("x_us.txt", "a\x1fb\n")
    w("x_ab.txt", "a b\n")
    case("x2_unit_separator_ignore_blanks", X, "x_us.txt", "x_ab.txt", {"ignore_blanks": True}, "\\x1f is whitespace to Python's \\s")
    w("x_fs.txt", "a\x1c\x1d\x1eb\n")
    case("x2_file_group_record_sep_ignore_blanks", X, "x_fs.txt", "x_ab.txt", {"ignore_blanks": True}, "\\x1c-\\x1e")
    w("x_cr.txt", "a\rb\r")
    w("x_lf.txt", "a\nb\n")
    case("x2_cr_only_line_ends", X, "x_cr.txt", "x_lf.txt", {}, "CR-only vs LF")
    w("x_crcrlf.txt", "a\r\r\nb")
    w("x_lflf.txt", "a\n\nb")
    case("x2_cr_crlf", X, "x_crcrlf.txt", "x_lflf.txt", {}, "\\r\\r\\n vs \\n\\n")
    w("x_bom.txt", "\ufeffa\nb\n")
    case("x2_bom_vs_none", X, "x_bom.txt", "x_lf.txt", {}, "UTF-8 BOM vs none")
    case("x2_bom_vs_none_ignore_blanks", X, "x_bom.txt", "x_lf.txt", {"ignore_blanks": True}, "BOM with ignore_blanks")
    w("x_latin1.txt", b"caf\xe9\n")
    case("x2_invalid_utf8_both", X, "x_latin1.txt", "x_latin1.txt", {}, "the same latin-1 bytes (invalid UTF-8) on both sides")
    w("x_cafe.txt", "café\n")
    case("x2_latin1_vs_utf8", X, "x_latin1.txt", "x_cafe.txt", {}, "latin-1 result vs UTF-8 expected")
    w("x_utf16.txt", "a\nb\n".encode("utf-16"))
    case("x2_utf16_result", X, "x_utf16.txt", "x_lf.txt", {}, "UTF-16 result")
    w("x_nbsp.txt", "a\u00a0b\n")
    case("x2_nbsp_ignore_blanks", X, "x_nbsp.txt", "x_ab.txt", {"ignore_blanks": True}, "NBSP")
    w("x_ls.txt", "a\u2028b")
    case("x2_line_separator_ignore_blanks", X, "x_ls.txt", "x_ab.txt", {"ignore_blanks": True}, "U+2028")
    case("x2_line_separator_plain", X, "x_ls.txt", "x_lf.txt", {}, "U+2028 is not a newline for open()")
    w("x_vt.txt", "a\x0b\x0cb\x85")
    case("x2_vt_ff_nel_ignore_blanks", X, "x_vt.txt", "x_ab.txt", {"ignore_blanks": True}, "VT, FF, NEL")
    w("x_tje_upper.txt", "\u1c89")
    w("x_tje_lower.txt", "\u1c8a")
    case("x2_unicode16_case_mapping", X, "x_tje_upper.txt", "x_tje_lower.txt", {"ignore_case": True},
         "U+1C89 CYRILLIC CAPITAL TJE (Unicode 16): Python 3.11 has no lower-case mapping")
    w("x_sigma.txt", "ΟΔΟΣ")
    w("x_sigma_l.txt", "οδος")
    case("x2_final_sigma", X, "x_sigma.txt", "x_sigma_l.txt", {"ignore_case": True}, "final sigma")
    w("x_upper.txt", "HELLO\n")
    w("x_lower.txt", "hello\n")
    case("x2_ignore_case_string_option", X, "x_upper.txt", "x_lower.txt", {"ignore_case": "yes"}, "ignore_case 'yes' (truthy)")
    case("x2_ignore_case_int_option", X, "x_upper.txt", "x_lower.txt", {"ignore_case": 1}, "ignore_case 1")
    case("x2_expected_missing", X, "x_lf.txt", "x_does_not_exist.txt", {}, "expected file missing")
    w("x_empty.txt", "")
    w("x_ws.txt", " \n\t\n")
    case("x2_empty_vs_whitespace_ignore_blanks", X, "x_empty.txt", "x_ws.txt", {"ignore_blanks": True}, "empty vs whitespace only")
    w("x_nul.txt", "a\x00b\n")
    w("x_a_b.txt", "a b\n")
    case("x2_nul_ignore_blanks", X, "x_nul.txt", "x_a_b.txt", {"ignore_blanks": True}, "NUL is not whitespace")


def main():
    if os.path.exists(FILES):
        shutil.rmtree(FILES)
    if os.path.exists(LO_WORK):
        shutil.rmtree(LO_WORK)
    os.makedirs(FILES)
    os.makedirs(LO_WORK)
    table_cases()
    docs_cases()
    slides_cases()
    text_cases()
    lo_convert_all()
    for cse in CASES:
        for f in (cse["result"], cse["expected"]):
            if f and not f.startswith("x_does_not_exist"):
                assert os.path.exists(fp(f)), f
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=1, ensure_ascii=False)
    print(len(CASES), "cases")


if __name__ == "__main__":
    main()

"""Writes the parity cases of compare_table's rule `sheet_print`: a sheet compared as printed,
through the CSV file the task's post-config step exports beside the workbook.

Every workbook is made by LibreOffice Calc (a CSV source imported and saved as xlsx), and every
export by the very command OSWorld's Calc tasks run:
`libreoffice --convert-to "csv:Text - txt - csv (StarCalc):44,34,UTF-8,,,,false,true,true,false,false,1"`,
which writes `<book>-<sheet>.csv` (values as Calc shows them, formatted). A few exports are
then edited as the metric's own reading allows (CRLF, blanks around lines, trailing blank lines,
Latin-1), and some are left out to pin a missing export.

Needs LibreOffice (`soffice`); run with any Python 3: `python3 gen.py`. It writes `files/` and
`cases.json` beside itself.
"""
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
EXPORT = "csv:Text - txt - csv (StarCalc):44,34,UTF-8,,,,false,true,true,false,false,1"

BASE = [
    ["Id", "Name", "City", "Amount", "Rate"],
    ["1", "Ada Lovelace", "London", "1200", "0.125"],
    ["2", "Alan Turing", "Wilmslow", "950.5", "0.2"],
    ["3", "Grace Hopper", "Arlington", "17", "1.75"],
]


def soffice(profile, *args):
    subprocess.run(["soffice", "--headless", "--norestore", "-env:UserInstallation=file://" + profile, *args],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def book(profile, name, rows, export=True):
    """`name`.xlsx from `rows` (one sheet, Sheet1), and its export `name`-Sheet1.csv."""
    tmp = tempfile.mkdtemp(prefix="guigym-print-")
    src = os.path.join(tmp, "Sheet1.csv")
    with open(src, "w", encoding="utf-8", newline="") as f:
        f.write("".join(",".join(r) + "\n" for r in rows))
    soffice(profile, "--convert-to", "xlsx", "--outdir", tmp, src)
    shutil.move(os.path.join(tmp, "Sheet1.xlsx"), os.path.join(FILES, name + ".xlsx"))
    if export:
        soffice(profile, "--convert-to", EXPORT, "--outdir", FILES, os.path.join(FILES, name + ".xlsx"))
    shutil.rmtree(tmp)
    return name + ".xlsx"


def edit_export(src, dst, edit, encoding="utf-8"):
    """A copy of `src`'s workbook as `dst`, its export rewritten by `edit(text)`."""
    shutil.copy(os.path.join(FILES, src + ".xlsx"), os.path.join(FILES, dst + ".xlsx"))
    with open(os.path.join(FILES, src + "-Sheet1.csv"), encoding="utf-8", newline="") as f:
        text = f.read()
    with open(os.path.join(FILES, dst + "-Sheet1.csv"), "w", encoding=encoding, newline="") as f:
        f.write(edit(text))
    return dst + ".xlsx"


cases = []


def case(name, result, expected, note, idx0=0, idx1="EI0", **extra):
    rule = {"type": "sheet_print", "sheet_idx0": idx0, "sheet_idx1": idx1, **extra}
    cases.append({"name": name, "func": "compare_table", "result": result, "expected": expected,
                  "options": {"rules": [rule]}, "note": note})


def main():
    shutil.rmtree(FILES, ignore_errors=True)
    os.makedirs(FILES)
    profile = tempfile.mkdtemp(prefix="guigym-print-lo-")
    try:
        base = book(profile, "base", BASE)
        again = book(profile, "again", BASE)
        upper = book(profile, "upper", [[c.upper() for c in r] for r in BASE])
        amount = book(profile, "amount", [r[:3] + (["951"] if r[0] == "2" else r[3:4]) + r[4:] for r in BASE])
        extra_col = book(profile, "extra_col", [r + ["x"] for r in BASE])
        extra_row = book(profile, "extra_row", BASE + [["4", "Edsger Dijkstra", "Nuenen", "3", "0.5"]])
        reordered = book(profile, "reordered", [BASE[0], BASE[2], BASE[1], BASE[3]])
        decimals = book(profile, "decimals", [r[:4] + (["0.1250"] if r[0] == "1" else r[4:]) for r in BASE])
        dates = book(profile, "dates", [["Day", "Value"], ["2024-01-05", "1"], ["2024-02-29", "2"]])
        dates_text = book(profile, "dates_text", [["Day", "Value"], ["01/05/24", "1"], ["02/29/24", "2"]])
        no_export = book(profile, "no_export", BASE, export=False)
        crlf = edit_export("base", "crlf", lambda t: t.replace("\n", "\r\n"))
        padded = edit_export("base", "padded", lambda t: "".join("  " + l + " \t\n" for l in t.splitlines()))
        trailing = edit_export("base", "trailing", lambda t: t + "\n\n   \n")
        leading = edit_export("base", "leading", lambda t: "\n" + t)
        inner_blank = edit_export("base", "inner_blank", lambda t: t.replace("\n", "\n\n", 1))
        latin1 = edit_export("base", "latin1", lambda t: t.replace("London", "Londres café"), encoding="latin-1")
        utf8 = edit_export("base", "utf8", lambda t: t.replace("London", "Londres café"))
        bom = edit_export("base", "bom", lambda t: "\ufeff" + t)
        separator = edit_export("base", "separator", lambda t: t.replace("\n", "\u2028", 1))
    finally:
        shutil.rmtree(profile, ignore_errors=True)

    case("same_book_made_again", again, base, "the same sheet, made again")
    case("itself", base, base, "a book against itself")
    case("upper_case", upper, base, "every text in upper case")
    case("upper_case_ignored", upper, base, "every text in upper case, ignore_case", ignore_case=True)
    case("one_amount", amount, base, "one number differs")
    case("extra_column", extra_col, base, "a column more")
    case("extra_row", extra_row, base, "a row more")
    case("rows_reordered", reordered, base, "two rows swapped")
    case("decimals_as_text", decimals, base, "0.1250 imported as a number prints as 0.125")
    case("dates_vs_text", dates, dates_text, "ISO dates as Calc prints them against the same text typed")
    case("result_not_exported", no_export, base, "no CSV beside the result: 0")
    case("expected_not_exported", base, no_export, "no CSV beside the expected book: 0")
    case("expected_not_exported_ignore_case", base, no_export, "no CSV beside the expected book with ignore_case: OSWorld raises",
         ignore_case=True)
    case("crlf", crlf, base, "the export with CRLF line ends")
    case("padded_lines", padded, base, "blanks around every line: stripped")
    case("trailing_blank_lines", trailing, base, "blank lines at the end: dropped")
    case("leading_blank_line", leading, base, "a blank line first: kept, so it differs")
    case("inner_blank_line", inner_blank, base, "a blank line inside")
    case("latin1_vs_utf8", latin1, utf8, "the same text in Latin-1 and UTF-8: the Latin-1 file, not UTF-8, is read as Latin-1, so they agree")
    case("latin1_itself", latin1, latin1, "a Latin-1 export against itself")
    case("bom", bom, base, "a UTF-8 byte-order mark: part of the first line")
    case("line_separator", separator, base, "U+2028 where a line break was: Python splits there too")
    case("by_name", again, base, "sheets by name", idx0="RNSheet1", idx1="ENSheet1")
    case("missing_sheet", again, base, "a sheet that does not exist: its export is missing", idx0="RNNope")
    case("index_out_of_range", again, base, "a sheet index past the last sheet", idx0=3)
    case("result_by_expected_index", base, again, "both sheets from the expected book", idx0="EI0")

    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()

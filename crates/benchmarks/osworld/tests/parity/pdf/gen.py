"""compare_pdfs (rapidfuzz's ratio of two PDFs' texts as PyMuPDF extracts them, pairs of lists
averaged over the expected ones) and check_pdf_pages (pypdf's page count against a relation).
Plain Python: the PDFs it writes are hand-made (the base 14 fonts, lines, text off the page,
several pages, a page with no text, a file that is not a PDF). The three `app_*.pdf` files were
printed once by the applications OSWorld's tasks use and are kept as they are: Chromium
(`--print-to-pdf` of a page with a table, a list and a page break; then the same page with two
words changed) and LibreOffice (`--convert-to pdf` of that page). The `probe_*.pdf` files come
from a probe from outside, kept as they are: a glyph whose name maps to a lone UTF-16 surrogate,
and whitespace other than the space (tab, no-break, soft hyphen, em space). Writes files/ and
cases.json.

Left out, where ours differs from OSWorld: a ligature written as one character in the PDF's text
(U+FB01: MuPDF 1.21 splits it unless asked to keep ligatures, and asked, it would also keep the
ligature glyphs Chromium maps to two letters, which PyMuPDF 1.26 splits: the applications' case
wins), /ActualText replacements and right-to-left order (newer in PyMuPDF's MuPDF), characters of a font without a Unicode mapping (CJK
glyphs in a fallback font: Debian's MuPDF 1.21 and PyMuPDF's 1.26 map them differently), and
files that are not PDFs but that MuPDF opens as documents of another kind (an image, a text);
compare_archive on a result that does not unpack or holds no file (OSWorld raises, a 0 here)."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
cases = []

def path(n): return os.path.join(FILES, n)

def pdf(name, pages, media=(0, 0, 612, 792)):
    """A PDF whose pages each show lines of (x, y, size, text) in Helvetica."""
    objects = []
    def add(body):
        objects.append(body)
        return len(objects)
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    pages_id = len(objects) + 1 + 2 * len(pages)  # reserved below
    kids = []
    for lines in pages:
        ops = b"".join(b"BT /F1 %d Tf %d %d Td (%s) Tj ET\n" % (size, x, y, text.encode("cp1252").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")) for x, y, size, text in lines)
        content = add(b"<< /Length %d >>\nstream\n" % len(ops) + ops + b"endstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [%d %d %d %d] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % ((pages_id,) + tuple(media) + (font, content))))
    assert add(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))) == pages_id
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    with open(path(name), "wb") as f: f.write(out)
    return name

def compare(name, result, expected, note):
    cases.append({"name": name, "func": "compare_pdfs", "result": result, "expected": expected, "options": {}, "note": note})
def pages(name, result, relation, ref, note):
    rf = name + ".rule.json"
    with open(path(rf), "w") as f: json.dump({"relation": relation, "ref_value": ref}, f)
    cases.append({"name": name, "func": "check_pdf_pages", "result": result, "expected": rf, "expected_as": "json", "options": {}, "note": note})

os.makedirs(FILES, exist_ok=True)
import shutil
for f in os.listdir(FILES):
    if os.path.isdir(path(f)): shutil.rmtree(path(f))
    elif not f.startswith(("app_", "probe_")): os.remove(path(f))

letter = [(72, 720, 14, "Dear Ms. Smith,"), (72, 690, 11, "Thank you for your letter of 3 March (ref. A-17)."),
          (72, 675, 11, "We enclose the invoice: 1,250.00 EUR."), (72, 100, 9, "Page 1")]
one = pdf("letter.pdf", [letter])
pdf("letter_copy.pdf", [letter])
pdf("letter_edited.pdf", [[(x, y, s, t.replace("3 March", "5 March")) for x, y, s, t in letter]])
pdf("letter_offpage.pdf", [letter + [(-300, 500, 11, "hidden left of the page"), (72, 900, 11, "hidden above it")]])
pdf("letter_two_pages.pdf", [letter, [(72, 720, 11, "Second page."), (72, 700, 11, "The end.")]])
pdf("blank.pdf", [[]])
pdf("blank_two.pdf", [[], []])
pdf("same_line.pdf", [[(72, 720, 11, "Left part"), (200, 720, 11, "right part")]])
with open(path("not_a_pdf.pdf"), "wb") as f: f.write(b"%PDF-1.4\nthis is not really a PDF\n")

compare("same_text", one, "letter_copy.pdf", "identical texts: 1")
compare("one_word", "letter_edited.pdf", one, "a word changed: rapidfuzz's ratio")
compare("off_page", "letter_offpage.pdf", one, "text outside the media box is not extracted")
compare("extra_page", "letter_two_pages.pdf", one, "a second page's text counts")
compare("blank_vs_text", "blank.pdf", one, "no text against text: 0")
compare("blank_vs_blank", "blank.pdf", "blank_two.pdf", "no text on either side: ratio('', '') is 100")
compare("missing_result", None, one, "a missing result opens as an empty document")
compare("missing_vs_blank", None, "blank.pdf", "empty against empty: 1")
compare("not_a_pdf", "not_a_pdf.pdf", one, "a file MuPDF cannot open adds 0")
compare("two_fragments", "same_line.pdf", "letter.pdf", "two text objects on one line")
compare("chromium_same", "app_chromium.pdf", "app_chromium.pdf", "Chromium's PDF against itself")
compare("chromium_edited", "app_chromium_edited.pdf", "app_chromium.pdf", "two words changed")
compare("chromium_vs_libreoffice", "app_chromium.pdf", "app_libreoffice.pdf", "one page printed by two applications")
compare("lists", ["letter_edited.pdf", "app_chromium.pdf"], ["letter.pdf", "app_chromium_edited.pdf"], "lists pair up, averaged")
compare("lists_shorter_result", ["letter.pdf"], ["letter.pdf", "letter_copy.pdf"], "zip stops at the shorter; divided by the expected count")
pages("pages_eq_1", one, "eq", 1, "one page")
pages("pages_eq_1_two", "letter_two_pages.pdf", "eq", 1, "two pages")
pages("pages_ge_2", "letter_two_pages.pdf", "ge", 2, "ge")
pages("pages_lt", "blank_two.pdf", "lt", 3, "lt")
pages("pages_app", "app_chromium.pdf", "eq", 2, "Chromium's two pages")
pages("pages_missing", None, "eq", 1, "no file")

compare("surrogate_glyph", "probe_sur_only.pdf", "probe_ref.pdf", "a lone surrogate in MuPDF's text is one character")
compare("whitespace_kinds", "probe_ws.pdf", "probe_ref.pdf", "whitespace other than the space is kept")
for n, kind in enumerate(["tab", "no_break", "soft_hyphen", "em_space"]):
    compare("whitespace_" + kind, "probe_ws%d.pdf" % n, "probe_ws.pdf", "one kind of whitespace")

# ---- compare_archive: zips of PDFs and of texts ----
import zipfile
def archive(name, entries):
    with zipfile.ZipFile(path(name), "w", zipfile.ZIP_DEFLATED) as z:
        for entry, data in entries:
            info = zipfile.ZipInfo(entry, date_time=(2024, 1, 1, 0, 0, 0))
            z.writestr(info, data)
    return name
def read(n):
    with open(path(n), "rb") as f: return f.read()
def arch(name, result, expected, options, note):
    cases.append({"name": name, "func": "compare_archive", "result": result, "expected": expected, "options": options, "note": note})
gold = archive("gold.zip", [("a.pdf", read("letter.pdf")), ("b.pdf", read("app_chromium.pdf"))])
archive("pred_same.zip", [("b.pdf", read("app_chromium.pdf")), ("a.pdf", read("letter_copy.pdf"))])
archive("pred_edited.zip", [("a.pdf", read("letter_edited.pdf")), ("b.pdf", read("app_chromium_edited.pdf"))])
archive("pred_renamed.zip", [("a.pdf", read("letter.pdf")), ("c.pdf", read("app_chromium.pdf"))])
archive("pred_dotdot.zip", [("a.pdf", read("letter.pdf")), ("b.pdf", read("app_chromium.pdf")), ("../evil.pdf", read("letter.pdf")), ("x..y.pdf", read("letter.pdf"))])
arch("archive_pdfs_same", "pred_same.zip", gold, {"file_type": "pdf"}, "the same PDFs, stored in another order")
arch("archive_pdfs_edited", "pred_edited.zip", gold, {"file_type": "pdf"}, "compare_pdfs per pair, averaged")
arch("archive_names_differ", "pred_renamed.zip", gold, {"file_type": "pdf"}, "names differ: 0")
arch("archive_dotdot", "pred_dotdot.zip", gold, {"file_type": "pdf"}, "names with .. anywhere are not unpacked")
arch("archive_missing", None, gold, {"file_type": "pdf"}, "no result")
texts = archive("texts_gold.zip", [("notes/", b""), ("notes/one.txt", b"Hello\nWorld\n"), ("notes/two.txt", b"Second\n")])
archive("texts_pred.zip", [("notes/one.txt", b"hello\r\nworld\n"), ("notes/two.txt", b"Second\n")])
arch("archive_texts", "texts_pred.zip", texts, {"file_path": "notes"}, "file_type text by default, inside file_path")
arch("archive_texts_ignore_case", "texts_pred.zip", texts, {"file_path": "notes", "ignore_case": True}, "the other options go to compare_text_file")
arch("archive_top_folder", "texts_pred.zip", texts, {}, "at the top: one folder each, compared as a text file")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1, ensure_ascii=False)
print(len(cases), "cases")

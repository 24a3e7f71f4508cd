"""Writes the Writer parity cases: the docx/odt metrics of OSWorld's `metrics/docs.py` that its
LibreOffice Writer tasks use (line spacing, tables, images, italic 14 pt, tab stops, fonts,
highlighting, equations, subscripts, page breaks, strike-through, page numbers in footers,
coloured words in tables, Writer's default font in `registrymodifications.xcu`).

Most documents are made by LibreOffice Writer itself through its API, as an agent working in
Writer leaves them, and saved with its "MS Word 2007 XML" filter ("writer8" for odt). Copies
edited as other writers write them (MS Word's XML, python-docx's) and documents written by hand
pin what python-docx and OSWorld's code do with them, including where OSWorld raises.

Needs LibreOffice and its Python bridge (Debian: python3-uno); run with the system Python:
`/usr/bin/python3 gen.py`. It writes `files/` and `cases.json` beside itself. LibreOffice's
random parts (rsids, dates, zip times) are normalized, so two runs give the same bytes.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time
import zipfile
import zlib

import uno
from com.sun.star.beans import PropertyValue

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
WNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
DATE = (2024, 1, 1, 0, 0, 0)

PARAGRAPH_BREAK = 0
LINE_BREAK = 1


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def enum(typ, name):
    return uno.Enum(typ, name)


def struct_(typ, **kw):
    s = uno.createUnoStruct(typ)
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def spacing(mode, height):
    modes = {"prop": 0, "minimum": 1, "leading": 2, "fix": 3}
    return struct_("com.sun.star.style.LineSpacing", Mode=modes[mode], Height=height)


def tab(pos, align="LEFT", decimal=".", fill=" "):
    return struct_("com.sun.star.style.TabStop", Position=pos, Alignment=enum("com.sun.star.style.TabAlign", align),
                   DecimalChar=decimal, FillChar=fill)


ITALIC = enum("com.sun.star.awt.FontSlant", "ITALIC")
PAGE_BEFORE = enum("com.sun.star.style.BreakType", "PAGE_BEFORE")
PAGE_AFTER = enum("com.sun.star.style.BreakType", "PAGE_AFTER")
AS_CHAR = enum("com.sun.star.text.TextContentAnchorType", "AS_CHARACTER")
AT_PARA = enum("com.sun.star.text.TextContentAnchorType", "AT_PARAGRAPH")
BOLD = 150.0


# --- pictures ------------------------------------------------------------------------------

def png(pixels, level=9, filters=None):
    """An 8-bit RGB PNG of rows of (r, g, b); `filters` picks each row's filter type (0 none or
    1 sub), so that the same pixels give other bytes."""
    h, w = len(pixels), len(pixels[0])
    raw = b""
    for y, row in enumerate(pixels):
        f = (filters or [0] * h)[y]
        flat = [c for px in row for c in px]
        if f == 1:
            flat = [(v - (flat[i - 3] if i >= 3 else 0)) % 256 for i, v in enumerate(flat)]
        raw += bytes([f]) + bytes(flat)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, level)) + chunk(b"IEND", b""))


CHECKER = [[(200, 30, 30) if (x // 2 + y // 2) % 2 else (30, 30, 200) for x in range(8)] for y in range(8)]
STRIPES = [[(30, 160, 30) if y % 2 else (250, 250, 250) for x in range(8)] for y in range(8)]


# --- LibreOffice ---------------------------------------------------------------------------

class Office:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="guigym-writer-lo-")
        pipe = "guigym_writer_%d" % os.getpid()
        self.proc = subprocess.Popen(
            ["soffice", "--headless", "--invisible", "--norestore", "--nologo", "--nodefault",
             "-env:UserInstallation=file://" + self.profile, "--accept=pipe,name=%s;urp;" % pipe],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        for _ in range(120):
            try:
                self.ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
                break
            except Exception:
                time.sleep(0.5)
        else:
            raise SystemExit("LibreOffice did not answer")
        self.smgr = self.ctx.ServiceManager
        self.desktop = self.smgr.createInstanceWithContext("com.sun.star.frame.Desktop", self.ctx)

    def config(self, path):
        provider = self.smgr.createInstanceWithContext("com.sun.star.configuration.ConfigurationProvider", self.ctx)
        return provider.createInstanceWithArguments("com.sun.star.configuration.ConfigurationUpdateAccess",
                                                    (prop("nodepath", path),))

    def graphic(self, path):
        gp = self.smgr.createInstanceWithContext("com.sun.star.graphic.GraphicProvider", self.ctx)
        return gp.queryGraphic((prop("URL", "file://" + path),))

    def to_jpeg(self, src, dst):
        gp = self.smgr.createInstanceWithContext("com.sun.star.graphic.GraphicProvider", self.ctx)
        g = self.graphic(src)
        gp.storeGraphic(g, (prop("URL", "file://" + dst), prop("MimeType", "image/jpeg")))

    def close(self):
        try:
            self.desktop.terminate()
        except Exception:
            pass
        self.proc.wait(timeout=60)


class Doc:
    """A Writer document built paragraph by paragraph."""

    def __init__(self, office):
        self.office = office
        self.doc = office.desktop.loadComponentFromURL("private:factory/swriter", "_blank", 0, (prop("Hidden", True),))
        self.text = self.doc.Text
        self.cur = self.text.createTextCursor()
        self.first = True
        self.used = set()
        self.n = 1  # paragraphs and tables so far (a new document has one paragraph)
        self.pending = []  # (element index, runs) formatted in save()

    def _new_para(self):
        if not self.first:
            self.text.insertControlCharacter(self.cur, PARAGRAPH_BREAK, False)
            self.n += 1
            # a new paragraph inherits the previous one's attributes: reset those set so far
            for name in sorted(self.used):
                self.cur.setPropertyToDefault(name)
        self.first = False

    def para(self, *runs, style=None, **pprops):
        """A paragraph of runs: strings, or (text, {char props}); `\\n` in a text is a line
        break inside the paragraph. The runs are formatted once the whole text is in (see
        `save`): text typed after a formatted run would take its attributes."""
        self._new_para()
        if style:
            self.cur.ParaStyleName = style
        self.used.update(pprops)
        for k, v in pprops.items():
            if k == "ParaTabStops":
                uno.invoke(self.cur, "setPropertyValue", (k, uno.Any("[]com.sun.star.style.TabStop", tuple(v))))
            else:
                self.cur.setPropertyValue(k, v)
        runs = [(r, {}) if isinstance(r, str) else r for r in runs]
        self.runs(self.text, self.cur, [(t, {}) for t, _ in runs])
        self.pending.append((self.n - 1, runs))
        return self

    def runs(self, text, cur, runs):
        runs = [(r, {}) if isinstance(r, str) else r for r in runs]
        for t, _ in runs:
            parts = t.split("\n")
            for i, part in enumerate(parts):
                if i:
                    text.insertControlCharacter(cur, LINE_BREAK, False)
                if part:
                    text.insertString(cur, part, False)
        # format each run by counting back from the paragraph's end
        back = 0
        for t, props in reversed(runs):
            if props:
                c = text.createTextCursorByRange(cur)
                if back:
                    c.goLeft(back, False)
                c.goLeft(len(t), True)
                for k, v in props.items():
                    c.setPropertyValue(k, v)
            back += len(t)

    def table(self, rows, merges=(), nested=None, cell_props=None, para_after=True):
        """A table of rows of texts (a text with `\\n\\n` is two paragraphs); `merges`: (cell,
        right, down) ranges merged; `nested`: (cell name, rows) a table inside a cell;
        `cell_props`: {cell name: {char props}} applied to the cell's text."""
        self._new_para()
        t = self.doc.createInstance("com.sun.star.text.TextTable")
        t.initialize(len(rows), max(len(r) for r in rows))
        self.text.insertTextContent(self.cur, t, False)
        self.n += 1  # the table goes before the paragraph the cursor is in
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                cell = t.getCellByPosition(c, r)
                ct = cell.getText()
                cc = ct.createTextCursor()
                for i, par in enumerate(value.split("\n\n")):
                    if i:
                        ct.insertControlCharacter(cc, PARAGRAPH_BREAK, False)
                    runs = (cell_props or {}).get((r, c))
                    if runs is not None and i == 0:
                        self.runs(ct, cc, runs)
                    else:
                        ct.insertString(cc, par, False)
        if nested:
            name, nrows = nested
            cell = t.getCellByName(name)
            ct = cell.getText()
            n = self.doc.createInstance("com.sun.star.text.TextTable")
            n.initialize(len(nrows), len(nrows[0]))
            ct.insertTextContent(ct.getEnd(), n, False)
            for r, row in enumerate(nrows):
                for c, value in enumerate(row):
                    n.getCellByPosition(c, r).setString(value)
        for name, right, down in merges:
            tc = t.createCursorByCellName(name)
            if right:
                tc.goRight(right, True)
            if down:
                tc.goDown(down, True)
            tc.mergeRange()
        # the cursor stays in the paragraph after the table
        self.first = True
        return self

    def image(self, path, anchor=AS_CHAR, width=1000, text_before="", text_after=""):
        self._new_para()
        if text_before:
            self.text.insertString(self.cur, text_before, False)
        g = self.doc.createInstance("com.sun.star.text.TextGraphicObject")
        g.Graphic = self.office.graphic(path)
        g.AnchorType = anchor
        g.Size = struct_("com.sun.star.awt.Size", Width=width, Height=width)
        self.text.insertTextContent(self.cur, g, False)
        if text_after:
            self.text.insertString(self.cur, text_after, False)
        return self

    def formula(self, formula, text_before="", text_after=""):
        self._new_para()
        if text_before:
            self.text.insertString(self.cur, text_before, False)
        o = self.doc.createInstance("com.sun.star.text.TextEmbeddedObject")
        o.CLSID = "078B7ABA-54FC-457F-8551-6147e776a997"
        o.AnchorType = AS_CHAR
        self.text.insertTextContent(self.cur, o, False)
        model = o.EmbeddedObject
        if not hasattr(model, "Formula"):
            model = o.Model
        model.setPropertyValue("Formula", formula)
        if text_after:
            self.text.insertString(self.cur, text_after, False)
        return self

    def footer(self, *parts, style="Standard"):
        """Turns on the page style's footer and fills it: strings and "PAGE" (a page number
        field) or "COUNT" (a page count field)."""
        ps = self.doc.StyleFamilies.getByName("PageStyles").getByName(style)
        ps.FooterIsOn = True
        ft = ps.FooterText
        c = ft.createTextCursor()
        for part in parts:
            if part in ("PAGE", "COUNT"):
                if part == "PAGE":
                    f = self.doc.createInstance("com.sun.star.text.TextField.PageNumber")
                    f.NumberingType = 4
                    f.SubType = enum("com.sun.star.text.PageNumberType", "CURRENT")
                else:
                    f = self.doc.createInstance("com.sun.star.text.TextField.PageCount")
                    f.NumberingType = 4
                ft.insertTextContent(c, f, False)
            else:
                ft.insertString(c, part, False)
        return self

    def page_style(self, name, base=None):
        families = self.doc.StyleFamilies.getByName("PageStyles")
        if not families.hasByName(name):
            s = self.doc.createInstance("com.sun.star.style.PageStyle")
            families.insertByName(name, s)
        return families.getByName(name)

    def format_pending(self):
        elems = []
        e = self.text.createEnumeration()
        while e.hasMoreElements():
            elems.append(e.nextElement())
        assert len(elems) == self.n, (len(elems), self.n)
        for idx, runs in self.pending:
            par = elems[idx]
            assert par.supportsService("com.sun.star.text.Paragraph")
            offset = 0
            for t, props in runs:
                if props:
                    c = self.text.createTextCursorByRange(par.getStart())
                    if offset:
                        c.goRight(offset, False)
                    c.goRight(len(t), True)
                    assert c.getString().replace("\r\n", "\n").replace("\n", "") == t.replace("\n", ""), (c.getString(), t)
                    for k, v in props.items():
                        c.setPropertyValue(k, v)
                offset += len(t)

    def save(self, name, fmt="docx"):
        self.format_pending()
        path = os.path.join(FILES, name)
        filt = {"docx": "MS Word 2007 XML", "odt": "writer8"}[fmt]
        self.doc.storeToURL("file://" + path, (prop("FilterName", filt),))
        self.doc.close(True)
        normalize(path)
        return name


# --- normalizing and editing ---------------------------------------------------------------

def _fixed_ids(text, ids):
    """LibreOffice's random rsids, numbered in order of first appearance."""
    def sub(m):
        v = m.group(2)
        if v not in ids:
            ids[v] = "%08X" % (len(ids) + 1) if len(v) == 8 else "%0*X" % (len(v), len(ids) + 1)
        return m.group(1) + ids[v] + m.group(3)
    text = re.sub(r'(w:rsid\w*="|w:val=")([0-9A-F]{8})(")', sub, text) if "w:rsid" in text else text
    text = re.sub(r'(officeooo:\w*rsid=")([0-9a-f]{6,8})(")', sub, text)
    return text


def normalize(path):
    """Fixed zip times, dates and rsids, so that the output is byte-identical across runs."""
    ids = {}
    with zipfile.ZipFile(path) as z:
        parts = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(path, "w") as z:
        for info, data in parts:
            if info.filename.endswith(".xml") or info.filename.endswith(".rels"):
                t = data.decode("utf-8")
                t = _fixed_ids(t, ids)
                t = re.sub(r"(<dcterms:(?:created|modified)[^>]*>)[^<]*", r"\g<1>2024-01-01T00:00:00Z", t)
                t = re.sub(r"(<meta:creation-date>|<dc:date>)[^<]*", r"\g<1>2024-01-01T00:00:00", t)
                t = re.sub(r"<meta:editing-duration>[^<]*", "<meta:editing-duration>PT0S", t)
                t = re.sub(r"<TotalTime>[^<]*", "<TotalTime>0", t)
                t = re.sub(r'(config:name="Rsid(?:Root)?" config:type="int">)\d+', r"\g<1>1", t)
                data = t.encode("utf-8")
            new = zipfile.ZipInfo(info.filename, date_time=DATE)
            new.compress_type = info.compress_type
            new.external_attr = 0
            z.writestr(new, data)


def zip_edit(src, dst, edit, part="word/document.xml"):
    """A copy of `src` with `part` passed through `edit(text) -> text`."""
    with zipfile.ZipFile(os.path.join(FILES, src)) as zin, \
            zipfile.ZipFile(os.path.join(FILES, dst), "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == part:
                new = edit(data.decode("utf-8"))
                assert new != data.decode("utf-8"), (dst, "edit changed nothing")
                data = new.encode("utf-8")
            out = zipfile.ZipInfo(info.filename, date_time=DATE)
            out.compress_type = info.compress_type
            zout.writestr(out, data)
    return dst


def sub1(pattern, repl, count=0):
    def edit(t):
        new, n = re.subn(pattern, repl, t, count=count)
        assert n, pattern
        return new
    return edit


# Hand-written docx: the parts Word writes, minimal.
CT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
      '<Default Extension="xml" ContentType="application/xml"/>'
      '<Default Extension="png" ContentType="image/png"/>'
      '<Default Extension="bin" ContentType="application/vnd.openxmlformats-officedocument.oleObject"/>'
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
      '%s</Types>')
ROOT_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
             '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
             '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
             '</Relationships>')
RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
NSDECL = ('xmlns:w="%s" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
          'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
          'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
          'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" '
          'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
          'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"' % WNS)


def hand(name, body, sect="", footers=(), media=(), ole=False):
    """A docx written as MS Word writes one: `footers` [(rId, xml body)], `media` [(rId, file
    name, bytes)]."""
    rels, overrides, parts = [], [], []
    for rid, fbody in footers:
        fname = "footer%s.xml" % rid[3:]
        rels.append('<Relationship Id="%s" Type="%sfooter" Target="%s"/>' % (rid, RT, fname))
        overrides.append('<Override PartName="/word/%s" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/>' % fname)
        parts.append(("word/" + fname, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:ftr %s>%s</w:ftr>' % (NSDECL, fbody)))
    for rid, fname, data in media:
        rels.append('<Relationship Id="%s" Type="%simage" Target="media/%s"/>' % (rid, RT, fname))
        parts.append(("word/media/" + fname, data))
    if ole:
        rels.append('<Relationship Id="rIdOle" Type="%soleObject" Target="embeddings/oleObject1.bin"/>' % RT)
        parts.append(("word/embeddings/oleObject1.bin", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 56))
    doc = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document %s><w:body>%s%s</w:body></w:document>'
           % (NSDECL, body, sect or '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>'))
    with zipfile.ZipFile(os.path.join(FILES, name), "w", zipfile.ZIP_DEFLATED) as z:
        for part, data in [("[Content_Types].xml", CT % "".join(overrides)), ("_rels/.rels", ROOT_RELS),
                           ("word/_rels/document.xml.rels", '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">%s</Relationships>' % "".join(rels)),
                           ("word/document.xml", doc)] + parts:
            info = zipfile.ZipInfo(part, date_time=DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return name


def p(*runs, ppr=""):
    """A paragraph: runs are strings or (text, rPr xml)."""
    out = []
    for r in runs:
        t, rpr = (r, "") if isinstance(r, str) else r
        out.append('<w:r>%s<w:t xml:space="preserve">%s</w:t></w:r>' % ("<w:rPr>%s</w:rPr>" % rpr if rpr else "", t))
    return "<w:p>%s%s</w:p>" % ("<w:pPr>%s</w:pPr>" % ppr if ppr else "", "".join(out))


def write(name, data):
    with open(os.path.join(FILES, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    return name


# --- python-docx ---------------------------------------------------------------------------

PYDOCX = r'''
import sys
from docx import Document
from docx.enum.text import WD_COLOR_INDEX, WD_TAB_ALIGNMENT
from docx.shared import Pt, Cm
out = sys.argv[1]
d = Document(); [d.add_paragraph(t).paragraph_format.__setattr__("line_spacing", 2.0) for t in TEXTS]; d.save(out + "/pd_double.docx")
d = Document()
for t in TAB_TEXTS:
    d.add_paragraph(t).paragraph_format.tab_stops.add_tab_stop(Cm(2), WD_TAB_ALIGNMENT.LEFT)
d.save(out + "/pd_tabs_left_2cm.docx")
d = Document(); p = d.add_paragraph()
for t in FOX:
    r = p.add_run(t); r.font.name = "Times New Roman"
d.save(out + "/pd_fox_tnr.docx")
d = Document(); p = d.add_paragraph(); p.add_run("H"); p.add_run("2").font.subscript = True; p.add_run("O is water"); d.save(out + "/pd_h2o.docx")
d = Document(); d.add_paragraph("Chapter one"); d.add_page_break(); d.add_paragraph("Chapter two"); d.save(out + "/pd_page_break.docx")
d = Document(); p = d.add_paragraph(); p.add_run("Remember to bring the "); p.add_run("tickets").font.highlight_color = WD_COLOR_INDEX.YELLOW; p.add_run(" and the passports."); d.save(out + "/pd_hl_tickets.docx")
d = Document(); [d.add_paragraph(t) for t in TEXTS[:-1]]; d.add_paragraph().add_run(TEXTS[-1]).font.strike = True; d.save(out + "/pd_strike_last.docx")
'''


def pydocx_python():
    cands = [os.environ.get("PYDOCX_PYTHON"), "/tmp/dtenv/bin/python",
             os.path.expanduser("~/.cache/guigym/osworld-venv/bin/python")]
    for c in cands:
        if c and os.path.exists(c) and subprocess.run([c, "-c", "import docx"], capture_output=True).returncode == 0:
            return c
    raise SystemExit("no Python with python-docx: set PYDOCX_PYTHON (the OSWorld venv's python)")


def pydocx_docs():
    code = ("TEXTS = %r\nTAB_TEXTS = %r\nFOX = %r\n" % (TEXTS, TAB_TEXTS, FOX_RUNS)) + PYDOCX
    tmp = tempfile.mkdtemp(prefix="guigym-pydocx-")
    subprocess.run([pydocx_python(), "-c", code, tmp], check=True)
    for n in sorted(os.listdir(tmp)):
        shutil.move(os.path.join(tmp, n), os.path.join(FILES, n))
        normalize(os.path.join(FILES, n))
    shutil.rmtree(tmp)


# --- documents -----------------------------------------------------------------------------

TEXTS = ["Introduction to the annual report.", "The body of the report goes on for a while and says what was done.",
         "Conclusion and next steps."]
TAB_TEXTS = ["Alpha beta gamma\t12.50", "Delta epsilon zeta\t3.75", "Eta theta iota\t100.00"]
FOX_RUNS = ["The quick brown ", "fox", " jumps over the lazy dog."]
HL = ("Remember to bring the ", "tickets", " and the passports.")
WORDS = [["apple", "banana", "orange"], ["grape", "umbrella", "kiwi"]]
RED, BLUE = 0xFF0000, 0x0000FF
TRAIN_HEAD = ["Hong Kong train record (time, train id, station, platform)"]
TRAIN = ["08:00:00, K101, S1, 1", "08:04:30, K102, S2, 2", "08:09:00, K101, S1, 1", "08:12:15, K104, S4, 1",
         "08:20:00, K102, S2, 3", "08:25:45, K103, S3, 2"]
TRAIN_UNIQUE = [TRAIN[0], TRAIN[1], TRAIN[3], TRAIN[5]]


def rgb(r, g, b):
    return (r << 16) | (g << 8) | b


def lo_docs(o):
    D = lambda: Doc(o)

    # train records (compare_unique_train_records): a log with duplicate train ids, its gold
    # form (first occurrences kept) and answers
    def tr(name, lines):
        d = D()
        for t in lines:
            d.para(t)
        return d.save(name)
    tr("tr_initial.docx", TRAIN_HEAD + TRAIN)
    tr("tr_gold.docx", TRAIN_HEAD + TRAIN_UNIQUE)
    tr("tr_good.docx", TRAIN_HEAD + TRAIN_UNIQUE)
    tr("tr_later_occurrence.docx", TRAIN_HEAD + [TRAIN[0], TRAIN[1], TRAIN[5], TRAIN[3]])
    tr("tr_blank_lines.docx", TRAIN_HEAD + [""] + TRAIN_UNIQUE[:2] + ["", "  "] + TRAIN_UNIQUE[2:])
    tr("tr_duplicate_left.docx", TRAIN_HEAD + TRAIN_UNIQUE + [TRAIN[2]])
    tr("tr_line_edited.docx", TRAIN_HEAD + TRAIN_UNIQUE[:-1] + [TRAIN_UNIQUE[-1].replace("S3", "S9")])
    tr("tr_id_missing.docx", TRAIN_HEAD + TRAIN_UNIQUE[:-1])
    tr("tr_header_dropped.docx", TRAIN_UNIQUE)
    tr("tr_untouched.docx", TRAIN_HEAD + TRAIN)

    # line spacing
    def ls(name, *spacings, texts=TEXTS, extra=False):
        d = D()
        for t, s in zip(texts, spacings):
            d.para(t, **({"ParaLineSpacing": s} if s else {}))
        if extra:
            d.para("")
        return d.save(name)
    single, onehalf, double = spacing("prop", 100), spacing("prop", 150), spacing("prop", 200)
    ls("ls_single.docx", single, single, single)
    ls("ls_onehalf.docx", onehalf, onehalf, onehalf)
    ls("ls_double.docx", double, double, double)
    ls("ls_double_again.docx", double, double, double)
    ls("ls_mixed.docx", single, double, onehalf)
    ls("ls_mixed_swapped.docx", double, single, onehalf)
    ls("ls_default.docx", None, None, None)
    ls("ls_prop_115.docx", *[spacing("prop", 115)] * 3)
    ls("ls_fixed_5mm.docx", *[spacing("fix", 500)] * 3)
    ls("ls_fixed_6mm.docx", *[spacing("fix", 600)] * 3)
    ls("ls_atleast_5mm.docx", *[spacing("minimum", 500)] * 3)
    ls("ls_leading_2mm.docx", *[spacing("leading", 200)] * 3)
    ls("ls_double_text_changed.docx", double, double, double, texts=TEXTS[:2] + ["Conclusion and further steps."])
    ls("ls_double_extra_para.docx", double, double, double, extra=True)

    # tables
    grid = [["Name", "Score", "Grade"], ["Ann", "91", "A"], ["Bob", "78", "C"]]
    D().para("Results").table(grid).para("End.").save("tbl_simple.docx")
    D().para("Results").table(grid).para("End.").save("tbl_simple_again.docx")
    D().para("Results").table([grid[0], grid[1], ["Bob", "87", "B"]]).para("End.").save("tbl_cell_changed.docx")
    D().para("Results").table([grid[0], grid[1], ["Bob ", " 78", "C"]]).para("End.").save("tbl_spaces.docx")
    D().para("Results").table(grid + [["Cy", "64", "D"]]).para("End.").save("tbl_row_added.docx")
    D().para("Results").table([r + ["x"] for r in grid]).para("End.").save("tbl_column_added.docx")
    D().para("Results").table([["Name and score", "", "Grade"], grid[1], grid[2]], merges=[("A1", 1, 0)]).para("End.").save("tbl_merged_h.docx")
    D().para("Results").table([["Name and score", "", "Grade"], grid[1], grid[2]], merges=[("A1", 1, 0)]).para("End.").save("tbl_merged_h_again.docx")
    D().para("Results").table([["Name and score", "", "Grade"], grid[1], grid[2]]).para("End.").save("tbl_unmerged_h.docx")
    D().para("Results").table([grid[0], ["Ann", "91", "A"], ["Bob", "78", ""]], merges=[("C2", 0, 1)]).para("End.").save("tbl_merged_v.docx")
    D().para("Results").table([grid[0], ["Ann", "91", "A"], ["Bob", "78", ""]]).para("End.").save("tbl_unmerged_v.docx")
    D().para("Results").table([grid[0], ["Ann", "91\n\nretake", "A"], grid[2]]).para("End.").save("tbl_two_paras.docx")
    d = D().para("Results").table([grid[0], ["Ann", "91", "A"], grid[2]], cell_props={(1, 1): [("91\nretake", {})]})
    d.para("End.").save("tbl_line_break.docx")
    D().para("Results").table(grid, nested=("A2", [["in", "ner"]])).para("End.").save("tbl_nested.docx")
    D().para("Results").table(grid, nested=("A2", [["other", "text"]])).para("End.").save("tbl_nested_other.docx")
    D().para("Results").table(grid).para("Second").table([["a", "b"]]).para("End.").save("tbl_two_tables.docx")
    D().para("Results").para("End.").save("tbl_none.docx")

    # images
    pics = {}
    for n, data in [("pic_checker.png", png(CHECKER)), ("pic_checker_reencoded.png", png(CHECKER, level=1, filters=[1, 0] * 4)),
                    ("pic_stripes.png", png(STRIPES))]:
        pics[n] = os.path.join(FILES, write(n, data))
    pics["pic_checker.jpg"] = os.path.join(FILES, "pic_checker.jpg")
    o.to_jpeg(pics["pic_checker.png"], pics["pic_checker.jpg"])

    def img(name, pictures, caption="Figure 1: the pattern.", **kw):
        d = D().para("The picture:")
        for pic in pictures:
            d.image(pics[pic], **kw)
        return d.para(caption).save(name)
    img("img_png.docx", ["pic_checker.png"])
    img("img_png_again.docx", ["pic_checker.png"])
    img("img_png_reencoded.docx", ["pic_checker_reencoded.png"])
    img("img_png_larger.docx", ["pic_checker.png"], width=2500)
    img("img_stripes.docx", ["pic_stripes.png"])
    img("img_jpeg.docx", ["pic_checker.jpg"])
    img("img_jpeg_again.docx", ["pic_checker.jpg"])
    img("img_two.docx", ["pic_checker.png", "pic_stripes.png"])
    img("img_two_swapped.docx", ["pic_stripes.png", "pic_checker.png"])
    img("img_at_paragraph.docx", ["pic_checker.png"], anchor=AT_PARA)
    img("img_with_text.docx", ["pic_checker.png"], text_before="See: ")
    D().para("The picture:").para("").para("Figure 1: the pattern.").save("img_none.docx")
    D().para("The picture:").para("(picture here)").para("Figure 1: the pattern.").save("img_none_text.docx")

    # italic at 14 pt
    def fox(name, *props, texts=FOX_RUNS):
        return D().para(*[(t, p) for t, p in zip(texts, props)]).para("Second line.").save(name)
    it14 = {"CharPosture": ITALIC, "CharHeight": 14.0}
    fox("it_plain.docx", {}, {}, {})
    fox("it_fox_14.docx", {}, it14, {})
    fox("it_fox_12.docx", {}, {"CharPosture": ITALIC, "CharHeight": 12.0}, {})
    fox("it_fox_14_5.docx", {}, {"CharPosture": ITALIC, "CharHeight": 14.5}, {})
    fox("it_all_14.docx", it14, it14, it14)
    fox("it_mixed_14_12.docx", it14, {"CharPosture": ITALIC, "CharHeight": 12.0}, {})
    fox("it_fox_bold_14.docx", {}, {"CharWeight": BOLD, "CharHeight": 14.0}, {})
    fox("it_fox_italic_default_size.docx", {}, {"CharPosture": ITALIC}, {})
    fox("it_fox_emphasis_style.docx", {}, {"CharStyleName": "Emphasis"}, {})
    fox("it_fox_14_text_changed.docx", {}, it14, {}, texts=["The quick red ", "fox", " jumps over the lazy dog."])

    # tab stops
    def tabs(name, *stops_per_para, texts=TAB_TEXTS, extra=False):
        d = D()
        for t, stops in zip(texts, stops_per_para):
            d.para(t, **({"ParaTabStops": stops} if stops is not None else {}))
        if extra:
            d.para("")
        return d.save(name)
    L2 = (tab(2000),)
    tabs("tab_left_2cm.docx", L2, L2, L2)
    tabs("tab_left_2cm_again.docx", L2, L2, L2)
    tabs("tab_left_2_02cm.docx", *[(tab(2020),)] * 3)
    tabs("tab_left_2_5cm.docx", *[(tab(2500),)] * 3)
    tabs("tab_left_2_5cm_first.docx", (tab(2500),), L2, L2)
    tabs("tab_center_2cm.docx", *[(tab(2000, "CENTER"),)] * 3)
    tabs("tab_right_16cm.docx", *[(tab(16000, "RIGHT"),)] * 3)
    tabs("tab_right_15cm.docx", *[(tab(15000, "RIGHT"),)] * 3)
    tabs("tab_decimal_10cm.docx", *[(tab(10000, "DECIMAL"),)] * 3)
    tabs("tab_decimal_comma_10cm.docx", *[(tab(10000, "DECIMAL", decimal=","),)] * 3)
    tabs("tab_left_and_right.docx", *[(tab(2000), tab(16000, "RIGHT"))] * 3)
    tabs("tab_default.docx", None, None, None)
    tabs("tab_first_only.docx", L2, None, None)
    tabs("tab_left_2cm_extra_para.docx", L2, L2, L2, extra=True)
    tabs("tab_left_2cm_two_words.docx", L2, L2, L2, texts=["Alpha beta\t12.50", "Delta epsilon\t3.75", "Eta theta\t100.00"])
    tabs("tab_left_2cm_no_tab.docx", L2, L2, L2, texts=[t.replace("\t", " ") for t in TAB_TEXTS])

    # fonts
    def font(name, *props, style_font=None, empty=False, table=False):
        d = D()
        if style_font:
            d.doc.StyleFamilies.getByName("ParagraphStyles").getByName("Standard").CharFontName = style_font
        d.para(*[(t, p) for t, p in zip(FOX_RUNS, props)])
        d.para(*[("Second line.", props[0])])
        if table:
            d.table([["cell", "text"]])
            d.para(*[("After the table.", props[0])])
        if empty:
            d.para("")
        return d.save(name)
    tnr, lib, arial = ({"CharFontName": f} for f in ("Times New Roman", "Liberation Serif", "Liberation Sans"))
    font("font_tnr_runs.docx", tnr, tnr, tnr)
    font("font_lib_runs.docx", lib, lib, lib)
    font("font_mixed.docx", tnr, arial, tnr)
    font("font_style_only.docx", {}, {}, {}, style_font="Times New Roman")
    font("font_style_and_runs.docx", tnr, tnr, tnr, style_font="Times New Roman")
    font("font_default.docx", {}, {}, {})
    font("font_tnr_empty_para.docx", tnr, tnr, tnr, empty=True)
    font("font_tnr_table.docx", tnr, tnr, tnr, table=True)
    D().save("font_empty_doc.docx")

    # highlighting (docx)
    def hl(name, props, parts=HL):
        return D().para(*[(t, props.get(i, {})) for i, t in enumerate(parts)]).para("Thanks.").save(name)
    y = {"CharHighlight": 0xFFFF00}
    hl("hl_tickets.docx", {1: y})
    hl("hl_tickets_again.docx", {1: y})
    hl("hl_passports.docx", {1: y}, parts=("Remember to bring the tickets and the ", "passports", "."))
    hl("hl_both.docx", {1: y, 3: y}, parts=("Remember to bring the ", "tickets", " and the ", "passports", "."))
    hl("hl_none.docx", {})
    hl("hl_tickets_green.docx", {1: {"CharHighlight": 0x00FF00}})
    hl("hl_tickets_background.docx", {1: {"CharBackColor": 0xFFFF00}})
    hl("hl_tickets_split.docx", {1: y, 2: dict(y, CharWeight=BOLD)}, parts=("Remember to bring the ", "tick", "ets", " and the passports."))
    hl("hl_tickets_twice.docx", {1: y, 3: y}, parts=("Remember to bring the ", "tickets", " and the ", "tickets", "."))
    D().para("Remember to bring:").table([["tickets", "passports"]], cell_props={(0, 0): [("tickets", y)]}).para("Thanks.").save("hl_in_table.docx")

    # highlighting (odt)
    def odt(name, props, parts=HL, **pprops):
        return D().para(*[(t, props.get(i, {})) for i, t in enumerate(parts)], **pprops).para("Thanks.").save(name, "odt")
    odt("odt_plain.odt", {})
    odt("odt_plain_again.odt", {})
    odt("odt_yellow_highlight.odt", {1: y})
    odt("odt_yellow_background.odt", {1: {"CharBackColor": 0xFFFF00}})
    odt("odt_green_highlight.odt", {1: {"CharHighlight": 0x00FF00}})
    odt("odt_light_yellow_highlight.odt", {1: {"CharHighlight": 0xFFFF66}})
    odt("odt_yellow_text_changed.odt", {}, parts=("Remember to bring the ", "tickets", " and the visas."))
    odt("odt_paragraph_background.odt", {}, ParaBackColor=0xFFFF00)
    odt("odt_bold_only.odt", {1: {"CharWeight": BOLD}})

    # equations
    D().para("The formula:").formula("a^2 + b^2 = c^2").para("Done.").save("eq_formula.docx")
    D().para("The formula:").formula("a^2 + b^2 = c^2").para("Done.").save("eq_formula_again.docx")
    D().para("The formula:").formula("E = m c^2").para("Done.").save("eq_formula_other.docx")
    D().para("The formula:").para("").para("Done.").save("eq_none.docx")

    # subscripts
    auto_sub = {"CharEscapement": -14000, "CharEscapementHeight": 58}
    auto_sup = {"CharEscapement": 14000, "CharEscapementHeight": 58}

    def sub(name, props, parts=("H", "2", "O is water.")):
        return D().para(*[(t, props.get(i, {})) for i, t in enumerate(parts)]).save(name)
    sub("sub_h2o.docx", {1: auto_sub})
    sub("sub_h2o_again.docx", {1: auto_sub})
    sub("sub_none.docx", {})
    sub("sub_superscript.docx", {1: auto_sup})
    sub("sub_lowered_33.docx", {1: {"CharEscapement": -33, "CharEscapementHeight": 58}})
    sub("sub_co2.docx", {1: auto_sub}, parts=("CO", "2", " emissions rose."))
    D().para("Water is", ("H", {}), ("2", auto_sub), ("O", {})).save("sub_h2o_later_run.docx")
    D().para("Formula:").table([["H2O"]], cell_props={(0, 0): [("H", {}), ("2", auto_sub), ("O", {})]}).save("sub_in_table.docx")

    # page breaks
    def pb(name, breaks, texts=("Chapter one", "Chapter two", "Chapter three")):
        d = D()
        for i, t in enumerate(texts):
            d.para(t, **breaks.get(i, {}))
        return d.save(name)
    before = {"BreakType": PAGE_BEFORE}
    pb("pb_one.docx", {1: before})
    pb("pb_two.docx", {1: before, 2: before})
    pb("pb_none.docx", {})
    pb("pb_after.docx", {0: {"BreakType": PAGE_AFTER}})
    d = D()
    land = d.page_style("Landscape")
    d.para("Chapter one").para("Chapter two", PageDescName="Landscape").save("pb_page_style.docx")

    # strike-through
    def st(name, props_last, props_first=None, texts=TEXTS, trailing=False):
        d = D()
        for i, t in enumerate(texts):
            if i == len(texts) - 1:
                d.para(*props_last(t))
            elif i == 0 and props_first:
                d.para((t, props_first))
            else:
                d.para(t)
        if trailing:
            d.para("")
        return d.save(name)
    strike = {"CharStrikeout": 1}
    st("st_plain.docx", lambda t: [t])
    st("st_last_whole.docx", lambda t: [(t, strike)])
    st("st_last_partial.docx", lambda t: [(t[:11], strike), t[11:]])
    st("st_last_two_runs.docx", lambda t: [(t[:11], strike), (t[11:], dict(strike, CharWeight=BOLD))])
    st("st_last_double.docx", lambda t: [(t, {"CharStrikeout": 2})])
    st("st_last_bold_strike.docx", lambda t: [(t, {"CharStrikeout": 3})])
    st("st_first_only.docx", lambda t: [t], props_first=strike)
    st("st_last_whole_text_changed.docx", lambda t: [(t, strike)], texts=TEXTS[:2] + ["Conclusion."])
    st("st_last_whole_trailing_empty.docx", lambda t: [(t, strike)], trailing=True)

    # page numbers in footers
    def ft(name, *parts, body=("Body text.",)):
        d = D()
        for t in body:
            d.para(t)
        if parts:
            d.footer(*parts)
        return d.save(name)
    ft("ft_page_field.docx", "PAGE")
    ft("ft_page_of_count.docx", "Page ", "PAGE", " of ", "COUNT")
    ft("ft_text_only.docx", "Confidential")
    ft("ft_year.docx", "Annual report 2024")
    ft("ft_empty.docx", "")
    ft("ft_none.docx")
    for name, second in (("ft_two_sections.docx", ("Page ", "PAGE")), ("ft_two_sections_second_plain.docx", ("Appendix",))):
        d = D()
        d.page_style("Landscape")
        d.para("Body text.").para("Appendix text.", PageDescName="Landscape")
        d.footer("Page ", "PAGE")
        d.footer(*second, style="Landscape")
        d.save(name)

    # new lines
    def nl(name, paras, fmt="docx"):
        d = D()
        for t in paras:
            d.para(t)
        return d.save(name, fmt)
    nl("nl_base.docx", TEXTS)
    nl("nl_blank_lines.docx", [TEXTS[0], "", TEXTS[1], "", "", TEXTS[2]])
    nl("nl_space_line.docx", [TEXTS[0], " ", TEXTS[1], TEXTS[2]])
    nl("nl_joined_line_break.docx", [TEXTS[0] + "\n" + TEXTS[1], TEXTS[2]])
    nl("nl_joined_space.docx", [TEXTS[0] + " " + TEXTS[1], TEXTS[2]])
    nl("nl_double_spaces.docx", [TEXTS[0].replace(" ", "  "), TEXTS[1], TEXTS[2]])
    nl("nl_changed.docx", [TEXTS[0], TEXTS[1], "Conclusion and next step."])
    nl("nl_case.docx", [t.upper() for t in TEXTS])
    nl("nl_base.odt", TEXTS, "odt")

    # coloured words in tables
    def cw(name, colour, words=WORDS, after="End of the list."):
        props = {}
        for r, row in enumerate(words):
            for c, w in enumerate(row):
                col = colour(w)
                props[(r, c)] = [(w, {"CharColor": col} if col is not None else {})]
        return D().para("Words:").table(words, cell_props=props).para(after).save(name)
    vowel = lambda w: w[0].lower() in "aeiou"
    cw("cw_plain.docx", lambda w: None)
    cw("cw_correct.docx", lambda w: RED if vowel(w) else BLUE)
    cw("cw_swapped.docx", lambda w: BLUE if vowel(w) else RED)
    cw("cw_near_inside.docx", lambda w: rgb(239, 0, 0) if vowel(w) else rgb(0, 0, 228))
    cw("cw_near_inside_other.docx", lambda w: rgb(255, 0, 29) if vowel(w) else rgb(0, 39, 255))
    cw("cw_red_just_outside.docx", lambda w: rgb(238, 0, 0) if vowel(w) else BLUE)
    cw("cw_red_pink_outside.docx", lambda w: rgb(255, 0, 30) if vowel(w) else BLUE)
    cw("cw_blue_just_outside.docx", lambda w: RED if vowel(w) else rgb(0, 0, 227))
    cw("cw_blue_cyanish_outside.docx", lambda w: RED if vowel(w) else rgb(0, 40, 255))
    cw("cw_palette_blue.docx", lambda w: RED if vowel(w) else 0x2A6099)
    cw("cw_dark_red_2.docx", lambda w: 0xC9211E if vowel(w) else BLUE)
    cw("cw_one_automatic.docx", lambda w: None if w == "kiwi" else (RED if vowel(w) else BLUE))
    cw("cw_correct_text_changed.docx", lambda w: RED if vowel(w) else BLUE, after="End.")
    cw("cw_capitals_correct.docx", lambda w: RED if vowel(w) else BLUE, words=[[w.capitalize() for w in r] for r in WORDS])
    cw("cw_capitals_plain.docx", lambda w: None, words=[[w.capitalize() for w in r] for r in WORDS])


def xcu_files():
    """registrymodifications.xcu as LibreOffice writes it in a fresh profile, with Writer's
    default font set through the configuration API, and without."""
    out = {}
    for name, font in (("xcu_times.xcu", "Times New Roman"), ("xcu_liberation.xcu", "Liberation Serif"), ("xcu_untouched.xcu", None)):
        o = Office()
        try:
            if font:
                c = o.config("/org.openoffice.Office.Writer/DefaultFont")
                c.setPropertyValue("Standard", font)
                c.commitChanges()
        finally:
            o.close()
        with open(os.path.join(o.profile, "user", "registrymodifications.xcu"), encoding="utf-8") as f:
            out[name] = f.read()
        shutil.rmtree(o.profile, ignore_errors=True)
        write(name, out[name])
    return out


# --- cases ---------------------------------------------------------------------------------

cases = []


def case(name, func, result, expected, note, options=None, expected_as=None):
    c = {"name": name, "func": func, "result": result, "expected": expected, "options": options or {}, "note": note}
    if expected_as:
        c["expected_as"] = expected_as
    assert name not in {x["name"] for x in cases}, name
    cases.append(c)


def edits():
    """Copies of LibreOffice's files edited as other writers write them, and files by hand."""
    e = {}
    # line spacing
    e["ls_no_rule"] = zip_edit("ls_double.docx", "ls_double_no_line_rule.docx", sub1(r' w:lineRule="auto"', ""))
    e["ls_no_line"] = zip_edit("ls_double.docx", "ls_double_no_line.docx", sub1(r' w:line="480"', ""))
    e["ls_exact_480"] = zip_edit("ls_double.docx", "ls_exact_480.docx", sub1(r'w:lineRule="auto"', 'w:lineRule="exact"'))
    e["ls_bad_rule"] = zip_edit("ls_double.docx", "ls_double_rule_capital.docx", sub1(r'w:lineRule="auto"', 'w:lineRule="Auto"'))
    e["ls_float_line"] = zip_edit("ls_double.docx", "ls_double_line_480_0.docx", sub1(r'w:line="480"', 'w:line="480.0"'))
    e["ls_in_line"] = zip_edit("ls_double.docx", "ls_double_line_in_inches.docx", sub1(r'w:line="480"', 'w:line="0.3333in"'))
    e["ls_style_only"] = hand("ls_double_style_only.docx",
                              "".join(p(t, ppr='<w:pStyle w:val="Double"/>') for t in TEXTS))
    e["ls_hand_double"] = hand("ls_double_word.docx", "".join(p(t, ppr='<w:spacing w:after="160" w:line="480" w:lineRule="auto"/>') for t in TEXTS))
    # tables
    cell = lambda t, tcpr="": '<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/>%s</w:tcPr>%s</w:tc>' % (tcpr, p(t))
    grid3 = '<w:tblGrid><w:gridCol w:w="3000"/><w:gridCol w:w="3000"/><w:gridCol w:w="3000"/></w:tblGrid>'
    tbl = lambda rows, g=grid3: '<w:tbl><w:tblPr><w:tblW w:w="9000" w:type="dxa"/></w:tblPr>%s%s</w:tbl>' % (g, "".join("<w:tr>%s</w:tr>" % "".join(rows_) for rows_ in rows))
    rows = [[cell("Name"), cell("Score"), cell("Grade")], [cell("Ann"), cell("91"), cell("A")], [cell("Bob"), cell("78"), cell("C")]]
    e["tbl_hand"] = hand("tbl_word.docx", p("Results") + tbl(rows) + p("End."))
    e["tbl_hand_span"] = hand("tbl_word_grid_span.docx", p("Results") + tbl([[cell("Name and score", '<w:gridSpan w:val="2"/>'), cell("Grade")], rows[1], rows[2]]) + p("End."))
    e["tbl_hand_vmerge"] = hand("tbl_word_vmerge.docx", p("Results") + tbl([rows[0], [cell("Ann"), cell("91"), cell("A", '<w:vMerge w:val="restart"/>')],
                                                                          [cell("Bob"), cell("78"), cell("", '<w:vMerge/>')]]) + p("End."))
    e["tbl_hand_short_row"] = hand("tbl_word_short_row.docx", p("Results") + tbl([rows[0], rows[1], [cell("Bob"), cell("78")]]) + p("End."))
    e["tbl_hand_grid_before"] = hand("tbl_word_grid_before.docx", p("Results") + tbl([rows[0], rows[1], ['<w:trPr><w:gridBefore w:val="1"/></w:trPr>', cell("78"), cell("C")]]) + p("End."))
    e["tbl_hand_sdt_cell"] = hand("tbl_word_cell_in_sdt.docx", p("Results") + tbl([rows[0], rows[1], [cell("Bob"), "<w:sdt><w:sdtContent>%s</w:sdtContent></w:sdt>" % cell("78"), cell("C")]]) + p("End."))
    # images
    e["img_orphan"] = hand("img_word_orphan_rel.docx", p("The picture:") + p("") + p("Figure 1: the pattern."),
                           media=[("rId7", "image1.png", png(CHECKER))])
    vml = ('<w:p><w:r><w:pict><v:shape id="i1" style="width:20pt;height:20pt"><v:imagedata r:id="rId7" o:title=""/></v:shape></w:pict></w:r></w:p>')
    e["img_vml"] = hand("img_word_vml.docx", p("The picture:") + vml + p("Figure 1: the pattern."), media=[("rId7", "image1.png", png(CHECKER))])
    # italic
    it = lambda val: sub1(r'<w:i/><w:sz w:val="28"/>', '<w:i w:val="%s"/><w:sz w:val="24"/>' % val)
    for val in ("0", "false", "off", "on", "1", "true", "yes"):
        e["it_" + val] = zip_edit("it_fox_14.docx", "it_fox_12_i_%s.docx" % val, it(val))
    e["it_ics"] = zip_edit("it_fox_14.docx", "it_fox_12_i_cs.docx", sub1(r'<w:i/><w:sz w:val="28"/>', '<w:iCs/><w:sz w:val="24"/>'))
    e["it_sz_cs"] = zip_edit("it_fox_14.docx", "it_fox_14_sz_cs_only.docx", sub1(r'<w:sz w:val="28"/>', '<w:szCs w:val="28"/>'))
    e["it_sz_float"] = zip_edit("it_fox_14.docx", "it_fox_sz_28_0.docx", sub1(r'<w:sz w:val="28"/>', '<w:sz w:val="28.0"/>'))
    e["it_sz_pt"] = zip_edit("it_fox_14.docx", "it_fox_sz_14pt.docx", sub1(r'<w:sz w:val="28"/>', '<w:sz w:val="14pt"/>'))
    e["it_hyperlink"] = zip_edit("it_plain.docx", "it_fox_12_in_hyperlink.docx",
                                 sub1(r'<w:t>The quick brown fox jumps', '<w:t xml:space="preserve">The quick brown </w:t></w:r><w:hyperlink w:anchor="x"><w:r><w:rPr><w:i/><w:sz w:val="24"/></w:rPr><w:t>fox</w:t></w:r></w:hyperlink><w:r><w:t xml:space="preserve"> jumps'))
    # tab stops
    e["tab_start"] = zip_edit("tab_left_2cm.docx", "tab_start_2cm.docx", sub1(r'w:val="left" w:pos="1134"', 'w:val="start" w:pos="1134"'))
    e["tab_zero"] = zip_edit("tab_left_2cm.docx", "tab_left_2cm_and_zero.docx", sub1(r'(<w:tab w:val="left" w:pos="1134"[^>]*/>)', r'<w:tab w:val="left" w:pos="0"/>\1'))
    e["tab_no_clear"] = zip_edit("tab_left_2cm.docx", "tab_left_2cm_no_clear.docx", sub1(r'<w:tab w:val="clear" w:pos="\d+"/>', ''))
    e["tab_mm"] = zip_edit("tab_left_2cm.docx", "tab_left_20mm_universal.docx", sub1(r'w:pos="1134"', 'w:pos="20mm"'))
    e["tab_bar"] = zip_edit("tab_left_2cm.docx", "tab_bar_2cm.docx", sub1(r'w:val="left" w:pos="1134"', 'w:val="bar" w:pos="1134"'))
    e["tab_bogus"] = zip_edit("tab_left_2cm.docx", "tab_bogus_alignment.docx", sub1(r'w:val="left" w:pos="1134"', 'w:val="middle" w:pos="1134"'))
    e["tab_wide_margins"] = zip_edit("tab_left_2cm.docx", "tab_left_2cm_wide_margins.docx", sub1(r'w:left="1134" w:right="1134"', 'w:left="2834" w:right="2834"'))
    # fonts
    e["font_hansi"] = zip_edit("font_tnr_runs.docx", "font_tnr_hansi_only.docx", sub1(r'w:ascii="Times New Roman" ', ''))
    e["font_lower"] = zip_edit("font_tnr_runs.docx", "font_tnr_lower_case.docx", sub1(r'w:ascii="Times New Roman"', 'w:ascii="times new roman"'))
    e["font_theme"] = zip_edit("font_tnr_runs.docx", "font_ascii_theme.docx", sub1(r'w:ascii="Times New Roman" w:hAnsi="Times New Roman"', 'w:asciiTheme="minorHAnsi" w:hAnsi="Times New Roman"'))
    e["font_hyperlink"] = zip_edit("font_tnr_runs.docx", "font_tnr_arial_in_hyperlink.docx",
                                   sub1(r'<w:t>The quick brown fox jumps', '<w:t xml:space="preserve">The quick brown </w:t></w:r><w:hyperlink w:anchor="x"><w:r><w:rPr>'
                                        '<w:rFonts w:ascii="Arial" w:hAnsi="Arial"/></w:rPr><w:t>fox</w:t></w:r></w:hyperlink><w:r><w:rPr>'
                                        '<w:rFonts w:ascii="Times New Roman" w:hAnsi="Times New Roman"/></w:rPr><w:t xml:space="preserve"> jumps'))
    # highlight
    e["hl_none_val"] = zip_edit("hl_tickets.docx", "hl_tickets_val_none.docx", sub1(r'w:highlight w:val="yellow"', 'w:highlight w:val="none"'))
    e["hl_no_t"] = zip_edit("hl_tickets.docx", "hl_tickets_in_ins.docx", sub1(r'(<w:r><w:rPr><w:highlight w:val="yellow"/></w:rPr><w:t>tickets</w:t></w:r>)', r'<w:ins w:id="1" w:author="A">\1</w:ins>'))
    # odt
    e["odt_upper"] = zip_edit("odt_yellow_highlight.odt", "odt_yellow_upper_case.odt", sub1(r'fo:background-color="#ffff00"', 'fo:background-color="#FFFF00"'), part="content.xml")
    # equations
    obj = ('<w:r><w:object w:dxaOrig="1440" w:dyaOrig="400"><v:shape id="e1" style="width:72pt;height:20pt"/>'
           '<o:OLEObject Type="Embed" ProgID="Equation.3" ShapeID="e1" DrawAspect="Content" ObjectID="_1" r:id="rIdOle"/></w:object></w:r>')
    e["eq_object"] = hand("eq_word_ole_object.docx", p("The formula:") + "<w:p>%s</w:p>" % obj + p("Done."), ole=True)
    e["eq_object_again"] = hand("eq_word_ole_object_again.docx", p("The formula:") + "<w:p>%s</w:p>" % obj + p("Done."), ole=True)
    e["eq_object_first"] = hand("eq_word_ole_object_first_para.docx", "<w:p>%s<w:r><w:t>The formula:</w:t></w:r></w:p>" % obj + p("") + p("Done."), ole=True)
    e["eq_omath"] = hand("eq_word_omath.docx", p("The formula:") + '<w:p><m:oMath><m:r><m:t>x=1</m:t></m:r></m:oMath></w:p>' + p("Done."))
    e["eq_object_text"] = hand("eq_word_ole_object_text_changed.docx", p("The equation:") + "<w:p>%s</w:p>" % obj + p("Done."), ole=True)
    # subscripts
    e["sub_baseline"] = zip_edit("sub_h2o.docx", "sub_h2o_baseline.docx", sub1(r'w:vertAlign w:val="subscript"', 'w:vertAlign w:val="baseline"'))
    e["sub_bogus"] = zip_edit("sub_h2o.docx", "sub_h2o_vert_align_sub.docx", sub1(r'w:vertAlign w:val="subscript"', 'w:vertAlign w:val="sub"'))
    e["sub_hyperlink"] = zip_edit("sub_h2o.docx", "sub_h2o_in_hyperlink.docx", sub1(r'<w:r>(<w:rPr><w:vertAlign w:val="subscript"/>.*?</w:r>)', r'<w:hyperlink w:anchor="x"><w:r>\1</w:hyperlink>'))
    # page breaks
    def second_break_before(t):
        parts = t.split('<w:pStyle w:val="Normal"/>')
        assert len(parts) == 4
        return parts[0] + '<w:pStyle w:val="Normal"/>' + parts[1] + '<w:pStyle w:val="Normal"/><w:pageBreakBefore/>' + '<w:pStyle w:val="Normal"/>'.join(parts[2:])
    e["pb_before"] = zip_edit("pb_none.docx", "pb_page_break_before.docx", second_break_before)
    e["pb_column"] = zip_edit("pb_one.docx", "pb_column_break.docx", sub1(r'w:type="page"', 'w:type="column"'))
    e["pb_line"] = zip_edit("pb_one.docx", "pb_line_break.docx", sub1(r' w:type="page"', ''))
    e["pb_rendered"] = zip_edit("pb_one.docx", "pb_last_rendered.docx", sub1(r'<w:br w:type="page"/>', '<w:lastRenderedPageBreak/>'))
    e["pb_hyperlink"] = zip_edit("pb_one.docx", "pb_break_in_hyperlink.docx", sub1(r'(<w:r><w:br w:type="page"/></w:r>)', r'<w:hyperlink w:anchor="x">\1</w:hyperlink>'))
    e["pb_upper"] = zip_edit("pb_one.docx", "pb_type_page_capital.docx", sub1(r'w:type="page"', 'w:type="Page"'))
    e["pb_table"] = hand("pb_word_in_table.docx", p("Chapter one") + '<w:tbl><w:tblGrid><w:gridCol w:w="3000"/></w:tblGrid><w:tr><w:tc><w:p><w:r><w:t>x</w:t><w:br w:type="page"/></w:r></w:p></w:tc></w:tr></w:tbl>' + p("Chapter two"))
    # strike
    for val in ("0", "on", "true", "1", "yes"):
        e["st_" + val] = zip_edit("st_last_whole.docx", "st_last_strike_%s.docx" % val, sub1(r'<w:strike/>', '<w:strike w:val="%s"/>' % val))
    e["st_empty_body"] = hand("st_word_no_paragraphs.docx", "")
    e["st_hyperlink"] = zip_edit("st_last_whole.docx", "st_last_plain_in_hyperlink.docx",
                                 sub1(r'<w:r><w:rPr><w:strike/></w:rPr><w:t>Conclusion and next steps.</w:t></w:r>',
                                      '<w:r><w:rPr><w:strike/></w:rPr><w:t xml:space="preserve">Conclusion and </w:t></w:r><w:hyperlink w:anchor="x"><w:r><w:t>next steps.</w:t></w:r></w:hyperlink>'))
    # footers
    sect = lambda refs: '<w:sectPr>%s<w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>' % refs
    fref = lambda rid: '<w:footerReference w:type="default" r:id="%s"/>' % rid
    e["ft_simple"] = hand("ft_word_fld_simple.docx", p("Body text."), sect(fref("rId8")),
                          footers=[("rId8", '<w:p><w:fldSimple w:instr=" PAGE \\* MERGEFORMAT "><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p>')])
    e["ft_complex"] = hand("ft_word_fld_complex.docx", p("Body text."), sect(fref("rId8")),
                           footers=[("rId8", '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r>'
                                     '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>')])
    e["ft_sdt"] = hand("ft_word_page_number_sdt.docx", p("Body text."), sect(fref("rId8")),
                       footers=[("rId8", '<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Page Numbers (Bottom of Page)"/></w:docPartObj></w:sdtPr>'
                                 '<w:sdtContent><w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
                                 '<w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:sdtContent></w:sdt>')])
    e["ft_second_para"] = hand("ft_word_number_in_second_paragraph.docx", p("Body text."), sect(fref("rId8")),
                               footers=[("rId8", p("Company name") + p("Page 1"))])
    e["ft_first_section_only"] = hand("ft_word_first_of_two_sections.docx", '<w:p><w:pPr>%s</w:pPr><w:r><w:t>Body text.</w:t></w:r></w:p>' % sect(fref("rId8")) + p("Appendix."), sect(""),
                                      footers=[("rId8", p("Page 1"))])
    e["ft_second_section_only"] = hand("ft_word_second_of_two_sections.docx", '<w:p><w:pPr>%s</w:pPr><w:r><w:t>Body text.</w:t></w:r></w:p>' % sect("") + p("Appendix."), sect(fref("rId8")),
                                       footers=[("rId8", p("Page 1"))])
    e["ft_even_only"] = hand("ft_word_even_footer_only.docx", p("Body text."), sect('<w:footerReference w:type="even" r:id="rId8"/>'),
                             footers=[("rId8", p("Page 2"))])
    # coloured words
    e["cw_auto"] = zip_edit("cw_correct.docx", "cw_kiwi_color_auto.docx", sub1(r'<w:color w:val="0000FF"/></w:rPr><w:t>kiwi', '<w:color w:val="auto"/></w:rPr><w:t>kiwi'))
    e["cw_theme"] = zip_edit("cw_correct.docx", "cw_kiwi_theme_color.docx", sub1(r'<w:color w:val="0000FF"/></w:rPr><w:t>kiwi', '<w:color w:val="0000FF" w:themeColor="accent1"/></w:rPr><w:t>kiwi'))
    e["cw_lower_hex"] = zip_edit("cw_correct.docx", "cw_kiwi_lower_case_hex.docx", sub1(r'<w:color w:val="0000FF"/></w:rPr><w:t>kiwi', '<w:color w:val="0000ff"/></w:rPr><w:t>kiwi'))
    return e


def all_cases(e):
    js = lambda name, obj: write(name, json.dumps(obj))
    # shared odd inputs
    write("not_a_docx.docx", "This is plain text saved with a .docx name.\n")
    write("not_an_odt.odt", "This is plain text saved with an .odt name.\n")
    write("not_xml.xcu", "font = Times New Roman\n")

    f = "compare_line_spacing"
    for n, r, x, note in [
        ("ls_single_same", "ls_single.docx", "ls_single.docx", "single (w:line 240 auto) against itself"),
        ("ls_double_made_twice", "ls_double_again.docx", "ls_double.docx", "double spacing, made twice"),
        ("ls_onehalf_vs_double", "ls_onehalf.docx", "ls_double.docx", "1.5 lines where double is expected"),
        ("ls_single_vs_default", "ls_single.docx", "ls_default.docx", "explicit single (1.0) against no spacing (None)"),
        ("ls_default_same", "ls_default.docx", "ls_default.docx", "no spacing set anywhere: None == None"),
        ("ls_mixed_same", "ls_mixed.docx", "ls_mixed.docx", "single, double, 1.5 per paragraph"),
        ("ls_mixed_swapped", "ls_mixed_swapped.docx", "ls_mixed.docx", "the first two paragraphs' spacings swapped"),
        ("ls_proportional_115", "ls_prop_115.docx", "ls_single.docx", "proportional 115 % (w:line 276) against single"),
        ("ls_proportional_115_same", "ls_prop_115.docx", "ls_prop_115.docx", "proportional 115 % against itself"),
        ("ls_fixed_same", "ls_fixed_5mm.docx", "ls_fixed_5mm.docx", "fixed 5 mm (exact, 283 twips) against itself: Length == Length"),
        ("ls_fixed_5_vs_6mm", "ls_fixed_6mm.docx", "ls_fixed_5mm.docx", "fixed 6 mm against fixed 5 mm"),
        ("ls_atleast_vs_fixed", "ls_atleast_5mm.docx", "ls_fixed_5mm.docx", "at least 5 mm against exactly 5 mm: the rule is not compared, both read Twips(283)"),
        ("ls_leading_vs_default", "ls_leading_2mm.docx", "ls_default.docx", "leading (LibreOffice's 'Leading' mode) against none"),
        ("ls_leading_same", "ls_leading_2mm.docx", "ls_leading_2mm.docx", "leading against itself"),
        ("ls_text_changed", "ls_double_text_changed.docx", "ls_double.docx", "double spacing but the last paragraph's text differs"),
        ("ls_extra_empty_paragraph", "ls_double_extra_para.docx", "ls_double.docx", "an extra empty paragraph: the text matches (blanks ignored) but the paragraph counts differ"),
        ("ls_no_line_rule", e["ls_no_rule"], "ls_double.docx", "w:line 480 without w:lineRule reads as multiple (2.0)"),
        ("ls_no_line", e["ls_no_line"], "ls_default.docx", "w:spacing with a lineRule but no w:line reads None"),
        ("ls_exact_480_vs_double", e["ls_exact_480"], "ls_double.docx", "w:line 480 exact (a Length) against 480 auto (2.0)"),
        ("ls_rule_capitalized", e["ls_bad_rule"], "ls_double.docx", "w:lineRule=\"Auto\": python-docx refuses the value"),
        ("ls_line_480_0", e["ls_float_line"], "ls_double.docx", "w:line=\"480.0\": python-docx rounds the float"),
        ("ls_line_in_inches", e["ls_in_line"], "ls_double.docx", "w:line as a universal measure (0.3333in) under lineRule auto"),
        ("ls_style_only_vs_default", e["ls_style_only"], "ls_default.docx", "spacing from a style the file does not have: direct pPr only is read"),
        ("ls_word_double", e["ls_hand_double"], "ls_double.docx", "Word's XML (w:after plus line 480 auto) against LibreOffice's double"),
        ("ls_python_docx_double", "pd_double.docx", "ls_double.docx", "python-docx's line_spacing = 2.0 against LibreOffice's double"),
        ("ls_not_docx", "not_a_docx.docx", "ls_double.docx", "a result that is not a docx"),
        ("ls_missing_result", None, "ls_double.docx", "no result file"),
    ]:
        case(n, f, r, x, note)

    f = "compare_docx_tables"
    for n, r, x, note in [
        ("tbl_made_twice", "tbl_simple_again.docx", "tbl_simple.docx", "the same 3x3 table made twice"),
        ("tbl_cell_changed", "tbl_cell_changed.docx", "tbl_simple.docx", "one row's score and grade differ"),
        ("tbl_cell_spaces", "tbl_spaces.docx", "tbl_simple.docx", "cells with leading and trailing spaces: stripped"),
        ("tbl_row_added", "tbl_row_added.docx", "tbl_simple.docx", "a fourth row"),
        ("tbl_column_added", "tbl_column_added.docx", "tbl_simple.docx", "a fourth column"),
        ("tbl_merged_h_same", "tbl_merged_h_again.docx", "tbl_merged_h.docx", "A1:B1 merged (w:gridSpan 2), made twice"),
        ("tbl_merged_h_vs_unmerged", "tbl_unmerged_h.docx", "tbl_merged_h.docx", "unmerged with B1 empty against merged: cell(0, 1) of the merged table is the merged cell"),
        ("tbl_merged_v_same", "tbl_merged_v.docx", "tbl_merged_v.docx", "C2:C3 merged (w:vMerge) against itself"),
        ("tbl_merged_v_vs_unmerged", "tbl_unmerged_v.docx", "tbl_merged_v.docx", "unmerged with C3 empty against merged: python-docx gives the merged cell's text for C3"),
        ("tbl_two_paragraphs_vs_line_break", "tbl_line_break.docx", "tbl_two_paras.docx", "a cell of two paragraphs against one with a line break: both read '91\\nretake'"),
        ("tbl_two_paragraphs_vs_one", "tbl_simple.docx", "tbl_two_paras.docx", "a cell with a second paragraph"),
        ("tbl_nested_same", "tbl_nested.docx", "tbl_nested.docx", "a table nested in A2, against itself"),
        ("tbl_nested_text_differs", "tbl_nested_other.docx", "tbl_nested.docx", "nested tables with different text: a cell's text is its own paragraphs only"),
        ("tbl_nested_vs_plain", "tbl_simple.docx", "tbl_nested.docx", "no nested table at all"),
        ("tbl_two_vs_one", "tbl_two_tables.docx", "tbl_simple.docx", "a second table"),
        ("tbl_none_same", "tbl_none.docx", "tbl_none.docx", "no tables on either side"),
        ("tbl_none_vs_table", "tbl_none.docx", "tbl_simple.docx", "the table is missing"),
        ("tbl_word_vs_lo", e["tbl_hand"], "tbl_simple.docx", "the same table as Word writes it"),
        ("tbl_word_grid_span", e["tbl_hand_span"], "tbl_merged_h.docx", "a horizontal merge written by hand with w:gridSpan"),
        ("tbl_word_vmerge", e["tbl_hand_vmerge"], "tbl_merged_v.docx", "a vertical merge written by hand (restart, then bare w:vMerge)"),
        ("tbl_word_short_row", e["tbl_hand_short_row"], "tbl_simple.docx", "a last row with two cells in a three-column grid"),
        ("tbl_word_grid_before", e["tbl_hand_grid_before"], "tbl_simple.docx", "a last row starting with w:gridBefore 1"),
        ("tbl_word_cell_in_sdt", e["tbl_hand_sdt_cell"], "tbl_simple.docx", "a cell wrapped in a content control (w:sdt)"),
        ("tbl_not_docx", "not_a_docx.docx", "tbl_simple.docx", "a result that is not a docx"),
        ("tbl_missing_result", None, "tbl_simple.docx", "no result file"),
    ]:
        case(n, f, r, x, note)

    for f, pre in (("compare_docx_images", "imgs"), ("compare_contains_image", "cimg")):
        for n, r, x, note in [
            ("png_made_twice", "img_png_again.docx", "img_png.docx", "the same PNG inserted twice"),
            ("png_reencoded", "img_png_reencoded.docx", "img_png.docx", "the same pixels, other PNG bytes (zlib level, row filters)"),
            ("png_larger", "img_png_larger.docx", "img_png.docx", "the same picture shown larger"),
            ("other_picture", "img_stripes.docx", "img_png.docx", "another picture in the same place"),
            ("jpeg_vs_png", "img_jpeg.docx", "img_png.docx", "the picture saved as JPEG (by LibreOffice's graphic filter)"),
            ("jpeg_same", "img_jpeg_again.docx", "img_jpeg.docx", "the same JPEG twice"),
            ("two_vs_one", "img_two.docx", "img_png.docx", "a second picture in the same paragraph"),
            ("two_swapped", "img_two_swapped.docx", "img_two.docx", "two pictures in the other order"),
            ("anchored_to_paragraph", "img_at_paragraph.docx", "img_png.docx", "anchored to the paragraph (wp:anchor): LibreOffice puts the drawing in the next paragraph's first run"),
            ("with_text_before", "img_with_text.docx", "img_png.docx", "text before the picture in its paragraph"),
            ("none_vs_picture", "img_none.docx", "img_png.docx", "no picture, an empty paragraph in its place"),
            ("text_vs_picture", "img_none_text.docx", "img_png.docx", "a line of text where the picture is expected"),
            ("none_same", "img_none.docx", "img_none.docx", "no pictures on either side"),
            ("picture_vs_none", "img_png.docx", "img_none.docx", "a picture where none is expected"),
            ("orphan_relationship", e["img_orphan"], "img_png.docx", "an image relationship that the body never shows"),
            ("vml_picture", e["img_vml"], "img_png.docx", "the picture as legacy VML (w:pict/v:imagedata)"),
            ("not_docx", "not_a_docx.docx", "img_png.docx", "a result that is not a docx"),
            ("missing_result", None, "img_png.docx", "no result file"),
        ]:
            case(pre + "_" + n, f, r, x, note)

    f = "check_italic_font_size_14"
    for n, r, x, note in [
        ("it_fox_14", "it_fox_14.docx", "it_plain.docx", "one word italic at 14 pt"),
        ("it_fox_12", "it_fox_12.docx", "it_plain.docx", "italic at 12 pt"),
        ("it_fox_14_5", "it_fox_14_5.docx", "it_plain.docx", "italic at 14.5 pt"),
        ("it_all_14", "it_all_14.docx", "it_plain.docx", "the whole first line italic 14 pt"),
        ("it_mixed", "it_mixed_14_12.docx", "it_plain.docx", "one run italic 14, another italic 12"),
        ("it_bold_14", "it_fox_bold_14.docx", "it_plain.docx", "bold 14 pt, no italic: nothing to check"),
        ("it_plain", "it_plain.docx", "it_plain.docx", "no formatting at all"),
        ("it_default_size", "it_fox_italic_default_size.docx", "it_plain.docx", "italic without a direct size (size None)"),
        ("it_emphasis_style", "it_fox_emphasis_style.docx", "it_plain.docx", "italic through the Emphasis character style at 12 pt: run.italic is None"),
        ("it_text_changed", "it_fox_14_text_changed.docx", "it_plain.docx", "italic 14 but the text differs"),
        ("it_i_val_0", e["it_0"], "it_plain.docx", "w:i w:val=\"0\" at 12 pt"),
        ("it_i_val_false", e["it_false"], "it_plain.docx", "w:i w:val=\"false\" at 12 pt"),
        ("it_i_val_off", e["it_off"], "it_plain.docx", "w:i w:val=\"off\" at 12 pt"),
        ("it_i_val_on", e["it_on"], "it_plain.docx", "w:i w:val=\"on\" at 12 pt"),
        ("it_i_val_1", e["it_1"], "it_plain.docx", "w:i w:val=\"1\" at 12 pt"),
        ("it_i_val_true", e["it_true"], "it_plain.docx", "w:i w:val=\"true\" at 12 pt"),
        ("it_i_val_yes", e["it_yes"], "it_plain.docx", "w:i w:val=\"yes\": not an ST_OnOff value"),
        ("it_i_cs_only", e["it_ics"], "it_plain.docx", "w:iCs (complex-script italic) at 12 pt: not w:i"),
        ("it_sz_cs_only", e["it_sz_cs"], "it_plain.docx", "italic with w:szCs 28 but no w:sz"),
        ("it_sz_28_0", e["it_sz_float"], "it_plain.docx", "w:sz=\"28.0\": python-docx parses half-points with int()"),
        ("it_sz_14pt", e["it_sz_pt"], "it_plain.docx", "w:sz=\"14pt\" as a universal measure"),
        ("it_in_hyperlink", e["it_hyperlink"], "it_plain.docx", "italic 12 pt inside a hyperlink: paragraph.runs skips it"),
        ("it_empty_docs", "font_empty_doc.docx", "font_empty_doc.docx", "two empty documents"),
        ("it_not_docx", "not_a_docx.docx", "it_plain.docx", "a result that is not a docx"),
        ("it_missing_result", None, "it_plain.docx", "no result file"),
    ]:
        case(n, f, r, x, note)

    f = "check_tabstops"
    w3 = {"word_number_split_by_tabstop": 3, "index": 0}
    for n, r, x, o, note in [
        ("tab_made_twice", "tab_left_2cm_again.docx", "tab_left_2cm.docx", {}, "a left stop at 2 cm on every line, made twice"),
        ("tab_off_by_0_2mm", "tab_left_2_02cm.docx", "tab_left_2cm.docx", {}, "the stop at 2.02 cm: 1 minus the difference over the text width"),
        ("tab_off_by_5mm", "tab_left_2_5cm.docx", "tab_left_2cm.docx", {}, "the stop at 2.5 cm"),
        ("tab_first_line_off", "tab_left_2_5cm_first.docx", "tab_left_2cm.docx", {}, "only the first line's stop at 2.5 cm: the difference is averaged over the lines"),
        ("tab_center_vs_left", "tab_center_2cm.docx", "tab_left_2cm.docx", {}, "a centre stop where a left one is expected"),
        ("tab_right_same", "tab_right_16cm.docx", "tab_right_16cm.docx", {}, "a right stop at 16 cm against itself"),
        ("tab_right_1cm_off", "tab_right_15cm.docx", "tab_right_16cm.docx", {}, "right stop 1 cm off"),
        ("tab_decimal_same", "tab_decimal_10cm.docx", "tab_decimal_10cm.docx", {}, "a decimal stop against itself"),
        ("tab_decimal_comma", "tab_decimal_comma_10cm.docx", "tab_decimal_10cm.docx", {}, "decimal comma instead of point: the character is not compared"),
        ("tab_two_vs_one", "tab_left_and_right.docx", "tab_left_2cm.docx", {}, "a second stop on each line"),
        ("tab_default_same", "tab_default.docx", "tab_default.docx", {}, "default stops only: no stops to compare"),
        ("tab_default_vs_left", "tab_default.docx", "tab_left_2cm.docx", {}, "default stops where a 2 cm stop is expected"),
        ("tab_first_only", "tab_first_only.docx", "tab_left_2cm.docx", {}, "only the first line has the stop"),
        ("tab_extra_empty_para", "tab_left_2cm_extra_para.docx", "tab_left_2cm.docx", {}, "an extra empty paragraph is filtered out"),
        ("tab_words_3", "tab_left_2cm.docx", "tab_left_2cm.docx", w3, "three words before the tab on every line"),
        ("tab_words_2_asked_3", "tab_left_2cm_two_words.docx", "tab_left_2cm.docx", w3, "two words before the tab where three are asked"),
        ("tab_words_index_1", "tab_left_2cm.docx", "tab_left_2cm.docx", {"word_number_split_by_tabstop": 1, "index": 1}, "one word after the tab"),
        ("tab_words_index_out_of_range", "tab_left_2cm.docx", "tab_left_2cm.docx", {"word_number_split_by_tabstop": 1, "index": 2}, "index 2 of a line with one tab"),
        ("tab_words_no_tab_in_text", "tab_left_2cm_no_tab.docx", "tab_left_2cm.docx", {"word_number_split_by_tabstop": 5}, "no tab character: the whole line is split 0"),
        ("tab_words_index_default", "tab_left_2cm.docx", "tab_left_2cm.docx", {"word_number_split_by_tabstop": 3}, "index left out defaults to 0"),
        ("tab_words_checked_first_off", "tab_left_2_5cm.docx", "tab_left_2cm.docx", w3, "the words pass, the stops are 5 mm off"),
        ("tab_start_vs_left", e["tab_start"], "tab_left_2cm.docx", {}, "w:val=\"start\" (python-docx's START) against left"),
        ("tab_left_zero_added", e["tab_zero"], "tab_left_2cm.docx", {}, "an extra left stop at 0 is ignored"),
        ("tab_no_clear_stop", e["tab_no_clear"], "tab_left_2cm.docx", {}, "without LibreOffice's clear stop at 1.25 cm: clear stops are ignored"),
        ("tab_universal_20mm", e["tab_mm"], "tab_left_2cm.docx", {}, "w:pos=\"20mm\" against 1134 twips (720000 vs 720090 EMU)"),
        ("tab_bar_vs_left", e["tab_bar"], "tab_left_2cm.docx", {}, "a bar stop"),
        ("tab_bogus_alignment", e["tab_bogus"], "tab_left_2cm.docx", {}, "w:val=\"middle\": not a tab alignment"),
        ("tab_expected_wide_margins", "tab_left_2_5cm.docx", e["tab_wide_margins"], {}, "the text width comes from the expected file's first section"),
        ("tab_python_docx", "pd_tabs_left_2cm.docx", "tab_left_2cm.docx", {}, "python-docx's Cm(2) left stop against LibreOffice's 2 cm"),
        ("tab_not_docx", "not_a_docx.docx", "tab_left_2cm.docx", {}, "a result that is not a docx"),
        ("tab_missing_result", None, "tab_left_2cm.docx", {}, "no result file"),
    ]:
        case(n, f, r, x, note, o)

    f = "compare_font_names"
    tnr_rule = js("rule_font_times.json", {"font_name": "Times New Roman"})
    lib_rule = js("rule_font_liberation.json", {"font_name": "Liberation Serif"})
    for n, r, x, note in [
        ("font_tnr_runs", "font_tnr_runs.docx", tnr_rule, "Times New Roman set on every run"),
        ("font_tnr_runs_asked_liberation", "font_tnr_runs.docx", lib_rule, "Times New Roman where Liberation Serif is asked"),
        ("font_lib_runs", "font_lib_runs.docx", lib_rule, "Liberation Serif set on every run: LibreOffice writes no w:rFonts where the font equals the inherited one (the default), so the runs read None"),
        ("font_mixed", "font_mixed.docx", tnr_rule, "one run in Liberation Sans"),
        ("font_style_only", "font_style_only.docx", tnr_rule, "Times New Roman on the paragraph style only: runs have no w:rFonts (None)"),
        ("font_style_and_runs", "font_style_and_runs.docx", tnr_rule, "on the style and on the runs: the runs' w:rFonts are dropped as redundant (only the paragraph mark keeps one)"),
        ("font_default", "font_default.docx", lib_rule, "nothing set (Liberation Serif is the default style's font)"),
        ("font_empty_paragraph", "font_tnr_empty_para.docx", tnr_rule, "Times New Roman runs and an empty last paragraph: LibreOffice writes an empty run there, without w:rFonts"),
        ("font_table_ignored", "font_tnr_table.docx", tnr_rule, "a table whose text has no font set: tables are not read"),
        ("font_empty_doc", "font_empty_doc.docx", tnr_rule, "a new empty document: its one paragraph holds an empty run without w:rFonts"),
        ("font_hansi_only", e["font_hansi"], tnr_rule, "w:rFonts with w:hAnsi only: name reads w:ascii"),
        ("font_lower_case", e["font_lower"], tnr_rule, "\"times new roman\": compared exactly"),
        ("font_ascii_theme", e["font_theme"], tnr_rule, "w:asciiTheme instead of w:ascii"),
        ("font_arial_in_hyperlink", e["font_hyperlink"], tnr_rule, "a run in Arial inside a hyperlink: paragraph.runs skips it"),
        ("font_python_docx", "pd_fox_tnr.docx", tnr_rule, "python-docx's run.font.name"),
        ("font_not_docx", "not_a_docx.docx", tnr_rule, "a result that is not a docx"),
        ("font_missing_result", None, tnr_rule, "no result file"),
    ]:
        case(n, f, r, x, note, expected_as="json")

    f = "compare_highlighted_text"
    for n, r, x, note in [
        ("hl_made_twice", "hl_tickets_again.docx", "hl_tickets.docx", "'tickets' highlighted yellow, made twice"),
        ("hl_other_word", "hl_passports.docx", "hl_tickets.docx", "'passports' highlighted instead"),
        ("hl_both_words", "hl_both.docx", "hl_tickets.docx", "both words highlighted"),
        ("hl_none_vs_one", "hl_none.docx", "hl_tickets.docx", "nothing highlighted"),
        ("hl_none_same", "hl_none.docx", "hl_none.docx", "nothing highlighted on either side: empty sets"),
        ("hl_green", "hl_tickets_green.docx", "hl_tickets.docx", "green highlight: the colour is not compared"),
        ("hl_background_vs_highlight", "hl_tickets_background.docx", "hl_tickets.docx", "character background colour, exported as w:shd"),
        ("hl_background_vs_none", "hl_tickets_background.docx", "hl_none.docx", "character background colour against nothing"),
        ("hl_split_runs", "hl_tickets_split.docx", "hl_tickets.docx", "the word highlighted in two runs ('tick' + 'ets')"),
        ("hl_twice_in_text", "hl_tickets_twice.docx", "hl_tickets.docx", "the same word highlighted twice: compared as sets"),
        ("hl_in_table", "hl_in_table.docx", "hl_tickets.docx", "highlighted in a table cell: every w:r of the body counts"),
        ("hl_val_none", e["hl_none_val"], "hl_none.docx", "w:highlight w:val=\"none\""),
        ("hl_in_tracked_insertion", e["hl_no_t"], "hl_tickets.docx", "the highlighted run inside w:ins"),
        ("hl_python_docx", "pd_hl_tickets.docx", "hl_tickets.docx", "python-docx's highlight_color YELLOW"),
        ("hl_not_docx", "not_a_docx.docx", "hl_tickets.docx", "a result that is not a docx: the zip is opened without a guard"),
        ("hl_missing_result", None, "hl_tickets.docx", "no result file"),
    ]:
        case(n, f, r, x, note)

    f = "check_highlighted_words"
    for n, r, x, note in [
        ("odt_plain", "odt_plain_again.odt", "odt_plain.odt", "no highlighting left"),
        ("odt_yellow_highlight", "odt_yellow_highlight.odt", "odt_plain.odt", "a word still highlighted yellow"),
        ("odt_yellow_background", "odt_yellow_background.odt", "odt_plain.odt", "a word with a yellow character background"),
        ("odt_green_highlight", "odt_green_highlight.odt", "odt_plain.odt", "a green highlight: only #ffff00 counts"),
        ("odt_light_yellow", "odt_light_yellow_highlight.odt", "odt_plain.odt", "a light yellow (#ffff66) highlight"),
        ("odt_text_changed", "odt_yellow_text_changed.odt", "odt_plain.odt", "no highlight but a word changed"),
        ("odt_paragraph_background", "odt_paragraph_background.odt", "odt_plain.odt", "a yellow paragraph background: only spans are read"),
        ("odt_bold", "odt_bold_only.odt", "odt_plain.odt", "a bold span, no background"),
        ("odt_upper_case_hex", e["odt_upper"], "odt_plain.odt", "#FFFF00 written in upper case"),
        ("odt_docx_result", "hl_none.docx", "odt_plain.odt", "a docx where an odt is expected"),
        ("odt_both_docx", "nl_base.docx", "nl_base.docx", "two docx files: their text matches, then odfpy loads a docx"),
        ("odt_not_zip", "not_an_odt.odt", "odt_plain.odt", "a result that is not an odt"),
        ("odt_missing_result", None, "odt_plain.odt", "no result file"),
    ]:
        case(n, f, r, x, note)

    f = "compare_insert_equation"
    for n, r, x, note in [
        ("eq_formula_made_twice", "eq_formula_again.docx", "eq_formula.docx", "a Math object inserted twice: LibreOffice writes OMML (m:oMathPara), no w:object"),
        ("eq_formula_other", "eq_formula_other.docx", "eq_formula.docx", "another formula"),
        ("eq_none_vs_formula", "eq_none.docx", "eq_formula.docx", "no formula"),
        ("eq_none_same", "eq_none.docx", "eq_none.docx", "no formula on either side"),
        ("eq_object_same", e["eq_object_again"], e["eq_object"], "an OLE equation (w:object) as Word writes it, twice"),
        ("eq_object_vs_formula", e["eq_object"], "eq_formula.docx", "an OLE equation against LibreOffice's formula"),
        ("eq_object_vs_none", e["eq_object"], "eq_none.docx", "an OLE equation where none is"),
        ("eq_object_other_paragraph", e["eq_object_first"], e["eq_object"], "the OLE equation in the first paragraph instead of the second"),
        ("eq_omath_same", e["eq_omath"], e["eq_omath"], "Word's native equation (m:oMath) against itself"),
        ("eq_object_text_changed", e["eq_object_text"], e["eq_object"], "the OLE equation with other text around it"),
        ("eq_not_docx", "not_a_docx.docx", "eq_formula.docx", "a result that is not a docx"),
        ("eq_missing_result", None, "eq_formula.docx", "no result file"),
    ]:
        case(n, f, r, x, note)

    f = "compare_subscript_contains"
    for n, r, x, note in [
        ("sub_made_twice", "sub_h2o_again.docx", "sub_h2o.docx", "H2O with an automatic subscript 2 (w:vertAlign subscript), twice"),
        ("sub_none", "sub_none.docx", "sub_h2o.docx", "no subscript"),
        ("sub_superscript", "sub_superscript.docx", "sub_h2o.docx", "a superscript 2"),
        ("sub_lowered_33", "sub_lowered_33.docx", "sub_h2o.docx", "a subscript lowered 33 % by hand: exported as w:position"),
        ("sub_other_text_same_run", "sub_co2.docx", "sub_h2o.docx", "CO2: another text, the subscript in the same run position"),
        ("sub_later_run", "sub_h2o_later_run.docx", "sub_h2o.docx", "the subscript in the third run instead of the second"),
        ("sub_in_table", "sub_in_table.docx", "sub_h2o.docx", "the subscript inside a table"),
        ("sub_baseline", e["sub_baseline"], "sub_h2o.docx", "w:vertAlign baseline"),
        ("sub_bogus_value", e["sub_bogus"], "sub_h2o.docx", "w:vertAlign w:val=\"sub\" (not a valid value)"),
        ("sub_in_hyperlink", e["sub_hyperlink"], "sub_h2o.docx", "the subscript run inside a hyperlink"),
        ("sub_python_docx", "pd_h2o.docx", "sub_h2o.docx", "python-docx's font.subscript"),
        ("sub_not_docx", "not_a_docx.docx", "sub_h2o.docx", "a result that is not a docx"),
        ("sub_missing_result", None, "sub_h2o.docx", "no result file"),
    ]:
        case(n, f, r, x, note)

    f = "contains_page_break"
    any_rule = js("rule_page_break_any.json", {})
    c1, c2, c0 = (js("rule_page_break_%d.json" % k, {"page_break_count": k}) for k in (1, 2, 0))
    for n, r, x, note in [
        ("pb_one_any", "pb_one.docx", any_rule, "one page break before a paragraph (written as w:br type page), any count"),
        ("pb_one_count_1", "pb_one.docx", c1, "one break, one asked"),
        ("pb_one_count_2", "pb_one.docx", c2, "one break, two asked"),
        ("pb_two_count_2", "pb_two.docx", c2, "two breaks, two asked"),
        ("pb_two_any", "pb_two.docx", any_rule, "two breaks, any count"),
        ("pb_none_any", "pb_none.docx", any_rule, "no break"),
        ("pb_none_count_0", "pb_none.docx", c0, "no break with page_break_count 0: still 0"),
        ("pb_one_count_0", "pb_one.docx", c0, "one break where 0 is asked"),
        ("pb_after", "pb_after.docx", any_rule, "a break after the first paragraph"),
        ("pb_page_style", "pb_page_style.docx", any_rule, "a break with a page style change: a section break"),
        ("pb_break_before_property", e["pb_before"], any_rule, "w:pageBreakBefore as Word writes it"),
        ("pb_column_break", e["pb_column"], any_rule, "a column break"),
        ("pb_line_break", e["pb_line"], any_rule, "a line break (w:br without type)"),
        ("pb_last_rendered", e["pb_rendered"], any_rule, "w:lastRenderedPageBreak only"),
        ("pb_in_hyperlink", e["pb_hyperlink"], any_rule, "the break's run inside a hyperlink"),
        ("pb_type_capital", e["pb_upper"], any_rule, "w:type=\"Page\""),
        ("pb_in_table", e["pb_table"], any_rule, "a page break in a table cell"),
        ("pb_python_docx", "pd_page_break.docx", c1, "python-docx's add_page_break"),
        ("pb_not_docx", "not_a_docx.docx", any_rule, "a result that is not a docx"),
        ("pb_missing_result", None, any_rule, "no result file"),
    ]:
        case(n, f, r, x, note, expected_as="json")

    f = "evaluate_strike_through_last_paragraph"
    for n, r, x, note in [
        ("st_last_whole", "st_last_whole.docx", "st_plain.docx", "the last paragraph struck through"),
        ("st_last_partial", "st_last_partial.docx", "st_plain.docx", "only its first words struck"),
        ("st_last_two_runs", "st_last_two_runs.docx", "st_plain.docx", "struck in two runs (one also bold)"),
        ("st_last_double", "st_last_double.docx", "st_plain.docx", "double strike-through (w:dstrike)"),
        ("st_last_bold_strike", "st_last_bold_strike.docx", "st_plain.docx", "LibreOffice's bold strike-through"),
        ("st_first_only", "st_first_only.docx", "st_plain.docx", "the first paragraph struck, not the last"),
        ("st_plain", "st_plain.docx", "st_plain.docx", "nothing struck"),
        ("st_text_changed", "st_last_whole_text_changed.docx", "st_plain.docx", "struck, but the text differs"),
        ("st_trailing_empty", "st_last_whole_trailing_empty.docx", "st_plain.docx", "struck, then an empty paragraph last: its empty run is not struck"),
        ("st_val_0", e["st_0"], "st_plain.docx", "w:strike w:val=\"0\""),
        ("st_val_on", e["st_on"], "st_plain.docx", "w:strike w:val=\"on\""),
        ("st_val_true", e["st_true"], "st_plain.docx", "w:strike w:val=\"true\""),
        ("st_val_1", e["st_1"], "st_plain.docx", "w:strike w:val=\"1\""),
        ("st_val_yes", e["st_yes"], "st_plain.docx", "w:strike w:val=\"yes\""),
        ("st_plain_in_hyperlink", e["st_hyperlink"], "st_plain.docx", "the unstruck end of the paragraph inside a hyperlink: not a run, and its text counts"),
        ("st_no_paragraphs", e["st_empty_body"], e["st_empty_body"], "documents without paragraphs: paragraphs[-1]"),
        ("st_python_docx", "pd_strike_last.docx", "st_plain.docx", "python-docx's font.strike on the last paragraph"),
        ("st_not_docx", "not_a_docx.docx", "st_plain.docx", "a result that is not a docx"),
        ("st_missing_result", None, "st_plain.docx", "no result file"),
    ]:
        case(n, f, r, x, note)

    f = "has_page_numbers_in_footers"
    for n, r, note in [
        ("ft_page_field", "ft_page_field.docx", "a page number field in the footer (a complex field, its cached '1' a direct run)"),
        ("ft_page_of_count", "ft_page_of_count.docx", "Page N of M"),
        ("ft_text_only", "ft_text_only.docx", "a footer without digits"),
        ("ft_year", "ft_year.docx", "a footer with a year in it: any digit counts"),
        ("ft_empty", "ft_empty.docx", "a footer turned on and left empty"),
        ("ft_none", "ft_none.docx", "no footer at all"),
        ("ft_two_sections", "ft_two_sections.docx", "two page styles (two sections), both footers numbered"),
        ("ft_two_sections_second_plain", "ft_two_sections_second_plain.docx", "the second section's footer without a number"),
        ("ft_fld_simple", e["ft_simple"], "PAGE as w:fldSimple: its run is not a direct child of the paragraph"),
        ("ft_fld_complex", e["ft_complex"], "PAGE as a complex field, written by hand"),
        ("ft_page_number_sdt", e["ft_sdt"], "Word's page number building block: the paragraph inside w:sdt"),
        ("ft_number_in_second_paragraph", e["ft_second_para"], "the number in the footer's second paragraph"),
        ("ft_first_of_two_sections", e["ft_first_section_only"], "a footer on the first section; the second links to it"),
        ("ft_second_of_two_sections", e["ft_second_section_only"], "a footer on the second section only"),
        ("ft_even_only", e["ft_even_only"], "an even-page footer only"),
        ("ft_not_docx", "not_a_docx.docx", "a result that is not a docx"),
        ("ft_missing_result", None, "no result file"),
    ]:
        case(n, f, r, None, note, expected_as="absent")

    f = "compare_docx_files_and_ignore_new_lines"
    strict = {"ignore_blanks": False}
    for n, r, x, o, note in [
        ("nl_same", "nl_base.docx", "nl_base.docx", {}, "the same file"),
        ("nl_blank_lines", "nl_blank_lines.docx", "nl_base.docx", {}, "empty paragraphs between"),
        ("nl_blank_lines_strict", "nl_blank_lines.docx", "nl_base.docx", strict, "empty paragraphs are dropped first, even with ignore_blanks false"),
        ("nl_space_line", "nl_space_line.docx", "nl_base.docx", {}, "a paragraph holding one space"),
        ("nl_space_line_strict", "nl_space_line.docx", "nl_base.docx", strict, "a paragraph holding one space is not dropped"),
        ("nl_line_break", "nl_joined_line_break.docx", "nl_base.docx", {}, "two paragraphs joined by a line break"),
        ("nl_line_break_strict", "nl_joined_line_break.docx", "nl_base.docx", strict, "joined by a line break, strict"),
        ("nl_joined_space", "nl_joined_space.docx", "nl_base.docx", {}, "two paragraphs joined by a space"),
        ("nl_double_spaces", "nl_double_spaces.docx", "nl_base.docx", {}, "doubled spaces"),
        ("nl_double_spaces_strict", "nl_double_spaces.docx", "nl_base.docx", strict, "doubled spaces, strict"),
        ("nl_changed", "nl_changed.docx", "nl_base.docx", {}, "a word changed"),
        ("nl_case", "nl_case.docx", "nl_base.docx", {}, "upper case"),
        ("nl_odt", "nl_base.odt", "nl_base.odt", {}, "odt files are not read: 0"),
        ("nl_not_docx", "not_a_docx.docx", "nl_base.docx", {}, "a result that is not a docx"),
        ("nl_missing_result", None, "nl_base.docx", {}, "no result file"),
    ]:
        case(n, f, r, x, note, o)

    f = "evaluate_colored_words_in_tables"
    for n, r, x, o, note in [
        ("cw_correct", "cw_correct.docx", "cw_plain.docx", {}, "vowel words red (FF0000), the others blue (0000FF)"),
        ("cw_swapped", "cw_swapped.docx", "cw_plain.docx", {}, "the colours swapped"),
        ("cw_plain", "cw_plain.docx", "cw_plain.docx", {}, "no colour set: run.font.color.rgb is None"),
        ("cw_near_inside", "cw_near_inside.docx", "cw_plain.docx", {}, "EF0000 (dE 3.41) and 0000E4 (dE 3.44): inside 3.5"),
        ("cw_near_inside_other", "cw_near_inside_other.docx", "cw_plain.docx", {}, "FF001D (dE 3.46) and 0027FF (dE 3.39)"),
        ("cw_red_just_outside", "cw_red_just_outside.docx", "cw_plain.docx", {}, "EE0000 (dE 3.63)"),
        ("cw_red_just_outside_threshold_4", "cw_red_just_outside.docx", "cw_plain.docx", {"threshold": 4}, "EE0000 with threshold 4"),
        ("cw_red_pink_outside", "cw_red_pink_outside.docx", "cw_plain.docx", {}, "FF001E (dE 3.63)"),
        ("cw_blue_just_outside", "cw_blue_just_outside.docx", "cw_plain.docx", {}, "0000E3 (dE 3.57)"),
        ("cw_blue_cyanish_outside", "cw_blue_cyanish_outside.docx", "cw_plain.docx", {}, "0028FF (dE 3.54)"),
        ("cw_blue_cyanish_threshold_3", "cw_near_inside_other.docx", "cw_plain.docx", {"threshold": 3}, "dE 3.39 and 3.46 with threshold 3"),
        ("cw_palette_blue", "cw_palette_blue.docx", "cw_plain.docx", {}, "LibreOffice's palette Blue (2A6099)"),
        ("cw_dark_red_2", "cw_dark_red_2.docx", "cw_plain.docx", {}, "LibreOffice's palette Dark Red 2 (C9211E)"),
        ("cw_one_automatic", "cw_one_automatic.docx", "cw_plain.docx", {}, "one word left in the automatic colour"),
        ("cw_text_changed", "cw_correct_text_changed.docx", "cw_plain.docx", {}, "coloured right but the text after the table differs"),
        ("cw_capitals", "cw_capitals_correct.docx", "cw_capitals_plain.docx", {}, "capitalised words: the first letter is lower-cased"),
        ("cw_color_auto", e["cw_auto"], "cw_plain.docx", {}, "w:color w:val=\"auto\" on the last word"),
        ("cw_theme_color", e["cw_theme"], "cw_plain.docx", {}, "w:themeColor beside w:val: the value is read"),
        ("cw_lower_case_hex", e["cw_lower_hex"], "cw_plain.docx", {}, "0000ff in lower case"),
        ("cw_not_docx", "not_a_docx.docx", "cw_plain.docx", {}, "a result that is not a docx"),
        ("cw_missing_result", None, "cw_plain.docx", {}, "no result file"),
    ]:
        case(n, f, r, x, note, o)

    f = "compare_unique_train_records"
    both = ["tr_gold.docx", "tr_initial.docx"]
    for n, r, x, note in [
        ("tr_good", "tr_good.docx", both, "the duplicates removed, first occurrences kept"),
        ("tr_gold_itself", "tr_gold.docx", both, "the gold document as the answer"),
        ("tr_later_occurrence", "tr_later_occurrence.docx", both, "a later line of a duplicated id kept: still a line of the log, same ids"),
        ("tr_blank_lines", "tr_blank_lines.docx", both, "blank paragraphs left between records: not lines"),
        ("tr_duplicate_left", "tr_duplicate_left.docx", both, "one duplicate left"),
        ("tr_line_edited", "tr_line_edited.docx", both, "a record changed: not a line of the log"),
        ("tr_id_missing", "tr_id_missing.docx", both, "a train id dropped"),
        ("tr_header_dropped", "tr_header_dropped.docx", both, "the header line dropped: one line fewer than the gold"),
        ("tr_untouched", "tr_untouched.docx", both, "the log left as it was"),
        ("tr_not_docx", "not_a_docx.docx", both, "a result that is not a docx"),
        ("tr_missing_result", None, both, "no result file"),
        ("tr_no_initial", "tr_good.docx", ["tr_gold.docx", None], "the initial document missing"),
        ("tr_one_expected", "tr_good.docx", ["tr_gold.docx"], "one expected document, not two"),
        ("tr_expected_not_a_list", "tr_good.docx", "tr_gold.docx", "the expected files not a list"),
        ("tr_gold_not_docx", "tr_good.docx", ["not_a_docx.docx", "tr_initial.docx"], "a gold document that does not open"),
    ]:
        case(n, f, r, x, note)

    f = "find_default_font"
    xt, xl, xn = "xcu_times.xcu", "xcu_liberation.xcu", "xcu_untouched.xcu"
    real = open(os.path.join(FILES, xt), encoding="utf-8").read()
    item = re.search(r'<item oor:path="/org.openoffice.Office.Writer/DefaultFont">.*?</item>\n', real).group(0)
    two = write("xcu_two_items_last_liberation.xcu", real.replace(item, item + item.replace("Times New Roman", "Liberation Serif")))
    two_rev = write("xcu_two_items_last_times.xcu", real.replace(item, item.replace("Times New Roman", "Liberation Serif") + item))
    prefix = write("xcu_other_prefix.xcu", real.replace("oor:", "cfg:").replace("xmlns:oor=", "xmlns:cfg="))
    default_ns = write("xcu_default_namespace.xcu", real.replace('<oor:items ', '<oor:items xmlns="http://openoffice.org/2001/registry" '))
    spaced = write("xcu_value_spaced.xcu", real.replace("<value>Times New Roman</value>", "<value> Times New Roman\n</value>"))
    empty_value = write("xcu_value_empty.xcu", real.replace("<value>Times New Roman</value>", "<value/>"))
    heading = write("xcu_heading_font.xcu", real.replace('oor:name="Standard"', 'oor:name="Heading"'))
    other_path = write("xcu_other_path.xcu", real.replace("/org.openoffice.Office.Writer/DefaultFont", "/org.openoffice.Office.WriterWeb/DefaultFont"))
    nested = write("xcu_node_form.xcu", real.replace(item, '<item oor:path="/org.openoffice.Office.Writer"><node oor:name="DefaultFont"><prop oor:name="Standard" oor:op="fuse"><value>Times New Roman</value></prop></node></item>\n'))
    broken = write("xcu_truncated.xcu", real[:len(real) // 2])
    r_t, r_l, r_none = js("rule_default_times.json", {"font_name": "Times New Roman"}), js("rule_default_liberation.json", {"font_name": "Liberation Serif"}), js("rule_default_null.json", {"font_name": None})
    r_empty = js("rule_default_empty_string.json", {"font_name": ""})
    r_missing = js("rule_default_no_key.json", {})
    for n, r, x, note in [
        ("df_times", xt, r_t, "the registry LibreOffice writes after the default font is set to Times New Roman"),
        ("df_times_asked_liberation", xt, r_l, "Times New Roman set, Liberation Serif asked"),
        ("df_liberation", xl, r_l, "Liberation Serif set"),
        ("df_untouched", xn, r_t, "a fresh profile: no DefaultFont item"),
        ("df_untouched_asked_null", xn, r_none, "no item with font_name null: None == None"),
        ("df_two_items_last_wins", two, r_l, "two items, the last Liberation Serif"),
        ("df_two_items_first_ignored", two, r_t, "two items, the first Times New Roman"),
        ("df_two_items_reversed", two_rev, r_t, "two items, the last Times New Roman"),
        ("df_other_prefix", prefix, r_t, "the registry namespace under another prefix"),
        ("df_default_namespace", default_ns, r_t, "a default namespace declared: item elements are then namespaced"),
        ("df_value_spaced", spaced, r_t, "the value with blanks around it"),
        ("df_value_empty", empty_value, r_empty, "an empty value element (text None) against \"\""),
        ("df_value_empty_asked_null", empty_value, r_none, "an empty value element against null"),
        ("df_heading_font", heading, r_t, "Times New Roman set for headings, not the standard font"),
        ("df_other_path", other_path, r_t, "the item for Writer/Web"),
        ("df_node_form", nested, r_t, "the setting as a node below /org.openoffice.Office.Writer"),
        ("df_truncated", broken, r_t, "a registry cut in half: the parse error is caught"),
        ("df_not_xml_asked_null", "not_xml.xcu", r_none, "not XML, font_name null"),
        ("df_rule_without_font_name", xt, r_missing, "rules without font_name"),
        ("df_missing_result", None, r_t, "no result file"),
    ]:
        case(n, f, r, x, note, expected_as="json")


# Where OSWorld's metric raises on the agent's document, guigym scores it 0 (a broken answer
# is a wrong answer, not a broken task; see ../README.md, "Known divergences"): these cases are
# written but left out of cases.json.
LEFT_OUT = {
    "ls_rule_capitalized": "w:lineRule 'Auto': python-docx raises ValueError",
    "tbl_word_short_row": "a row with fewer cells than the grid: IndexError",
    "it_i_val_yes": "w:i w:val='yes': InvalidXmlError",
    "it_sz_28_0": "w:sz '28.0': int() raises",
    "tab_words_index_out_of_range": "index past the last tab: IndexError",
    "tab_bogus_alignment": "tab alignment 'middle': ValueError",
    "hl_not_docx": "not a zip file: BadZipFile",
    "st_val_yes": "w:strike w:val='yes': InvalidXmlError",
    "st_no_paragraphs": "a body without paragraphs: IndexError",
    "cw_plain": "words in the automatic colour: TypeError",
    "cw_one_automatic": "one word in the automatic colour: TypeError",
    "cw_color_auto": "w:color auto: TypeError",
    "odt_both_docx": "a docx given to odfpy: KeyError (no manifest)",
}


def main():
    shutil.rmtree(FILES, ignore_errors=True)
    os.makedirs(FILES)
    office = Office()
    try:
        lo_docs(office)
    finally:
        office.close()
        shutil.rmtree(office.profile, ignore_errors=True)
    xcu_files()
    pydocx_docs()
    all_cases(edits())
    cases[:] = [c for c in cases if c["name"] not in LEFT_OUT]
    used = {n for c in cases for k in ("result", "expected") for n in (c[k] if isinstance(c.get(k), list) else [c.get(k)]) if n}
    for n in sorted(os.listdir(FILES)):
        if n not in used and not n.startswith("pic_"):
            os.remove(os.path.join(FILES, n))
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()

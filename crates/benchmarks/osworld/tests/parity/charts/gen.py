#!/usr/bin/env python3
"""Parity cases for OSWorld's compare_table rule `chart` (desktop-env 1.0.2,
metrics/table.py + metrics/utils.py load_charts, openpyxl 3.1.5's chart reader).
Writes files/ and cases.json next to this script.

Run with the OSWorld venv python (it needs openpyxl):
    ~/.cache/guigym/osworld-venv/bin/python crates/benchmarks/osworld/tests/parity/charts/gen.py
    ~/.cache/guigym/osworld-venv/bin/python scripts/osworld_parity.py \
        --cases crates/benchmarks/osworld/tests/parity/charts/cases.json \
        --write-expected crates/benchmarks/osworld/tests/parity/charts/expected.json

Three kinds of workbook are used:
  lo_*.xlsx      saved by LibreOffice Calc through its GUI, and
  guigym_*.xlsx  written by guigym's Rust xlsx writer: both are committed inputs; this
                 script does not write them (it only checks they are there);
  ox_*.xlsx      written here by openpyxl (zip dates and docProps dates fixed);
  hx_*.xlsx      written here by hand (chart XML for edges openpyxl cannot write).
Output is deterministic: two runs give byte-identical files.

Each case has a `note`; the parity test ignores unknown keys.  Cases with an unknown
chart_props name are left out on purpose: OSWorld ignores such a name, ours refuses the
rule with an error.
"""
import io
import json
import os
import re
import zipfile

import openpyxl
from openpyxl.chart import (AreaChart, AreaChart3D, BarChart, BarChart3D, BubbleChart,
                            DoughnutChart, LineChart, LineChart3D, PieChart, PieChart3D,
                            ProjectedPieChart, RadarChart, Reference, ScatterChart, Series,
                            StockChart, SurfaceChart)
from openpyxl.chart.data_source import AxDataSource, NumDataSource, NumRef, StrRef
from openpyxl.drawing.spreadsheet_drawing import AnchorMarker, TwoCellAnchor

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
CASES = []
FIXED = (2024, 1, 1, 0, 0, 0)

COMMITTED = ["guigym_area.xlsx", "guigym_area_untitled.xlsx", "guigym_bar.xlsx", "guigym_bar_untitled.xlsx",
             "guigym_column.xlsx", "guigym_column_untitled.xlsx", "guigym_line.xlsx", "guigym_line_untitled.xlsx",
             "guigym_no_chart.xlsx", "guigym_other_range.xlsx", "guigym_pie.xlsx", "guigym_pie_untitled.xlsx",
             "lo_area_untitled.xlsx", "lo_column.xlsx", "lo_line.xlsx", "lo_pie.xlsx"]


def case(name, result, expected, rules, note):
    assert all(c["name"] != name for c in CASES), name
    for f in (result, expected):
        assert f is None or os.path.exists(os.path.join(FILES, f)), f
    CASES.append({"name": name, "func": "compare_table", "result": result, "expected": expected,
                  "options": {"rules": rules}, "note": note})


def rule(props=None, i0=0, i1="EI0"):
    r = {"type": "chart", "sheet_idx0": i0, "sheet_idx1": i1}
    if props is not None:
        r["chart_props"] = props
    return r


def write_zip(path, files):
    """files: {member: bytes|str}; [Content_Types].xml first, fixed dates."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n in sorted(files, key=lambda n: (n != "[Content_Types].xml", n)):
            zi = zipfile.ZipInfo(n, date_time=FIXED)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o600 << 16
            d = files[n]
            z.writestr(zi, d.encode() if isinstance(d, str) else d)


# ----------------------------------------------------------------------------- openpyxl
def ox_save(wb, name):
    buf = io.BytesIO()
    wb.save(buf)
    buf.seek(0)
    files = {}
    with zipfile.ZipFile(buf) as z:
        for n in z.namelist():
            files[n] = z.read(n)
    core = files["docProps/core.xml"].decode()
    core = re.sub(r"(<dcterms:(created|modified)[^>]*>)[^<]*", r"\g<1>2024-01-01T00:00:00Z", core)
    files["docProps/core.xml"] = core
    write_zip(os.path.join(FILES, name), files)
    return name


def ox_fill(ws, rows):
    for r in rows:
        ws.append(r)


def ox_series(val, cat=None, title=None):
    s = Series(Reference(ws_dummy, min_col=1, min_row=1, max_row=2))
    s.val = NumDataSource(numRef=NumRef(f=val))
    s.cat = AxDataSource(strRef=StrRef(f=cat)) if cat else None
    return s


def two_cell(frm=(2, 0), to=(11, 20), edit="oneCell"):
    return TwoCellAnchor(editAs=edit, _from=AnchorMarker(col=frm[0], row=frm[1]), to=AnchorMarker(col=to[0], row=to[1]))


ws_dummy = openpyxl.Workbook().active

LO_LINE_ROWS = [["Name", "Amount"], ["Grace", 450], ["Emma", 335], ["Chloe", 394], ["Kira", 5], ["Ben", 18], ["Dev", 440]]
LO_COL_ROWS = [["Name", "Amount"], ["Chloe", 105], ["Liam", 184], ["Ben", 137], ["Kira", 274]]
LO_PIE_ROWS = [["Name", "Amount"], ["Kira", 71], ["Chloe", 361], ["Farid", 400], ["Jonas", 203]]
LO_AREA_ROWS = [["Name", "Amount"], ["Chloe", 145], ["Kira", 134], ["Ben", 178], ["Liam", 82], ["Ana", 41], ["Ines", 274], ["Farid", 274]]
GG_ROWS = [["Name", "Amount"], ["Ann", 10], ["Bob", 20]]


def ox_one(name, rows, chart, series, anchor=None, title=None, sheet="Sheet1", width=None, xtitle=None, ytitle=None):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    ox_fill(ws, rows)
    for s in series:
        chart.series.append(s)
    if title is not None:
        chart.title = title
    if width is not None:
        chart.width, chart.height = width
    if xtitle is not None:
        chart.x_axis.title = xtitle
    if ytitle is not None:
        chart.y_axis.title = ytitle
    ws.add_chart(chart, anchor if anchor is not None else "D2")
    return ox_save(wb, name)


def gen_openpyxl():
    lo = lambda n: ("Sheet1!$B$2:$B$%d" % n, "Sheet1!$A$2:$A$%d" % n)
    v, c = lo(7)
    ox_one("ox_line_lo.xlsx", LO_LINE_ROWS, LineChart(), [ox_series(v, c)], anchor=two_cell(), title="Spending by person")
    ox_one("ox_line_lo_onecell.xlsx", LO_LINE_ROWS, LineChart(), [ox_series(v, c)], title="Spending by person", width=(30, 12))
    ox_one("ox_line_lo_quoted.xlsx", LO_LINE_ROWS, LineChart(),
           [ox_series("'Sheet1'!$B$2:$B$7", "'Sheet1'!$A$2:$A$7")], anchor=two_cell(), title="Spending by person")
    ox_one("ox_line_lo_axes.xlsx", LO_LINE_ROWS, LineChart(), [ox_series(v, c)], anchor=two_cell(),
           title="Spending by person", xtitle="Name", ytitle="Amount")
    v, c = lo(5)
    b = BarChart()
    b.type = "col"
    ox_one("ox_column_lo.xlsx", LO_COL_ROWS, b, [ox_series(v, c)], anchor=two_cell(), title="Column chart")
    b = BarChart()
    b.type = "bar"
    ox_one("ox_bar_lo.xlsx", LO_COL_ROWS, b, [ox_series(v, c)], anchor=two_cell(), title="Column chart")
    ox_one("ox_pie_lo.xlsx", LO_PIE_ROWS, PieChart(), [ox_series(v, c)], anchor=two_cell(), title="Pie slices")
    ox_one("ox_pie3d_lo.xlsx", LO_PIE_ROWS, PieChart3D(), [ox_series(v, c)], anchor=two_cell(), title="Pie slices")
    ox_one("ox_doughnut_lo.xlsx", LO_PIE_ROWS, DoughnutChart(), [ox_series(v, c)], anchor=two_cell(), title="Pie slices")
    v, c = lo(8)
    ox_one("ox_area_lo.xlsx", LO_AREA_ROWS, AreaChart(), [ox_series(v, c)], anchor=two_cell())
    ox_one("ox_area3d_lo.xlsx", LO_AREA_ROWS, AreaChart3D(), [ox_series(v, c)], anchor=two_cell())
    # guigym's range (Sheet1!$B$2:$B$3 / $A$2:$A$3), title "Spending & more"
    v, c = lo(3)
    t = "Spending & more"
    ox_one("ox_line_gg.xlsx", GG_ROWS, LineChart(), [ox_series(v, c)], title=t)
    ox_one("ox_area_gg.xlsx", GG_ROWS, AreaChart(), [ox_series(v, c)], title=t)
    b = BarChart()
    b.type = "bar"
    ox_one("ox_bar_gg.xlsx", GG_ROWS, b, [ox_series(v, c)], title=t)
    ox_one("ox_bar3d_gg.xlsx", GG_ROWS, BarChart3D(), [ox_series(v, c)], title=t)
    ox_one("ox_line3d_gg.xlsx", GG_ROWS, LineChart3D(), [ox_series(v, c)], title=t)
    ox_one("ox_radar_gg.xlsx", GG_ROWS, RadarChart(), [ox_series(v, c)], title=t)
    ox_one("ox_ofpie_gg.xlsx", GG_ROWS, ProjectedPieChart(), [ox_series(v, c)], title=t)
    ox_one("ox_surface_gg.xlsx", GG_ROWS, SurfaceChart(), [ox_series(v, c)], title=t)
    ox_one("ox_stock_gg.xlsx", GG_ROWS, StockChart(), [ox_series(v, c), ox_series("Sheet1!$C$2:$C$3", c),
                                                       ox_series("Sheet1!$D$2:$D$3", c)], title=t)
    # scatter and bubble: openpyxl keys every series ",": xVal/yVal are not val/cat
    for nm, cls, refs in [("ox_scatter_a.xlsx", ScatterChart, ("Sheet1!$B$2:$B$3", "Sheet1!$A$2:$A$3")),
                          ("ox_scatter_b.xlsx", ScatterChart, ("Sheet1!$C$2:$C$3", "Sheet1!$B$2:$B$3")),
                          ("ox_bubble_a.xlsx", BubbleChart, ("Sheet1!$B$2:$B$3", "Sheet1!$A$2:$A$3"))]:
        wb = openpyxl.Workbook()
        ws = wb.active
        ox_fill(ws, [["x", "y", "z"], [1, 2, 3], [4, 5, 6]])
        ch = cls()
        ch.title = "XY"
        ch.x_axis.title = "X axis"
        ch.y_axis.title = "Y axis"
        s = Series(Reference(ws, min_col=2, min_row=2, max_row=3), Reference(ws, min_col=1, min_row=2, max_row=3),
                   zvalues=Reference(ws, min_col=3, min_row=2, max_row=3) if cls is BubbleChart else None)
        s.yVal.numRef.f, s.xVal.numRef.f = refs
        ch.series.append(s)
        ws.add_chart(ch, "E2")
        ox_save(wb, nm)
    # charts on a second sheet, and a chart sheet
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ox_fill(ws, LO_COL_ROWS)
    ws2 = wb.create_sheet("Sheet2")
    ox_fill(ws2, LO_COL_ROWS)
    ch = BarChart()
    ch.series.append(ox_series("Sheet2!$B$2:$B$5", "Sheet2!$A$2:$A$5"))
    ch.title = "On sheet two"
    ws2.add_chart(ch, two_cell())
    cs = wb.create_chartsheet("Chart1")
    ch = LineChart()
    ch.series.append(ox_series("Data!$B$2:$B$5", "Data!$A$2:$A$5"))
    ch.title = "On a chart sheet"
    cs.add_chart(ch)
    ox_save(wb, "ox_two_sheets.xlsx")
    # the same with sheets swapped (sheet two first) and another chart sheet title
    wb = openpyxl.Workbook()
    ws2 = wb.active
    ws2.title = "Sheet2"
    ox_fill(ws2, LO_COL_ROWS)
    ch = BarChart()
    ch.series.append(ox_series("Sheet2!$B$2:$B$5", "Sheet2!$A$2:$A$5"))
    ch.title = "On sheet two"
    ws2.add_chart(ch, two_cell())
    ws = wb.create_sheet("Data")
    ox_fill(ws, LO_COL_ROWS)
    cs = wb.create_chartsheet("Chart1")
    ch = LineChart()
    ch.series.append(ox_series("Data!$B$2:$B$5", "Data!$A$2:$A$5"))
    ch.title = "Another chart sheet"
    cs.add_chart(ch)
    ox_save(wb, "ox_two_sheets_swapped.xlsx")


# ----------------------------------------------------------------------------- by hand
XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
CNS = ('xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" '
       'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
ROWS = [["Name", "Amount", "Other", "More"], ["Grace", 450, 1, 7], ["Emma", 335, 2, 8], ["Chloe", 394, 3, 9]]


def anchor(kind, rid, frm=(3, 0), to=(11, 20), edit=None):
    frame = ('<xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="%d" name="Chart %d"/><xdr:cNvGraphicFramePr/>'
             '</xdr:nvGraphicFramePr><xdr:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/></xdr:xfrm><a:graphic>'
             '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">'
             '<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="%s"/></a:graphicData>'
             '</a:graphic></xdr:graphicFrame><xdr:clientData/>') % (int(rid[3:]) + 1, int(rid[3:]), rid)
    mk = lambda tag, cr: ('<xdr:%s><xdr:col>%d</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>%d</xdr:row>'
                          '<xdr:rowOff>0</xdr:rowOff></xdr:%s>') % (tag, cr[0], cr[1], tag)
    if kind == "two":
        e = ' editAs="%s"' % edit if edit else ""
        return "<xdr:twoCellAnchor%s>%s%s%s</xdr:twoCellAnchor>" % (e, mk("from", frm), mk("to", to), frame)
    if kind == "one":
        return '<xdr:oneCellAnchor>%s<xdr:ext cx="5400000" cy="2700000"/>%s</xdr:oneCellAnchor>' % (mk("from", frm), frame)
    assert kind == "abs"
    return '<xdr:absoluteAnchor><xdr:pos x="100" y="100"/><xdr:ext cx="5400000" cy="2700000"/>%s</xdr:absoluteAnchor>' % frame


TEXTBOX = ('<xdr:twoCellAnchor><xdr:from><xdr:col>0</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>10</xdr:row><xdr:rowOff>0</xdr:rowOff>'
           '</xdr:from><xdr:to><xdr:col>2</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>12</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:to>'
           '<xdr:sp><xdr:nvSpPr><xdr:cNvPr id="30" name="Text 1"/><xdr:cNvSpPr txBox="1"/></xdr:nvSpPr><xdr:spPr><a:xfrm>'
           '<a:off x="0" y="0"/><a:ext cx="100" cy="100"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></xdr:spPr>'
           '<xdr:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>Note</a:t></a:r></a:p></xdr:txBody></xdr:sp><xdr:clientData/>'
           '</xdr:twoCellAnchor>')


def sheet_xml(rows, drawing):
    out = []
    for i, row in enumerate(rows, 1):
        cells = []
        for j, v in enumerate(row):
            ref = "%s%d" % (chr(65 + j), i)
            if isinstance(v, str):
                cells.append('<c r="%s" t="inlineStr"><is><t>%s</t></is></c>' % (ref, v))
            else:
                cells.append('<c r="%s"><v>%s</v></c>' % (ref, v))
        out.append('<row r="%d">%s</row>' % (i, "".join(cells)))
    return ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            '<sheetData>%s</sheetData>%s</worksheet>' % ("".join(out), '<drawing r:id="rId1"/>' if drawing else ""))


STYLES = ('<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="1"><font><sz val="11"/>'
          '<name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill>'
          '<patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/>'
          '<diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/>'
          '</cellStyleXfs><cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
          '</styleSheet>')


def hx(name, sheets, rows=ROWS):
    """sheets: [(sheet name, [anchor items])]; an anchor item is (kind, chart xml, kwargs) with kind
    two/one/abs, or ("raw", anchor xml, None) for an anchor that holds no chart. A chart xml of None
    points the anchor at a chart part that is not in the package."""
    files = {}
    ct = ['<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
          '<Default Extension="xml" ContentType="application/xml"/>'
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
          '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>']
    files["_rels/.rels"] = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
                            'Target="xl/workbook.xml"/></Relationships>')
    wbs, wbr = [], []
    nchart = 0
    for si, (sname, anchors) in enumerate(sheets, 1):
        wbs.append('<sheet name="%s" sheetId="%d" r:id="rId%d"/>' % (sname, si, si))
        wbr.append('<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
                   'Target="worksheets/sheet%d.xml"/>' % (si, si))
        ct.append('<Override PartName="/xl/worksheets/sheet%d.xml" '
                  'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' % si)
        files["xl/worksheets/sheet%d.xml" % si] = sheet_xml(rows, bool(anchors))
        if not anchors:
            continue
        files["xl/worksheets/_rels/sheet%d.xml.rels" % si] = (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing" '
            'Target="../drawings/drawing%d.xml"/></Relationships>' % si)
        ct.append('<Override PartName="/xl/drawings/drawing%d.xml" ContentType="application/vnd.openxmlformats-officedocument.drawing+xml"/>' % si)
        anc, rels = [], []
        k = 0
        for kind, chart_xml, kw in anchors:
            if kind == "raw":
                anc.append(chart_xml)
                continue
            k += 1
            nchart += 1
            anc.append(anchor(kind, "rId%d" % k, **(kw or {})))
            rels.append('<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" '
                        'Target="../charts/chart%d.xml"/>' % (k, nchart))
            if chart_xml is not None:
                files["xl/charts/chart%d.xml" % nchart] = chart_xml
                ct.append('<Override PartName="/xl/charts/chart%d.xml" '
                          'ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/>' % nchart)
        files["xl/drawings/drawing%d.xml" % si] = (
            '<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" '
            'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' + "".join(anc) + "</xdr:wsDr>")
        files["xl/drawings/_rels/drawing%d.xml.rels" % si] = (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' + "".join(rels) + "</Relationships>")
    files["xl/workbook.xml"] = ('<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                                'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
                                + "".join(wbs) + "</sheets></workbook>")
    n = len(sheets) + 1
    wbr.append('<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" '
               'Target="styles.xml"/>' % n)
    files["xl/_rels/workbook.xml.rels"] = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                                           + "".join(wbr) + "</Relationships>")
    files["xl/styles.xml"] = STYLES
    ct.append("</Types>")
    files["[Content_Types].xml"] = "".join(ct)
    write_zip(os.path.join(FILES, name), {k: XML_HEAD + v for k, v in files.items()})
    return name


V1, V2, V3 = "Sheet1!$B$2:$B$4", "Sheet1!$C$2:$C$4", "Sheet1!$D$2:$D$4"
CAT = "Sheet1!$A$2:$A$4"


def ser(order, val=V1, cat=CAT, idx=None, kind="numRef", catkind="strRef", raw=None):
    """One c:ser. order=None leaves c:order out; val/cat=None leave c:val/c:cat out."""
    if raw is not None:
        return raw
    idx = (order if order is not None else 0) if idx is None else idx
    o = '<c:order val="%s"/>' % order if order is not None else ""
    c = "<c:cat><c:%s><c:f>%s</c:f></c:%s></c:cat>" % (catkind, cat, catkind) if cat is not None else ""
    v = "<c:val><c:%s><c:f>%s</c:f></c:%s></c:val>" % (kind, val, kind) if val is not None else ""
    return '<c:ser><c:idx val="%s"/>%s%s%s</c:ser>' % (idx, o, c, v)


def xy_ser(order, x, y, size=None):
    b = "<c:bubbleSize><c:numRef><c:f>%s</c:f></c:numRef></c:bubbleSize>" % size if size else ""
    return ('<c:ser><c:idx val="%d"/><c:order val="%d"/><c:xVal><c:numRef><c:f>%s</c:f></c:numRef></c:xVal>'
            '<c:yVal><c:numRef><c:f>%s</c:f></c:numRef></c:yVal>%s</c:ser>') % (order, order, x, y, b)


def rich(*paras):
    return "<c:tx><c:rich><a:bodyPr/><a:lstStyle/>" + "".join("<a:p>%s</a:p>" % p for p in paras) + "</c:rich></c:tx>"


def run(t):
    return "<a:r><a:rPr lang=\"en-US\"/><a:t>%s</a:t></a:r>" % t


def title(inner):
    return '<c:title>%s<c:overlay val="0"/></c:title>' % inner


def rtitle(t):
    return title(rich(run(t)))


def axis(tag, axid, cross, t=None, pos="b", title_xml=None):
    tt = title_xml if title_xml is not None else (rtitle(t) if t is not None else "")
    extra = '<c:crossBetween val="between"/>' if tag == "valAx" else ""
    return ('<c:%s><c:axId val="%s"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/>'
            '<c:axPos val="%s"/>%s<c:crossAx val="%s"/>%s</c:%s>') % (tag, axid, pos, tt, cross, extra, tag)


LEG = lambda pos: '<c:legend><c:legendPos val="%s"/><c:overlay val="0"/></c:legend>' % pos
INNER = {"barChart": '<c:barDir val="col"/><c:grouping val="clustered"/><c:varyColors val="0"/>',
         "bar3DChart": '<c:barDir val="col"/><c:grouping val="clustered"/><c:varyColors val="0"/>',
         "lineChart": '<c:grouping val="standard"/><c:varyColors val="0"/>',
         "line3DChart": '<c:grouping val="standard"/><c:varyColors val="0"/>',
         "areaChart": '<c:grouping val="standard"/><c:varyColors val="0"/>',
         "pieChart": '<c:varyColors val="1"/>', "pie3DChart": '<c:varyColors val="1"/>',
         "doughnutChart": '<c:varyColors val="1"/>',
         "scatterChart": '<c:scatterStyle val="lineMarker"/><c:varyColors val="0"/>',
         "radarChart": '<c:radarStyle val="marker"/><c:varyColors val="0"/>',
         "bubbleChart": '<c:varyColors val="0"/>'}
TAIL = {"doughnutChart": '<c:firstSliceAng val="0"/><c:holeSize val="50"/>', "pieChart": '<c:firstSliceAng val="0"/>'}
NOAX = ("pieChart", "pie3DChart", "doughnutChart")
STD_AXES = axis("catAx", 1001, 1002) + axis("valAx", 1002, 1001, pos="l")


def chart(kind="lineChart", series=None, title_xml="", legend=LEG("r"), axes=None, axids=None, pre=None,
          extra_types="", plot=None, before=""):
    """A chartSpace. `before` goes into the plot area before the first chart type."""
    series = [ser(0)] if series is None else series
    if axids is None:
        axids = () if kind in NOAX else (1001, 1002)
    if axes is None:
        axes = "" if kind in NOAX else STD_AXES
    ids = "".join('<c:axId val="%s"/>' % i for i in axids)
    body = "<c:%s>%s%s%s%s</c:%s>" % (kind, INNER.get(kind, "") if pre is None else pre, "".join(series),
                                       TAIL.get(kind, ""), ids, kind)
    if plot is None:
        plot = "<c:plotArea><c:layout/>%s%s%s%s</c:plotArea>" % (before, body, extra_types, axes)
    return ('<c:chartSpace %s><c:roundedCorners val="0"/><c:chart>%s<c:autoTitleDeleted val="%d"/>%s%s'
            '<c:plotVisOnly val="1"/></c:chart></c:chartSpace>') % (CNS, title_xml, 0 if title_xml else 1, plot, legend)


def one(name, xml, kind="two", **kw):
    return hx(name, [("Sheet1", [(kind, xml, kw)])])


def gen_by_hand():
    T = lambda t: chart(title_xml=rtitle(t))
    one("hx_plain.xlsx", chart())
    one("hx_sales.xlsx", T("Sales"))
    one("hx_none_text.xlsx", T("None"))
    # --- titles
    one("hx_title_empty_run.xlsx", chart(title_xml=title(rich("<a:r><a:rPr lang=\"en-US\"/><a:t></a:t></a:r>"))))
    one("hx_title_selfclosed_t.xlsx", chart(title_xml=title(rich("<a:r><a:t/></a:r>"))))
    one("hx_title_run_no_t.xlsx", chart(title_xml=title(rich("<a:r><a:rPr lang=\"en-US\"/></a:r>"))))
    one("hx_title_strref.xlsx", chart(title_xml=title("<c:tx><c:strRef><c:f>Sheet1!$B$1</c:f><c:strCache><c:ptCount val=\"1\"/>"
                                                      "<c:pt idx=\"0\"><c:v>Sales</c:v></c:pt></c:strCache></c:strRef></c:tx>")))
    one("hx_title_no_tx.xlsx", chart(title_xml='<c:title><c:overlay val="0"/></c:title>'))
    one("hx_title_para_no_run.xlsx", chart(title_xml=title(rich('<a:pPr><a:defRPr/></a:pPr>', run("Sales")))))
    one("hx_title_rich_no_p.xlsx", chart(title_xml=title("<c:tx><c:rich><a:bodyPr/><a:lstStyle/></c:rich></c:tx>")))
    one("hx_title_runs.xlsx", chart(title_xml=title(rich(run("Sales") + run(" 2024"), run("by region")))))
    one("hx_title_field_first.xlsx", chart(title_xml=title(rich(
        '<a:fld id="{6A2B8C37-0A55-4E0B-9F43-1D2C3B4A5E6F}" type="datetime1"><a:rPr lang="en-US"/><a:t>1/1/2024</a:t></a:fld>'
        + run("Sales")))))
    one("hx_title_br_first.xlsx", chart(title_xml=title(rich("<a:br><a:rPr lang=\"en-US\"/></a:br>" + run("Sales")))))
    one("hx_title_spaces.xlsx", T(" Sales "))
    one("hx_title_amp.xlsx", T("Q&amp;A"))
    one("hx_title_cdata.xlsx", T("<![CDATA[Q&A]]>"))
    # --- legends
    one("hx_legend_none.xlsx", chart(legend=""))
    one("hx_legend_nopos.xlsx", chart(legend='<c:legend><c:overlay val="0"/></c:legend>'))
    one("hx_legend_empty.xlsx", chart(legend="<c:legend/>"))
    for p in ("b", "t", "l", "tr"):
        one("hx_legend_%s.xlsx" % p, chart(legend=LEG(p)))
    one("hx_legend_pos_noval.xlsx", chart(legend='<c:legend><c:legendPos/><c:overlay val="0"/></c:legend>'))
    # --- axis titles
    AX = lambda x=None, y=None, ids=(1001, 1002): chart(axids=ids, axes=axis("catAx", 1001, 1002, t=x) + axis("valAx", 1002, 1001, t=y, pos="l"))
    one("hx_axes_xy.xlsx", AX("Month", "Amount"))
    one("hx_axes_y_only.xlsx", AX(None, "Amount"))
    one("hx_axes_xy_reversed_ids.xlsx", AX("Month", "Amount", ids=(1002, 1001)))
    one("hx_axes_xy_padded_ids.xlsx", AX("Month", "Amount", ids=("01001", "+1002")))
    one("hx_axes_dup_id.xlsx", chart(axes=axis("catAx", 1001, 1002, t="Day") + axis("catAx", 1001, 1002, t="Month")
                                     + axis("valAx", 1002, 1001, t="Amount", pos="l")))
    one("hx_axes_date.xlsx", chart(axes=axis("dateAx", 1001, 1002, t="Month") + axis("valAx", 1002, 1001, t="Amount", pos="l")))
    one("hx_axes_two_val.xlsx", chart(axes=axis("valAx", 1001, 1002, t="Month") + axis("valAx", 1002, 1001, t="Amount", pos="l")))
    one("hx_axes_x_no_tx.xlsx", chart(axes=axis("catAx", 1001, 1002, title_xml='<c:title><c:overlay val="0"/></c:title>')
                                      + axis("valAx", 1002, 1001, t="Amount", pos="l")))
    one("hx_axes_missing_axis.xlsx", chart("barChart", axids=(1001, 1003)))
    one("hx_axid_noval.xlsx", chart(pre=INNER["lineChart"] + "", axids=(), axes=STD_AXES).replace(
        "</c:lineChart>", '<c:axId/><c:axId val="1002"/></c:lineChart>'))
    Z3 = axis("catAx", 1, 2, t="X") + axis("valAx", 2, 1, t="Y", pos="l") + axis("serAx", 3, 2, t="Z")
    one("hx_bar3d_z.xlsx", chart("bar3DChart", axids=(1, 2, 3), axes=Z3))
    one("hx_bar3d_no_serax.xlsx", chart("bar3DChart", axids=(1, 2, 3), axes=axis("catAx", 1, 2, t="X") + axis("valAx", 2, 1, t="Y", pos="l")))
    one("hx_bar3d_xy.xlsx", chart("bar3DChart", axids=(1, 2), axes=axis("catAx", 1, 2, t="X") + axis("valAx", 2, 1, t="Y", pos="l")))
    one("hx_line_serax.xlsx", chart("lineChart", axids=(1, 2, 3), axes=Z3))
    one("hx_line_xy.xlsx", chart("lineChart", axids=(1, 2), axes=axis("catAx", 1, 2, t="X") + axis("valAx", 2, 1, t="Y", pos="l")))
    XY = axis("valAx", 1, 2, t="Across") + axis("valAx", 2, 1, t="Up", pos="l")
    one("hx_scatter.xlsx", chart("scatterChart", series=[xy_ser(0, V1, V2)], axids=(1, 2), axes=XY))
    one("hx_scatter_other_refs.xlsx", chart("scatterChart", series=[xy_ser(0, V3, V1)], axids=(1, 2), axes=XY))
    one("hx_scatter_swapped_ids.xlsx", chart("scatterChart", series=[xy_ser(0, V1, V2)], axids=(2, 1), axes=XY))
    one("hx_scatter_three_ids.xlsx", chart("scatterChart", series=[xy_ser(0, V1, V2)], axids=(1, 2, 3),
                                           axes=XY + axis("serAx", 3, 2, t="Depth")))
    one("hx_bubble.xlsx", chart("bubbleChart", series=[xy_ser(0, V1, V2, V3)], axids=(1, 2), axes=XY))
    one("hx_radar.xlsx", chart("radarChart", axes=axis("catAx", 1001, 1002, t="Spoke") + axis("valAx", 1002, 1001, pos="l")))
    one("hx_pie.xlsx", chart("pieChart"))
    one("hx_pie_titled.xlsx", chart("pieChart", title_xml=rtitle("Sales")))
    one("hx_pie3d.xlsx", chart("pie3DChart"))
    one("hx_doughnut.xlsx", chart("doughnutChart"))
    # --- series
    S3 = [ser(0, V1), ser(1, V2), ser(2, V3)]
    one("hx_three_series.xlsx", chart(series=S3))
    one("hx_three_series_shuffled.xlsx", chart(series=[ser(2, V3), ser(0, V1), ser(1, V2)]))
    one("hx_three_series_reordered.xlsx", chart(series=[ser(2, V1), ser(0, V2), ser(1, V3)]))
    one("hx_series_gapped_order.xlsx", chart(series=[ser(7, V3), ser(-1, V1), ser(3, V2)]))
    one("hx_series_same_order_ab.xlsx", chart(series=[ser(0, V1, idx=0), ser(0, V2, idx=1)]))
    one("hx_series_same_order_ba.xlsx", chart(series=[ser(0, V2, idx=1), ser(0, V1, idx=0)]))
    one("hx_series_numlit.xlsx", chart(series=[ser(0, raw='<c:ser><c:idx val="0"/><c:order val="0"/><c:cat><c:strRef><c:f>%s</c:f>'
                                                      '</c:strRef></c:cat><c:val><c:numLit><c:ptCount val="1"/><c:pt idx="0"><c:v>5</c:v>'
                                                      '</c:pt></c:numLit></c:val></c:ser>' % CAT)]))
    one("hx_series_empty_f.xlsx", chart(series=[ser(0, val="")]))
    one("hx_series_numref_no_f.xlsx", chart(series=[ser(0, raw='<c:ser><c:idx val="0"/><c:order val="0"/><c:cat><c:strRef><c:f>%s</c:f>'
                                                          '</c:strRef></c:cat><c:val><c:numRef><c:numCache><c:ptCount val="0"/></c:numCache>'
                                                          '</c:numRef></c:val></c:ser>' % CAT)]))
    one("hx_series_strref_val.xlsx", chart(series=[ser(0, kind="strRef")]))
    one("hx_series_numref_cat.xlsx", chart(series=[ser(0, catkind="numRef")]))
    one("hx_series_no_cat.xlsx", chart(series=[ser(0, cat=None)]))
    one("hx_series_multilvl_cat.xlsx", chart(series=[ser(0, cat="Sheet1!$A$2:$B$4", catkind="multiLvlStrRef")]))
    one("hx_series_f_whitespace.xlsx", chart(series=[ser(0, val=" " + V1 + "\n")]))
    one("hx_series_no_order.xlsx", chart(series=[ser(None)]))
    one("hx_series_two_no_order.xlsx", chart(series=[ser(None, V1, idx=0), ser(None, V2, idx=1)]))
    one("hx_series_two.xlsx", chart(series=[ser(0, V1), ser(1, V2)]))
    one("hx_series_float_order.xlsx", chart(series=[ser("1.0")]))
    one("hx_no_series.xlsx", chart(series=[]))
    one("hx_no_series_bar.xlsx", chart("barChart", series=[]))
    # --- chart types
    one("hx_bar_line_combo.xlsx", chart("barChart", extra_types='<c:lineChart><c:grouping val="standard"/><c:varyColors val="0"/>'
                                        + ser(1, V2) + '<c:axId val="1001"/><c:axId val="1002"/></c:lineChart>'))
    one("hx_line_bar_combo.xlsx", chart("lineChart", extra_types='<c:barChart><c:barDir val="bar"/><c:grouping val="clustered"/>'
                                        + ser(1, V2) + '<c:axId val="1001"/><c:axId val="1002"/></c:barChart>'))
    one("hx_bar.xlsx", chart("barChart"))
    one("hx_bar_horizontal.xlsx", chart("barChart", pre='<c:barDir val="bar"/><c:grouping val="clustered"/>'))
    one("hx_bar_no_dir.xlsx", chart("barChart", pre='<c:grouping val="clustered"/>'))
    one("hx_bar3d_horizontal.xlsx", chart("bar3DChart", pre='<c:barDir val="bar"/><c:grouping val="clustered"/>'))
    # --- chart space / plot area that openpyxl skips or chokes on
    one("hx_no_chart_element.xlsx", '<c:chartSpace %s><c:roundedCorners val="0"/></c:chartSpace>' % CNS)
    one("hx_empty_plot_area.xlsx", chart(plot='<c:plotArea><c:layout/></c:plotArea>'))
    # --- anchors
    one("hx_anchor_two_plain.xlsx", chart(), frm=(3, 0), to=(11, 20))
    one("hx_anchor_two_oncell.xlsx", chart(), frm=(3, 0), to=(11, 20), edit="oneCell")
    one("hx_anchor_two_other_from_row.xlsx", chart(), frm=(3, 5), to=(11, 20))
    one("hx_anchor_two_other_to_col.xlsx", chart(), frm=(3, 0), to=(12, 20))
    one("hx_anchor_one.xlsx", chart(), kind="one")
    one("hx_anchor_abs.xlsx", chart(), kind="abs")
    hx("hx_anchor_mixed_same_key.xlsx", [("Sheet1", [("two", T("Two"), {}), ("one", T("One"), {}), ("abs", T("Abs"), {})])])
    hx("hx_anchor_abs_one_same_key.xlsx", [("Sheet1", [("one", T("One"), {}), ("abs", T("Abs"), {})])])
    hx("hx_two_charts_same_key.xlsx", [("Sheet1", [("two", T("First"), {}), ("two", T("Second"), {"frm": (3, 22), "to": (11, 40)})])])
    hx("hx_single_second.xlsx", [("Sheet1", [("two", T("Second"), {})])])
    hx("hx_single_one.xlsx", [("Sheet1", [("two", T("One"), {})])])
    hx("hx_two_charts_ab.xlsx", [("Sheet1", [("two", chart(series=[ser(0, V1)], title_xml=rtitle("A")), {}),
                                              ("one", chart("barChart", series=[ser(0, V2)], title_xml=rtitle("B")), {})])])
    hx("hx_two_charts_ba.xlsx", [("Sheet1", [("two", chart("barChart", series=[ser(0, V2)], title_xml=rtitle("B")), {}),
                                              ("abs", chart(series=[ser(0, V1)], title_xml=rtitle("A")), {})])])
    hx("hx_chart_and_textbox.xlsx", [("Sheet1", [("raw", TEXTBOX, None), ("two", T("Sales"), {})])])
    hx("hx_missing_chart_part.xlsx", [("Sheet1", [("two", None, {})])])
    # --- sheets
    hx("hx_sheet2_chart.xlsx", [("Sheet1", []), ("Sheet2", [("two", T("Sales"), {})])])
    hx("hx_sheet1_chart_sheet2_other.xlsx", [("Sheet1", [("two", T("Sales"), {})]),
                                             ("Sheet2", [("two", chart("barChart", title_xml=rtitle("Other")), {})])])
    hx("hx_sheet_named.xlsx", [("Data &amp; more", [("two", T("Sales"), {})])])
    hx("hx_broken_chart_on_sheet2.xlsx", [("Sheet1", [("two", T("Sales"), {})]), ("Sheet2", [("two", chart(plot='<c:plotArea><c:layout/></c:plotArea>'), {})])])
    hx("hx_bad_legend_on_sheet2.xlsx", [("Sheet1", [("two", T("Sales"), {})]),
                                        ("Sheet2", [("two", chart(legend='<c:legend><c:legendPos/></c:legend>'), {})])])
    hx("hx_no_chart.xlsx", [("Sheet1", [])])
    hx("hx_other_data.xlsx", [("Sheet1", [("two", T("Sales"), {})])], rows=[["Name", "Amount"], ["Zed", 1]])
    with open(os.path.join(FILES, "hx_not_a_workbook.xlsx"), "w") as f:
        f.write("this is not a zip file\n")


def cases():
    ALL = ["title", "legend", "width", "height", "type", "xtitle", "ytitle", "ztitle"]
    # ---------------------------------------------------------------- real files
    case("lo_line_vs_ox_line_type_title", "lo_line.xlsx", "ox_line_lo.xlsx", [rule(["type", "title"])],
         "LibreOffice line chart vs openpyxl line chart over the same refs and title")
    case("lo_line_vs_ox_line_all", "lo_line.xlsx", "ox_line_lo.xlsx", [rule(ALL + ["anchor"])],
         "LibreOffice vs openpyxl, every property but direction; both two-cell anchors C1:L21 editAs oneCell")
    case("lo_line_vs_ox_line_axes_titles", "lo_line.xlsx", "ox_line_lo_axes.xlsx", [rule(["xtitle", "ytitle"])],
         "LibreOffice chart without axis titles vs openpyxl chart with them")
    case("lo_line_vs_ox_quoted_refs", "lo_line.xlsx", "ox_line_lo_quoted.xlsx", [rule(["type"])],
         "openpyxl series refs written 'Sheet1'!$B$2:$B$7 (quoted): the keys are compared as text")
    case("lo_line_vs_ox_onecell_size", "lo_line.xlsx", "ox_line_lo_onecell.xlsx", [rule(["type", "title", "width", "height"])],
         "openpyxl chart 30x12 cm on a one-cell anchor: width/height are openpyxl's defaults on read")
    case("lo_line_vs_ox_onecell_anchor", "lo_line.xlsx", "ox_line_lo_onecell.xlsx", [rule(["anchor"])],
         "anchor of an openpyxl one-cell anchor: OSWorld raises on its editAs")
    case("lo_column_vs_ox_column_direction", "lo_column.xlsx", "ox_column_lo.xlsx", [rule(["type", "direction", "title"])],
         "column chart: LibreOffice vs openpyxl, direction col")
    case("lo_column_vs_ox_bar_direction", "lo_column.xlsx", "ox_bar_lo.xlsx", [rule(["direction"])],
         "barDir col vs bar")
    case("lo_column_vs_ox_bar_type", "lo_column.xlsx", "ox_bar_lo.xlsx", [rule(["type", "title"])],
         "column vs horizontal bar: both barChart")
    case("lo_column_vs_guigym_column", "lo_column.xlsx", "guigym_column.xlsx", [rule(["type"])],
         "same type, other ranges: keys differ")
    case("lo_pie_vs_ox_pie", "lo_pie.xlsx", "ox_pie_lo.xlsx", [rule(["type", "title", "legend"])], "pie: LibreOffice vs openpyxl")
    case("lo_pie_vs_ox_pie3d", "lo_pie.xlsx", "ox_pie3d_lo.xlsx", [rule(["type"])], "pieChart vs pie3DChart")
    case("lo_pie_direction", "lo_pie.xlsx", "lo_pie.xlsx", [rule(["direction"])], "direction of a pie chart raises")
    case("lo_area_untitled_vs_ox_area", "lo_area_untitled.xlsx", "ox_area_lo.xlsx", [rule(["type", "title", "legend"])],
         "untitled LibreOffice area chart (autoTitleDeleted) vs untitled openpyxl area chart")
    case("lo_area_vs_ox_area3d", "lo_area_untitled.xlsx", "ox_area3d_lo.xlsx", [rule(["type"])], "areaChart vs area3DChart")
    case("guigym_line_vs_untitled", "guigym_line.xlsx", "guigym_line_untitled.xlsx", [rule(["title"])], "titled vs untitled")
    case("guigym_line_vs_other_range", "guigym_line.xlsx", "guigym_other_range.xlsx", [rule(["type"])],
         "other series ranges (no categories, values from the header row)")
    case("guigym_no_chart_both", "guigym_no_chart.xlsx", "guigym_no_chart.xlsx", [rule(["type"])], "no charts on either side")
    case("guigym_bar_vs_column_direction", "guigym_bar.xlsx", "guigym_column.xlsx", [rule(["direction"])], "bar vs col")
    case("guigym_bar_vs_ox_bar", "guigym_bar.xlsx", "ox_bar_gg.xlsx", [rule(["type", "title", "direction", "legend"])],
         "guigym horizontal bar vs openpyxl horizontal bar (one-cell anchored)")
    case("guigym_column_untitled_vs_bar_untitled", "guigym_column_untitled.xlsx", "guigym_bar_untitled.xlsx",
         [rule(["title", "direction"])], "untitled col vs untitled bar")
    case("guigym_pie_vs_untitled_legend", "guigym_pie.xlsx", "guigym_pie_untitled.xlsx", [rule(["legend", "type"])], "legend r both")
    case("guigym_area_vs_ox_area", "guigym_area.xlsx", "ox_area_gg.xlsx", [rule(["type", "title", "legend", "xtitle", "ytitle"])],
         "guigym area vs openpyxl area over the same refs")
    case("guigym_area_untitled_vs_titled", "guigym_area_untitled.xlsx", "guigym_area.xlsx", [rule(["type", "legend", "title"])],
         "untitled (no c:title) vs titled area chart")
    case("guigym_line_vs_ox_line", "guigym_line.xlsx", "ox_line_gg.xlsx", [rule(ALL)], "guigym line vs openpyxl line, all props")
    case("guigym_line_anchor_vs_ox", "guigym_line.xlsx", "ox_line_gg.xlsx", [rule(["anchor"])],
         "guigym two-cell anchor first (fine), then openpyxl one-cell anchor: OSWorld raises")
    case("guigym_line_vs_ox_line3d", "guigym_line.xlsx", "ox_line3d_gg.xlsx", [rule(["type"])], "lineChart vs line3DChart")
    case("guigym_column_vs_ox_bar3d", "guigym_column.xlsx", "ox_bar3d_gg.xlsx", [rule(["direction", "title"])],
         "barChart col vs bar3DChart col: same direction")
    case("guigym_line_vs_ox_radar", "guigym_line.xlsx", "ox_radar_gg.xlsx", [rule(["title", "xtitle"])], "radar: title and x axis")
    case("guigym_pie_vs_ox_ofpie", "guigym_pie.xlsx", "ox_ofpie_gg.xlsx", [rule(["type"])], "pieChart vs ofPieChart")
    case("ox_stock_self", "ox_stock_gg.xlsx", "ox_stock_gg.xlsx", [rule(ALL)], "stock chart with three series against itself")
    case("ox_scatter_other_refs", "ox_scatter_a.xlsx", "ox_scatter_b.xlsx", [rule(["type", "title", "xtitle", "ytitle"])],
         "scatter series have xVal/yVal, not val/cat: every series keys as ','")
    case("ox_scatter_vs_bubble", "ox_scatter_a.xlsx", "ox_bubble_a.xlsx", [rule(["title", "xtitle", "ytitle"])],
         "scatter vs bubble: same ',' key, same titles")
    case("ox_two_sheets_idx1", "ox_two_sheets.xlsx", "ox_two_sheets.xlsx", [rule(["title", "type"], 1, "EI1")],
         "chart on the second worksheet by index")
    case("ox_two_sheets_ri_vs_ei", "ox_two_sheets.xlsx", "ox_two_sheets_swapped.xlsx", [rule(["title"], "RI1", "EI0")],
         "by index: Sheet2 is the result's 2nd and the expected's 1st")
    case("ox_chartsheet_by_name", "ox_two_sheets.xlsx", "ox_two_sheets_swapped.xlsx", [rule(["type"], "RNChart1", "ENChart1")],
         "charts of a chart sheet, addressed by name (openpyxl finds chart sheets by name)")
    case("ox_chartsheet_index_out_of_range", "ox_two_sheets.xlsx", "ox_two_sheets_swapped.xlsx", [rule(["title"], 2, "EI2")],
         "index 2 would be the chart sheet, but pandas lists worksheets only: both '' -> no charts")
    case("ox_chartsheet_index_vs_name", "ox_two_sheets.xlsx", "ox_two_sheets.xlsx", [rule(["title"], "RI2", "ENChart1")],
         "RI2 is out of range (pandas names), ENChart1 has a chart")
    # ---------------------------------------------------------------- titles
    case("title_vs_none", "hx_sales.xlsx", "hx_plain.xlsx", [rule(["title"])], "title vs no title element")
    case("title_empty_run_vs_none", "hx_title_empty_run.xlsx", "hx_plain.xlsx", [rule(["title"])],
         "<a:t></a:t>: openpyxl reads the text as None and NestedText makes it the string 'None'")
    case("title_empty_run_vs_text_None", "hx_title_empty_run.xlsx", "hx_none_text.xlsx", [rule(["title"])],
         "<a:t></a:t> vs <a:t>None</a:t>")
    case("title_selfclosed_t_vs_none", "hx_title_selfclosed_t.xlsx", "hx_plain.xlsx", [rule(["title"])], "<a:t/> vs no title")
    case("title_run_without_t_vs_none", "hx_title_run_no_t.xlsx", "hx_plain.xlsx", [rule(["title"])],
         "a run without a:t: RegularTextRun's default t is ''")
    case("title_strref_vs_none", "hx_title_strref.xlsx", "hx_plain.xlsx", [rule(["title"])],
         "title from a cell (strRef): no rich text; openpyxl's Title/Text defaults give ''")
    case("title_strref_vs_no_tx", "hx_title_strref.xlsx", "hx_title_no_tx.xlsx", [rule(["title"])],
         "strRef title vs a title element without tx: both ''")
    case("title_no_tx_vs_none", "hx_title_no_tx.xlsx", "hx_plain.xlsx", [rule(["title"])], "<c:title> without c:tx vs no title")
    case("title_para_without_run_vs_none", "hx_title_para_no_run.xlsx", "hx_plain.xlsx", [rule(["title"])],
         "first paragraph holds no run vs no title")
    case("title_rich_without_p_vs_none", "hx_title_rich_no_p.xlsx", "hx_plain.xlsx", [rule(["title"])],
         "c:rich without a:p vs no title")
    case("title_several_runs", "hx_title_runs.xlsx", "hx_sales.xlsx", [rule(["title"])],
         "runs 'Sales', ' 2024' and a 2nd paragraph: only p[0].r[0] counts")
    case("title_field_first", "hx_title_field_first.xlsx", "hx_sales.xlsx", [rule(["title"])], "a:fld before the first run")
    case("title_break_first", "hx_title_br_first.xlsx", "hx_sales.xlsx", [rule(["title"])], "a:br before the first run")
    case("title_spaces_kept", "hx_title_spaces.xlsx", "hx_sales.xlsx", [rule(["title"])], "' Sales ' vs 'Sales'")
    case("title_entity_vs_cdata", "hx_title_amp.xlsx", "hx_title_cdata.xlsx", [rule(["title"])], "Q&amp;A vs CDATA Q&A")
    case("title_ignored_when_not_asked", "hx_title_empty_run.xlsx", "hx_plain.xlsx", [rule(["type", "legend"])],
         "title differences do not matter when title is not asked")
    # ---------------------------------------------------------------- legend
    case("legend_none_vs_r", "hx_legend_none.xlsx", "hx_plain.xlsx", [rule(["legend"])], "no legend vs legendPos r")
    case("legend_nopos_vs_r", "hx_legend_nopos.xlsx", "hx_plain.xlsx", [rule(["legend"])], "legend without legendPos: 'r'")
    case("legend_empty_vs_r", "hx_legend_empty.xlsx", "hx_plain.xlsx", [rule(["legend"])], "<c:legend/>: 'r'")
    case("legend_b_vs_t", "hx_legend_b.xlsx", "hx_legend_t.xlsx", [rule(["legend"])], "b vs t")
    case("legend_pos_noval_result", "hx_legend_pos_noval.xlsx", "hx_plain.xlsx", [rule(["title"])],
         "<c:legendPos/> without val in the result: openpyxl's NestedSet refuses None, load_workbook fails")
    case("legend_pos_noval_expected", "hx_plain.xlsx", "hx_legend_pos_noval.xlsx", [rule(["title"])],
         "<c:legendPos/> without val in the expected file")
    # ---------------------------------------------------------------- axis titles
    case("axes_reversed_ids", "hx_axes_xy_reversed_ids.xlsx", "hx_axes_xy.xlsx", [rule(["xtitle", "ytitle"])],
         "chart lists its value axis id first: axes are bound by kind, not position")
    case("axes_padded_ids", "hx_axes_xy_padded_ids.xlsx", "hx_axes_xy.xlsx", [rule(["xtitle", "ytitle"])],
         "chart's axId val='01001' and '+1002': openpyxl matches ids as integers")
    case("axes_duplicate_id", "hx_axes_dup_id.xlsx", "hx_axes_xy.xlsx", [rule(["xtitle"])],
         "two catAx share id 1001 (Day, then Month): openpyxl's dict keeps the last")
    case("axes_date_axis", "hx_axes_date.xlsx", "hx_axes_xy.xlsx", [rule(["xtitle", "ytitle"])], "dateAx is the x axis")
    case("axes_two_value_axes", "hx_axes_two_val.xlsx", "hx_axes_y_only.xlsx", [rule(["xtitle", "ytitle"])],
         "two valAx: no x axis, the last one is y")
    case("axes_x_title_without_tx", "hx_axes_x_no_tx.xlsx", "hx_axes_y_only.xlsx", [rule(["xtitle", "ytitle"])],
         "x axis title element without tx vs no x title")
    case("axes_missing_axis_result", "hx_axes_missing_axis.xlsx", "hx_bar.xlsx", [rule(["type"])],
         "bar chart points at axis 1003, which the plot area lacks: openpyxl fails on axis.tagname of None")
    case("axes_missing_axis_expected", "hx_bar.xlsx", "hx_axes_missing_axis.xlsx", [rule(["type"])],
         "the same in the expected file")
    case("axid_without_val_vs_no_chart", "hx_axid_noval.xlsx", "hx_no_chart.xlsx", [rule(["type"])],
         "<c:axId/> without val: ChartSpace raises TypeError, openpyxl skips the chart with a warning")
    case("axid_without_val_vs_chart", "hx_axid_noval.xlsx", "hx_plain.xlsx", [rule(["type"])], "the same vs the chart read fine")
    case("bar3d_z_vs_no_serax", "hx_bar3d_z.xlsx", "hx_bar3d_no_serax.xlsx", [rule(["ztitle"])],
         "bar3D whose 3rd axis id is missing from the plot area: z is None, no error")
    case("line_with_serax_ztitle", "hx_line_serax.xlsx", "hx_line_xy.xlsx", [rule(["ztitle"])], "a 2-D line chart bound to a serAx")
    case("scatter_refs_ignored", "hx_scatter.xlsx", "hx_scatter_other_refs.xlsx", [rule(["type", "xtitle", "ytitle"])],
         "hand-written scatter series over other refs: both key ','")
    case("scatter_swapped_ids", "hx_scatter_swapped_ids.xlsx", "hx_scatter.xlsx", [rule(["xtitle", "ytitle"])],
         "scatter: x is the first axis id, y the second, whatever they are")
    case("scatter_three_ids_result", "hx_scatter_three_ids.xlsx", "hx_scatter.xlsx", [rule(["type"])],
         "scatter with three axis ids: openpyxl unpacks two, load_workbook fails")
    case("radar_xtitle", "hx_radar.xlsx", "hx_plain.xlsx", [rule(["xtitle", "ytitle"])], "radar with a titled category axis")
    case("pie_vs_doughnut_type", "hx_pie.xlsx", "hx_doughnut.xlsx", [rule(["type"])], "pie vs doughnut")
    # ---------------------------------------------------------------- series
    case("series_shuffled_order", "hx_three_series_shuffled.xlsx", "hx_three_series.xlsx", [rule(["type"])],
         "series written 2,0,1 with matching c:order: sorted back")
    case("series_reordered", "hx_three_series_reordered.xlsx", "hx_three_series.xlsx", [rule(["type"])],
         "same document order, other c:order values")
    case("series_gapped_negative_order", "hx_series_gapped_order.xlsx", "hx_three_series.xlsx", [rule([])], "orders -1,3,7")
    case("series_same_order_stable", "hx_series_same_order_ab.xlsx", "hx_series_same_order_ba.xlsx", [rule([])],
         "two series with order 0: the sort is stable, document order stays")
    case("series_numlit_vs_empty_f", "hx_series_numlit.xlsx", "hx_series_empty_f.xlsx", [rule([])],
         "numLit values key as '' ; an empty <c:f/> keys as 'None' (str of None)")
    case("series_numlit_vs_numref_without_f", "hx_series_numlit.xlsx", "hx_series_numref_no_f.xlsx", [rule([])],
         "numRef without c:f keys as 'None' in OSWorld")
    case("series_empty_f_vs_numref_without_f", "hx_series_empty_f.xlsx", "hx_series_numref_no_f.xlsx", [rule([])],
         "both 'None' in OSWorld")
    case("series_strref_values", "hx_series_strref_val.xlsx", "hx_plain.xlsx", [rule(["type"])], "strRef values, same f")
    case("series_numref_categories", "hx_series_numref_cat.xlsx", "hx_plain.xlsx", [rule(["type"])], "numRef categories, same f")
    case("series_no_cat", "hx_series_no_cat.xlsx", "hx_plain.xlsx", [rule([])], "missing c:cat")
    case("series_multilvl_vs_no_cat", "hx_series_multilvl_cat.xlsx", "hx_series_no_cat.xlsx", [rule([])],
         "multiLvlStrRef categories key as ''")
    case("series_f_whitespace", "hx_series_f_whitespace.xlsx", "hx_plain.xlsx", [rule([])], "whitespace around c:f is kept")
    case("series_no_order", "hx_series_no_order.xlsx", "hx_plain.xlsx", [rule(["type"])],
         "one series without c:order: openpyxl's default order 0")
    case("series_two_no_order", "hx_series_two_no_order.xlsx", "hx_series_two.xlsx", [rule(["type"])],
         "two series without c:order: both 0, document order")
    case("series_float_order_vs_no_chart", "hx_series_float_order.xlsx", "hx_no_chart.xlsx", [rule(["type"])],
         "c:order val='1.0': NestedInteger raises TypeError, openpyxl skips the chart")
    case("no_series_line_vs_bar_type", "hx_no_series.xlsx", "hx_no_series_bar.xlsx", [rule(["type"])], "no series, type differs")
    # ---------------------------------------------------------------- chart types / direction
    case("combo_bar_line_vs_bar", "hx_bar_line_combo.xlsx", "hx_bar.xlsx", [rule(["type", "direction"])],
         "bar+line plot area: the first chart type only (its series only)")
    case("combo_line_bar_vs_plain_line", "hx_line_bar_combo.xlsx", "hx_plain.xlsx", [rule(["type", "title"])],
         "line+bar plot area: a line chart")
    case("combo_line_bar_direction", "hx_line_bar_combo.xlsx", "hx_bar.xlsx", [rule(["direction"])],
         "line first: direction raises even though a bar chart follows")
    case("direction_missing_bardir", "hx_bar_no_dir.xlsx", "hx_bar.xlsx", [rule(["direction"])], "no c:barDir: openpyxl default col")
    case("direction_bar3d_horizontal", "hx_bar3d_horizontal.xlsx", "hx_bar_horizontal.xlsx", [rule(["direction"])], "bar3D bar vs bar bar")
    case("direction_line_result", "hx_plain.xlsx", "hx_bar.xlsx", [rule(["direction"])], "line chart in the result: raises")
    case("direction_no_charts", "hx_no_chart.xlsx", "guigym_no_chart.xlsx", [rule(["direction", "anchor"])],
         "no charts: nothing to raise on")
    # ---------------------------------------------------------------- chart space
    case("chart_without_chart_element", "hx_no_chart_element.xlsx", "hx_no_chart.xlsx", [rule(["type"])],
         "chartSpace without c:chart: TypeError, openpyxl skips the chart")
    case("chart_empty_plot_area_result", "hx_empty_plot_area.xlsx", "hx_plain.xlsx", [rule(["type"])],
         "plot area without a chart type: IndexError in read_chart, the result does not load")
    case("chart_empty_plot_area_expected", "hx_plain.xlsx", "hx_empty_plot_area.xlsx", [rule(["type"])],
         "the same in the expected file: OSWorld raises")
    case("chart_part_missing_expected", "hx_plain.xlsx", "hx_missing_chart_part.xlsx", [rule(["type"])],
         "the drawing points at a chart part not in the zip: KeyError")
    # ---------------------------------------------------------------- anchors
    case("anchor_edit_as_none_vs_onecell", "hx_anchor_two_plain.xlsx", "hx_anchor_two_oncell.xlsx", [rule(["anchor"])],
         "editAs absent (None) vs oneCell")
    case("anchor_from_row_ignored", "hx_anchor_two_plain.xlsx", "hx_anchor_two_other_from_row.xlsx", [rule(["anchor"])],
         "OSWorld takes _from.col, to.row, to.col, to.row: the start row is never compared")
    case("anchor_one_cell_raises", "hx_anchor_one.xlsx", "hx_anchor_two_plain.xlsx", [rule(["anchor"])],
         "oneCellAnchor has no editAs/to: raises")
    case("anchor_absolute_raises", "hx_anchor_two_plain.xlsx", "hx_anchor_abs.xlsx", [rule(["anchor", "title"])],
         "absoluteAnchor in the expected file: raises")
    case("anchor_kinds_other_props", "hx_anchor_one.xlsx", "hx_anchor_abs.xlsx", [rule(["title", "legend", "type", "width", "height"])],
         "one-cell vs absolute anchors, anchor not asked")
    case("anchor_mixed_same_key", "hx_anchor_mixed_same_key.xlsx", "hx_single_second.xlsx", [rule(["title"])],
         "twoCell 'Two', oneCell 'One', absolute 'Abs' with one key: read absolute, oneCell, twoCell; twoCell wins -> 'Two' vs 'Second'")
    case("anchor_abs_one_same_key", "hx_anchor_abs_one_same_key.xlsx", "hx_single_one.xlsx", [rule(["title"])],
         "oneCell 'One' then absolute 'Abs' in the document: absolute read first, so 'One' wins")
    case("two_charts_same_key_later_wins", "hx_two_charts_same_key.xlsx", "hx_single_second.xlsx", [rule(["title"])],
         "two two-cell charts with one key: the later one's title")
    case("two_charts_order_free", "hx_two_charts_ab.xlsx", "hx_two_charts_ba.xlsx", [rule(["title", "type"])],
         "two charts with other keys, other anchors and order: compared as a dict")
    case("chart_beside_textbox", "hx_chart_and_textbox.xlsx", "hx_sales.xlsx", [rule(["title", "anchor"])],
         "a text box shape anchored before the chart")
    # ---------------------------------------------------------------- sheets
    case("sheet2_by_int", "hx_sheet2_chart.xlsx", "hx_sheet2_chart.xlsx", [rule(["title"], 1, "EI1")], "chart on Sheet2")
    case("sheet_negative_index", "hx_sheet1_chart_sheet2_other.xlsx", "hx_sheet2_chart.xlsx", [rule(["title", "type"], "RI-1", "EI-1")],
         "RI-1 / EI-1: the last sheet (Python index)")
    case("sheet_negative_int", "hx_sheet1_chart_sheet2_other.xlsx", "hx_sheet1_chart_sheet2_other.xlsx", [rule(["type"], -1, "EI1")],
         "int -1 is the last result sheet")
    case("sheet_out_of_range_both", "hx_sales.xlsx", "hx_plain.xlsx", [rule(["title"], 5, "EI5")],
         "both indices out of range: {} == {}")
    case("sheet_out_of_range_one", "hx_sales.xlsx", "hx_sales.xlsx", [rule(["title"], "RI3", "EI0")], "one side out of range")
    case("sheet_missing_name_vs_empty", "hx_sales.xlsx", "hx_sheet2_chart.xlsx", [rule(["title"], "RNNope", "ENSheet1")],
         "missing sheet name: no charts; Sheet1 of the expected has none")
    case("sheet_name_case", "hx_sales.xlsx", "hx_sales.xlsx", [rule(["title"], "RNsheet1", "ENSheet1")],
         "sheet names are case-sensitive")
    case("sheet_name_escaped", "hx_sheet_named.xlsx", "hx_sales.xlsx", [rule(["title"], "RNData & more", "EI0")],
         "sheet name with '&' (escaped in workbook.xml)")
    case("sheet_other_sheet_broken_result", "hx_broken_chart_on_sheet2.xlsx", "hx_sales.xlsx", [rule(["title"])],
         "a chart on Sheet2 has an empty plot area: openpyxl loads every sheet's charts, the result does not load")
    case("sheet_other_sheet_broken_expected", "hx_sales.xlsx", "hx_broken_chart_on_sheet2.xlsx", [rule(["title"])],
         "the same in the expected file")
    case("sheet_other_sheet_bad_legend_result", "hx_bad_legend_on_sheet2.xlsx", "hx_sales.xlsx", [rule(["title"])],
         "<c:legendPos/> on Sheet2's chart: the result does not load")
    # ---------------------------------------------------------------- workbook / rules
    case("result_not_a_workbook", "hx_not_a_workbook.xlsx", "hx_sales.xlsx", [rule(["title"])], "a text file named .xlsx")
    case("result_missing", None, "hx_sales.xlsx", [rule(["title"])], "no result file")
    case("props_absent", "hx_sales.xlsx", "hx_plain.xlsx", [rule()], "no chart_props: only the keys")
    case("props_empty", "hx_three_series.xlsx", "hx_plain.xlsx", [rule([])], "empty chart_props, other keys")
    case("props_all_including_direction", "hx_bar.xlsx", "hx_bar_no_dir.xlsx", [rule(ALL + ["direction", "anchor"])],
         "every property on two bar charts")
    case("sheet_data_and_chart_pass", "hx_sales.xlsx", "hx_sales.xlsx",
         [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}, rule(["title", "type"])], "data then chart, both equal")
    case("sheet_data_fails_first", "hx_other_data.xlsx", "hx_sales.xlsx",
         [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}, rule(["title"])], "data differs, chart equal")
    case("chart_then_sheet_name", "lo_line.xlsx", "ox_line_lo.xlsx",
         [rule(["type", "title"]), {"type": "sheet_name"}, {"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}],
         "chart, sheet names and data of LibreOffice vs openpyxl")


def main():
    os.makedirs(FILES, exist_ok=True)
    for f in COMMITTED:
        assert os.path.exists(os.path.join(FILES, f)), "committed input missing: " + f
    keep = set(COMMITTED)
    for f in os.listdir(FILES):
        if f not in keep:
            os.remove(os.path.join(FILES, f))
    gen_openpyxl()
    gen_by_hand()
    cases()
    used = {c[k] for c in CASES for k in ("result", "expected") if c[k]}
    assert keep <= used, sorted(keep - used)
    for f in sorted(set(os.listdir(FILES)) - used):
        os.remove(os.path.join(FILES, f))  # written, but no case uses it
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(len(CASES), "cases")


if __name__ == "__main__":
    main()

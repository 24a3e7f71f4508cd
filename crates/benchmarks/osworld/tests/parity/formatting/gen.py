"""Writes the formatting parity cases (`is_first_line_centered`): small docx files written by
hand, each a variation on where a document's first paragraph gets its alignment.

Run from anywhere; it writes `files/` and `cases.json` beside itself. Plain Python, no
dependencies; the zip entries carry a fixed date, so the output is byte-identical.
"""
import json
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                 '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                 '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                 '<Default Extension="xml" ContentType="application/xml"/>'
                 '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                 '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
                 '</Types>')
RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
        '</Relationships>')
DOC_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
            '</Relationships>')
STYLES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
          '<w:styles xmlns:w="%s"><w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/>'
          '<w:pPr><w:jc w:val="center"/></w:pPr></w:style></w:styles>' % W)


def p(text, ppr=""):
    run = '<w:r><w:t xml:space="preserve">%s</w:t></w:r>' % text if text else ""
    return "<w:p>%s%s</w:p>" % (ppr, run)


def jc(value):
    return '<w:pPr><w:jc w:val="%s"/></w:pPr>' % value


def docx(name, body, prefix="w"):
    document = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<%s:document xmlns:%s="%s"><%s:body>%s</%s:body></%s:document>'
                % (prefix, prefix, W, prefix, body.replace("w:", prefix + ":"), prefix, prefix))
    with zipfile.ZipFile(os.path.join(FILES, name), "w", zipfile.ZIP_DEFLATED) as z:
        for part, text in [("[Content_Types].xml", CONTENT_TYPES), ("_rels/.rels", RELS),
                           ("word/_rels/document.xml.rels", DOC_RELS), ("word/styles.xml", STYLES),
                           ("word/document.xml", document)]:
            info = zipfile.ZipInfo(part, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)


BODY = p("The body of the letter.") + p("Kind regards,")
DOCS = {
    "centered.docx": p("Report on the river", jc("center")) + BODY,
    "left.docx": p("Report on the river", jc("left")) + BODY,
    "right.docx": p("Report on the river", jc("right")) + BODY,
    "justified.docx": p("Report on the river", jc("both")) + BODY,
    "distributed.docx": p("Report on the river", jc("distribute")) + BODY,
    "plain.docx": p("Report on the river") + BODY,
    "second_centered.docx": p("Report on the river") + p("The body of the letter.", jc("center")),
    "empty_first_centered.docx": p("", jc("center")) + BODY,
    "style_centered.docx": p("Report on the river", '<w:pPr><w:pStyle w:val="Title"/></w:pPr>') + BODY,
    "style_and_left.docx": p("Report on the river", '<w:pPr><w:pStyle w:val="Title"/><w:jc w:val="left"/></w:pPr>') + BODY,
    "table_then_centered.docx": ('<w:tbl><w:tr><w:tc>%s</w:tc></w:tr></w:tbl>' % p("In a cell")) + p("Report", jc("center")) + BODY,
    "run_level_only.docx": '<w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Report</w:t></w:r></w:p>' + BODY,
    "other_prefix_centered.docx": p("Report on the river", jc("center")) + BODY,
    "sdt_first_centered.docx": ('<w:sdt><w:sdtContent>%s</w:sdtContent></w:sdt>' % p("Inside a control")) + p("Report", jc("center")),
}


def main():
    os.makedirs(FILES, exist_ok=True)
    for name, body in sorted(DOCS.items()):
        docx(name, body, prefix="x" if name.startswith("other_prefix") else "w")
    with open(os.path.join(FILES, "not_a_docx.docx"), "w") as f:
        f.write("plain text, not a zip\n")
    cases = [{"name": name[:-5], "func": "is_first_line_centered", "result": name, "expected": None, "options": {}, "expected_as": "absent"}
             for name in sorted(DOCS)]
    cases.append({"name": "not_a_docx", "func": "is_first_line_centered", "result": "not_a_docx.docx", "expected": None, "options": {}, "expected_as": "absent"})
    cases.append({"name": "missing", "func": "is_first_line_centered", "result": None, "expected": None, "options": {}, "expected_as": "absent"})
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

//! Small office files written from data: a workbook from rows, a document from paragraphs.
//! Our catalogue's tasks start from such files and compare the agent's file with one made
//! the same way at evaluation time (so no answer file sits on disk during the episode).
//! Only the parts every reader needs are written; LibreOffice, calamine and OSWorld's
//! Python readers all open them.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn package<N: AsRef<str>>(path: &Path, parts: &[(N, String)]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in parts {
        zip.start_file(name.as_ref(), options).map_err(|e| format!("{}: {e}", path.display()))?;
        zip.write_all(text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    zip.finish().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

const XML: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;
const REL_DOC: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";

fn content_types(main: (&str, &str), more: &[(&str, &str)]) -> String {
    let overrides: String =
        std::iter::once(main).chain(more.iter().copied()).map(|(part, kind)| format!(r#"<Override PartName="{part}" ContentType="{kind}"/>"#)).collect();
    format!(
        r#"{XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>{overrides}</Types>"#
    )
}

fn relationships(rels: &[(&str, &str)]) -> String {
    let items: String =
        rels.iter().enumerate().map(|(i, (kind, target))| format!(r#"<Relationship Id="rId{}" Type="{kind}" Target="{target}"/>"#, i + 1)).collect();
    format!(r#"{XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{items}</Relationships>"#)
}

/// A column's letters (0 → A, 26 → AA).
fn column(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.insert(0, (b'A' + (i % 26) as u8) as char);
        if i < 26 {
            return s;
        }
        i = i / 26 - 1;
    }
}

/// A one-sheet workbook (`Sheet1`) holding `rows`: strings as text, numbers as numbers,
/// `null` or `""` as an empty cell.
pub fn write_xlsx(path: &Path, rows: &[Vec<Value>]) -> Result<(), String> {
    let mut data = String::new();
    for (r, row) in rows.iter().enumerate() {
        data.push_str(&format!(r#"<row r="{}">"#, r + 1));
        for (c, value) in row.iter().enumerate() {
            let at = format!("{}{}", column(c), r + 1);
            match value {
                Value::Number(n) => data.push_str(&format!(r#"<c r="{at}"><v>{n}</v></c>"#)),
                Value::String(s) if !s.is_empty() => {
                    data.push_str(&format!(r#"<c r="{at}" t="inlineStr"><is><t xml:space="preserve">{}</t></is></c>"#, escape(s)))
                }
                Value::Bool(b) => data.push_str(&format!(r#"<c r="{at}" t="b"><v>{}</v></c>"#, u8::from(*b))),
                _ => {}
            }
        }
        data.push_str("</row>");
    }
    let main = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml";
    let sheet = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml";
    package(
        path,
        &[
            ("[Content_Types].xml", content_types(("/xl/workbook.xml", main), &[("/xl/worksheets/sheet1.xml", sheet)])),
            ("_rels/.rels", relationships(&[(REL_DOC, "xl/workbook.xml")])),
            (
                "xl/workbook.xml",
                format!(
                    r#"{XML}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#
                ),
            ),
            (
                "xl/_rels/workbook.xml.rels",
                relationships(&[("http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet", "worksheets/sheet1.xml")]),
            ),
            (
                "xl/worksheets/sheet1.xml",
                format!(r#"{XML}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{data}</sheetData></worksheet>"#),
            ),
        ],
    )
}

/// A paragraph of a document we write: its text and, where set, its alignment (`center`,
/// `right`, `both`: OOXML's `w:jc` values). Written in task files as a plain string when it
/// has no alignment.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum Paragraph {
    Plain(String),
    Aligned { text: String, align: String },
}

impl Paragraph {
    fn text(&self) -> &str {
        match self {
            Paragraph::Plain(text) | Paragraph::Aligned { text, .. } => text,
        }
    }
}

impl From<&str> for Paragraph {
    fn from(text: &str) -> Paragraph {
        Paragraph::Plain(text.to_string())
    }
}

/// A document of paragraphs.
pub fn write_docx(path: &Path, paragraphs: &[Paragraph]) -> Result<(), String> {
    let body: String = paragraphs
        .iter()
        .map(|p| {
            let properties = match p {
                Paragraph::Aligned { align, .. } => format!(r#"<w:pPr><w:jc w:val="{}"/></w:pPr>"#, escape(align)),
                Paragraph::Plain(_) => String::new(),
            };
            let run = if p.text().is_empty() { String::new() } else { format!(r#"<w:r><w:t xml:space="preserve">{}</w:t></w:r>"#, escape(p.text())) };
            format!("<w:p>{properties}{run}</w:p>")
        })
        .collect();
    let main = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";
    package(
        path,
        &[
            ("[Content_Types].xml", content_types(("/word/document.xml", main), &[])),
            ("_rels/.rels", relationships(&[(REL_DOC, "word/document.xml")])),
            (
                "word/document.xml",
                format!(r#"{XML}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}</w:body></w:document>"#),
            ),
        ],
    )
}

/// One slide of a deck we write: a title and bullet lines under it.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct SlideText {
    pub title: String,
    #[serde(default)]
    pub body: Vec<String>,
}

const NS_P: &str = r#"xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main""#;
const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const GROUP: &str = r#"<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>"#;

/// A placeholder shape: `kind` is the `<p:ph>` element, `geometry` the shape's own frame
/// (empty on slides, which inherit the layout's), `paragraphs` its text.
fn placeholder_shape(id: usize, name: &str, kind: &str, geometry: &str, paragraphs: &[String]) -> String {
    let body: String = if paragraphs.is_empty() {
        "<a:p/>".into()
    } else {
        paragraphs.iter().map(|t| format!(r#"<a:p><a:r><a:rPr lang="en-US"/><a:t>{}</a:t></a:r></a:p>"#, escape(t))).collect()
    };
    format!(
        r#"<p:sp><p:nvSpPr><p:cNvPr id="{id}" name="{name}"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr>{kind}</p:nvPr></p:nvSpPr><p:spPr>{geometry}</p:spPr><p:txBody><a:bodyPr/><a:lstStyle/>{body}</p:txBody></p:sp>"#
    )
}

fn frame(x: i64, y: i64, cx: i64, cy: i64) -> String {
    format!(r#"<a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm>"#)
}

/// The theme every deck needs: Office's colour slots, one font, the three plain styles each
/// list must hold.
fn theme() -> String {
    let colours: String = [("dk1", "000000"), ("lt1", "FFFFFF"), ("dk2", "1F497D"), ("lt2", "EEECE1"), ("accent1", "4F81BD"), ("accent2", "C0504D")]
        .iter()
        .chain(&[("accent3", "9BBB59"), ("accent4", "8064A2"), ("accent5", "4BACC6"), ("accent6", "F79646"), ("hlink", "0000FF"), ("folHlink", "800080")])
        .map(|(slot, rgb)| format!(r#"<a:{slot}><a:srgbClr val="{rgb}"/></a:{slot}>"#))
        .collect();
    let font = r#"<a:latin typeface="Liberation Sans"/><a:ea typeface=""/><a:cs typeface=""/>"#;
    let fill = r#"<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>"#;
    let three = |s: &str| s.repeat(3);
    format!(
        r#"{XML}<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="guigym"><a:themeElements><a:clrScheme name="guigym">{colours}</a:clrScheme><a:fontScheme name="guigym"><a:majorFont>{font}</a:majorFont><a:minorFont>{font}</a:minorFont></a:fontScheme><a:fmtScheme name="guigym"><a:fillStyleLst>{fills}</a:fillStyleLst><a:lnStyleLst>{lines}</a:lnStyleLst><a:effectStyleLst>{effects}</a:effectStyleLst><a:bgFillStyleLst>{fills}</a:bgFillStyleLst></a:fmtScheme></a:themeElements></a:theme>"#,
        fills = three(fill),
        lines = three(&format!(r#"<a:ln w="9525">{fill}</a:ln>"#)),
        effects = three("<a:effectStyle><a:effectLst/></a:effectStyle>"),
    )
}

/// A 4:3 deck of title-and-content slides: one master, one layout, one theme, as python-pptx
/// and LibreOffice expect of a presentation.
pub fn write_pptx(path: &Path, slides: &[SlideText]) -> Result<(), String> {
    let title_ph = r#"<p:ph type="title"/>"#;
    // A text body and a `tx` layout, not python-pptx's `obj` ones: LibreOffice gives a new
    // slide after an `obj` slide an object frame, which takes no typed text.
    let body_ph = r#"<p:ph type="body" idx="1"/>"#;
    let (title_frame, body_frame) = (frame(457200, 274638, 8229600, 1143000), frame(457200, 1600200, 8229600, 4525963));
    let placeholders = |kinds: (&str, &str)| {
        format!("{}{}", placeholder_shape(2, "Title 1", kinds.0, &title_frame, &[]), placeholder_shape(3, "Content Placeholder 2", kinds.1, &body_frame, &[]))
    };
    let colour_map = r#"<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>"#;
    let master = format!(
        r#"{XML}<p:sldMaster {NS_P}><p:cSld><p:spTree>{GROUP}{}</p:spTree></p:cSld>{colour_map}<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>"#,
        placeholders((r#"<p:ph type="title"/>"#, r#"<p:ph type="body" idx="1"/>"#))
    );
    let layout = format!(
        r#"{XML}<p:sldLayout {NS_P} type="tx" preserve="1"><p:cSld name="Title and Text"><p:spTree>{GROUP}{}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>"#,
        placeholders((title_ph, body_ph))
    );
    let slide = |s: &SlideText| {
        format!(
            r#"{XML}<p:sld {NS_P}><p:cSld><p:spTree>{GROUP}{}{}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>"#,
            placeholder_shape(2, "Title 1", title_ph, "", std::slice::from_ref(&s.title)),
            placeholder_shape(3, "Content Placeholder 2", body_ph, "", &s.body)
        )
    };
    let kind = |k: &str| format!("application/vnd.openxmlformats-officedocument.presentationml.{k}+xml");
    let slide_kind = kind("slide");
    let mut types: Vec<(String, String)> = vec![
        ("/ppt/slideMasters/slideMaster1.xml".into(), kind("slideMaster")),
        ("/ppt/slideLayouts/slideLayout1.xml".into(), kind("slideLayout")),
        ("/ppt/theme/theme1.xml".into(), "application/vnd.openxmlformats-officedocument.theme+xml".into()),
    ];
    types.extend((1..=slides.len()).map(|i| (format!("/ppt/slides/slide{i}.xml"), slide_kind.clone())));
    let type_refs: Vec<(&str, &str)> = types.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let mut presentation_rels: Vec<(String, String)> =
        vec![(format!("{REL}/slideMaster"), "slideMasters/slideMaster1.xml".into()), (format!("{REL}/theme"), "theme/theme1.xml".into())];
    presentation_rels.extend((1..=slides.len()).map(|i| (format!("{REL}/slide"), format!("slides/slide{i}.xml"))));
    let rel_refs: Vec<(&str, &str)> = presentation_rels.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let slide_ids: String = (0..slides.len()).map(|i| format!(r#"<p:sldId id="{}" r:id="rId{}"/>"#, 256 + i, i + 3)).collect();
    let mut parts: Vec<(String, String)> = vec![
        ("[Content_Types].xml".into(), content_types(("/ppt/presentation.xml", &kind("presentation.main")), &type_refs)),
        ("_rels/.rels".into(), relationships(&[(REL_DOC, "ppt/presentation.xml")])),
        (
            "ppt/presentation.xml".into(),
            format!(
                r#"{XML}<p:presentation {NS_P}><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst>{slide_ids}</p:sldIdLst><p:sldSz cx="9144000" cy="6858000" type="screen4x3"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>"#
            ),
        ),
        ("ppt/_rels/presentation.xml.rels".into(), relationships(&rel_refs)),
        ("ppt/slideMasters/slideMaster1.xml".into(), master),
        (
            "ppt/slideMasters/_rels/slideMaster1.xml.rels".into(),
            relationships(&[(&format!("{REL}/slideLayout"), "../slideLayouts/slideLayout1.xml"), (&format!("{REL}/theme"), "../theme/theme1.xml")]),
        ),
        ("ppt/slideLayouts/slideLayout1.xml".into(), layout),
        ("ppt/slideLayouts/_rels/slideLayout1.xml.rels".into(), relationships(&[(&format!("{REL}/slideMaster"), "../slideMasters/slideMaster1.xml")])),
        ("ppt/theme/theme1.xml".into(), theme()),
    ];
    for (i, s) in slides.iter().enumerate() {
        parts.push((format!("ppt/slides/slide{}.xml", i + 1), slide(s)));
        parts
            .push((format!("ppt/slides/_rels/slide{}.xml.rels", i + 1), relationships(&[(&format!("{REL}/slideLayout"), "../slideLayouts/slideLayout1.xml")])));
    }
    package(path, &parts)
}

/// The rows of a `write_table` step or a `table_file` getter.
pub fn rows_param(value: &Value) -> Option<Vec<Vec<Value>>> {
    value.as_array()?.iter().map(|row| row.as_array().cloned()).collect()
}

/// The paragraphs of a `write_document` step or a `document_file` getter.
pub fn paragraphs_param(value: &Value) -> Option<Vec<Paragraph>> {
    serde_json::from_value(value.clone()).ok()
}

/// The slides of a `write_presentation` step or a `presentation_file` getter.
pub fn slides_param(value: &Value) -> Option<Vec<SlideText>> {
    serde_json::from_value(value.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_files_read_back_through_our_metrics() {
        let dir = std::env::temp_dir().join(format!("guigym-office-{}", std::process::id()));
        let rows: Vec<Vec<Value>> = vec![vec![json!("Item"), json!("Qty")], vec![json!("maple & co"), json!(3)], vec![json!("ember"), json!(2.5)]];
        let (a, b) = (dir.join("a.xlsx"), dir.join("b.xlsx"));
        write_xlsx(&a, &rows).unwrap();
        write_xlsx(&b, &rows).unwrap();
        let rules = json!({"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]});
        let run = |x: &Path, y: &Path, f: &str, o: &Value| {
            crate::metrics::run(f, &crate::metrics::Got::File(x.into()), &crate::metrics::Got::File(y.into()), o).unwrap()
        };
        assert_eq!(run(&a, &b, "compare_table", &rules), 1.0);
        let mut other = rows.clone();
        other[2][1] = json!(2);
        write_xlsx(&b, &other).unwrap();
        assert_eq!(run(&a, &b, "compare_table", &rules), 0.0);
        let (c, d) = (dir.join("c.docx"), dir.join("d.docx"));
        write_docx(&c, &["Dear Ann,".into(), "".into(), "See you <soon>.".into()]).unwrap();
        write_docx(&d, &[Paragraph::Aligned { text: "Dear Ann,".into(), align: "center".into() }, "See you <soon>.".into()]).unwrap();
        assert_eq!(run(&c, &d, "compare_docx_files", &json!({})), 1.0);
        assert_eq!(run(&c, &d, "compare_docx_files", &json!({"ignore_blanks": false})), 0.0);
        assert_eq!(run(&d, &c, "is_first_line_centered", &json!({})), 1.0);
        assert_eq!(run(&c, &d, "is_first_line_centered", &json!({})), 0.0);
        let slides = |titles: &[&str]| -> Vec<SlideText> {
            titles.iter().map(|t| SlideText { title: t.to_string(), body: vec![format!("About {t} & more")] }).collect()
        };
        let (e, f) = (dir.join("e.pptx"), dir.join("f.pptx"));
        write_pptx(&e, &slides(&["Agenda", "Goals", "Risks"])).unwrap();
        write_pptx(&f, &slides(&["Agenda", "Goals", "Risks"])).unwrap();
        assert_eq!(run(&e, &f, "compare_pptx_files", &json!({})), 1.0);
        write_pptx(&f, &slides(&["Goals", "Agenda", "Risks"])).unwrap();
        assert_eq!(run(&e, &f, "compare_pptx_files", &json!({})), 0.0);
        write_pptx(&f, &slides(&["Agenda", "Goals"])).unwrap();
        assert_eq!(run(&e, &f, "compare_pptx_files", &json!({})), 0.0);
        assert_eq!(column(0), "A");
        assert_eq!(column(27), "AB");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

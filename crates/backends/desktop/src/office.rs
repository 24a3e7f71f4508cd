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

fn package(path: &Path, parts: &[(&str, String)]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in parts {
        zip.start_file(*name, options).map_err(|e| format!("{}: {e}", path.display()))?;
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

/// A document of plain paragraphs.
pub fn write_docx(path: &Path, paragraphs: &[String]) -> Result<(), String> {
    let body: String = paragraphs
        .iter()
        .map(|p| if p.is_empty() { "<w:p/>".to_string() } else { format!(r#"<w:p><w:r><w:t xml:space="preserve">{}</w:t></w:r></w:p>"#, escape(p)) })
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

/// The rows of a `write_table` step or a `table_file` getter.
pub fn rows_param(value: &Value) -> Option<Vec<Vec<Value>>> {
    value.as_array()?.iter().map(|row| row.as_array().cloned()).collect()
}

/// The paragraphs of a `write_document` step or a `document_file` getter.
pub fn paragraphs_param(value: &Value) -> Option<Vec<String>> {
    value.as_array()?.iter().map(|p| p.as_str().map(String::from)).collect()
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
        write_docx(&c, &["Dear Ann,".into(), String::new(), "See you <soon>.".into()]).unwrap();
        write_docx(&d, &["Dear Ann,".into(), "See you <soon>.".into()]).unwrap();
        assert_eq!(run(&c, &d, "compare_docx_files", &json!({})), 1.0);
        assert_eq!(run(&c, &d, "compare_docx_files", &json!({"ignore_blanks": false})), 0.0);
        assert_eq!(column(0), "A");
        assert_eq!(column(27), "AB");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

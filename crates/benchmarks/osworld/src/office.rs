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

pub(crate) fn package<N: AsRef<str>>(path: &Path, parts: &[(N, String)]) -> Result<(), String> {
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

/// A chart on `Sheet1` of a workbook we write: one chart type, its title, its series.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct Chart {
    /// `column`, `bar` (horizontal bars), `line`, `area` or `pie`.
    pub kind: String,
    #[serde(default)]
    pub title: Option<String>,
    pub series: Vec<Series>,
}

/// One series: ranges of `Sheet1` such as `B2:B7` (written as `Sheet1!$B$2:$B$7`, as
/// LibreOffice and Excel write them); `name` is the cell holding the series' name.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct Series {
    #[serde(default)]
    pub name: Option<String>,
    pub categories: String,
    pub values: String,
}

/// `B2:B7` → `Sheet1!$B$2:$B$7`.
fn absolute(range: &str) -> Result<String, String> {
    let cell = |c: &str| -> Result<String, String> {
        let split = c.find(|ch: char| ch.is_ascii_digit()).filter(|&i| i > 0).ok_or_else(|| format!("chart range {range:?}: {c:?} is not a cell"))?;
        let (col, row) = c.split_at(split);
        if !col.chars().all(|ch| ch.is_ascii_uppercase()) || !row.chars().all(|ch| ch.is_ascii_digit()) {
            return Err(format!("chart range {range:?}: {c:?} is not a cell"));
        }
        Ok(format!("${col}${row}"))
    };
    let cells: Result<Vec<String>, String> = range.split(':').map(cell).collect();
    Ok(format!("Sheet1!{}", cells?.join(":")))
}

/// A title as a chart or an axis writes it: one paragraph of one run.
fn chart_title(text: &str) -> String {
    format!(r#"<c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>{}</a:t></a:r></a:p></c:rich></c:tx><c:overlay val="0"/></c:title>"#, escape(text))
}

/// The chart part (`xl/charts/chartN.xml`).
fn chart_part(chart: &Chart) -> Result<String, String> {
    let (element, direction) = match chart.kind.as_str() {
        "column" => ("barChart", Some("col")),
        "bar" => ("barChart", Some("bar")),
        "line" => ("lineChart", None),
        "area" => ("areaChart", None),
        "pie" => ("pieChart", None),
        other => return Err(format!("chart kind {other:?}: one of column, bar, line, area, pie")),
    };
    let mut series = String::new();
    for (i, s) in chart.series.iter().enumerate() {
        let name = match &s.name {
            Some(cell) => format!("<c:tx><c:strRef><c:f>{}</c:f></c:strRef></c:tx>", absolute(cell)?),
            None => String::new(),
        };
        series.push_str(&format!(
            r#"<c:ser><c:idx val="{i}"/><c:order val="{i}"/>{name}<c:cat><c:strRef><c:f>{}</c:f></c:strRef></c:cat><c:val><c:numRef><c:f>{}</c:f></c:numRef></c:val></c:ser>"#,
            absolute(&s.categories)?,
            absolute(&s.values)?
        ));
    }
    let pie = element == "pieChart";
    let head = match (direction, pie) {
        (Some(d), _) => format!(r#"<c:barDir val="{d}"/><c:grouping val="clustered"/><c:varyColors val="0"/>"#),
        (None, true) => r#"<c:varyColors val="1"/>"#.to_string(),
        (None, false) => r#"<c:grouping val="standard"/><c:varyColors val="0"/>"#.to_string(),
    };
    let (axis_ids, axes) = if pie {
        (String::new(), String::new())
    } else {
        let (cat_pos, val_pos) = if direction == Some("bar") { ("l", "b") } else { ("b", "l") };
        (
            r#"<c:axId val="1001"/><c:axId val="1002"/>"#.to_string(),
            format!(
                r#"<c:catAx><c:axId val="1001"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/><c:axPos val="{cat_pos}"/><c:crossAx val="1002"/></c:catAx><c:valAx><c:axId val="1002"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/><c:axPos val="{val_pos}"/><c:crossAx val="1001"/></c:valAx>"#
            ),
        )
    };
    let title = chart.title.as_deref().map(chart_title).unwrap_or_default();
    Ok(format!(
        r#"{XML}<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><c:chart>{title}<c:autoTitleDeleted val="0"/><c:plotArea><c:layout/><c:{element}>{head}{series}{axis_ids}</c:{element}>{axes}</c:plotArea><c:legend><c:legendPos val="r"/><c:overlay val="0"/></c:legend><c:plotVisOnly val="1"/></c:chart></c:chartSpace>"#
    ))
}

/// The sheet's drawing: each chart anchored to cells, one below the other, right of the data.
fn drawing_part(charts: usize, first_column: usize) -> String {
    let anchors: String = (0..charts)
        .map(|i| {
            let (top, bottom) = (i * 22, i * 22 + 20);
            let (left, right) = (first_column, first_column + 8);
            format!(
                r#"<xdr:twoCellAnchor editAs="oneCell"><xdr:from><xdr:col>{left}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>{top}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from><xdr:to><xdr:col>{right}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>{bottom}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:to><xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="{}" name="Chart {}"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr><xdr:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/></xdr:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rId{}"/></a:graphicData></a:graphic></xdr:graphicFrame><xdr:clientData/></xdr:twoCellAnchor>"#,
                i + 2,
                i + 1,
                i + 1
            )
        })
        .collect();
    format!(
        r#"{XML}<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">{anchors}</xdr:wsDr>"#
    )
}

/// A one-sheet workbook (`Sheet1`) holding `rows`: strings as text, numbers as numbers,
/// `null` or `""` as an empty cell; and `charts` drawn from its cells.
pub fn write_xlsx(path: &Path, rows: &[Vec<Value>], charts: &[Chart]) -> Result<(), String> {
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
    let drawing_type = "application/vnd.openxmlformats-officedocument.drawing+xml";
    let chart_type = "application/vnd.openxmlformats-officedocument.drawingml.chart+xml";
    const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let chart_names: Vec<String> = (1..=charts.len()).map(|i| format!("/xl/charts/chart{i}.xml")).collect();
    let mut types = vec![("/xl/worksheets/sheet1.xml", sheet)];
    if !charts.is_empty() {
        types.push(("/xl/drawings/drawing1.xml", drawing_type));
        types.extend(chart_names.iter().map(|n| (n.as_str(), chart_type)));
    }
    let drawing_ref = if charts.is_empty() { "" } else { r#"<drawing r:id="rId1"/>"# };
    let mut parts: Vec<(String, String)> = vec![
        ("[Content_Types].xml".into(), content_types(("/xl/workbook.xml", main), &types)),
        ("_rels/.rels".into(), relationships(&[(REL_DOC, "xl/workbook.xml")])),
        (
            "xl/workbook.xml".into(),
            format!(
                r#"{XML}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#
            ),
        ),
        ("xl/_rels/workbook.xml.rels".into(), relationships(&[(&format!("{REL}/worksheet"), "worksheets/sheet1.xml")])),
        (
            "xl/worksheets/sheet1.xml".into(),
            format!(
                r#"{XML}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheetData>{data}</sheetData>{drawing_ref}</worksheet>"#
            ),
        ),
    ];
    if !charts.is_empty() {
        let widest = rows.iter().map(Vec::len).max().unwrap_or(0);
        parts.push(("xl/worksheets/_rels/sheet1.xml.rels".into(), relationships(&[(&format!("{REL}/drawing"), "../drawings/drawing1.xml")])));
        parts.push(("xl/drawings/drawing1.xml".into(), drawing_part(charts.len(), widest + 1)));
        let targets: Vec<String> = (1..=charts.len()).map(|i| format!("../charts/chart{i}.xml")).collect();
        let chart_rel = format!("{REL}/chart");
        let rels: Vec<(&str, &str)> = targets.iter().map(|t| (chart_rel.as_str(), t.as_str())).collect();
        parts.push(("xl/drawings/_rels/drawing1.xml.rels".into(), relationships(&rels)));
        for (name, chart) in chart_names.iter().zip(charts) {
            parts.push((name.trim_start_matches('/').to_string(), chart_part(chart)?));
        }
    }
    package(path, &parts)
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

/// The charts of a `write_table` step or a `table_file` getter (none when absent).
pub fn charts_param(value: &Value) -> Option<Vec<Chart>> {
    if value.is_null() {
        return Some(Vec::new());
    }
    serde_json::from_value(value.clone()).ok()
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
        write_xlsx(&a, &rows, &[]).unwrap();
        write_xlsx(&b, &rows, &[]).unwrap();
        let rules = json!({"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]});
        let run = |x: &Path, y: &Path, f: &str, o: &Value| {
            crate::metrics::run(f, &crate::metrics::Got::File(x.into()), &crate::metrics::Got::File(y.into()), o).unwrap()
        };
        assert_eq!(run(&a, &b, "compare_table", &rules), 1.0);
        let mut other = rows.clone();
        other[2][1] = json!(2);
        write_xlsx(&b, &other, &[]).unwrap();
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every chart kind, as the chart rule of `compare_table` reads it back; with
    /// `GUIGYM_CHART_FIXTURE=DIR` the workbooks are also left in DIR (how the parity fixture's
    /// `charts/files/guigym_*.xlsx` were made).
    #[test]
    fn written_charts_read_back_through_the_chart_rule() {
        let dir = std::env::temp_dir().join(format!("guigym-charts-{}", std::process::id()));
        let rows: Vec<Vec<Value>> = vec![vec![json!("Name"), json!("Amount")], vec![json!("Ana"), json!(3)], vec![json!("Ben"), json!(5)]];
        let series = vec![Series { name: Some("B1".into()), categories: "A2:A3".into(), values: "B2:B3".into() }];
        let chart = |kind: &str, title: Option<&str>| Chart { kind: kind.into(), title: title.map(str::to_string), series: series.clone() };
        let rule = |props: &[&str]| json!({"rules": [{"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": props}]});
        let run =
            |x: &Path, y: &Path, o: &Value| crate::metrics::run("compare_table", &crate::metrics::Got::File(x.into()), &crate::metrics::Got::File(y.into()), o);
        let kinds = ["column", "bar", "line", "area", "pie"];
        for kind in kinds {
            let (a, b) = (dir.join(format!("guigym_{kind}.xlsx")), dir.join(format!("guigym_{kind}_untitled.xlsx")));
            write_xlsx(&a, &rows, &[chart(kind, Some("Spending & more"))]).unwrap();
            write_xlsx(&b, &rows, &[chart(kind, None)]).unwrap();
            assert_eq!(run(&a, &a, &rule(&["type", "title", "legend", "anchor", "xtitle", "ytitle"])).unwrap(), 1.0, "{kind}");
            assert_eq!(run(&a, &b, &rule(&["type"])).unwrap(), 1.0, "{kind}");
            assert_eq!(run(&a, &b, &rule(&["type", "title"])).unwrap(), 0.0, "{kind}");
        }
        let none = dir.join("guigym_no_chart.xlsx");
        write_xlsx(&none, &rows, &[]).unwrap();
        let line = dir.join("guigym_line.xlsx");
        assert_eq!(run(&none, &line, &rule(&["type"])).unwrap(), 0.0);
        assert_eq!(run(&dir.join("guigym_column.xlsx"), &line, &rule(&["type"])).unwrap(), 0.0);
        // A bar chart's direction tells columns from bars; a line chart has none (OSWorld raises).
        assert_eq!(run(&dir.join("guigym_column.xlsx"), &dir.join("guigym_bar.xlsx"), &rule(&["type"])).unwrap(), 1.0);
        assert_eq!(run(&dir.join("guigym_column.xlsx"), &dir.join("guigym_bar.xlsx"), &rule(&["direction"])).unwrap(), 0.0);
        assert!(run(&line, &line, &rule(&["direction"])).is_err());
        let other = vec![Series { name: None, categories: "A2:A3".into(), values: "B1:B3".into() }];
        let moved = dir.join("guigym_other_range.xlsx");
        write_xlsx(&moved, &rows, &[Chart { kind: "line".into(), title: Some("Spending & more".into()), series: other }]).unwrap();
        assert_eq!(run(&moved, &line, &rule(&[])).unwrap(), 0.0);
        assert!(write_xlsx(&dir.join("x.xlsx"), &rows, &[chart("donut", None)]).is_err());
        if let Some(out) = std::env::var_os("GUIGYM_CHART_FIXTURE") {
            for e in std::fs::read_dir(&dir).unwrap() {
                let e = e.unwrap();
                std::fs::copy(e.path(), Path::new(&out).join(e.file_name())).unwrap();
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ranges_are_written_as_absolute_references() {
        assert_eq!(column(0), "A");
        assert_eq!(column(27), "AB");
        assert_eq!(absolute("B2:B7").unwrap(), "Sheet1!$B$2:$B$7");
        assert_eq!(absolute("AA10").unwrap(), "Sheet1!$AA$10");
        for bad in ["", "2:B7", "b2:b7", "B:B", "B2x"] {
            assert!(absolute(bad).is_err(), "{bad}");
        }
    }
}

//! PDFs as OSWorld's metrics read them: each page's text as PyMuPDF's `page.get_text()` gives it
//! (MuPDF's structured text: every line's characters inside the page, then a newline), and the
//! number of pages. MuPDF reads them here too, through its command line (`mutool`, Debian's
//! mupdf-tools, which `scripts/setup.sh` installs): the engine OSWorld's text comes from, not a
//! second parser whose lines would fall elsewhere.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::docs::ratio_percent;
use super::python_space;

/// How long MuPDF may take over one file (a hostile PDF must not hold the evaluator).
const MUTOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// The structured text's options PyMuPDF's `get_text()` reads with: ligatures and whitespace
/// kept as they are, characters outside the page's media box dropped.
const STEXT_OPTIONS: &str = "preserve-whitespace,mediabox-clip=yes";

/// A PDF as MuPDF reads it.
pub struct Document {
    /// Each page's text, as PyMuPDF's `page.get_text()`.
    pub pages: Vec<String>,
}

impl Document {
    /// Reads `path`; an error where MuPDF cannot (not a PDF, damaged past repair) or is
    /// missing.
    pub fn read(path: &Path) -> Result<Document, String> {
        let xml = mutool_stext(path)?;
        let xml = String::from_utf8(xml).map_err(|e| format!("{}: MuPDF's text is not UTF-8: {e}", path.display()))?;
        let pages = parse_stext(&without_surrogates(&xml)).map_err(|e| format!("{}: MuPDF's text: {e}", path.display()))?;
        Ok(Document { pages })
    }

    /// The text of every page, one after the other, stripped as OSWorld strips it.
    pub fn text(&self) -> String {
        self.pages.concat().trim_matches(python_space).to_string()
    }
}

/// `mutool convert -F stext` of every page: MuPDF's structured text as XML. (`mutool draw`
/// reads `-O` as rendering options and would extract with its defaults: ligatures split,
/// every space plain.)
fn mutool_stext(path: &Path) -> Result<Vec<u8>, String> {
    let out = super::scratch_path("stext");
    let text = run_mutool(path, &out);
    let _ = std::fs::remove_file(&out);
    text
}

fn run_mutool(path: &Path, out: &Path) -> Result<Vec<u8>, String> {
    let mut child = Command::new("mutool")
        .args(["convert", "-F", "stext", "-O", STEXT_OPTIONS, "-o"])
        .arg(out)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run mutool (Debian's mupdf-tools; scripts/setup.sh installs it): {e}"))?;
    let deadline = Instant::now() + MUTOOL_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{}: MuPDF took more than {} s", path.display(), MUTOOL_TIMEOUT.as_secs()));
            }
            Err(e) => return Err(format!("mutool: {e}")),
        }
    };
    if !status.success() {
        return Err(format!("{}: MuPDF cannot read it ({status})", path.display()));
    }
    std::fs::read(out).map_err(|e| format!("mutool's text: {e}"))
}

/// MuPDF writes a character its font maps to a lone UTF-16 surrogate as that code (`&#xd800;`),
/// which no XML reader takes: each becomes U+FFFD, one character as in Python's text.
fn without_surrogates(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(at) = rest.find("&#") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let Some(end) = tail.find(';') else {
            out.push_str(tail);
            return out;
        };
        let body = &tail[2..end];
        let code = match body.strip_prefix('x').or_else(|| body.strip_prefix('X')) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => body.parse::<u32>().ok(),
        };
        match code {
            Some(c) if (0xd800..=0xdfff).contains(&c) => out.push('\u{fffd}'),
            _ => out.push_str(&tail[..=end]),
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The pages' texts from MuPDF's structured text, as PyMuPDF writes a page's plain text: for
/// each line of each text block, its characters that overlap the page, then a newline unless
/// the last of them is one (or there is none).
fn parse_stext(xml: &str) -> Result<Vec<String>, String> {
    let document = super::xml::parse(xml)?;
    let mut pages = Vec::new();
    for page in document.all("page") {
        let number = |e: &super::xml::Element, name: &str| e.attr(name).and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(0.0);
        let media = [0.0, 0.0, number(page, "width"), number(page, "height")];
        let mut text = String::new();
        for line in page.all("block").flat_map(|b| b.all("line")) {
            let vertical = line.attr("wmode").is_some_and(|w| w.trim() == "1");
            let mut last = None;
            for font in line.all("font") {
                let size = number(font, "size");
                for ch in font.all("char") {
                    let quad: Vec<f64> = ch.attr("quad").unwrap_or_default().split_whitespace().filter_map(|v| v.parse().ok()).collect();
                    let [ulx, uly, urx, ury, llx, lly, lrx, lry] = quad.as_slice() else { continue };
                    let (xs, ys) = ([*ulx, *urx, *llx, *lrx], [*uly, *ury, *lly, *lry]);
                    let mut bbox = [
                        xs.iter().copied().fold(f64::INFINITY, f64::min),
                        ys.iter().copied().fold(f64::INFINITY, f64::min),
                        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                        ys.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    ];
                    // A vertical line's character is at least its font's size tall.
                    if vertical && bbox[3] < bbox[1] + size {
                        bbox[1] = bbox[3] - size;
                    }
                    if overlaps(media, bbox) {
                        let c = ch.attr("c").unwrap_or_default();
                        text.push_str(c);
                        last = c.chars().last();
                    }
                }
            }
            if last.is_some_and(|c| c != '\n' && c != '\0') {
                text.push('\n');
            }
        }
        pages.push(text);
    }
    Ok(pages)
}

/// Whether two boxes share some area (MuPDF's own test: touching edges do not).
fn overlaps(a: [f64; 4], b: [f64; 4]) -> bool {
    !(a[0] >= b[2] || a[1] >= b[3] || a[2] <= b[0] || a[3] <= b[1])
}

/// `compare_pdfs`: for each pair of PDFs, rapidfuzz's ratio of their texts / 100, averaged
/// over the expected ones. A missing result reads as an empty document (PyMuPDF opens `None`
/// so); a file MuPDF cannot read adds 0, as OSWorld's logs and goes on.
pub fn compare_pdfs(results: &[Option<&Path>], expected: &[Option<&Path>]) -> Result<f64, String> {
    if expected.is_empty() {
        return Err("compare_pdfs: no expected PDF (OSWorld divides by their number)".into());
    }
    let text = |file: Option<&Path>| -> Result<String, String> {
        match file {
            None => Ok(String::new()),
            Some(path) => Document::read(path).map(|d| d.text()),
        }
    };
    let mut score = 0.0;
    for (a, b) in results.iter().zip(expected) {
        if let (Ok(a), Ok(b)) = (text(*a), text(*b)) {
            score += ratio_percent(&a, &b) / 100.0;
        }
    }
    Ok(score / expected.len() as f64)
}

/// `check_pdf_pages`: the number of pages against `rules.ref_value` by `rules.relation` (an
/// `operator` function: `eq`, `ne`, `lt`, `le`, `gt`, `ge`). A missing file scores 0.
pub fn check_pdf_pages(file: Option<&Path>, rules: &serde_json::Value) -> Result<f64, String> {
    let relation = rules.get("relation").and_then(serde_json::Value::as_str).ok_or("check_pdf_pages: rules.relation is missing")?;
    let want = rules.get("ref_value").and_then(serde_json::Value::as_f64).ok_or("check_pdf_pages: rules.ref_value must be a number")?;
    let Some(file) = file else { return Ok(0.0) };
    // pypdf raises on a file it cannot read, which escapes OSWorld's evaluate: a 0 here.
    let Ok(document) = Document::read(file) else { return Ok(0.0) };
    let pages = document.pages.len() as f64;
    let holds = match relation {
        "eq" => pages == want,
        "ne" => pages != want,
        "lt" => pages < want,
        "le" => pages <= want,
        "gt" => pages > want,
        "ge" => pages >= want,
        other => return Err(format!("check_pdf_pages: relation \"{other}\" is not one of eq, ne, lt, le, gt, ge")),
    };
    Ok(super::score(holds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surrogate_codes_become_replacement_characters() {
        assert_eq!(without_surrogates("a&#xd800;b&#55296;c&#x41;&amp;"), "a\u{fffd}b\u{fffd}c&#x41;&amp;");
        assert_eq!(without_surrogates("cut &#x"), "cut &#x");
    }

    #[test]
    fn lines_end_with_a_newline_and_characters_off_the_page_are_dropped() {
        let xml = r#"<document><page id="page1" width="100" height="100">
<block><line wmode="0"><font name="F" size="10">
<char quad="1 1 5 1 1 9 5 9" c="H"/><char quad="5 1 9 1 5 9 9 9" c="i"/>
<char quad="150 1 155 1 150 9 155 9" c="X"/></font></line>
<line wmode="0"><font name="F" size="10"><char quad="1 20 5 20 1 29 5 29" c="&amp;"/></font></line>
</block></page><page id="page2" width="100" height="100"></page></document>"#;
        assert_eq!(parse_stext(xml).unwrap(), vec!["Hi\n&\n".to_string(), String::new()]);
    }
}

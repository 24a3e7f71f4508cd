//! `compare_docx_files`: two word-processor documents (docx, or odt) with the same text, as
//! OSWorld judges it. The text is the body's paragraphs (not tables, headers or tracked
//! insertions); by default whitespace is collapsed across the whole document.

use std::path::Path;

use serde_json::Value;

use super::xml::{Element, Node, Package};
use super::{opt, python_space, score};

/// The body's paragraph texts of a docx: direct `w:p` children of `w:body`, each the text of
/// its direct runs and hyperlinks (tabs as `\t`, line breaks as `\n`).
fn docx_paragraphs(path: &Path) -> Result<Vec<String>, String> {
    let mut package = Package::open(path)?;
    let document = package.xml("word/document.xml")?.ok_or("docx without word/document.xml")?;
    let body = document.child("body").ok_or("docx without a body")?;
    Ok(body.all("p").map(docx_paragraph_text).collect())
}

fn docx_paragraph_text(p: &Element) -> String {
    let mut text = String::new();
    for e in p.elements() {
        match e.name.as_str() {
            "r" => docx_run_text(e, &mut text),
            "hyperlink" => e.all("r").for_each(|r| docx_run_text(r, &mut text)),
            _ => {}
        }
    }
    text
}

fn docx_run_text(r: &Element, out: &mut String) {
    for e in r.elements() {
        match e.name.as_str() {
            "t" => out.push_str(&e.own_text()),
            "tab" | "ptab" => out.push('\t'),
            // Page and column breaks are not text; a plain (text-wrapping) break is a newline.
            "br" if matches!(e.attr("type"), None | Some("textWrapping")) => out.push('\n'),
            "cr" => out.push('\n'),
            "noBreakHyphen" => out.push('-'),
            _ => {}
        }
    }
}

/// Every `text:p` of an odt as odfpy finds them, in the order it loads the parts: the content
/// first (tables included), then the styles (headers, footers and the styles' own text), each
/// its direct text plus the direct text of its direct spans.
fn odt_paragraphs(path: &Path) -> Result<Vec<String>, String> {
    let mut package = Package::open(path)?;
    let styles = package.xml("styles.xml")?;
    let content = package.xml("content.xml")?.ok_or("odt without content.xml")?;
    let mut ps = Vec::new();
    content.descendants_all("p", &mut ps);
    if let Some(styles) = &styles {
        styles.descendants_all("p", &mut ps);
    }
    Ok(ps
        .into_iter()
        .map(|p| {
            p.children
                .iter()
                .map(|c| match c {
                    Node::Text(t) => t.clone(),
                    Node::Element(span) if span.name == "span" => span.own_text(),
                    Node::Element(_) => String::new(),
                })
                .collect()
        })
        .collect())
}

/// The extension as OSWorld tests it (`endswith(".docx")`: case matters).
fn extension(path: &Path) -> String {
    path.extension().and_then(|e| e.to_str()).unwrap_or("").to_string()
}

/// Collapses every run of whitespace to one space and trims, as `re.sub(r"\s+", " ", ...)`.
pub(super) fn collapse(text: &str) -> String {
    text.split(python_space).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The length of the longest common subsequence of two texts, in characters: bit-parallel
/// (Hyyrö's), 64 characters of `a` per machine word, as rapidfuzz counts it; a PDF's text of
/// tens of thousands of characters takes milliseconds, not the seconds of a table.
fn common_length(a: &[char], b: &[char]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let words = a.len().div_ceil(64);
    let mut masks: std::collections::HashMap<char, Vec<u64>> = std::collections::HashMap::new();
    for (i, c) in a.iter().enumerate() {
        masks.entry(*c).or_insert_with(|| vec![0; words])[i / 64] |= 1 << (i % 64);
    }
    // A 0 bit in `row` at i: a[i] closes one more character of the common subsequence.
    let mut row = vec![u64::MAX; words];
    for c in b {
        let Some(mask) = masks.get(c) else { continue };
        let mut carry = false;
        for (v, m) in row.iter_mut().zip(mask) {
            let u = *v & m;
            let (sum, c1) = v.overflowing_add(u);
            let (sum, c2) = sum.overflowing_add(u64::from(carry));
            carry = c1 || c2;
            *v = sum | (*v & !m);
        }
    }
    let full = a.len() / 64;
    let zeros: usize = row[..full].iter().map(|w| w.count_zeros() as usize).sum();
    let rest = a.len() % 64;
    zeros + if rest == 0 { 0 } else { (!row[full] & ((1u64 << rest) - 1)).count_ones() as usize }
}

/// rapidfuzz's `fuzz.ratio` / 100: the normalized indel similarity, 2·LCS / (|a| + |b|).
pub(super) fn ratio(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    2.0 * common_length(&a, &b) as f64 / (a.len() + b.len()) as f64
}

/// rapidfuzz's `fuzz.ratio` itself, in its own arithmetic, `(1 - distance / length) * 100`, so
/// that a comparison with a threshold falls as OSWorld's does to the last bit.
pub(super) fn ratio_percent(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let total = a.len() + b.len();
    if total == 0 {
        return 100.0;
    }
    let distance = total - 2 * common_length(&a, &b);
    (1.0 - distance as f64 / total as f64) * 100.0
}

pub fn compare_docx_files(result: Option<&Path>, expected: Option<&Path>, options: &Value) -> Result<f64, String> {
    let ignore_blanks = opt(options, "ignore_blanks", true);
    let ignore_case = opt(options, "ignore_case", false);
    let ignore_order = opt(options, "ignore_order", false);
    let content_only = opt(options, "content_only", false);
    let fuzzy = opt(options, "fuzzy_match", false);
    let delete_empty_lines = opt(options, "delete_empty_lines", false);
    let (Some(a), Some(b)) = (result, expected) else { return Ok(0.0) };
    let (mut p1, mut p2) = match (extension(a).as_str(), extension(b).as_str()) {
        // A file that does not open scores 0, as in OSWorld.
        ("docx", "docx") => match (docx_paragraphs(a), docx_paragraphs(b)) {
            (Ok(x), Ok(y)) => (x, y),
            _ => return Ok(0.0),
        },
        ("odt", "odt") => match (odt_paragraphs(a), odt_paragraphs(b)) {
            (Ok(x), Ok(y)) => (x, y),
            _ => return Ok(0.0),
        },
        _ => return Ok(0.0),
    };
    if delete_empty_lines {
        p1.retain(|p| !p.trim().is_empty());
        p2.retain(|p| !p.trim().is_empty());
    }
    if ignore_order {
        p1.sort();
        p2.sort();
    }
    let fold = |s: String| if ignore_case { s.to_lowercase() } else { s };
    if content_only || ignore_blanks {
        let (t1, t2) = (fold(collapse(&p1.join("\n"))), fold(collapse(&p2.join("\n"))));
        if content_only || fuzzy {
            return Ok(ratio(&t1, &t2));
        }
        return Ok(score(t1 == t2));
    }
    if p1.len() != p2.len() {
        return Ok(0.0);
    }
    if fuzzy {
        if p1.is_empty() {
            return Ok(1.0);
        }
        let n = p1.len() as f64;
        let total: f64 = p1.into_iter().zip(p2).map(|(x, y)| ratio(&fold(x), &fold(y))).sum();
        return Ok(total / n);
    }
    Ok(score(p1.into_iter().zip(p2).all(|(x, y)| fold(x) == fold(y))))
}

/// `is_first_line_centered`: the document's first body paragraph is centred by its own
/// properties (`w:pPr/w:jc` is `center`), as python-docx reads it: an alignment inherited from
/// a style does not count. A file that is not a docx scores 0. A document without paragraphs
/// scores 0 here; OSWorld raises (IndexError) there.
pub fn is_first_line_centered(result: Option<&Path>) -> f64 {
    let Some(path) = result else { return 0.0 };
    let Ok(mut package) = Package::open(path) else { return 0.0 };
    let Ok(Some(document)) = package.xml("word/document.xml") else { return 0.0 };
    let first = document.child("body").and_then(|b| b.all("p").next());
    score(first.and_then(|p| p.path(&["pPr", "jc"])).and_then(|jc| jc.attr("val")) == Some("center"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook table, to hold the bit-parallel count to.
    fn plain_common_length(a: &[char], b: &[char]) -> usize {
        let mut row = vec![0usize; b.len() + 1];
        for ca in a {
            let mut diagonal = 0;
            for (j, cb) in b.iter().enumerate() {
                let above = row[j + 1];
                row[j + 1] = if ca == cb { diagonal + 1 } else { above.max(row[j]) };
                diagonal = above;
            }
        }
        row[b.len()]
    }

    #[test]
    fn the_bit_parallel_common_subsequence_is_the_tables() {
        // A small generator of its own: texts over few letters, across word boundaries.
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
            let (la, lb) = ((next() % 200) as usize, (next() % 200) as usize);
            let alphabet = ['a', 'b', 'c', 'é', ' '];
            let a: Vec<char> = (0..la).map(|_| alphabet[(next() % 5) as usize]).collect();
            let b: Vec<char> = (0..lb).map(|_| alphabet[(next() % 5) as usize]).collect();
            assert_eq!(common_length(&a, &b), plain_common_length(&a, &b), "{a:?} {b:?}");
        }
        let a: Vec<char> = "x".repeat(64).chars().collect();
        assert_eq!(common_length(&a, &a), 64);
    }

    #[test]
    fn odt_paragraphs_come_content_first_as_odfpy_loads_them() {
        let dir = std::env::temp_dir().join(format!("guigym-odt-order-{}", std::process::id()));
        let path = dir.join("header.odt");
        let ns = r#"xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0""#;
        let content =
            format!(r#"<office:document-content {ns}><office:body><office:text><text:p>Bravo</text:p></office:text></office:body></office:document-content>"#);
        let styles = format!(
            r#"<office:document-styles {ns}><office:master-styles><style:master-page style:name="Standard"><style:header><text:p>Alpha</text:p></style:header></style:master-page></office:master-styles></office:document-styles>"#
        );
        crate::office::package(&path, &[("content.xml", content), ("styles.xml", styles)]).unwrap();
        // The header (styles.xml) after the body: "Bravo Alpha", not "Alpha Bravo".
        assert_eq!(odt_paragraphs(&path).unwrap(), vec!["Bravo".to_string(), "Alpha".to_string()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

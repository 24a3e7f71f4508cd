//! XML read the way Python's ElementTree reads it, for the metrics OSWorld wrote against it:
//! an element's tag is `{namespace}local` (`local` alone outside any namespace), attribute
//! names likewise, and `text` is what comes before the first child (`None` when empty).
//! Names then compare exactly as OSWorld's code compares them, which matching by local name
//! (`xml::Element`) would not.

use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tree {
    pub tag: String,
    pub attrib: Vec<(String, String)>,
    pub text: Option<String>,
    pub children: Vec<Tree>,
}

impl Tree {
    /// An attribute by its ElementTree name (`name`, `{http://openoffice.org/2001/registry}path`).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.attrib.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// This element and every element under it, in document order (`Element.iter()`).
    pub fn iter(&self) -> Vec<&Tree> {
        let mut out = vec![self];
        for child in &self.children {
            out.extend(child.iter());
        }
        out
    }

    /// The elements under this one (not itself) with this tag, in document order (`.//tag`).
    pub fn descendants<'a>(&'a self, tag: &'a str) -> impl Iterator<Item = &'a Tree> + 'a {
        self.children.iter().flat_map(Tree::iter).filter(move |t| t.tag == tag)
    }
}

/// `{namespace}local`, as ElementTree names a resolved name; an error for a prefix bound to
/// no namespace.
fn expanded(ns: ResolveResult<'_>, local: &str) -> Result<String, String> {
    match ns {
        ResolveResult::Unbound => Ok(local.to_string()),
        ResolveResult::Bound(ns) => Ok(format!("{{{}}}{local}", ns.as_ref())),
        ResolveResult::Unknown(prefix) => Err(format!("XML: unbound prefix {prefix:?}")),
    }
}

/// Parses a document into its root element; an error where ElementTree would raise (a
/// document that is not well-formed, a prefix bound to no namespace).
pub fn parse(xml: &str) -> Result<Tree, String> {
    // What XML 1.0 does not allow anywhere, as a character or a reference to one.
    let allowed = |c: char| !((c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') || matches!(c, '\u{FFFE}' | '\u{FFFF}'));
    if let Some(bad) = xml.chars().find(|c| !allowed(*c)) {
        return Err(format!("XML: the character U+{:04X} is not allowed", bad as u32));
    }
    let xml_space = |t: &str| t.chars().all(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    let mut reader = NsReader::from_str(xml);
    reader.config_mut().check_comments = true;
    let mut first = true;
    let mut stack: Vec<Tree> = Vec::new();
    let mut root = None;
    // Whether the innermost open element has had a child yet: text after one is its tail.
    let mut text_open = Vec::<bool>::new();
    let append_text = |stack: &mut Vec<Tree>, text_open: &[bool], piece: &str| {
        if let (Some(top), Some(true)) = (stack.last_mut(), text_open.last()) {
            top.text.get_or_insert_with(String::new).push_str(piece);
        }
    };
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(|e| format!("XML: {e}"))?;
        if matches!(event, Event::Decl(_)) && !first {
            return Err("XML: a declaration after the start of the document".into());
        }
        first = false;
        // The element's name, resolved now: the resolution borrows the reader.
        let tag = match &event {
            Event::Start(e) | Event::Empty(e) => Some(expanded(ns, e.local_name().as_ref())),
            _ => None,
        };
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                if stack.is_empty() && root.is_some() {
                    return Err("XML: content after the root element".into());
                }
                let tag = tag.unwrap_or_else(|| Err("XML: an element without a name".into()))?;
                let mut attrib = Vec::new();
                for a in e.attributes() {
                    let a = a.map_err(|err| format!("XML: {err}"))?;
                    let key = a.key.as_ref();
                    if key == "xmlns" || key.starts_with("xmlns:") {
                        continue;
                    }
                    let (ans, local) = reader.resolver().resolve_attribute(a.key);
                    let name = expanded(ans, local.as_ref())?;
                    let value = a.normalized_value(quick_xml::XmlVersion::Implicit1_0).map_err(|err| format!("XML: {err}"))?.into_owned();
                    attrib.push((name, value));
                }
                if let Some(open) = text_open.last_mut() {
                    *open = false;
                }
                let element = Tree { tag, attrib, text: None, children: Vec::new() };
                if matches!(event, Event::Empty(_)) {
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(element),
                        None => root = Some(element),
                    }
                } else {
                    stack.push(element);
                    text_open.push(true);
                }
            }
            Event::End(_) => {
                let done = stack.pop().ok_or("XML: unbalanced end tag")?;
                text_open.pop();
                match stack.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => root = Some(done),
                }
            }
            Event::Text(t) => {
                let text = t.xml10_content().into_owned();
                if stack.is_empty() && !xml_space(&text) {
                    return Err("XML: text outside the root element".into());
                }
                append_text(&mut stack, &text_open, &text);
            }
            Event::CData(_) | Event::GeneralRef(_) if stack.is_empty() => return Err("XML: text outside the root element".into()),
            Event::CData(t) => {
                // Line ends are LF in all of a document, CDATA included (XML 1.0, 2.11).
                let text = t.as_ref().to_string().replace("\r\n", "\n").replace('\r', "\n");
                append_text(&mut stack, &text_open, &text);
            }
            Event::GeneralRef(r) => {
                let text = match r.resolve_char_ref().map_err(|e| format!("XML: {e}"))? {
                    Some(c) if !allowed(c) => return Err(format!("XML: a reference to U+{:04X}, which is not allowed", c as u32)),
                    Some(c) => c.to_string(),
                    None => {
                        quick_xml::escape::resolve_predefined_entity(r.as_ref()).ok_or_else(|| format!("XML: unknown entity &{};", r.as_ref()))?.to_string()
                    }
                };
                append_text(&mut stack, &text_open, &text);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err("XML: unclosed element".into());
    }
    root.ok_or_else(|| "XML: no root element".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_expanded_and_text_is_what_precedes_the_first_child() {
        let tree = parse(
            r#"<?xml version="1.0"?><oor:items xmlns:oor="http://openoffice.org/2001/registry"><item oor:path="/a"><prop oor:name="x"><value>3<!-- c -->0</value></prop></item><item plain="1"/></oor:items>"#,
        )
        .unwrap();
        assert_eq!(tree.tag, "{http://openoffice.org/2001/registry}items");
        let items: Vec<&Tree> = tree.descendants("item").collect();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].get("{http://openoffice.org/2001/registry}path"), Some("/a"));
        assert_eq!(items[0].get("path"), None, "a prefixed attribute is not its local name");
        assert_eq!(items[1].get("plain"), Some("1"));
        assert_eq!(items[0].descendants("value").next().unwrap().text.as_deref(), Some("30"));
        assert_eq!(parse("<a>x<b/>tail</a>").unwrap().text.as_deref(), Some("x"));
        assert_eq!(parse("<a><b/></a>").unwrap().text, None);
        assert_eq!(parse("<a>&lt;&#65;</a>").unwrap().text.as_deref(), Some("<A"));
        for bad in [
            "",
            "<a>",
            "<a></b>",
            "<p:a/>",
            "<a/><b/>",
            "<a/>text",
            " <?xml version=\"1.0\"?><a/>",
            "<a/>\u{a0}",
            "<a/>&amp;",
            "<a>\u{1}</a>",
            "<a>&#1;</a>",
            "<a><!-- x -- y --></a>",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
